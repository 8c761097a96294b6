/* The test unikernel's main: read the knobs from the command line (xl's
 * extra=), run the workload, report its own work rate, shut down.
 *   run=SECONDS        shut down after this long (0: never; default)
 *   report_ms=MS       print "tg: work" lines this often (default 1000)
 *   unit=N             spin iterations per work unit (default 2000)   */
#include <stdint.h>

#include <xen/sched.h>

#include "hyp.h"
#include "lib.h"
#include "smp.h"
#include "workload.h"

#define TG_FN __attribute__((noinline, noipa, used))

TG_FN void tg_workload(uint64_t run_ns, uint64_t report_ns)
{
	uint64_t start = now_ns(), next_report = start + report_ns;
	unsigned long rounds = 0, last_rounds = 0;

	for (;;) {
		uint64_t now;

		tg_round();
		rounds++;
		/* Reading the clock can trap to Xen: not every round. */
		if (rounds % 64)
			continue;
		now = now_ns();
		if (report_ns && now >= next_report) {
			console_printf("tg: work t_ms=%lu rounds=%lu delta=%lu\n",
				       (unsigned long)((now - start) / 1000000),
				       rounds, rounds - last_rounds);
			last_rounds = rounds;
			next_report += report_ns;
		}
		if (run_ns && now - start >= run_ns)
			break;
	}
	console_printf("tg: done rounds=%lu\n", rounds);
}

void tg_main(unsigned long boot_info, unsigned long mode);

TG_FN void tg_main(unsigned long boot_info, unsigned long mode)
{
	const char *cmdline = hyp_init((enum tg_mode)mode, boot_info);
	uint64_t run_s = tg_cmdline_u64(cmdline, "run", 0);
	uint64_t report_ms = tg_cmdline_u64(cmdline, "report_ms", 1000);

	int vcpu1;

	tg_unit_iters = tg_cmdline_u64(cmdline, "unit", 2000);
	vcpu1 = hyp_on_xen() ? tg_start_vcpu1((enum tg_mode)mode, boot_info) : -1;
	console_printf("tg: start mode=%s run=%lu unit=%lu vcpus=%u cmdline='%s'\n",
		       mode == TG_PV ? "pv" : "pvh", (unsigned long)run_s,
		       tg_unit_iters, vcpu1 == 0 ? 2u : 1u, cmdline);
	tg_workload(run_s * 1000000000ULL, report_ms * 1000000ULL);
	hyp_shutdown(SHUTDOWN_poweroff);
}
