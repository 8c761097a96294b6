/* The AArch64 test guest's view of Xen: hypercall stubs (hypercall.S),
 * console, clock, command line, shutdown. Public Xen headers only. */
#ifndef TG_HYP_H
#define TG_HYP_H

#include <stddef.h>
#include <stdint.h>

#include <xen/xen.h>

#include "console.h"

long HYPERVISOR_sched_op(int cmd, void *arg);
long HYPERVISOR_event_channel_op(int cmd, void *arg);
long HYPERVISOR_hvm_op(int op, void *arg);
long HYPERVISOR_vcpu_op(int cmd, unsigned vcpu, void *arg);

/* Set up console and clock from the device tree Xen passed; returns the
 * command line (/chosen/bootargs, xl's extra=). */
const char *hyp_init(uintptr_t dtb);

/* Nanoseconds from the virtual counter. */
uint64_t now_ns(void);

_Noreturn void hyp_shutdown(unsigned reason);

/* SCHEDOP_shutdown(SHUTDOWN_crash) from the function that panics, through
 * the hypercall stub. */
static inline _Noreturn void hyp_crash(void)
{
	struct { unsigned reason; } sd = { 3 /* SHUTDOWN_crash */ };

	for (;;)
		HYPERVISOR_sched_op(2 /* SCHEDOP_shutdown */, &sd);
}

int hyp_on_xen(void);

void tg_mmu_on(void);
void tg_main(uintptr_t dtb);

#endif
