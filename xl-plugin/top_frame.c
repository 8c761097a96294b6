/* xl profile top's frames: each interval's samples sliced off the run's
 * profile, the sampler's cost and rate over it, drawn full screen or as
 * plain text. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "top_run.h"
#include "top_term.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The sampler's pauses since the last frame: p50, p99, and the share of
 * the interval the domain stood still. */
static void interval_cost(struct top *tp, const struct up_sampler_stats *s,
			  double wall_s)
{
	size_t n = s->nr_pause > tp->pause_at ? s->nr_pause - tp->pause_at : 0;
	uint64_t *v, sum = 0;

	tp->have_cost = false;
	if (!n || !(v = malloc(n * sizeof(*v))))
		return;
	memcpy(v, s->pause_ns + tp->pause_at, n * sizeof(*v));
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	qsort(v, n, sizeof(*v), cmp_u64);
	tp->p50_us = (double)v[(n - 1) / 2] / 1e3;
	tp->p99_us = (double)v[(size_t)ceil(0.99 * (double)n) - 1] / 1e3;
	tp->still_pct = wall_s > 0 ? 100.0 * (double)sum / 1e9 / wall_s : 0;
	tp->have_cost = true;
	free(v);
}

/* The rate the stall budget left, and how many periods of the rate asked
 * each sample since the last frame stood for: the sampling error of the
 * interval's shares rests on the samples, not the periods. */
static void interval_rate(struct top *tp, const struct up_sampler_stats *s)
{
	uint64_t periods = s->samples + s->covered_periods + s->budget_periods;
	uint64_t ds = s->samples - tp->samples_at, dp = periods - tp->periods_at;

	tp->hz_now = s->hz_now;
	tp->hz_asked = s->hz_asked;
	tp->max_stall_pct = s->max_stall_pct;
	tp->sample_share = dp ? (double)ds / (double)dp : 1;
	tp->samples_at = s->samples;
	tp->periods_at = periods;
}

/* Each vCPU's share of the interval it ran by Xen's accounting: the
 * run clock the sampler reads outside its pauses, over the time it did
 * not hold the domain paused. */
static void interval_ran(struct top *tp, const struct up_sampler_stats *s)
{
	if (!s->vcpu_run_ns || !s->vcpu_unpaused_ns)
		return;
	if (!tp->ran_pct) {
		tp->run0 = calloc(s->nr_vcpus, sizeof(*tp->run0));
		tp->unpaused0 = calloc(s->nr_vcpus, sizeof(*tp->unpaused0));
		tp->ran_pct = calloc(s->nr_vcpus, sizeof(*tp->ran_pct));
		if (!tp->run0 || !tp->unpaused0 || !tp->ran_pct) {
			free(tp->run0);
			free(tp->unpaused0);
			free(tp->ran_pct);
			tp->run0 = tp->unpaused0 = NULL;
			tp->ran_pct = NULL;
			return;
		}
		tp->nr_ran = s->nr_vcpus;
	}
	for (unsigned v = 0; v < tp->nr_ran; v++) {
		uint64_t run = s->vcpu_run_ns[v] - tp->run0[v];
		uint64_t up = s->vcpu_unpaused_ns[v] - tp->unpaused0[v];

		tp->ran_pct[v] = up ? (run > up ? 100.0 : 100.0 * (double)run / (double)up) : -1;
		tp->run0[v] = s->vcpu_run_ns[v];
		tp->unpaused0[v] = s->vcpu_unpaused_ns[v];
	}
}

void xlp_top_draw(struct top *tp)
{
	struct xlp_top_input in = {
		.name = tp->name, .source = tp->source, .t_s = tp->t_s,
		.interval_s = tp->interval_s, .total = tp->total,
		.interval = tp->interval, .names = tp->names,
		.have_cost = tp->have_cost, .pause_p50_us = tp->p50_us,
		.pause_p99_us = tp->p99_us, .still_pct = tp->still_pct,
		.state = tp->frozen ? "frozen (f resumes)" : tp->state,
		.ran_pct = tp->ran_pct, .nr_ran = tp->nr_ran,
		.live = tp->live != NULL,
		.hz_now = tp->hz_now, .hz_asked = tp->hz_asked,
		.max_stall_pct = tp->max_stall_pct,
		.sample_share = tp->sample_share > 0 ? tp->sample_share : 1,
	};
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (!tp->interval || !tp->total)
		return;
	if (tp->batch) {
		xlp_top_render(&in, &tp->view, stdout);
		fputc('\n', stdout);
		/* The reader gone (top -b | head): stop sampling too. */
		if (fflush(stdout) != 0 || ferror(stdout))
			*tp->stop = 1;
		return;
	}
	if (!(f = open_memstream(&text, &len)))
		return;
	{
		unsigned cols, rows;

		xlp_term_size(&cols, &rows);
		tp->view.width = cols;
		if (!tp->rows_set)
			tp->view.rows = rows > 18 ? rows - 14 : 4;
	}
	xlp_top_render(&in, &tp->view, f);
	fclose(f);
	xlp_term_show(text, len);
	free(text);
}

int xlp_top_new_frame(struct top *tp, const struct up_profile *total,
		      uint64_t end_ns, double t_s, const struct up_sampler_stats *s,
		      double wall_s)
{
	struct up_profile *iv;

	if (up_profile_slice(total, tp->end_ns, end_ns, &iv) < 0) {
		*tp->stop = 1;
		snprintf(tp->error, sizeof(tp->error), "%s", up_error_last());
		return -1;
	}
	if (tp->live)
		up_profile_forget_times(tp->live, end_ns);
	up_profile_free(tp->interval);
	tp->interval = iv;
	tp->total = total;
	tp->interval_s = (double)(end_ns - tp->end_ns) / 1e9;
	tp->end_ns = end_ns;
	tp->t_s = t_s;
	if (s) {
		interval_cost(tp, s, wall_s);
		interval_rate(tp, s);
		tp->pause_at = s->nr_pause;
		interval_ran(tp, s);
	}
	tp->frames++;
	if (!tp->frozen)
		xlp_top_draw(tp);
	if (tp->iterations && tp->frames >= tp->iterations)
		*tp->stop = 1;
	return 0;
}
