/* Xen AArch64 vCPU context records into register views (see
 * xen_context_arm64.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "target/xen_context_arm64.h"
#include "util/error_impl.h"
#include "target/target_impl.h"
#include "private.h"

#define VGCF_ONLINE 1u
#define PSR_MODE_RW (1u << 4)       /* set: AArch32 state */
#define PSR_EL(cpsr) (((cpsr) >> 2) & 3)
#define PSR_SP_ELX 1u               /* EL1h: SP_EL1, else SP_EL0 */
#define SCTLR_M 1u                  /* stage 1 translation on */

int xen_context_arm64_regs(const struct vcpu_guest_context_arm64 *c,
			   struct up_regs *r)
{
	const struct vcpu_guest_core_regs_arm64 *u = &c->user_regs;
	uint64_t cpsr = u->cpsr;

	memset(r, 0, sizeof(*r));
	r->arch = UP_ARCH_AARCH64;
	r->online = c->flags & VGCF_ONLINE;
	if (cpsr & PSR_MODE_RW)
		return up_fail(UP_EUNSUPP,
			       "the vCPU runs in AArch32 state: 32-bit Arm guests are not supported");
	r->guest_width = 8;
	r->ip = u->pc64;
	r->fp = u->x29;
	r->lr = u->x30;
	r->arg0 = u->x0;         /* a hypercall's result once it returned */
	r->x16 = u->x16;
	r->kernel_mode = PSR_EL(cpsr) == 1;
	/* EL1h runs on SP_EL1; EL1t and EL0 on SP_EL0. */
	r->sp = PSR_EL(cpsr) == 1 && (cpsr & PSR_SP_ELX) ? u->sp_el1 : u->sp_el0;
	/* Guest physical (IPA) frames, as any Arm guest's tables hold. */
	r->frame_kind = UP_FRAME_GFN;
	r->paging = c->sctlr & SCTLR_M ? UP_PAGING_AARCH64 : UP_PAGING_NONE;
	r->cr3 = c->ttbr0;
	r->ttbr1 = c->ttbr1;
	r->tcr = c->ttbcr;
	return 0;
}

void xen_context_arm64_named_regs(const struct vcpu_guest_context_arm64 *c,
				  struct up_named_regs *out)
{
	const struct vcpu_guest_core_regs_arm64 *u = &c->user_regs;
	const uint64_t x[31] = {
		u->x0, u->x1, u->x2, u->x3, u->x4, u->x5, u->x6, u->x7,
		u->x8, u->x9, u->x10, u->x11, u->x12, u->x13, u->x14, u->x15,
		u->x16, u->x17, u->x18, u->x19, u->x20, u->x21, u->x22,
		u->x23, u->x24, u->x25, u->x26, u->x27, u->x28, u->x29,
		u->x30,
	};
	char name[8];

	out->count = 0;
	named_regs_put(out, "pc", u->pc64);
	named_regs_put(out, "sp_el1", u->sp_el1);
	named_regs_put(out, "sp_el0", u->sp_el0);
	named_regs_put(out, "cpsr", u->cpsr);
	for (unsigned i = 0; i < 31; i++) {
		snprintf(name, sizeof(name), "x%u", i);
		named_regs_put(out, name, x[i]);
	}
	named_regs_put(out, "elr_el1", u->elr_el1);
	named_regs_put(out, "spsr_el1", u->spsr_el1);
	named_regs_put(out, "sctlr", c->sctlr);
	named_regs_put(out, "tcr", c->ttbcr);
	named_regs_put(out, "ttbr0", c->ttbr0);
	named_regs_put(out, "ttbr1", c->ttbr1);
}
