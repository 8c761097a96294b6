/* The test unikernel's main: read the knobs from the command line (xl's
 * extra=), run the workload, report its own work rate, shut down.
 *   run=SECONDS        shut down after this long (0: never; default)
 *   report_ms=MS       print "tg: work" lines this often (default 1000):
 *                      rounds so far, and the TSC ticks / 1000 each part
 *                      of the rounds took (workload.h), for a profile's
 *                      split to be checked against the guest's own clock
 *   unit=N             spin iterations per work unit (default 2000)
 *   chain=, hot35=, hot15=  units of each part of a round (50, 35, 15):
 *                      another split, for comparing profiles
 *   io=1               the blocking workload (io.c) instead of spinning
 *   busy=PCT           its busy share (default 30)
 *   burst=N            requests per burst (default 60)
 *   crash=SECONDS      crash on purpose after this long (spin workload);
 *                      a PVH guest maps grant frames above RAM first, so
 *                      that xl writes its core in one pass (core_fit.c)
 *   stall=1            the stall meter (stall.c) instead of the workload:
 *                      gaps in the clock of stall_us= (default 5) or more */
#include <stdint.h>

#include <xen/sched.h>

#include "core_fit.h"
#include "events.h"
#include "hyp.h"
#include "io.h"
#include "lib.h"
#include "smp.h"
#include "stall.h"
#include "workload.h"

#define TG_FN __attribute__((noinline, noipa, used))

/* Xen's failsafe callback (PV): our state could not be restored. */
_Noreturn void tg_failsafe(void);

_Noreturn void tg_failsafe(void)
{
	hyp_crash();
}

void tg_main(unsigned long boot_info, unsigned long mode);

TG_FN void tg_main(unsigned long boot_info, unsigned long mode)
{
	const char *cmdline = hyp_init((enum tg_mode)mode, boot_info);
	uint64_t run_s = tg_cmdline_u64(cmdline, "run", 0);
	uint64_t report_ms = tg_cmdline_u64(cmdline, "report_ms", 1000);
	uint64_t crash_s = tg_cmdline_u64(cmdline, "crash", 0);
	uint64_t io = tg_cmdline_u64(cmdline, "io", 0);
	int vcpu1;

	tg_workload_knobs(cmdline);
	vcpu1 = hyp_on_xen() ? tg_start_vcpu1((enum tg_mode)mode, boot_info) : -1;
	if (hyp_on_xen() && tg_shared_info_map((enum tg_mode)mode, boot_info))
		console_printf("tg: cannot map the shared info page\n");
	if (hyp_on_xen() && mode == TG_PVH && crash_s)
		tg_core_fit(boot_info);
	console_printf("tg: start mode=%s run=%lu unit=%lu vcpus=%u cmdline='%s'\n",
		       mode == TG_PV ? "pv" : "pvh", (unsigned long)run_s,
		       tg_unit_iters, vcpu1 == 0 ? 2u : 1u, cmdline);
	if (tg_cmdline_u64(cmdline, "stall", 0)) {
		tg_stall_meter(run_s * 1000000000ULL, report_ms * 1000000ULL,
			       tg_cmdline_u64(cmdline, "stall_us", 5) * 1000);
	} else if (io) {
		long rc = hyp_on_xen() ? tg_events_init((enum tg_mode)mode, boot_info) : -1;

		if (rc) {
			console_printf("tg: cannot set up events (%lu)\n", (unsigned long)-rc);
			hyp_shutdown(SHUTDOWN_crash);
		}
		console_printf("tg: events up, xen time %lu ns\n",
			       (unsigned long)tg_xen_time());
		tg_io_loop(run_s * 1000000000ULL, report_ms * 1000000ULL,
			   (unsigned)tg_cmdline_u64(cmdline, "busy", 30),
			   (unsigned)tg_cmdline_u64(cmdline, "burst", 60));
	} else {
		tg_workload(run_s * 1000000000ULL, report_ms * 1000000ULL,
			    crash_s * 1000000000ULL);
	}
	hyp_shutdown(SHUTDOWN_poweroff);
}
