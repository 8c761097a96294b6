/* The writers' buffered output: every number as printf writes it (the
 * SVG's bytes must not change with how they are formatted), ties and
 * values past the fast path included, and long writes kept in order. */
#include "config.h"

#include <float.h>
#include <math.h>

#include "output/out_buf.h"
#include "test.h"
#include "uniprof/error.h"

TEST_GLOBALS;

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static uint64_t next_rand(void)
{
	return test_xorshift(&rng);
}

/* v through out_buf_fixed and through printf: the same text. */
static int same_fixed(double v, unsigned decimals)
{
	char want[DBL_MAX_10_EXP + 16], *got = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&got, &len);
	struct out_buf *o = malloc(sizeof(*o));
	int same;

	if (!f || !o) {
		free(o);
		return 0;
	}
	out_buf_init(o, f);
	out_buf_fixed(o, v, decimals);
	out_buf_flush(o);
	fclose(f);
	snprintf(want, sizeof(want), "%.*f", (int)decimals, v);
	same = strcmp(got, want) == 0;
	if (!same)
		fprintf(stderr, "%.17g with %u decimals: \"%s\", printf \"%s\"\n",
			v, decimals, got, want);
	free(got);
	free(o);
	return same;
}

static void test_fixed_like_printf(void)
{
	static const double edge[] = {
		0, 0.05, 0.15, 0.25, 0.35, 0.45, 0.5, 1.5, 2.5, 0.125, 0.375,
		0.005, 0.015, 0.045, 0.995, 9.995, 99.995, 100, 1199.95, 1190.0,
		12.5, 111.5, 112.5, 999999999.5, 1e9, 1e9 + 0.5, 1e15, 1e300,
		DBL_MAX, DBL_MIN, -0.0, -1.5, INFINITY, -INFINITY, NAN,
	};
	int bad = 0;

	for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
		for (unsigned d = 0; d <= 3; d++)
			bad += !same_fixed(edge[i], d);
	/* What the flame graph writes: shares of a total, positions in
	 * pixels, integers plus a half. */
	for (unsigned i = 0; i < 200000 && bad < 10; i++) {
		uint64_t total = 1 + next_rand() % 1000000;
		uint64_t part = next_rand() % (total + 1);
		double scale = 1180.0 / (double)total;

		bad += !same_fixed(100.0 * (double)part / (double)total, 2);
		bad += !same_fixed(10 + (double)part * scale, 1);
		bad += !same_fixed((double)part * scale, 1);
		bad += !same_fixed((double)(part % 5000) + 11.5, 0);
		bad += !same_fixed((double)(next_rand() % 100000) / 1000.0,
				   (unsigned)(next_rand() % 4));
		/* Halves, quarters, ... 1/64ths: exact ties and near ones. */
		bad += !same_fixed((double)(next_rand() % 100000) /
				   (double)(2u << next_rand() % 6),
				   (unsigned)(next_rand() % 4));
	}
	CHECK(bad == 0);
}

static void test_long_and_u64(void)
{
	char *got = NULL, want[64];
	size_t len = 0, big = OUT_BUF_SIZE * 2 + 7;
	FILE *f = open_memstream(&got, &len);
	struct out_buf *o = malloc(sizeof(*o));
	char *fill = malloc(big);

	REQUIRE(f && o && fill);
	memset(fill, 'x', big);
	out_buf_init(o, f);
	out_buf_str(o, "a");
	out_buf_put(o, fill, big);
	out_buf_u64(o, 0);
	out_buf_u64(o, UINT64_MAX);
	out_buf_flush(o);
	fclose(f);
	snprintf(want, sizeof(want), "0%" PRIu64, UINT64_MAX);
	CHECK_U64(len, 1 + big + strlen(want));
	CHECK(got && got[0] == 'a' && got[big] == 'x' &&
	      strcmp(got + 1 + big, want) == 0);
	free(got);
	free(o);
	free(fill);
}

/* The keys' digits, as printf writes them. */
static void test_digits_like_printf(void)
{
	int bad = 0;

	for (unsigned i = 0; i < 100000 && bad < 10; i++) {
		uint64_t v = next_rand() >> (next_rand() % 64);
		char got[24], want[24];
		size_t n;

		if (i < 2)
			v = i ? UINT64_MAX : 0;
		n = text_hex(got, v);
		got[n] = '\0';
		snprintf(want, sizeof(want), "%" PRIx64, v);
		bad += strcmp(got, want) != 0;
		n = text_u64(got, v);
		got[n] = '\0';
		snprintf(want, sizeof(want), "%" PRIu64, v);
		bad += strcmp(got, want) != 0;
	}
	CHECK(bad == 0);
}

int main(void)
{
	RUN(test_fixed_like_printf);
	RUN(test_long_and_u64);
	RUN(test_digits_like_printf);
	TEST_MAIN_END();
}
