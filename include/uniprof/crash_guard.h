/* Never leave a domain paused: the guard is a small watchdog process that
 * shares with us whether, and since when, the domain is paused by us, and
 * waits on a pipe. If we die in any way, SIGKILL and crashes included, the
 * pipe closes and the watchdog unpauses the domain if it is paused by us.
 * It also wakes periodically: a pause that outlives its limit (the
 * sampler's max_pause_ns) is ended by the watchdog, exactly once, even if
 * we are stuck. It runs in a session of its own (Ctrl-C and a kill of our
 * process group do not reach it) and ignores SIGINT, SIGTERM and SIGHUP.
 * What it cannot survive is what kills every process of its cgroup. */
#ifndef UNIPROF_CRASH_GUARD_H
#define UNIPROF_CRASH_GUARD_H

#include "target.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Start the watchdog for t. Call before the first pause. An image target
 * (tests) gets one too: it then ends pauses of the image's stand-in for
 * Xen's pause count. The program is UNIPROF_GUARD if set, else the
 * installed uniprof-guard. */
int up_crash_guard_install(struct up_target *t);

#ifdef __cplusplus
}
#endif
#endif
