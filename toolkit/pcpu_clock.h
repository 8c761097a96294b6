/* Xen's accounting of its physical CPUs: how long each has been idle
 * (XEN_SYSCTL_getcpuinfo). Read before and after a run, it bounds how
 * long other vCPUs held the pCPUs a guest's vCPU may use, so that the
 * profiler says a vCPU waited for a pCPU others held only when Xen's own
 * figures allow it (run_checks.c). */
#ifndef TK_PCPU_CLOCK_H
#define TK_PCPU_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "cpuset.h"

struct tk_pcpu_clock {
	bool ok;
	unsigned nr;                       /* pCPUs Xen reported */
	uint64_t idle_ns[TK_MAX_CPUS];
	uint64_t at_ns;                    /* CLOCK_MONOTONIC of the read */
};

/* Read Xen's idle clocks now (ok false when Xen will not say). */
void tk_pcpu_clock_read(struct tk_pcpu_clock *c);

/* The most of the interval from a to b that every pCPU in may_run was
 * busy with something other than the guest, in percent (a vCPU waits for
 * a pCPU only while each one it may use is held): the least busy of
 * them, less the guest's own running time there when it may use one
 * pCPU only (guest_running_pct: its vCPUs' running time in that interval,
 * summed, in percent). -1 when either read failed. */
double tk_pcpu_others_pct(const struct tk_pcpu_clock *a,
			   const struct tk_pcpu_clock *b,
			   const struct tk_cpuset *may_run,
			   double guest_running_pct);

#endif
