/* Xen services for the test guest: just enough to log to the PV console,
 * read a clock and shut down. */
#include <stdarg.h>
#include <stdint.h>

#include <xen/arch-x86/cpuid.h>
#include <xen/event_channel.h>
#include <xen/hvm/hvm_op.h>
#include <xen/hvm/params.h>
#include <xen/arch-x86/hvm/start_info.h>
#include <xen/sched.h>

#include "hyp.h"
#include "lib.h"

char *tg_hypercalls = hypercall_page;
static enum tg_mode tg_mode;
static int on_xen;          /* 0 under plain QEMU (PVH boot, no hypervisor) */
static uint64_t tsc_khz;

static void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	if (tg_mode == TG_PV)   /* PV: force Xen to emulate cpuid */
		__asm__ volatile("ud2a; .ascii \"xen\"; cpuid"
				 : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
				 : "a"(leaf), "c"(sub));
	else
		__asm__ volatile("cpuid"
				 : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
				 : "a"(leaf), "c"(sub));
}

static uint32_t xen_cpuid_base(void)
{
	for (uint32_t base = XEN_CPUID_FIRST_LEAF; base < XEN_CPUID_FIRST_LEAF + 0x10000;
	     base += 0x100) {
		uint32_t r[4];

		cpuid(base, 0, r);
		if (r[1] == XEN_CPUID_SIGNATURE_EBX && r[2] == XEN_CPUID_SIGNATURE_ECX &&
		    r[3] == XEN_CPUID_SIGNATURE_EDX && r[0] - base >= 2)
			return base;
	}
	return 0;
}

static void outb_e9(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		__asm__ volatile("outb %0, $0xe9" : : "a"(s[i]));
}

void hyp_console_notify(uint32_t port)
{
	struct evtchn_send send = { .port = port };

	hypercall(__HYPERVISOR_event_channel_op, EVTCHNOP_send,
		  (unsigned long)&send);
}

void hyp_yield(void)
{
	hypercall(__HYPERVISOR_sched_op, SCHEDOP_yield, 0);
}

/* Port 0xe9 (Xen's guest log, or QEMU's debugcon) only when there is no
 * PV console: each byte there traps to the hypervisor. */
void hyp_console_fallback(const char *s, size_t n)
{
	if (tg_mode == TG_PVH)
		outb_e9(s, n);
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

uint64_t now_ns(void)
{
	uint64_t t = rdtsc();

	/* t * 1e6 / khz without overflow for a long run. */
	return (t / tsc_khz) * 1000000 + (t % tsc_khz) * 1000000 / tsc_khz;
}

int hyp_on_xen(void)
{
	return on_xen;
}

_Noreturn void hyp_shutdown(unsigned reason)
{
	struct sched_shutdown sd = { .reason = reason };

	if (!on_xen) {
		/* Plain QEMU: isa-debug-exit at port 0xf4 ends the emulator. */
		__asm__ volatile("outb %0, $0xf4" : : "a"((uint8_t)reason));
		for (;;)
			__asm__ volatile("cli; hlt");
	}
	for (;;)
		hypercall(__HYPERVISOR_sched_op, SCHEDOP_shutdown,
			  (unsigned long)&sd);
}

uint64_t hvm_param(uint32_t index)
{
	struct xen_hvm_param p = { .domid = DOMID_SELF, .index = index };

	if (hypercall(__HYPERVISOR_hvm_op, HVMOP_get_param, (unsigned long)&p))
		return 0;
	return p.value;
}

const char *hyp_init(enum tg_mode mode, unsigned long boot_info)
{
	uint32_t base, r[4];
	const char *cmdline = "";

	tg_mode = mode;
	base = xen_cpuid_base();
	on_xen = base != 0;
	if (mode == TG_PVH && base) {
		/* Ask Xen to write the hypercall stubs into our page. */
		uint32_t msr;

		cpuid(base + 2, 0, r);
		msr = r[1];
		__asm__ volatile("wrmsr" : : "c"(msr),
				 "a"((uint32_t)(unsigned long)tg_hvm_calls),
				 "d"((uint32_t)((unsigned long)tg_hvm_calls >> 32)));
		tg_hypercalls = tg_hvm_calls;
	}
	if (base) {
		cpuid(base + 3, 0, r);
		tsc_khz = r[2];
	}
	if (!tsc_khz)
		tsc_khz = 1000000;    /* unknown: assume 1 GHz */

	if (mode == TG_PV) {
		start_info_t *si = (start_info_t *)boot_info;
		/* PV: console given as a machine frame; the read-only M2P
		 * table turns it into our pseudo-physical frame, mapped at
		 * VIRT_BASE (0) + pfn. */
		unsigned long pfn = ((const unsigned long *)MACH2PHYS_VIRT_START)
					[si->console.domU.mfn];

		console_attach((struct xencons_interface *)(pfn << 12),
			       si->console.domU.evtchn);
		cmdline = (const char *)si->cmd_line;
	} else {
		struct hvm_start_info *si = (struct hvm_start_info *)boot_info;
		uint64_t pfn = on_xen ? hvm_param(HVM_PARAM_CONSOLE_PFN) : 0;

		if (pfn && pfn < (1ULL << 20))     /* inside our 4 GiB map */
			console_attach((struct xencons_interface *)(pfn << 12),
				       (uint32_t)hvm_param(HVM_PARAM_CONSOLE_EVTCHN));
		if (si->magic == XEN_HVM_START_MAGIC_VALUE && si->cmdline_paddr)
			cmdline = (const char *)si->cmdline_paddr;
	}
	return cmdline;
}
