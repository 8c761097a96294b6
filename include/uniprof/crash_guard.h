/* Never leave a domain paused: the guard is a small watchdog process that
 * shares one flag with us ("domain paused by us") and waits on a pipe. If
 * we die in any way, SIGKILL and crashes included, the pipe closes and the
 * watchdog unpauses the domain if the flag is set. */
#ifndef UNIPROF_CRASH_GUARD_H
#define UNIPROF_CRASH_GUARD_H

#include "target.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Start the watchdog for t. Targets without a live domain need none and
 * return 0 at once. Call before the first pause. */
int up_crash_guard_install(struct up_target *t);

/* Stop the watchdog (up_target_close does this). */
void up_crash_guard_release(struct up_target *t);

#ifdef __cplusplus
}
#endif
#endif
