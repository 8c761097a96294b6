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

#endif
