/* Xen vCPU context records into register views (see xen_context_x86.h). */
#include "config.h"

/* Before xen/foreign: xenctrl's own headers define what those redefine. */
#if defined(__x86_64__) || defined(__i386__)
#include <xenctrl.h>
#endif

#include <stdio.h>
#include <string.h>

#include "target/target_impl.h"
#include "target/xen_context_x86.h"
#include "private.h"

#define CR0_PG (1ULL << 31)
#define CR4_PAE (1ULL << 5)
#define CR4_LA57 (1ULL << 12)
#define EFER_LMA (1ULL << 10)
/* x86's VGCF_* (Arm's differ): from the foreign layout's point of view. */
#define X86_VGCF_IN_KERNEL (1u << 2)
#define X86_VGCF_ONLINE (1u << 5)
#if defined(__x86_64__) || defined(__i386__)
_Static_assert(X86_VGCF_IN_KERNEL == VGCF_in_kernel && X86_VGCF_ONLINE == VGCF_online,
	       "x86 VGCF flags");
#endif

void xen_context_pv_regs(const void *ctx, unsigned width, struct up_regs *r)
{
	const struct vcpu_guest_context_x86_64 *c64 = ctx;
	const struct vcpu_guest_context_x86_32 *c32 = ctx;

	r->arch = UP_ARCH_X86_64;
	r->frame_kind = UP_FRAME_MFN;   /* PV page tables hold machine frames */
	if (width == 8) {
		uint64_t flags = c64->flags;

		r->ip = c64->user_regs.rip;
		r->sp = c64->user_regs.rsp;
		r->fp = c64->user_regs.rbp;
		r->arg0 = c64->user_regs.rdi;
		r->kernel_mode = flags & X86_VGCF_IN_KERNEL;
		r->online = flags & X86_VGCF_ONLINE;
		/* 64-bit PV keeps user-mode page tables in ctrlreg[1]. */
		r->cr3 = (c64->ctrlreg[r->kernel_mode ? 3 : 1] >> 12)
			 << UP_PAGE_SHIFT;
		r->paging = UP_PAGING_X86_64;
		r->guest_width = 8;
	} else {
		uint32_t cr3 = c32->ctrlreg[3];

		r->ip = c32->user_regs.eip;
		r->sp = c32->user_regs.esp;
		r->fp = c32->user_regs.ebp;
		r->arg0 = c32->user_regs.ebx;
		r->kernel_mode = c32->flags & X86_VGCF_IN_KERNEL;
		r->online = c32->flags & X86_VGCF_ONLINE;
		/* 32-bit PV packs the frame's high bits into the low ones. */
		r->cr3 = (uint64_t)((cr3 >> 12) | (cr3 << 20)) << UP_PAGE_SHIFT;
		r->paging = UP_PAGING_X86_PAE;
		r->guest_width = 4;
	}
}

enum up_paging xen_paging_mode(uint64_t cr0, uint64_t cr4, bool long_mode)
{
	if (!(cr0 & CR0_PG))
		return UP_PAGING_NONE;
	if (long_mode)
		return cr4 & CR4_LA57 ? UP_PAGING_X86_64_LA57 : UP_PAGING_X86_64;
	return cr4 & CR4_PAE ? UP_PAGING_X86_PAE : UP_PAGING_X86_32;
}

void xen_context_hvm_regs(const struct vcpu_guest_context_x86_64 *c,
			  struct up_regs *r)
{
	r->arch = UP_ARCH_X86_64;
	r->ip = c->user_regs.rip;
	r->sp = c->user_regs.rsp;
	r->fp = c->user_regs.rbp;
	r->arg0 = c->user_regs.rdi;
	r->cr3 = c->ctrlreg[3];
	r->frame_kind = UP_FRAME_GFN;
	r->online = c->flags & X86_VGCF_ONLINE;
	/* Xen puts the CS selector here for HVM vCPUs: its RPL is the
	 * privilege level. */
	r->kernel_mode = (c->user_regs.cs & 3) == 0;
	/* No EFER here: PAE paging is taken for long mode. */
	r->paging = xen_paging_mode(c->ctrlreg[0], c->ctrlreg[4],
				    c->ctrlreg[4] & CR4_PAE);
	r->guest_width = r->paging == UP_PAGING_X86_64 ||
			 r->paging == UP_PAGING_X86_64_LA57 ? 8 : 4;
}

#if defined(__x86_64__) || defined(__i386__)
void xen_context_hvm_cpu_regs(const struct hvm_hw_cpu *c, struct up_regs *r)
{
	r->arch = UP_ARCH_X86_64;
	r->ip = c->rip;
	r->sp = c->rsp;
	r->fp = c->rbp;
	r->arg0 = c->rdi;
	r->cr3 = c->cr3;
	r->tss = c->tr_base;
	r->frame_kind = UP_FRAME_GFN;
	r->kernel_mode = ((c->cs_arbytes >> 5) & 3) == 0;
	r->paging = xen_paging_mode(c->cr0, c->cr4, c->msr_efer & EFER_LMA);
	/* CS.L (arbytes bit 9) says the vCPU executes 64-bit code. */
	r->guest_width = (c->msr_efer & EFER_LMA) && (c->cs_arbytes & 0x200) ?
			 8 : 4;
}
#endif

void xen_context_named_regs(const struct vcpu_guest_context_x86_64 *c,
			    struct up_named_regs *out)
{
	const struct cpu_user_regs_x86_64 *u = &c->user_regs;

	out->count = 0;
	named_regs_put(out, "rip", u->rip);
	named_regs_put(out, "rsp", u->rsp);
	named_regs_put(out, "rbp", u->rbp);
	named_regs_put(out, "rflags", u->rflags);
	named_regs_put(out, "rax", u->rax);
	named_regs_put(out, "rbx", u->rbx);
	named_regs_put(out, "rcx", u->rcx);
	named_regs_put(out, "rdx", u->rdx);
	named_regs_put(out, "rsi", u->rsi);
	named_regs_put(out, "rdi", u->rdi);
	named_regs_put(out, "r8", u->r8);
	named_regs_put(out, "r9", u->r9);
	named_regs_put(out, "r10", u->r10);
	named_regs_put(out, "r11", u->r11);
	named_regs_put(out, "r12", u->r12);
	named_regs_put(out, "r13", u->r13);
	named_regs_put(out, "r14", u->r14);
	named_regs_put(out, "r15", u->r15);
	named_regs_put(out, "cs", u->cs);
	named_regs_put(out, "ss", u->ss);
	named_regs_put(out, "cr0", c->ctrlreg[0]);
	named_regs_put(out, "cr2", c->ctrlreg[2]);
	named_regs_put(out, "cr3", c->ctrlreg[3]);
	named_regs_put(out, "cr4", c->ctrlreg[4]);
	named_regs_put(out, "fs_base", c->fs_base);
	named_regs_put(out, "gs_base", c->gs_base_kernel);
}
