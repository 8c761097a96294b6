/* The sampling loop. Per sample: sleep to an absolute deadline, pause, read
 * registers and walk every vCPU's stack into preallocated buffers, unpause
 * (or, relaxed, read and walk one vCPU at a time: sampler/relaxed.c); only
 * then count the stacks and record how long the guest stood still. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/error_impl.h"
#include "util/grow.h"
#include "unwind/kernel_map.h"
#include "sampler/sampler_impl.h"
#include "target/target_impl.h"

#define NSEC 1000000000ULL
#define UNPAUSE_TRIES 5
/* A late sampler lets the last sample stand for at most this many of the
 * periods it missed (see up_sample). */
#define MAX_CREDIT 32

const char *up_unwinder_name(enum up_unwinder u)
{
	switch (u) {
	case UP_UNWINDER_FP: return "fp";
	case UP_UNWINDER_CFI: return "cfi";
	case UP_UNWINDER_AUTO: return "auto";
	case UP_UNWINDER_LIBUNWIND: return "libunwind";
	}
	return "unknown";
}

const char *up_consistency_name(enum up_consistency c)
{
	switch (c) {
	case UP_CONSISTENCY_PAUSED: return "paused";
	case UP_CONSISTENCY_RELAXED: return "relaxed";
	}
	return "unknown";
}

const char *up_stop_reason_name(enum up_stop_reason r)
{
	switch (r) {
	case UP_STOP_DURATION: return "duration reached";
	case UP_STOP_REQUESTED: return "stopped by signal";
	case UP_STOP_SHUTDOWN: return "domain shut down";
	case UP_STOP_GONE: return "domain destroyed";
	case UP_STOP_MAX_SAMPLES: return "sample limit reached";
	case UP_STOP_ERROR: return "error";
	}
	return "unknown";
}

void up_sampler_config_init(struct up_sampler_config *c)
{
	memset(c, 0, sizeof(*c));
	c->hz = UP_SAMPLER_DEFAULT_HZ;
	c->vcpu = -1;
	c->unwind.max_depth = UP_UNWIND_DEFAULT_MAX_DEPTH;
	c->unwind.max_stack_bytes = UP_UNWIND_DEFAULT_MAX_STACK;
}

uint64_t sampler_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC + (uint64_t)ts.tv_nsec;
}

/* Sleep until the absolute deadline; a signal that sets *stop ends it. */
static void sleep_until(uint64_t deadline, volatile sig_atomic_t *stop)
{
	struct timespec ts = { .tv_sec = (time_t)(deadline / NSEC),
			       .tv_nsec = (long)(deadline % NSEC) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		if (stop && *stop)
			return;
}

/* One kept sample's pause, and how late the sampler woke for it. */
static int record_pause(struct up_sampler_stats *s, uint64_t ns,
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

static enum up_stop_reason end_reason(struct up_target *t)
{
	enum up_domain_state st;

	if (up_target_state(t, &st) < 0)
		return UP_STOP_GONE;
	switch (st) {
	case UP_STATE_RUNNING: return UP_STOP_ERROR;
	case UP_STATE_SHUTDOWN: return UP_STOP_SHUTDOWN;
	default: return UP_STOP_GONE;
	}
}

static int check_config(const struct up_target *t,
			const struct up_sampler_config *c)
{
	if (!(c->hz > 0) || c->hz > UP_SAMPLER_MAX_HZ)
		return up_fail(UP_EINVAL, "frequency %g Hz out of range (0, %g]",
			       c->hz, UP_SAMPLER_MAX_HZ);
	if (!(c->duration_s >= 0) || c->duration_s > 1e7)
		return up_fail(UP_EINVAL, "duration %g s out of range",
			       c->duration_s);
	if (c->vcpu >= 0 && (unsigned)c->vcpu >= up_target_info(t)->max_vcpus)
		return up_fail(UP_EINVAL, "vCPU %d does not exist (domain has %u)",
			       c->vcpu, up_target_info(t)->max_vcpus);
	if (c->unwind.max_depth > UP_UNWIND_MAX_DEPTH_LIMIT)
		return up_fail(UP_EINVAL, "depth limit %u above %u",
			       c->unwind.max_depth, UP_UNWIND_MAX_DEPTH_LIMIT);
	if (c->consistency > UP_CONSISTENCY_RELAXED)
		return up_fail(UP_EINVAL, "unknown consistency %d",
			       (int)c->consistency);
	if (c->unwinder > UP_UNWINDER_LIBUNWIND)
		return up_fail(UP_EINVAL, "unknown unwinder %d", (int)c->unwinder);
	if (c->unwinder == UP_UNWINDER_LIBUNWIND && !c->libunwind)
		return up_fail(UP_EINVAL, "the libunwind unwinder needs its tables");
	if ((c->unwinder == UP_UNWINDER_CFI || c->unwinder == UP_UNWINDER_AUTO) && !c->cfi)
		return up_fail(UP_EINVAL, "the %s unwinder needs a CFI table",
			       up_unwinder_name(c->unwinder));
	return 0;
}

/* The paused window: nothing here allocates or symbolizes. */
int sampler_walk(struct up_mem *mem, const struct up_regs *regs,
		 const struct up_sampler_config *c,
		 const struct up_unwind_opts *uo, struct up_stack *st,
		 struct up_unwind_counts *counts)
{
	if (c->unwinder == UP_UNWINDER_FP) {
		int rc = up_unwind_fp(mem, regs, uo, st);

		counts->fp += rc == 0 ? st->depth - 1 : 0;
		return rc;
	}
	if (c->unwinder == UP_UNWINDER_LIBUNWIND) {
		int rc = up_unwind_libunwind(mem, regs, c->libunwind, uo, st);

		counts->libunwind += rc == 0 ? st->depth - 1 : 0;
		return rc;
	}
	return up_unwind_cfi(mem, regs, c->cfi, uo,
			     c->unwinder == UP_UNWINDER_AUTO, st, counts);
}

/* *abandoned: the crash guard ended this pause (it outlived its limit);
 * the stacks were read from a running domain and must be dropped. */
static int take_sample(struct up_target *t, struct up_mem *mem,
		       const struct up_sampler_config *c,
		       const struct up_unwind_opts *uo, unsigned first,
		       unsigned last, struct vcpu_sample *vs,
		       uint64_t *pause_ns, uint64_t *stopped, uint64_t *resumed,
		       struct up_unwind_counts *counts, bool *abandoned)
{
	uint64_t t0;
	int rc, urc = -1;

	/* Just before the window, outside it: which vCPUs are blocked (see
	 * the at_block test below). */
	for (unsigned v = first; v <= last; v++) {
		enum up_vcpu_activity a = UP_VCPU_UNKNOWN;
		uint64_t run;
		bool online;

		vs[v].blocked_before = !c->no_activity &&
				       up_target_get_activity(t, v, &a, &online, &run) == 0 &&
				       a == UP_VCPU_BLOCKED;
	}
	t0 = sampler_now_ns();
	rc = up_target_pause(t);
	if (rc < 0)
		return rc;
	*stopped = sampler_now_ns();
	up_mem_new_sample(mem);
	for (unsigned v = first; v <= last; v++) {
		struct up_regs regs;
		bool online = true;

		/* Blocked or busy: Xen keeps the state across the pause. */
		vs[v].activity = UP_VCPU_UNKNOWN;
		vs[v].activity_failed = false;
		vs[v].run_ns = UP_RUN_NS_UNKNOWN;
		if (!c->no_activity &&
		    up_target_get_activity(t, v, &vs[v].activity, &online,
					   &vs[v].run_ns) < 0)
			vs[v].activity_failed = true;
		if (!online) {
			vs[v].status = VCPU_OFFLINE;
			continue;
		}
		if (up_target_get_regs(t, v, &regs) < 0)
			vs[v].status = VCPU_NO_REGS;
		else if (!regs.online && (c->no_activity || vs[v].activity_failed))
			vs[v].status = VCPU_OFFLINE;
		else
			vs[v].status = sampler_walk(mem, &regs, c, uo,
						    &vs[v].stack, counts) < 0 ?
				       VCPU_NO_REGS : VCPU_STACK;
		/* Blocked just before the pause and stopped, after it, just
		 * after blocking's trap: it has not run since, so it was
		 * blocked at the pause's instant, whatever Xen says now of a
		 * vCPU an event woke during the pause (a backend in dom0
		 * completing a request meanwhile). One woken before the pause
		 * and not run yet was waiting for a CPU: busy, as Xen says. */
		vs[v].xen_blocked = vs[v].activity == UP_VCPU_BLOCKED;
		if (!c->no_activity && !vs[v].activity_failed &&
		    vs[v].blocked_before && vs[v].status == VCPU_STACK &&
		    kernel_at_block(mem, &regs, uo->kernel, uo->domain_type))
			vs[v].activity = UP_VCPU_BLOCKED;
	}
	for (int i = 0; i < UNPAUSE_TRIES && urc < 0; i++)
		urc = target_end_pause(t, abandoned);
	/* After the unpause, not inside the window. */
	*resumed = sampler_now_ns();
	*pause_ns = *resumed - t0;
	for (unsigned v = first; v <= last; v++)
		vs[v].stall_ns = *pause_ns;
	return urc;
}

/* Between two samples that both read a vCPU's run clock: the time it ran
 * by the hypervisor's accounting, and the time the domain was not paused
 * by us (from the last sample's resume to this one's stop). Unlike the
 * count of samples that found it busy, this does not depend on when the
 * sampler got to run. */
static void account_run(struct up_sampler_stats *s, struct vcpu_sample *vs,
			unsigned first, unsigned last, uint64_t stopped,
			uint64_t resumed_before)
{
	for (unsigned v = first; v <= last; v++) {
		bool known = vs[v].run_ns != UP_RUN_NS_UNKNOWN;

		if (known && vs[v].run_known_before && resumed_before &&
		    vs[v].run_ns >= vs[v].run_ns_before &&
		    stopped > resumed_before) {
			s->vcpu_run_ns[v] += vs[v].run_ns - vs[v].run_ns_before;
			s->vcpu_unpaused_ns[v] += stopped - resumed_before;
		}
		vs[v].run_known_before = known;
		vs[v].run_ns_before = vs[v].run_ns;
	}
}

/* Count the stacks of one sample, n times each. */
static int count_stacks(struct up_profile *p, const struct vcpu_sample *vs,
			unsigned first, unsigned last, uint64_t n)
{
	for (unsigned v = first; v <= last; v++) {
		int rc;

		if (vs[v].status != VCPU_STACK)
			continue;
		rc = up_profile_add_activity(p, v, vs[v].stack.frames,
					     vs[v].stack.depth, vs[v].stack.trunc,
					     vs[v].activity, n);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int up_sample(struct up_target *t, const struct up_sampler_config *c,
	      struct up_profile *p, volatile sig_atomic_t *stop,
	      struct up_sampler_stats *s)
{
	unsigned nv = up_target_info(t)->max_vcpus;
	unsigned first = c->vcpu >= 0 ? (unsigned)c->vcpu : 0;
	unsigned last = c->vcpu >= 0 ? (unsigned)c->vcpu : nv - 1;
	unsigned depth = c->unwind.max_depth ? c->unwind.max_depth :
			 UP_UNWIND_DEFAULT_MAX_DEPTH;
	struct vcpu_sample *vs = NULL;
	struct mem_log log = { 0 };
	uint64_t *frames = NULL, start, end, period, deadline, rng;
	struct up_mem *mem = NULL;
	struct up_unwind_opts uo = c->unwind;
	size_t pause_cap = 0, late_cap = 0;
	bool have_last = false;     /* vs holds the last sample's stacks */
	bool early_done = !c->early;
	uint64_t resumed_before = 0; /* the last kept sample's resume */
	int rc;

	memset(s, 0, sizeof(*s));
	uo.domain_type = up_target_info(t)->type;
	rc = check_config(t, c);
	if (rc < 0)
		return rc;
	if (up_profile_nr_vcpus(p) < nv)
		return up_fail(UP_EINVAL, "profile has fewer vCPUs than the domain");
	s->vcpu_paused_ns = calloc(nv, sizeof(*s->vcpu_paused_ns));
	s->vcpu_paused_blocked_ns = calloc(nv, sizeof(*s->vcpu_paused_blocked_ns));
	s->vcpu_run_ns = calloc(nv, sizeof(*s->vcpu_run_ns));
	s->vcpu_unpaused_ns = calloc(nv, sizeof(*s->vcpu_unpaused_ns));
	if (!s->vcpu_paused_ns || !s->vcpu_paused_blocked_ns ||
	    !s->vcpu_run_ns || !s->vcpu_unpaused_ns) {
		up_sampler_stats_release(s);
		return up_fail(UP_ENOMEM, "out of memory");
	}
	s->nr_vcpus = nv;
	vs = calloc(nv, sizeof(*vs));
	frames = calloc((size_t)nv * depth, sizeof(*frames));
	/* A few words per frame (return address, saved registers, the
	 * hypercall page's saved words); more makes a walk unverifiable. */
	log.cap = c->consistency == UP_CONSISTENCY_RELAXED ?
		  (size_t)depth * 8 + 64 : 0;
	log.e = log.cap ? calloc(log.cap, sizeof(*log.e)) : NULL;
	if (!vs || !frames || (log.cap && !log.e)) {
		rc = up_fail(UP_ENOMEM, "out of memory");
		goto out;
	}
	for (unsigned v = 0; v < nv; v++) {
		vs[v].stack.frames = frames + (size_t)v * depth;
		vs[v].stack.capacity = depth;
	}
	rc = up_mem_new(&mem, t, c->cache_frames);
	if (rc < 0)
		goto out;
	up_target_set_max_pause(t, c->max_pause_ns ? c->max_pause_ns :
				UP_SAMPLER_DEFAULT_MAX_PAUSE_NS);

	period = (uint64_t)llround(1e9 / c->hz);
	if (period == 0)
		period = 1;
	start = deadline = sampler_now_ns();
	rng = start | 1;
	end = c->duration_s > 0 ? start + (uint64_t)llround(c->duration_s * 1e9) :
				  UINT64_MAX;
	s->stop = UP_STOP_DURATION;
	for (;;) {
		uint64_t pause_ns, now, stopped = 0, resumed = 0, at, late;
		enum up_domain_state st = UP_STATE_GONE;
		bool abandoned = false;

		if (stop && *stop) {
			s->stop = UP_STOP_REQUESTED;
			break;
		}
		if (c->max_samples &&
		    s->samples + s->abandoned_samples >= c->max_samples) {
			s->stop = UP_STOP_MAX_SAMPLES;
			break;
		}
		deadline += period;
		now = sampler_now_ns();
		if (now > deadline + period) {
			/* Late: never burst. But the periods missed are not
			 * dropped either: they count as the last sample again
			 * (up to MAX_CREDIT). The sampler falls behind when dom0
			 * is short of CPU, and a busy guest takes more of it than
			 * a blocked one (under emulation, pausing a running vCPU
			 * also waits milliseconds for its CPU to take the
			 * request, a blocked one stops at once): dropping the
			 * periods hid busy time, and splitting them with the
			 * next sample did too, as the sampler catches up just
			 * when the guest blocks and gives the CPU back
			 * (measured under load: 25 % busy sampled vs 30 %). */
			uint64_t missed = (now - deadline) / period;
			uint64_t credit = have_last && !c->drop_late ? missed : 0;

			if (credit > MAX_CREDIT)
				credit = MAX_CREDIT;
			if (credit && (rc = count_stacks(p, vs, first, last,
							 credit)) < 0) {
				s->stop = UP_STOP_ERROR;
				snprintf(s->error, sizeof(s->error), "%s",
					 up_error_last());
				rc = 0;
				break;
			}
			s->covered_periods += credit;
			s->missed_deadlines += missed - credit;
			deadline += missed * period;
		}
		if (deadline > end) {
			if (now < end)
				sleep_until(end, stop);
			s->stop = stop && *stop ? UP_STOP_REQUESTED :
				  UP_STOP_DURATION;
			break;
		}
		/* Jitter: anywhere in [deadline - period/2, deadline + period/2). */
		at = deadline;
		if (!c->no_jitter && period > 1) {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			at = deadline - period / 2 + rng % period;
		}
		if (at > end)
			at = end;
		sleep_until(at, stop);
		now = sampler_now_ns();
		late = now > at ? now - at : 0;
		if (stop && *stop) {
			s->stop = UP_STOP_REQUESTED;
			break;
		}

		have_last = false;
		if (c->consistency == UP_CONSISTENCY_RELAXED) {
			/* No domain pause: the interval between samples is
			 * from one sample's start to the next. */
			stopped = resumed = sampler_now_ns();
			sample_relaxed(t, mem, c, &uo, first, last, vs, &log, s);
			rc = 0;
			pause_ns = 0;
			for (unsigned v = first; v <= last; v++)
				if (vs[v].stall_ns > pause_ns)
					pause_ns = vs[v].stall_ns;
		} else {
			rc = take_sample(t, mem, c, &uo, first, last, vs,
					 &pause_ns, &stopped, &resumed,
					 &s->frames, &abandoned);
		}
		if (rc < 0) {
			s->stop = end_reason(t);
			if (s->stop == UP_STOP_ERROR)
				snprintf(s->error, sizeof(s->error), "%s",
					 up_error_last());
			rc = 0;
			break;
		}
		/* A guest that shut down mid-sample left stale registers:
		 * drop that sample rather than mislead. */
		if (up_target_state(t, &st) < 0 ||
		    !(st == UP_STATE_RUNNING ||
		      (c->stopped_ok && st == UP_STATE_SHUTDOWN))) {
			s->stop = st == UP_STATE_SHUTDOWN ? UP_STOP_SHUTDOWN :
							    UP_STOP_GONE;
			break;
		}
		if (abandoned) {
			/* Its pause outlived the limit: not a clean interval. */
			s->abandoned_samples++;
			for (unsigned v = first; v <= last; v++)
				vs[v].run_known_before = false;
			continue;
		}
		account_run(s, vs, first, last, stopped, resumed_before);
		resumed_before = resumed;
		for (unsigned v = first; v <= last; v++) {
			s->vcpu_paused_ns[v] += vs[v].stall_ns;
			if (vs[v].xen_blocked)
				s->vcpu_paused_blocked_ns[v] += vs[v].stall_ns;
			if (vs[v].status == VCPU_OFFLINE)
				s->offline_vcpus++;
			else if (vs[v].status == VCPU_NO_REGS)
				s->reg_failures++;
			else
				s->activity_failures += vs[v].activity_failed;
		}
		rc = count_stacks(p, vs, first, last, 1);
		if (rc == 0)
			rc = record_pause(s, pause_ns, late, &pause_cap,
					  &late_cap);
		if (rc < 0) {
			s->stop = UP_STOP_ERROR;
			snprintf(s->error, sizeof(s->error), "%s",
				 up_error_last());
			rc = 0;
			break;
		}
		s->samples++;
		have_last = true;
		if (!early_done && sampler_now_ns() - start >= c->early_ns) {
			early_done = true;
			c->early(p, s, c->early_arg);
		}
	}
	s->elapsed_s = (double)(sampler_now_ns() - start) / 1e9;
	up_mem_get_stats(mem, &s->mem);
out:
	up_mem_free(mem);
	free(log.e);
	free(frames);
	free(vs);
	return rc;
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
