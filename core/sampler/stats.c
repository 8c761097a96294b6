/* What the sampler measured of itself and of the guest: pauses, late
 * wake-ups, the run time Xen accounted between samples, and the figures
 * derived from them (percentiles, shares). Recorded after each sample's
 * window, never inside it. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "uniprof/error.h"
#include "private.h"
#include "util/grow.h"
#include "sampler/sampler_impl.h"

/* One kept sample's pause, and how late the sampler woke for it. */
int stats_record_pause(struct up_sampler_stats *s, uint64_t ns,
		       uint64_t late_ns, size_t *cap, size_t *late_cap)
{
	if (grow_array(&s->pause_ns, cap, s->nr_pause + 1, sizeof(*s->pause_ns),
		    1024) < 0 ||
	    grow_array(&s->wake_late_ns, late_cap, s->nr_pause + 1,
		       sizeof(*s->wake_late_ns), 1024) < 0)
		return UP_ENOMEM;
	s->wake_late_ns[s->nr_pause] = late_ns;
	s->pause_ns[s->nr_pause++] = ns;
	return 0;
}

/* Between two reads of a vCPU's run clock: the time it ran by the
 * hypervisor's accounting, and the time the domain was not paused by us
 * (the wall time between the reads less our pauses meanwhile). Unlike the
 * count of samples that found it busy, this does not depend on when the
 * sampler got to run. */
void stats_account_run(struct up_sampler_stats *s, struct vcpu_sample *vs,
		       unsigned first, unsigned last, uint64_t at,
		       uint64_t paused_total)
{
	for (unsigned v = first; v <= last; v++) {
		bool known = vs[v].run_ns != UP_RUN_NS_UNKNOWN;

		if (known && vs[v].run_known_before &&
		    vs[v].run_ns >= vs[v].run_ns_before &&
		    at > vs[v].run_at_before &&
		    paused_total >= vs[v].paused_before &&
		    at - vs[v].run_at_before > paused_total - vs[v].paused_before) {
			s->vcpu_run_ns[v] += vs[v].run_ns - vs[v].run_ns_before;
			s->vcpu_unpaused_ns[v] += at - vs[v].run_at_before -
						  (paused_total - vs[v].paused_before);
		}
		vs[v].run_known_before = known;
		vs[v].run_ns_before = vs[v].run_ns;
		vs[v].run_at_before = at;
		vs[v].paused_before = paused_total;
	}
}


void up_sampler_stats_release(struct up_sampler_stats *s)
{
	free(s->pause_ns);
	free(s->wake_late_ns);
	s->pause_ns = s->wake_late_ns = NULL;
	free(s->vcpu_paused_ns);
	free(s->vcpu_paused_blocked_ns);
	free(s->vcpu_run_ns);
	free(s->vcpu_unpaused_ns);
	s->vcpu_paused_ns = s->vcpu_paused_blocked_ns = NULL;
	s->vcpu_run_ns = s->vcpu_unpaused_ns = NULL;
	s->nr_vcpus = 0;
	s->nr_pause = 0;
}

double up_sampler_running_pct(const struct up_sampler_stats *s, unsigned vcpu)
{
	double pct;

	if (vcpu >= s->nr_vcpus || !s->vcpu_unpaused_ns ||
	    s->vcpu_unpaused_ns[vcpu] == 0)
		return -1;
	pct = 100.0 * (double)s->vcpu_run_ns[vcpu] /
	      (double)s->vcpu_unpaused_ns[vcpu];
	/* Clock granularity can put a fully busy vCPU a hair above 100. */
	return pct > 100 ? 100 : pct;
}

double up_sampler_stall_pct(const struct up_sampler_stats *s, unsigned vcpu)
{
	if (vcpu >= s->nr_vcpus || !s->vcpu_paused_ns || !(s->elapsed_s > 0))
		return -1;
	return 100.0 * (double)s->vcpu_paused_ns[vcpu] / (s->elapsed_s * 1e9);
}

double up_sampler_pause_mean(const struct up_sampler_stats *s)
{
	double sum = 0;

	for (size_t i = 0; i < s->nr_pause; i++)
		sum += (double)s->pause_ns[i];
	return s->nr_pause ? sum / (double)s->nr_pause : 0;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Percentile of n values (nearest rank); 0 if none. */
static uint64_t percentile(const uint64_t *vals, size_t n, double pct)
{
	uint64_t *sorted, v;
	size_t rank;

	if (n == 0 || !vals)
		return 0;
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		return 0;
	memcpy(sorted, vals, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), u64_cmp);
	if (pct <= 0)
		rank = 1;
	else if (pct >= 100)
		rank = n;
	else
		rank = (size_t)ceil(pct / 100.0 * (double)n);
	if (rank < 1)
		rank = 1;
	v = sorted[rank - 1];
	free(sorted);
	return v;
}

uint64_t up_sampler_pause_percentile(const struct up_sampler_stats *s,
				     double pct)
{
	return percentile(s->pause_ns, s->nr_pause, pct);
}

uint64_t up_sampler_wake_late_percentile(const struct up_sampler_stats *s,
					 double pct)
{
	return percentile(s->wake_late_ns, s->nr_pause, pct);
}

