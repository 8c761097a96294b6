/* The blocking workloads. io=1, like an I/O-bound unikernel: a burst of
 * requests (tg_req_handle, busy 60/40 between two leaves), then a wait in
 * SCHEDOP_block until a timer, sized so the vCPU is busy about BUSY % of
 * the time by its clock. The guest reports its own busy share, for the
 * profile to be checked against, from Xen's accounting of its vCPU's run
 * states since the loop began (running + runnable vs blocked; the time a
 * profiler holds it paused is neither, as it is for the profiler):
 *   tg: io t_ms=T busy_ms=B idle_ms=I busy_x100=P clock_x100=C parse_t=X crc_t=Y
 * (P: run-state busy % x 100; C: the same by the guest's own clock, which
 * counts paused time as whatever phase it fell in; X, Y: TSC ticks / 1000
 * spent in the two request leaves, the time split they really had) */
#include <stdint.h>

#include "events.h"
#include "hyp.h"
#include "io.h"
#include "workload.h"
#include "xenstore.h"

#define TG_FN __attribute__((noinline, noipa, used))
#define AFTER_CALL() __asm__ volatile("" ::: "memory")

/* The wait: a separate frame between the loop and the block. */
TG_FN void tg_io_wait(uint64_t ns)
{
	tg_sleep_until(tg_xen_time() + ns);
	AFTER_CALL();
}

/* The dom0-driven workload (io=2), as a unikernel whose I/O a backend in
 * dom0 serves: each round trip to xenstored (a read of our own name)
 * blocks until dom0 answers; then work requests of the guest's own work.
 * Its CPU time comes in bursts right after dom0 worked. The report is the
 * blocking workload's, plus the round trips and the time it ran alone
 * (run_ms: busy_ms less waiting for a CPU, which wake-ups this frequent
 * make large), and of that the time it ran inside its waits (blockrun_ms,
 * events.h: a sample there is at the block point) and the part of it
 * after being scheduled again (resume_ms: a sample there says waiting). */
TG_FN void tg_xs_loop(uint64_t run_ns, uint64_t report_ns, unsigned work)
{
	uint64_t start = now_ns(), next_report = start + report_ns, busy = 0;
	uint64_t rs_busy0 = 0, rs_idle0 = 0, trips = 0, run0 = tg_running();
	uint64_t blockrun0 = tg_blockrun_ns, resume0 = tg_blockresume_ns;
	char name[64];

	tg_runstate(&rs_busy0, &rs_idle0);
	for (;;) {
		uint64_t t0, t1;

		if (tg_xs_read("name", name, sizeof(name)) < 0) {
			console_printf("tg: xenstore read failed\n");
			return;
		}
		trips++;
		t0 = now_ns();
		for (unsigned i = 0; i < work; i++)
			tg_req_handle();
		t1 = now_ns();
		busy += t1 - t0;
		if (report_ns && t1 >= next_report) {
			uint64_t rb = 0, ri = 0;

			tg_runstate(&rb, &ri);
			rb -= rs_busy0;
			ri -= rs_idle0;
			console_printf("tg: io t_ms=%lu busy_ms=%lu idle_ms=%lu busy_x100=%lu clock_x100=%lu parse_t=%lu crc_t=%lu xs=%lu run_ms=%lu blockrun_ms=%lu resume_ms=%lu reenter=%lu\n",
				       (unsigned long)((t1 - start) / 1000000),
				       (unsigned long)(rb / 1000000),
				       (unsigned long)(ri / 1000000),
				       (unsigned long)(rb + ri ? rb * 10000 / (rb + ri) : 0),
				       (unsigned long)(busy * 10000 / (t1 - start)),
				       (unsigned long)(tg_req_ticks[0] / 1000),
				       (unsigned long)(tg_req_ticks[1] / 1000),
				       (unsigned long)trips,
				       (unsigned long)((tg_running() - run0) / 1000000),
				       (unsigned long)((tg_blockrun_ns - blockrun0) / 1000000),
				       (unsigned long)((tg_blockresume_ns - resume0) / 1000000),
				       tg_upcall_reentries);
			next_report += report_ns;
		}
		if (run_ns && t1 - start >= run_ns)
			break;
	}
	console_printf("tg: done io\n");
}

TG_FN void tg_io_loop(uint64_t run_ns, uint64_t report_ns, unsigned busy_pct,
		      unsigned burst)
{
	uint64_t start = now_ns(), next_report = start + report_ns;
	uint64_t busy = 0, idle = 0, rs_busy0 = 0, rs_idle0 = 0;

	tg_runstate(&rs_busy0, &rs_idle0);

	if (busy_pct < 1 || busy_pct > 99)
		busy_pct = 30;
	for (;;) {
		uint64_t t0 = now_ns(), t1, t2;

		for (unsigned i = 0; i < burst; i++)
			tg_req_handle();
		t1 = now_ns();
		tg_io_wait((t1 - t0) * (100 - busy_pct) / busy_pct);
		t2 = now_ns();
		busy += t1 - t0;
		idle += t2 - t1;
		if (report_ns && t2 >= next_report) {
			uint64_t rb = 0, ri = 0;

			tg_runstate(&rb, &ri);
			rb -= rs_busy0;
			ri -= rs_idle0;
			console_printf("tg: io t_ms=%lu busy_ms=%lu idle_ms=%lu busy_x100=%lu clock_x100=%lu parse_t=%lu crc_t=%lu\n",
				       (unsigned long)((t2 - start) / 1000000),
				       (unsigned long)(rb / 1000000),
				       (unsigned long)(ri / 1000000),
				       (unsigned long)(rb + ri ? rb * 10000 / (rb + ri) : 0),
				       (unsigned long)(busy * 10000 / (busy + idle)),
				       (unsigned long)(tg_req_ticks[0] / 1000),
				       (unsigned long)(tg_req_ticks[1] / 1000));
			next_report += report_ns;
		}
		if (run_ns && t2 - start >= run_ns)
			break;
	}
	console_printf("tg: done io\n");
}
