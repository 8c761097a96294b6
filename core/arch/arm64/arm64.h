/* The AArch64 parts behind arch_aarch64 (see arch/arch.h). */
#ifndef UP_ARCH_ARM64_H
#define UP_ARCH_ARM64_H

#include "arch/arch.h"
#include "mem/memory.h"

int arm64_translate(struct frame_cache *c, const struct up_regs *regs,
		    uint64_t va, uint64_t *frame);

bool arm64_in_hypercall(struct up_mem *m, const struct up_regs *regs,
			const struct up_kernel_map *k, uint64_t ip);

int arm64_hypercall_step(struct up_mem *m, const struct up_regs *regs,
			 const struct up_kernel_map *k, enum up_domain_type type,
			 uint64_t *ip, uint64_t *sp, enum up_trunc *trunc);

uint64_t arm64_image_header_target(const uint8_t *bytes, size_t len,
				   uint64_t va);

/* The instruction before ra is a call (call_site.c): 1, 0, or -1. */
int arm64_after_call(struct up_mem *m, const struct up_regs *regs,
		     uint64_t ra);

#endif
