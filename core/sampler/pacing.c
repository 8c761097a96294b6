/* When to take the next sample: absolute deadlines one period apart, each
 * sample at a random instant within its period (so a guest's periodic
 * work cannot hide between samples), and how many periods a late sampler
 * missed. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <time.h>

#include "sampler/sampler_impl.h"

#define NSEC 1000000000ULL

void pacing_start(struct pacing *pc, double hz, double duration_s,
		  bool jitter, uint64_t now)
{
	pc->period = (uint64_t)llround(1e9 / hz);
	if (pc->period == 0)
		pc->period = 1;
	pc->deadline = now;
	pc->rng = now | 1;
	pc->end = duration_s > 0 ? now + (uint64_t)llround(duration_s * 1e9) :
				   UINT64_MAX;
	pc->jitter = jitter;
}

uint64_t pacing_advance(struct pacing *pc, uint64_t now)
{
	uint64_t missed;

	pc->deadline += pc->period;
	if (now <= pc->deadline + pc->period)
		return 0;
	missed = (now - pc->deadline) / pc->period;
	pc->deadline += missed * pc->period;
	return missed;
}

uint64_t pacing_instant(struct pacing *pc)
{
	uint64_t at = pc->deadline;

	/* Anywhere in [deadline - period/2, deadline + period/2). */
	if (pc->jitter && pc->period > 1) {
		pc->rng ^= pc->rng << 13;
		pc->rng ^= pc->rng >> 7;
		pc->rng ^= pc->rng << 17;
		at = pc->deadline - pc->period / 2 + pc->rng % pc->period;
	}
	return at > pc->end ? pc->end : at;
}

void pacing_sleep_until(uint64_t deadline, volatile sig_atomic_t *stop)
{
	struct timespec ts = { .tv_sec = (time_t)(deadline / NSEC),
			       .tv_nsec = (long)(deadline % NSEC) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		if (stop && *stop)
			return;
}
