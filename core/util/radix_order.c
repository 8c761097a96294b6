/* Least-significant digit first, 8 bits a digit: every digit's counts in
 * one pass over the keys, then one pass per digit that the keys do not
 * all share (the high bytes of a kernel's addresses cost nothing more).
 * Only 32-bit indexes move, each pass reading its record's key. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "util/radix_order.h"

static uint64_t key_of(const void *base, size_t stride, uint32_t i)
{
	uint64_t k;

	memcpy(&k, (const char *)base + (size_t)i * stride, sizeof(k));
	return k;
}

/* The order into a or b (n each): the one returned. NULL: no memory. */
static uint32_t *order(const void *base, size_t n, size_t stride, uint32_t *a,
		       uint32_t *b)
{
	size_t (*counts)[256] = calloc(8, sizeof(*counts));        /* each digit's */

	if (!counts)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		uint64_t k = key_of(base, stride, (uint32_t)i);

		a[i] = (uint32_t)i;
		for (unsigned d = 0; d < 8; d++)
			counts[d][(k >> (8 * d)) & 0xff]++;
	}
	for (unsigned shift = 0; n && shift < 64; shift += 8) {
		size_t *count = counts[shift / 8], pos = 0;
		uint32_t *t;

		if (count[(key_of(base, stride, 0) >> shift) & 0xff] == n)
			continue;       /* one digit for all: order unchanged */
		for (unsigned d = 0; d < 256; d++) {
			size_t c = count[d];

			count[d] = pos;
			pos += c;
		}
		for (size_t i = 0; i < n; i++)
			b[count[(key_of(base, stride, a[i]) >> shift) & 0xff]++] = a[i];
		t = a;
		a = b;
		b = t;
	}
	free(counts);
	return a;
}

uint32_t *radix_order_u64(const void *base, size_t n, size_t stride)
{
	uint32_t *a, *b, *k;

	if (n > UINT32_MAX)
		return NULL;
	a = malloc((n ? n : 1) * sizeof(*a));
	b = malloc((n ? n : 1) * sizeof(*b));
	if (!a || !b) {
		free(a);
		free(b);
		return NULL;
	}
	/* Both written whole (b by the first pass the keys do not skip). */
	populate_filled_whole(a, n * sizeof(*a));
	populate_filled_whole(b, n * sizeof(*b));
	k = order(base, n, stride, a, b);
	if (!k) {
		free(a);
		free(b);
		return NULL;
	}
	free(k == a ? b : a);
	return k;
}

uint32_t *radix_order_u64_in(const void *base, size_t n, size_t stride,
			     uint32_t *scratch)
{
	if (n > UINT32_MAX)
		return NULL;
	return order(base, n, stride, scratch, scratch + n);
}
