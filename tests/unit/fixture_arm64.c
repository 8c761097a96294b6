/* An AArch64 image for the CFI tests, built by the cross compiler with
 * frame pointers and asynchronous unwind tables: a leaf that keeps its
 * return address in x30 and never moves sp, a function that saves a frame
 * record, one built without a frame pointer (its CFA from sp), and an
 * entry that calls them. Never run: only its .eh_frame and symbols are
 * read. */
#define NOINLINE __attribute__((noinline, noipa, used))

volatile int a64_sink;

NOINLINE int a64_leaf(int x)
{
	return x * 3 + 1;
}

NOINLINE int a64_mid(int x)
{
	int r = a64_leaf(x);

	a64_sink = r;
	return r + a64_leaf(x + 1);
}

NOINLINE __attribute__((optimize("omit-frame-pointer"))) int a64_nofp(int x)
{
	volatile int buf[32];

	for (int i = 0; i < 32; i++)
		buf[i] = x + i;
	return a64_mid(buf[x & 31]) + buf[3];
}

NOINLINE void _start(void)
{
	a64_sink = a64_nofp(5);
	for (;;)
		;
}
