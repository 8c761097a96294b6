/* The test guest's view of Xen: hypercalls through the hypercall page,
 * console, time, command line, shutdown. Public Xen headers only. */
#ifndef TG_HYP_H
#define TG_HYP_H

#include <stddef.h>
#include <stdint.h>

#include <xen/xen.h>

#include "console.h"

/* PV: the page the ELF note names, filled by Xen's domain builder.
 * PVH: another one, asked for by an MSR write (hyp_init), so the profiler
 * must find it by its stubs. tg_hypercalls points at the one in use. */
extern char hypercall_page[], tg_hvm_calls[];
extern char *tg_hypercalls;

static inline long hypercall2(unsigned long entry, unsigned long a1,
			      unsigned long a2)
{
	register unsigned long rdi __asm__("rdi") = a1;
	register unsigned long rsi __asm__("rsi") = a2;
	long ret;

	__asm__ volatile("call *%[fn]"
			 : "=a"(ret), "+r"(rdi), "+r"(rsi)
			 : [fn] "r"(entry)
			 : "memory", "rcx", "rdx", "r8", "r9", "r10", "r11");
	return ret;
}

static inline long hypercall3(unsigned nr, unsigned long a1,
			      unsigned long a2, unsigned long a3)
{
	register unsigned long rdi __asm__("rdi") = a1;
	register unsigned long rsi __asm__("rsi") = a2;
	register unsigned long rdx __asm__("rdx") = a3;
	unsigned long entry = (unsigned long)tg_hypercalls + nr * 32;
	long ret;

	__asm__ volatile("call *%[fn]"
			 : "=a"(ret), "+r"(rdi), "+r"(rsi), "+r"(rdx)
			 : [fn] "r"(entry)
			 : "memory", "rcx", "r8", "r9", "r10", "r11");
	return ret;
}

static inline long hypercall(unsigned nr, unsigned long a1, unsigned long a2)
{
	return hypercall2((unsigned long)tg_hypercalls + nr * 32, a1, a2);
}

enum tg_mode { TG_PV = 0, TG_PVH = 1 };

/* Set up hypercalls, console and clock; returns the command line. */
const char *hyp_init(enum tg_mode mode, unsigned long boot_info);

/* Nanoseconds since an arbitrary start, from the TSC at Xen's frequency. */
uint64_t now_ns(void);

_Noreturn void hyp_shutdown(unsigned reason);

/* SCHEDOP_shutdown(SHUTDOWN_crash), inline at the caller: the crash stack
 * goes through the hypercall page from the function that panics. */
static inline _Noreturn void hyp_crash(void)
{
	struct { unsigned reason; } sd = { 3 /* SHUTDOWN_crash */ };

	for (;;)
		hypercall(29 /* sched_op */, 2 /* SCHEDOP_shutdown */,
			  (unsigned long)&sd);
}

/* An HVM parameter of ours (PVH), 0 if Xen refuses. */
uint64_t hvm_param(uint32_t index);

/* Whether a hypervisor is there (0 under plain QEMU). */
int hyp_on_xen(void);

#endif
