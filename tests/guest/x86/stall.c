/* The stall meter: a vCPU stopped by Xen (a domain pause, a vCPU pause for
 * a register copy, another domain on its CPU) sees a jump of its clock.
 * The loop itself is a few dozen instructions: under emulation a gap of a
 * few microseconds is already time it did not run. Comparing the gaps with
 * and without a profiler gives the stall per sample the guest felt. */
#include "hyp.h"
#include "lib.h"
#include "stall.h"

#define TG_FN __attribute__((noinline, noipa, used))

TG_FN void tg_stall_meter(uint64_t run_ns, uint64_t report_ns,
			  uint64_t threshold_ns)
{
	uint64_t start = now_ns(), prev = start, next = start + report_ns;
	uint64_t loops = 0, gaps = 0, gap_ns = 0, max_ns = 0;

	console_printf("tg: stall meter threshold_ns=%lu\n",
		       (unsigned long)threshold_ns);
	for (;;) {
		uint64_t t = now_ns(), d = t - prev;

		prev = t;
		loops++;
		if (d >= threshold_ns) {
			gaps++;
			gap_ns += d;
			if (d > max_ns)
				max_ns = d;
		}
		if (report_ns && t >= next) {
			console_printf("tg: stall t_ms=%lu loops=%lu gaps=%lu gap_us=%lu max_us=%lu\n",
				       (unsigned long)((t - start) / 1000000),
				       (unsigned long)loops, (unsigned long)gaps,
				       (unsigned long)(gap_ns / 1000),
				       (unsigned long)(max_ns / 1000));
			next += report_ns;
			/* The console write is ours, not a stall. */
			prev = now_ns();
		}
		if (run_ns && t - start >= run_ns)
			break;
	}
	console_printf("tg: done loops=%lu\n", (unsigned long)loops);
}
