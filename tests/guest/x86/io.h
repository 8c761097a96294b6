#ifndef TG_IO_H
#define TG_IO_H

#include <stdint.h>

/* Bursts of requests, then a block, busy_pct % busy (run_ns 0: forever). */
void tg_io_loop(uint64_t run_ns, uint64_t report_ns, unsigned busy_pct,
		unsigned burst);

/* Round trips to xenstored in dom0, each followed by work requests (the
 * xenstore ring set up: tg_xs_init). */
void tg_xs_loop(uint64_t run_ns, uint64_t report_ns, unsigned work);

/* fn(arg) on a stack of its own, entered through a thread trampoline
 * without unwind information (entry.S); never returns. */
_Noreturn void tg_thread_run(void (*fn)(void *), void *arg, void *stack_top);

#endif
