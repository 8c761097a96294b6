/* What the shared workload needs of the architecture (x86_64): a cycle
 * counter, the TSC. */
#ifndef TG_ARCH_H
#define TG_ARCH_H

#include "hyp.h"

static inline unsigned long long tg_cycles(void)
{
	unsigned lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (unsigned long long)hi << 32 | lo;
}

#endif
