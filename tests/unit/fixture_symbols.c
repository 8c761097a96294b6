/* Known functions for the symbol tests; the test reads this program's own
 * ELF file and checks lookups against `nm -n` of the same file. */
#include <stdio.h>

__attribute__((noinline)) int fx_alpha(int x) { return x * 3 + 1; }
__attribute__((noinline)) int fx_beta(int x) { return fx_alpha(x) ^ 0x55; }
__attribute__((noinline)) int fx_gamma(int x) { return fx_beta(x) - 7; }

int main(void)
{
	printf("%d\n", fx_gamma(4));
	return 0;
}
