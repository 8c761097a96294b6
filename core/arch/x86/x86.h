/* The x86 parts behind arch_x86_64 (see arch/arch.h). */
#ifndef UP_ARCH_X86_H
#define UP_ARCH_X86_H

#include "arch/arch.h"
#include "mem/memory.h"

int x86_translate(struct frame_cache *c, const struct up_regs *regs,
		  uint64_t va, uint64_t *frame);

bool x86_in_hypercall(struct up_mem *m, const struct up_regs *regs,
		      const struct up_kernel_map *k, uint64_t ip);

/* Whether the page at va holds Xen's hypercall stubs (hypercall_stub.c). */
bool x86_hypercall_page_at(struct up_mem *m, const struct up_regs *regs,
			   uint64_t va);

bool x86_at_block(struct up_mem *m, const struct up_regs *regs,
		  const struct up_kernel_map *k, enum up_domain_type type);
int x86_hypercall_step(struct up_mem *m, const struct up_regs *regs,
		       const struct up_kernel_map *k, enum up_domain_type type,
		       uint64_t *ip, uint64_t *sp, enum up_trunc *trunc);
/* The frame an event upcall interrupted (upcall_frame.c): the
 * interrupted *ip, *sp, and 1 with its *fp too, 0 without; -1 when none
 * is found from *sp. */
int x86_interrupted_step(struct up_mem *m, const struct up_regs *regs,
			 const struct up_kernel_map *k,
			 enum up_domain_type type, uint64_t *ip, uint64_t *sp,
			 uint64_t *fp);

/* The same for a PVH/HVM guest: the CPU's own interrupt frame
 * (interrupt_frame.c). 1 with *fp, 0 without; -1 when there is none; -2
 * when one is there but not where the CPU puts one (an IST stack of an
 * unknown TSS). */
int x86_hw_interrupted_step(struct up_mem *m, const struct up_regs *regs,
			    const struct up_kernel_map *k, uint64_t *ip,
			    uint64_t *sp, uint64_t *fp);

/* The instruction before ra is a call (call_site.c): 1, 0, or -1. */
int x86_after_call(struct up_mem *m, const struct up_regs *regs, uint64_t ra);

#endif
