/* While sampling, the profiler runs SCHED_FIFO with its memory locked: a
 * dom0 task that preempts it, or a page fault, inside the paused window
 * would stretch the guest's pause by a whole time slice. Dropped again
 * before the slow work (symbolizing, writing files). */
#ifndef XLP_REALTIME_H
#define XLP_REALTIME_H

#include <stdbool.h>

/* Try both; false (and a reason in *why) when not permitted. Sampling
 * goes on either way. */
bool xlp_realtime_enter(const char **why);
void xlp_realtime_leave(void);

#endif
