/* Buffered output and printf-exact number formatting for the writers
 * (see out_buf.h). */
#include "config.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "output/out_buf.h"

void out_buf_flush(struct out_buf *o)
{
	if (o->n)
		fwrite(o->b, 1, o->n, o->out);
	o->n = 0;
}

void out_buf_put(struct out_buf *o, const char *s, size_t len)
{
	if (len > OUT_BUF_SIZE - o->n) {
		out_buf_flush(o);
		if (len > OUT_BUF_SIZE) {
			fwrite(s, 1, len, o->out);
			return;
		}
	}
	memcpy(o->b + o->n, s, len);
	o->n += len;
}

size_t text_u64(char *out, uint64_t v)
{
	size_t n = 0;

	for (uint64_t r = v; r; r /= 10)
		n++;
	n += n == 0;
	for (size_t i = n; i-- > 0; v /= 10)
		out[i] = (char)('0' + v % 10);
	return n;
}

void out_buf_u64(struct out_buf *o, uint64_t v)
{
	char d[20];

	out_buf_put(o, d, text_u64(d, v));
}

size_t text_hex(char *out, uint64_t v)
{
	size_t n = 0;

	do {
		n++;
	} while (n < 16 && v >> (4 * n));
	for (size_t i = n; i-- > 0; v >>= 4)
		out[i] = "0123456789abcdef"[v & 15];
	return n;
}

/* Below this a scaled value is an exact integer plus an exact fraction. */
#define FIXED_FAST_MAX 1e9

void out_buf_fixed(struct out_buf *o, double v, unsigned decimals)
{
	static const double scale[] = { 1, 10, 100, 1000 };
	static const uint64_t pow10[] = { 1, 10, 100, 1000 };
	double t, whole, frac;
	uint64_t k;

	if (decimals > 3 || !(v >= 0) || v * scale[decimals] >= FIXED_FAST_MAX ||
	    signbit(v))
		goto slow;
	/* printf rounds v's exact value, ties to even. t is v * 10^d
	 * rounded; its fraction is off from the exact one by less than
	 * half a unit of t's last place, which only matters when it is
	 * exactly a half: then fma gives the product's exact remainder. */
	t = v * scale[decimals];
	whole = floor(t);
	frac = t - whole;
	k = (uint64_t)whole;
	if (frac > 0.5) {
		k++;
	} else if (frac == 0.5) {
		double rest = decimals ? fma(v, scale[decimals], -t) : 0;

		if (rest > 0 || (rest == 0 && (k & 1)))
			k++;
	}
	out_buf_u64(o, k / pow10[decimals]);
	if (decimals) {
		char f[4];

		for (unsigned i = decimals; i-- > 0; k /= 10)
			f[i] = (char)('0' + k % 10);
		out_buf_put(o, ".", 1);
		out_buf_put(o, f, decimals);
	}
	return;
slow: {
		char buf[DBL_MAX_10_EXP + 16];   /* every double's digits */
		int n = snprintf(buf, sizeof(buf), "%.*f", (int)decimals, v);

		if (n > 0)
			out_buf_put(o, buf, (size_t)n < sizeof(buf) ?
					    (size_t)n : sizeof(buf) - 1);
	}
}
