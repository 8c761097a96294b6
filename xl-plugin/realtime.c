/* SCHED_FIFO and locked memory around the sampling loop (see realtime.h). */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>

#include "realtime.h"

/* Low in the real-time range: above every normal dom0 task, below the
 * kernel's own real-time threads. The kernel's real-time throttling still
 * leaves other tasks 5% of the CPU should a sampling rate be impossible. */
#define SAMPLER_PRIORITY 10

static int old_policy = -1;
static struct sched_param old_param;
static bool locked;

bool xlp_realtime_enter(const char **why)
{
	struct sched_param sp = { .sched_priority = SAMPLER_PRIORITY };

	*why = NULL;
	locked = mlockall(MCL_CURRENT | MCL_FUTURE) == 0;
	if (!locked)
		*why = strerror(errno);
	old_policy = sched_getscheduler(0);
	sched_getparam(0, &old_param);
	if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0) {
		*why = strerror(errno);
		old_policy = -1;
	}
	/* Half of it would make the report's "normal priority" untrue. */
	if (!locked || old_policy < 0) {
		xlp_realtime_leave();
		return false;
	}
	return true;
}

void xlp_realtime_leave(void)
{
	if (old_policy >= 0)
		sched_setscheduler(0, old_policy, &old_param);
	old_policy = -1;
	if (locked)
		munlockall();
	locked = false;
}
