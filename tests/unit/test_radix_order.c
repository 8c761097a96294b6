/* The radix sort's order (core/util/radix_order.c): records by their
 * 64-bit key, stable, for keys that share their high bytes (a kernel's
 * addresses), spread over all 64 bits, all equal, and none or one. */
#include "config.h"

#include <stdbool.h>

#include "util/radix_order.h"
#include "test.h"
#include "uniprof/error.h"

TEST_GLOBALS;

struct rec {
	uint64_t key;
	uint32_t seq;       /* its place in the input: stability */
	uint32_t pad;
};

/* Whether order sorts r by key, equal keys in input order, and is a
 * permutation. */
static bool sorted(const struct rec *r, const uint32_t *order, size_t n)
{
	uint8_t *used = calloc(n ? n : 1, 1);
	bool ok = used != NULL;

	for (size_t i = 0; ok && i < n; i++) {
		const struct rec *a = &r[order[i]];

		ok = order[i] < n && !used[order[i]];
		if (ok)
			used[order[i]] = 1;
		if (ok && i) {
			const struct rec *b = &r[order[i - 1]];

			ok = b->key < a->key || (b->key == a->key && b->seq < a->seq);
		}
	}
	free(used);
	return ok;
}

static void check_keys(uint64_t (*key)(uint64_t *rng, size_t i), size_t n)
{
	struct rec *r = calloc(n ? n : 1, sizeof(*r));
	uint64_t rng = 0x2545f4914f6cdd1dULL;
	uint32_t *order;

	REQUIRE(r);
	for (size_t i = 0; i < n; i++)
		r[i] = (struct rec){ key(&rng, i), (uint32_t)i, 0 };
	order = radix_order_u64(r, n, sizeof(*r));
	CHECK(order != NULL);
	CHECK(order && sorted(r, order, n));
	/* In the caller's memory: the same order, in one half of it. */
	{
		uint32_t *scratch = malloc((n ? 2 * n : 1) * sizeof(*scratch));
		uint32_t *in = scratch ? radix_order_u64_in(r, n, sizeof(*r), scratch) : NULL;

		CHECK(in == scratch || in == scratch + n);
		CHECK(in && order && (n == 0 || memcmp(in, order, n * sizeof(*in)) == 0));
		free(scratch);
	}
	free(order);
	free(r);
}

static uint64_t kernel_addr(uint64_t *rng, size_t i)
{
	(void)i;
	return 0xffffffff80000000ULL | (test_xorshift(rng) % 0x2000000);
}

static uint64_t any_bits(uint64_t *rng, size_t i)
{
	(void)i;
	return test_xorshift(rng);
}

static uint64_t few_values(uint64_t *rng, size_t i)
{
	(void)i;
	return (test_xorshift(rng) % 7) << 40 | 0x400000;
}

static uint64_t all_equal(uint64_t *rng, size_t i)
{
	(void)rng;
	(void)i;
	return 0x401000;
}

static uint64_t falling(uint64_t *rng, size_t i)
{
	(void)rng;
	return UINT64_MAX - i * 3;
}

static void test_orders(void)
{
	check_keys(kernel_addr, 100000);
	check_keys(any_bits, 50000);
	check_keys(few_values, 50000);
	check_keys(all_equal, 1000);
	check_keys(falling, 1000);
	check_keys(any_bits, 1);
	check_keys(any_bits, 0);
}

int main(void)
{
	RUN(test_orders);
	TEST_MAIN_END();
}
