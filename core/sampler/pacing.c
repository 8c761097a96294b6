/* When to take the next sample: at the instants of a Poisson process of
 * the rate asked (or, for tests, on the period grid), and how many of them
 * a late sampler missed.
 *
 * Poisson instants see the time average of the guest's states even where
 * the sampler itself changes what comes next (PASTA: Poisson arrivals see
 * time averages): a pause leaves a vCPU runnable after it, waiting for its
 * pCPU; instants one period apart, however jittered, are never just after
 * the last one, and missed that wait (on the production-shaped host, 14
 * of the guest's 51 points waiting; docs/IO-GUESTS.md). Instants that fall
 * inside our own sample are dropped, as that time is not the guest's (Xen
 * counts it offline, and the summaries leave it out).
 *
 * Above POISSON_MAX_HZ a sample is a good part of a period: the instants
 * are one period apart, each at a random point of its period, and a
 * sampler that falls behind samples back to back without sleeping (a
 * timer sleep costs its wake-up latency, which under emulation is longer
 * than a sample). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <time.h>

#include "sampler/sampler_impl.h"

#define NSEC 1000000000ULL
/* The longest gap drawn, in periods: e^-40 is never seen anyway. */
#define MAX_GAP_PERIODS 40
#define POISSON_MAX_HZ 1000

void pacing_start(struct pacing *pc, double hz, double duration_s,
		  bool random, uint64_t now)
{
	pc->period = (uint64_t)llround(1e9 / hz);
	if (pc->period == 0)
		pc->period = 1;
	pc->deadline = now;
	pc->busy_from = pc->busy_to = 0;
	pc->rng = now | 1;
	pc->end = duration_s > 0 ? now + (uint64_t)llround(duration_s * 1e9) :
				   UINT64_MAX;
	pc->poisson = random && hz <= POISSON_MAX_HZ;
	pc->jitter = random && !pc->poisson;
}

static uint64_t next_random(struct pacing *pc)
{
	pc->rng ^= pc->rng << 13;
	pc->rng ^= pc->rng >> 7;
	pc->rng ^= pc->rng << 17;
	return pc->rng;
}

/* The gap to the next instant: exponential, of mean one period. */
static uint64_t gap(struct pacing *pc)
{
	double u, g;

	next_random(pc);
	/* In (0, 1]: 53 random bits, never 0. */
	u = ((double)(pc->rng >> 11) + 1.0) / 9007199254740992.0;
	g = -log(u) * (double)pc->period;
	if (g > (double)pc->period * MAX_GAP_PERIODS)
		g = (double)pc->period * MAX_GAP_PERIODS;
	return (uint64_t)g;
}

uint64_t pacing_advance(struct pacing *pc, uint64_t now)
{
	uint64_t missed = 0;

	if (!pc->poisson) {
		pc->deadline += pc->period;
		if (now <= pc->deadline + pc->period)
			return 0;
		missed = (now - pc->deadline) / pc->period;
		pc->deadline += missed * pc->period;
		return missed;
	}
	pc->deadline += gap(pc);
	while (pc->deadline < now && pc->deadline < pc->end) {
		uint64_t next = pc->deadline + gap(pc);

		/* Inside our last sample: the guest stood paused, not its
		 * time. Before it: passed while the sampler could not run;
		 * the last of those is taken now, late, the others missed. */
		if (!(pc->deadline >= pc->busy_from && pc->deadline < pc->busy_to)) {
			if (next >= now)
				break;
			missed++;
		}
		pc->deadline = next;
	}
	return missed;
}

void pacing_set_period(struct pacing *pc, uint64_t period)
{
	pc->period = period ? period : 1;
}

void pacing_sampled(struct pacing *pc, uint64_t started, uint64_t ended)
{
	pc->busy_from = started;
	pc->busy_to = ended;
}

uint64_t pacing_instant(struct pacing *pc)
{
	uint64_t at = pc->deadline;

	/* On the grid: anywhere in [deadline - period/2, deadline + period/2). */
	if (pc->jitter && pc->period > 1)
		at = pc->deadline - pc->period / 2 + next_random(pc) % pc->period;
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
