/* The AArch64 test unikernel's main: the knobs from the command line (xl's
 * extra=, in the device tree), vCPU 1 if the domain has one (PSCI
 * CPU_ON), the spinning workload (workload.c) with its own clock's report,
 * shut down. The knobs are the x86 guest's: run=, report_ms=, unit=,
 * chain=, hot35=, hot15=, crash=. */
#include <stdint.h>

#include <xen/sched.h>

#include "hyp.h"
#include "lib.h"
#include "workload.h"

#define TG_FN __attribute__((noinline, noipa, used))
#define PSCI_CPU_ON 0xc4000003UL

void tg_ap_start(void);
void tg_ap_boot(void);
void tg_ap_main(void);

TG_FN void tg_ap_boot(void)
{
	tg_mmu_on();
	tg_ap_main();
}

/* PSCI through Xen's virtual firmware (hvc #0, SMC calling convention). */
static long psci_cpu_on(uint64_t mpidr, uintptr_t entry)
{
	register uint64_t x0 __asm__("x0") = PSCI_CPU_ON;
	register uint64_t x1 __asm__("x1") = mpidr;
	register uint64_t x2 __asm__("x2") = entry;
	register uint64_t x3 __asm__("x3") = 0;

	__asm__ volatile("hvc #0" : "+r"(x0) : "r"(x1), "r"(x2), "r"(x3) : "memory");
	return (long)x0;
}

TG_FN void tg_main(uintptr_t dtb)
{
	const char *cmdline = hyp_init(dtb);
	uint64_t run_s = tg_cmdline_u64(cmdline, "run", 0);
	uint64_t report_ms = tg_cmdline_u64(cmdline, "report_ms", 1000);
	uint64_t crash_s = tg_cmdline_u64(cmdline, "crash", 0);
	long ap;

	tg_workload_knobs(cmdline);
	ap = psci_cpu_on(1, (uintptr_t)tg_ap_start);
	console_printf("tg: start mode=arm64 run=%lu unit=%lu vcpus=%u cmdline='%s'\n",
		       (unsigned long)run_s, tg_unit_iters, ap == 0 ? 2u : 1u, cmdline);
	tg_workload(run_s * 1000000000ULL, report_ms * 1000000ULL,
		    crash_s * 1000000000ULL);
	hyp_shutdown(SHUTDOWN_poweroff);
}
