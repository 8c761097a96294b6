#ifndef TG_IO_H
#define TG_IO_H

#include <stdint.h>

/* Bursts of requests, then a block, busy_pct % busy (run_ns 0: forever). */
void tg_io_loop(uint64_t run_ns, uint64_t report_ns, unsigned busy_pct,
		unsigned burst);

#endif
