/* Inlined functions and line tables for the source-line tests: built with
 * -O2 -g, read as an image, never run. The test finds the marked lines in
 * this file, so keep the markers on the lines they mark. */
#include <stdio.h>

static inline __attribute__((always_inline)) unsigned fx_mix(unsigned x)
{
	for (int i = 0; i < 7; i++)
		x = x * 2654435761u + (x >> 13);   /* LINE: mix body */
	return x;
}

static inline __attribute__((always_inline)) unsigned fx_twice(unsigned x)
{
	return fx_mix(x) ^ fx_mix(x + 1);   /* LINE: twice calls mix */
}

__attribute__((noinline)) unsigned fx_outer(unsigned x)
{
	unsigned r = fx_twice(x);   /* LINE: outer calls twice */

	return r + 3;
}

int main(int argc, char **argv)
{
	(void)argv;
	printf("%u\n", fx_outer((unsigned)argc));
	return 0;
}
