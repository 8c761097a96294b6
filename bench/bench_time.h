/* What the bench tools share: the clock they time with (util/clock.h's
 * mono_ns(), the library's own), and the order they sort their timings in. */
#ifndef UNIPROF_BENCH_TIME_H
#define UNIPROF_BENCH_TIME_H

#include <stdint.h>
#include <time.h>

#include "util/clock.h"

/* The CPU time this process has used, user and system (a hypercall's
 * time in Xen counts as the calling thread's system time). */
static inline uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* qsort's comparison of two uint64_t. */
static inline int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

#endif
