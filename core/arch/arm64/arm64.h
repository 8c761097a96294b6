/* The AArch64 parts behind arch_aarch64 (see arch/arch.h). */
#ifndef UP_ARCH_ARM64_H
#define UP_ARCH_ARM64_H

#include "arch/arch.h"

int arm64_translate(struct frame_cache *c, const struct up_regs *regs,
		    uint64_t va, uint64_t *frame);

#endif
