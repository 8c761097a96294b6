/* The daemon's CPU budget (see cpu_budget.h). */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "cpu_budget.h"
#include "log.h"

#define WINDOW 5           /* seconds of history */
#define MIN_SCALE 0.01

struct upd_budget {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	bool stopping;
	double budget, scale, used;
	unsigned settle_s;         /* how long a new scale takes to show */
};

double upd_budget_next_scale(double scale, double used_pct, double budget_pct)
{
	/* Sampling cost is about proportional to the rate: aim 10% under
	 * the budget at once; recover by a quarter per step when well under. */
	if (used_pct > budget_pct)
		scale *= 0.9 * budget_pct / used_pct;
	else if (used_pct < 0.7 * budget_pct)
		scale *= 1.25;
	if (scale > 1)
		scale = 1;
	if (scale < MIN_SCALE)
		scale = MIN_SCALE;
	return scale;
}

double upd_budget_step(double scale, double used_pct, double budget_pct,
		       double now_s, unsigned settle_s, double *held_until)
{
	double next;

	/* A new scale shows only in profiles started after it, and in a
	 * window of usage after those: until then the usage is the old
	 * scale's, and acting on it again would compound one excess into
	 * the floor (16 domains went from 1 to 0.01 in seconds while their
	 * profiles ran on at 1). */
	if (now_s < *held_until)
		return scale;
	next = upd_budget_next_scale(scale, used_pct, budget_pct);
	if (next != scale)
		*held_until = now_s + settle_s + WINDOW;
	return next;
}

static double now_s(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *watch(void *arg)
{
	struct upd_budget *b = arg;
	double cpu[WINDOW + 1], wall[WINDOW + 1], held_until = 0;
	unsigned n = 0;

	pthread_mutex_lock(&b->lock);
	while (!b->stopping) {
		struct timespec until;
		unsigned i = n % (WINDOW + 1), oldest;

		cpu[i] = now_s(CLOCK_PROCESS_CPUTIME_ID);
		wall[i] = now_s(CLOCK_MONOTONIC);
		n++;
		if (n > WINDOW) {
			double before = b->scale;

			oldest = n % (WINDOW + 1);
			b->used = 100 * (cpu[i] - cpu[oldest]) / (wall[i] - wall[oldest]);
			b->scale = upd_budget_step(b->scale, b->used, b->budget,
						   wall[i], b->settle_s, &held_until);
			if (b->scale < before * 0.95 || (b->scale == 1 && before < 1))
				upd_log("CPU budget: using %.1f%% of a CPU (budget %.1f%%): sampling rates at %.0f%%",
					b->used, b->budget, 100 * b->scale);
		}
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += 1;
		while (!b->stopping &&
		       pthread_cond_timedwait(&b->wake, &b->lock, &until) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

int upd_budget_start(struct upd_budget **out, double budget_pct,
		     unsigned settle_s)
{
	struct upd_budget *b = calloc(1, sizeof(*b));
	pthread_condattr_t ca;

	*out = b;
	if (!b)
		return -1;
	pthread_mutex_init(&b->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&b->wake, &ca);
	pthread_condattr_destroy(&ca);
	b->budget = budget_pct;
	b->settle_s = settle_s;
	b->scale = 1;
	if (pthread_create(&b->thread, NULL, watch, b) != 0) {
		upd_budget_stop(b);
		*out = NULL;
		return -1;
	}
	return 0;
}

void upd_budget_stop(struct upd_budget *b)
{
	if (!b)
		return;
	pthread_mutex_lock(&b->lock);
	b->stopping = true;
	pthread_cond_broadcast(&b->wake);
	pthread_mutex_unlock(&b->lock);
	if (b->thread)
		pthread_join(b->thread, NULL);
	pthread_cond_destroy(&b->wake);
	pthread_mutex_destroy(&b->lock);
	free(b);
}

#define GET(field)                                   \
	double v;                                    \
	pthread_mutex_lock(&b->lock);                \
	v = b->field;                                \
	pthread_mutex_unlock(&b->lock);              \
	return v

double upd_budget_scale(struct upd_budget *b) { GET(scale); }
double upd_budget_used_pct(struct upd_budget *b) { GET(used); }
double upd_budget_pct(struct upd_budget *b) { GET(budget); }
