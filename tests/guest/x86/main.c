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
 *   switch_s=SECONDS   switch to then_chain=, then_hot35=, then_hot15=
 *                      (15, 35, 50) after this long: "tg: switch" line
 *   io=1               the blocking workload (io.c) instead of spinning
 *   busy=PCT           its busy share (default 30)
 *   burst=N            requests per burst (default 60)
 *   io=2               the dom0-driven one: round trips to xenstored in
 *                      dom0, each followed by work= requests (default 1),
 *                      on a thread started as Mini-OS starts its threads
 *   crash=SECONDS      crash on purpose after this long (spin workload);
 *                      a PVH guest maps grant frames above RAM first, so
 *                      that xl writes its core in one pass (core_fit.c)
 *   stall=1            the stall meter (stall.c) instead of the workload:
 *                      gaps in the clock of stall_us= (default 5) or more
 *   trap=1             PVH: each round's tg_hot_15 runs in the #BP
 *                      handler on an interrupt stack of its own (idt.h) */
#include <stdint.h>

#include <xen/sched.h>

#include "core_fit.h"
#include "events.h"
#include "hyp.h"
#include "idt.h"
#include "io.h"
#include "lib.h"
#include "smp.h"
#include "stall.h"
#include "workload.h"
#include "xenstore.h"

#define TG_FN __attribute__((noinline, noipa, used))

/* Xen's failsafe callback (PV): our state could not be restored. */
_Noreturn void tg_failsafe(void);

_Noreturn void tg_failsafe(void)
{
	hyp_crash();
}

void tg_main(unsigned long boot_info, unsigned long mode);

/* The dom0-driven workload's thread (io=2): its stack, and its knobs. */
static char xs_stack[65536] __attribute__((aligned(16)));
static uint64_t xs_run_ns, xs_report_ns;
static unsigned xs_work;

TG_FN static void tg_xs_thread(void *arg)
{
	(void)arg;
	tg_xs_loop(xs_run_ns, xs_report_ns, xs_work);
	hyp_shutdown(SHUTDOWN_poweroff);
}

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
	if (mode == TG_PVH && tg_cmdline_u64(cmdline, "trap", 0))
		tg_trap_init();
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
		if (io == 2) {
			if (tg_xs_init((enum tg_mode)mode, boot_info)) {
				console_printf("tg: no xenstore ring\n");
				hyp_shutdown(SHUTDOWN_crash);
			}
			xs_run_ns = run_s * 1000000000ULL;
			xs_report_ns = report_ms * 1000000ULL;
			xs_work = (unsigned)tg_cmdline_u64(cmdline, "work", 1);
			tg_thread_run(tg_xs_thread, NULL, xs_stack + sizeof(xs_stack));
		}
		tg_io_loop(run_s * 1000000000ULL, report_ms * 1000000ULL,
			   (unsigned)tg_cmdline_u64(cmdline, "busy", 30),
			   (unsigned)tg_cmdline_u64(cmdline, "burst", 60));
	} else {
		tg_workload(run_s * 1000000000ULL, report_ms * 1000000ULL,
			    crash_s * 1000000000ULL);
	}
	hyp_shutdown(SHUTDOWN_poweroff);
}
