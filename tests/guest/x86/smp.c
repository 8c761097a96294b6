/* The second vCPU: brought up with VCPUOP_initialise + VCPUOP_up when the
 * domain has one (vcpus=2 in its config), it runs a chain of its own
 * (tg_ap_*), so a profile can be checked per vCPU. It never prints: the
 * console belongs to vCPU 0. */
#include <stdint.h>

#include <xen/vcpu.h>
#include <xen/hvm/hvm_vcpu.h>

#include "hyp.h"
#include "smp.h"

extern char pvh_pml4[];
extern void tg_ap_entry64(void);
extern char tg_ap_stack_top[];

static long vcpu_op(unsigned cmd, unsigned vcpu, void *arg)
{
	return hypercall3(__HYPERVISOR_vcpu_op, cmd, vcpu, (unsigned long)arg);
}

/* PV: a flat kernel context on the boot page tables (a machine frame). */
static long init_pv(unsigned long boot_info)
{
	static struct vcpu_guest_context ctx;   /* 5 KiB: not on the stack */
	const start_info_t *si = (const start_info_t *)boot_info;
	const unsigned long *p2m = (const unsigned long *)si->mfn_list;

	ctx.flags = VGCF_in_kernel;
	ctx.user_regs.rip = (unsigned long)tg_ap_entry64;
	ctx.user_regs.rsp = (unsigned long)tg_ap_stack_top;
	ctx.user_regs.cs = FLAT_KERNEL_CS;
	ctx.user_regs.ss = FLAT_KERNEL_SS;
	ctx.user_regs.ds = ctx.user_regs.es = FLAT_KERNEL_DS;
	ctx.kernel_ss = FLAT_KERNEL_SS;
	ctx.kernel_sp = (unsigned long)tg_ap_stack_top;
	/* VIRT_BASE is 0: the L4's pseudo-physical frame is its address. */
	ctx.ctrlreg[3] = p2m[si->pt_base >> 12] << 12;
	return vcpu_op(VCPUOP_initialise, 1, &ctx);
}

/* PVH: straight into long mode on vCPU 0's identity map. */
static long init_pvh(void)
{
	static struct vcpu_hvm_context ctx;

	ctx.mode = VCPU_HVM_MODE_64B;
	ctx.cpu_regs.x86_64.rip = (unsigned long)tg_ap_entry64;
	ctx.cpu_regs.x86_64.rsp = (unsigned long)tg_ap_stack_top;
	ctx.cpu_regs.x86_64.rflags = 0x2;
	ctx.cpu_regs.x86_64.cr0 = 0x80000011;   /* PG | ET | PE */
	ctx.cpu_regs.x86_64.cr3 = (unsigned long)pvh_pml4;
	ctx.cpu_regs.x86_64.cr4 = 0x20;         /* PAE */
	ctx.cpu_regs.x86_64.efer = 0x500;       /* LME | LMA */
	return vcpu_op(VCPUOP_initialise, 1, &ctx);
}

int tg_start_vcpu1(enum tg_mode mode, unsigned long boot_info)
{
	long rc = mode == TG_PV ? init_pv(boot_info) : init_pvh();

	if (rc == 0)
		rc = vcpu_op(VCPUOP_up, 1, 0);
	return (int)rc;
}
