/* What the shared workload needs of the architecture (AArch64): a cycle
 * counter, here the virtual counter, which EL1 reads without a trap. */
#ifndef TG_ARCH_H
#define TG_ARCH_H

#include "hyp.h"

static inline unsigned long long tg_cycles(void)
{
	unsigned long long v;

	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v));
	return v;
}

#endif
