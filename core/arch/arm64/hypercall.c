/* Unwinding out of an AArch64 guest's hypercall. Xen on Arm writes no
 * hypercall page: each guest has its own small functions that load the
 * number into x16 and trap with "hvc #0xea1" (Mini-OS's and Linux's are
 * three instructions, with no frame record and no CFI). A vCPU blocked in
 * SCHEDOP_block is paused with its pc just after that hvc, and its caller
 * only in the link register. */
#include "config.h"

#include "arm64.h"
#include "unwind/kernel_map.h"
#include "mem/memory.h"

#define HVC_XEN 0xd401d422u    /* hvc #0xea1: Xen's immediate */

bool arm64_in_hypercall(struct up_mem *m, const struct up_regs *regs,
			const struct up_kernel_map *k, uint64_t ip)
{
	uint32_t insn;

	/* Only the interrupted pc: a return address is never in one. */
	if (ip != regs->ip || ip < 4 || (ip & 3) ||
	    !up_kernel_map_in_text(k, ip - 4))
		return false;
	return up_mem_read(m, regs, ip - 4, &insn, sizeof(insn)) == 0 &&
	       insn == HVC_XEN;
}

int arm64_hypercall_step(struct up_mem *m, const struct up_regs *regs,
			 const struct up_kernel_map *k, enum up_domain_type type,
			 uint64_t *ip, uint64_t *sp, enum up_trunc *trunc)
{
	(void)m;
	(void)k;
	(void)type;
	(void)sp;                 /* the stub keeps sp as its caller had it */
	if (regs->lr == 0) {
		*trunc = UP_TRUNC_HYPERCALL_STUB;
		return -1;
	}
	*ip = regs->lr;
	return 0;
}
