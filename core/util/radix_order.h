/* The order of records by a 64-bit key, by a least-significant-digit
 * radix sort: linear in the records whatever their keys, where qsort's
 * comparisons were a large part of sorting 100,000s of them. */
#ifndef UP_UTIL_RADIX_ORDER_H
#define UP_UTIL_RADIX_ORDER_H

#include <stddef.h>
#include <stdint.h>

/* The indexes of the n records at base, stride bytes apart, each
 * starting with its uint64_t key, in the order of their keys (stable:
 * equal keys keep their order). malloc'ed; NULL when out of memory or
 * n is past UINT32_MAX (no error set: callers fall back). */
uint32_t *radix_order_u64(const void *base, size_t n, size_t stride);

/* The same in the caller's memory: scratch holds 2 * n indexes; the order
 * is in one half of it, returned (NULL: no memory for the counts, or n
 * past UINT32_MAX). For a caller that reuses the pages for what comes
 * next (a symbol table's names), fresh pages being costly in a PV dom0. */
uint32_t *radix_order_u64_in(const void *base, size_t n, size_t stride,
			     uint32_t *scratch);

#endif
