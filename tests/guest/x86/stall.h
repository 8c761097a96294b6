#ifndef TG_STALL_H
#define TG_STALL_H

#include <stdint.h>

/* The stall meter (stall=1): what a profiler costs the guest, seen from
 * inside. Reads the clock in a tight loop; a gap of threshold_ns or more
 * between two reads is time the vCPU did not run. Prints "tg: stall"
 * lines every report_ns (loops so far, gaps, their sum and the longest),
 * until run_ns (0: never). */
void tg_stall_meter(uint64_t run_ns, uint64_t report_ns, uint64_t threshold_ns);

#endif
