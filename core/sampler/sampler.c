/* The sampling loop. Per period: wait for the sample's instant (pacing.c),
 * take one sample, paused (paused.c) or relaxed (relaxed.c), into
 * preallocated buffers; only then count the stacks and record how long the
 * guest stood still (stats.c). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/clock.h"
#include "util/error_impl.h"
#include "unwind/kernel_map.h"
#include "sampler/sampler_impl.h"
#include "target/target_impl.h"
#include "mem/memory.h"

/* A late sampler lets the last sample stand for at most this many of the
 * periods it missed (see credit_missed). */
#define MAX_CREDIT 32
/* Paused samples read the vCPUs' run clocks this often, outside the
 * window (see read_run_clocks). */
#define RUN_CLOCK_NS 50000000ULL

/* Everything the loop allocates before the first sample. */
struct loop {
	unsigned first, last;
	struct vcpu_sample *vs;
	uint64_t *frames;
	struct mem_log log;
	struct up_mem *mem;
	struct up_mem_stats mem_before;   /* its counts as this run began */
	size_t cache_frames;              /* the size it was asked at */
	struct up_unwind_opts uo;
	size_t pause_cap, late_cap;
	bool relaxed;
	bool clocks_due;          /* this sample's unpause reads the run clocks */
	bool have_last;           /* vs holds the last kept sample's stacks */
	uint64_t paused_total;    /* time we held the domain paused, in all */
	uint64_t clocks_at;       /* when the run clocks were last read */
	uint64_t start;           /* the loop's start: sample times count from it */
	struct stall_budget budget;
	uint64_t period;          /* the period asked, ns */
	unsigned k;               /* each sample stands for k periods of it */
	double sum_k, sum_k2;     /* over the samples kept: k, k squared */
};

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

/* Count the stacks of one sample, n times each, taken at t_ns (credited:
 * for periods missed, as the last sample). */
static int count_stacks(struct up_profile *p, const struct vcpu_sample *vs,
			unsigned first, unsigned last, uint64_t n,
			uint64_t t_ns, bool credited)
{
	for (unsigned v = first; v <= last; v++) {
		int rc;

		if (vs[v].status != VCPU_STACK)
			continue;
		rc = (credited ? up_profile_add_credited : up_profile_add_at)(
			p, v, vs[v].stack.frames, vs[v].stack.depth,
			vs[v].stack.trunc, vs[v].activity, n, t_ns);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The loop stops on an error of its own: the profile so far is kept. */
static void stop_on_error(struct up_sampler_stats *s)
{
	s->stop = UP_STOP_ERROR;
	snprintf(s->error, sizeof(s->error), "%s", up_error_last());
}

static int loop_setup(struct loop *l, struct up_target *t,
		      const struct up_sampler_config *c,
		      struct up_profile *p, struct up_sampler_stats *s)
{
	unsigned nv = up_target_info(t)->max_vcpus;
	unsigned depth = c->unwind.max_depth ? c->unwind.max_depth :
			 UP_UNWIND_DEFAULT_MAX_DEPTH;
	int rc;

	l->first = c->vcpu >= 0 ? (unsigned)c->vcpu : 0;
	l->last = c->vcpu >= 0 ? (unsigned)c->vcpu : nv - 1;
	l->uo = c->unwind;
	l->uo.domain_type = up_target_info(t)->type;
	l->relaxed = c->consistency == UP_CONSISTENCY_RELAXED;
	rc = sampler_check_config(t, c);
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
	l->vs = calloc(nv, sizeof(*l->vs));
	l->frames = calloc((size_t)nv * depth, sizeof(*l->frames));
	/* A few words per frame (return address, saved registers, the
	 * hypercall page's saved words); more makes a walk unverifiable. */
	l->log.cap = c->consistency == UP_CONSISTENCY_RELAXED ?
		     (size_t)depth * 8 + 64 : 0;
	l->log.e = l->log.cap ? calloc(l->log.cap, sizeof(*l->log.e)) : NULL;
	if (!l->vs || !l->frames || (l->log.cap && !l->log.e))
		return up_fail(UP_ENOMEM, "out of memory");
	for (unsigned v = 0; v < nv; v++) {
		l->vs[v].stack.frames = l->frames + (size_t)v * depth;
		l->vs[v].stack.capacity = depth;
	}
	l->cache_frames = c->cache_frames;
	l->mem = target_take_frames(t, c->cache_frames);
	if (!l->mem && (rc = up_mem_new(&l->mem, t, c->cache_frames)) < 0)
		return rc;
	up_mem_get_stats(l->mem, &l->mem_before);
	up_target_set_max_pause(t, c->max_pause_ns ? c->max_pause_ns :
				UP_SAMPLER_DEFAULT_MAX_PAUSE_NS);
	return 0;
}

static void free_frames(void *mem)
{
	up_mem_free(mem);
}

static void loop_release(struct loop *l, struct up_target *t)
{
	/* Kept for the next run if asked, but not pointing at this run's
	 * log; else freed. */
	if (l->mem) {
		mem_log_stop(l->mem);
		target_keep_frames(t, l->mem, l->cache_frames, free_frames);
	}
	free(l->log.e);
	free(l->frames);
	free(l->vs);
}

/* Late: never burst. But the periods missed are not dropped either: they
 * count as the last sample again (up to MAX_CREDIT). The sampler falls
 * behind when dom0 is short of CPU, and a busy guest takes more of it
 * than a blocked one (under emulation, pausing a running vCPU also waits
 * milliseconds for its CPU to take the request, a blocked one stops at
 * once): dropping the periods hid busy time, and splitting them with the
 * next sample did too, as the sampler catches up just when the guest
 * blocks and gives the CPU back (measured under load: 25 % busy sampled
 * vs 30 %). */
static int credit_missed(struct loop *l, const struct up_sampler_config *c,
			 struct up_profile *p, struct up_sampler_stats *s,
			 uint64_t missed, uint64_t now)
{
	uint64_t credit = l->have_last && !c->drop_late ? missed : 0;
	int rc;

	if (credit > MAX_CREDIT)
		credit = MAX_CREDIT;
	/* The periods the last sample stands for were missed just now; at
	 * a rate the stall budget lowered, each stands for k asked. */
	if (credit && (rc = count_stacks(p, l->vs, l->first, l->last,
					 credit * l->k, now - l->start, true)) < 0)
		return rc;
	s->covered_periods += credit;
	s->budget_periods += credit * (l->k - 1);
	s->missed_deadlines += missed - credit;
	return 0;
}

/* One sample, either way; *stopped and *resumed bound the time the domain
 * was held (relaxed: the sample's start, for both). */
static int take_sample(struct loop *l, struct up_target *t,
		       const struct up_sampler_config *c,
		       struct up_sampler_stats *s, uint64_t *pause_ns,
		       uint64_t *stopped, uint64_t *resumed, bool *abandoned)
{
	if (c->consistency != UP_CONSISTENCY_RELAXED)
		return sample_paused(t, l->mem, c, &l->uo, l->first, l->last,
				     l->vs, l->clocks_due, pause_ns, stopped,
				     resumed, &s->frames, abandoned);
	/* No domain pause: the interval between samples is from one
	 * sample's start to the next. */
	*stopped = *resumed = mono_ns();
	sample_relaxed(t, l->mem, c, &l->uo, l->first, l->last, l->vs,
		       &l->log, s);
	*pause_ns = 0;
	for (unsigned v = l->first; v <= l->last; v++)
		if (l->vs[v].stall_ns > *pause_ns)
			*pause_ns = l->vs[v].stall_ns;
	return 0;
}

/* A clean sample's figures and stacks, once the guest runs again. */
static int keep_sample(struct loop *l, struct up_profile *p,
		       struct up_sampler_stats *s, uint64_t pause_ns,
		       uint64_t late, uint64_t stopped, uint64_t resumed)
{
	int rc;

	(void)resumed;
	/* Relaxed samples read each vCPU's run clock as they go. */
	if (l->relaxed)
		stats_account_run(s, l->vs, l->first, l->last, stopped, 0);
	for (unsigned v = l->first; v <= l->last; v++) {
		const struct vcpu_sample *vs = &l->vs[v];

		s->vcpu_paused_ns[v] += vs->stall_ns;
		if (vs->xen_blocked)
			s->vcpu_paused_blocked_ns[v] += vs->stall_ns;
		if (vs->status == VCPU_OFFLINE)
			s->offline_vcpus++;
		else if (vs->status == VCPU_NO_REGS)
			s->reg_failures++;
		else
			s->activity_failures += vs->activity_failed;
	}
	/* Taken at the rate the stall budget allowed: it stands for k
	 * periods of the rate asked. */
	rc = count_stacks(p, l->vs, l->first, l->last, l->k,
			  stopped - l->start, false);
	if (rc == 0)
		rc = stats_record_pause(s, pause_ns, late, &l->pause_cap,
					&l->late_cap);
	if (rc < 0)
		return rc;
	s->samples++;
	s->budget_periods += l->k - 1;
	l->sum_k += l->k;
	l->sum_k2 += (double)l->k * l->k;
	/* Kept current: the early warning and a live view judge by it. */
	s->effective_samples = l->sum_k * l->sum_k / l->sum_k2;
	l->have_last = true;
	return 0;
}

/* A vCPU Xen has blocked whose run clock stood still across a read of
 * its registers: those are the registers it blocked with. If they are not
 * at a block point the kernel map knows, this guest blocks some other way
 * and its registers cannot rule blocking out: Xen is asked about it in
 * every window from now on (sample_paused). No guest time is spent: the
 * vCPU is blocked. Its two reads cost dom0 two traps, so once the block
 * point has been confirmed BLOCK_CHECKS_EAGER times, it is checked once
 * every BLOCK_CHECK_NS: an I/O guest blocks at every clock read. */
#define BLOCK_CHECKS_EAGER 16
#define BLOCK_CHECK_NS 1000000000ULL
static void check_block_point(struct loop *l, struct up_target *t,
			      unsigned v, uint64_t run)
{
	struct vcpu_sample *vs = &l->vs[v];
	enum up_vcpu_activity a;
	struct up_regs regs;
	uint64_t run_after, now = mono_ns();
	bool online;

	if (vs->ask_xen || (vs->block_checks >= BLOCK_CHECKS_EAGER &&
			    now - vs->block_checked_at < BLOCK_CHECK_NS))
		return;
	if (up_target_get_regs(t, v, &regs) < 0 ||
	    up_target_get_activity(t, v, &a, &online, &run_after) < 0 ||
	    a != UP_VCPU_BLOCKED || run_after != run || !online)
		return;
	up_mem_new_sample(l->mem);
	if (!kernel_at_block(l->mem, &regs, l->uo.kernel, l->uo.domain_type)) {
		vs->ask_xen = true;
		return;
	}
	vs->block_checks++;
	vs->block_checked_at = now;
}

/* The run time Xen accounted each vCPU, for the busy share's check
 * against Xen: read after a paused sample's unpause (in its very trap,
 * where the target can), never inside its window, and only every
 * RUN_CLOCK_NS (the figure is a ratio over the run, which needs no finer
 * grain): the sample decided so before it began (clocks_due). */
static void read_run_clocks(struct loop *l, struct up_target *t,
			    const struct up_sampler_config *c,
			    struct up_sampler_stats *s, bool last)
{
	if (c->no_activity || (!last && !l->clocks_due))
		return;
	l->clocks_due = false;
	l->clocks_at = mono_ns();
	for (unsigned v = l->first; v <= l->last; v++) {
		enum up_vcpu_activity a;
		bool online;

		if (up_target_get_activity(t, v, &a, &online,
					   &l->vs[v].run_ns) < 0) {
			l->vs[v].run_ns = UP_RUN_NS_UNKNOWN;
			continue;
		}
		if (a == UP_VCPU_BLOCKED && !last)
			check_block_point(l, t, v, l->vs[v].run_ns);
	}
	stats_account_run(s, l->vs, l->first, l->last, mono_ns(),
			  l->paused_total);
}

/* The stall budget's start: the rate asked, or the factor the caller
 * starts at (uniprofd: where the domain's last profile ended). */
static void budget_start(struct loop *l, const struct up_sampler_config *c,
			 struct pacing *pc, struct up_sampler_stats *s)
{
	double max = c->max_stall_pct > 0 ? c->max_stall_pct :
		     UP_SAMPLER_DEFAULT_MAX_STALL_PCT;

	l->period = pc->period;
	stall_budget_start(&l->budget, max, c->stall_factor_start, l->start);
	l->k = l->budget.k;
	pacing_set_period(pc, l->period * l->k);
	s->max_stall_pct = stall_budget_on(max) ? max : UP_SAMPLER_NO_STALL_BUDGET;
	s->hz_asked = c->hz;
	s->stall_factor = s->stall_factor_max = l->k;
	s->hz_now = s->hz_lowest = c->hz / l->k;
	s->lowered_at_s = l->k > 1 ? 0 : -1;
}

/* After a sample (kept or abandoned: the guest stood still for both),
 * between samples: the time it held the guest, and the rate from now on;
 * now: the sample's end (a clock read saved: under emulation a PV dom0's
 * clock_gettime can be a trap into Xen). true when the rate changed. */
static bool budget_after(struct loop *l, struct pacing *pc,
			 struct up_sampler_stats *s, uint64_t pause_ns,
			 uint64_t now)
{
	double pct = 0;
	unsigned k = stall_budget_add(&l->budget, pause_ns, now, &pct);

	if (k == l->k)
		return false;
	l->k = k;
	pacing_set_period(pc, l->period * k);
	s->stall_factor = k;
	s->hz_now = s->hz_asked / k;
	if (k > s->stall_factor_max) {
		s->stall_factor_max = k;
		s->hz_lowest = s->hz_now;
	}
	if (s->lowered_at_s < 0 && k > 1)
		s->lowered_at_s = (double)(now - l->start) / 1e9;
	s->rate_changes++;
	s->window_stall_pct = pct;
	return true;
}

/* Why the loop ends before its next sample (an up_stop_reason), or -1. */
static int stop_before(const struct up_sampler_config *c,
		       const struct up_sampler_stats *s,
		       volatile sig_atomic_t *stop)
{
	if (stop && *stop)
		return UP_STOP_REQUESTED;
	if (c->max_samples &&
	    s->samples + s->abandoned_samples >= c->max_samples)
		return UP_STOP_MAX_SAMPLES;
	return -1;
}

/* After the sample: a guest that shut down mid-sample left stale
 * registers; that sample is dropped rather than mislead. */
static int stop_after(struct up_target *t, const struct up_sampler_config *c)
{
	enum up_domain_state st = UP_STATE_GONE;

	if (up_target_state(t, &st) == 0 &&
	    (st == UP_STATE_RUNNING ||
	     (c->stopped_ok && st == UP_STATE_SHUTDOWN)))
		return -1;
	return st == UP_STATE_SHUTDOWN ? UP_STOP_SHUTDOWN : UP_STOP_GONE;
}

int up_sample(struct up_target *t, const struct up_sampler_config *c,
	      struct up_profile *p, volatile sig_atomic_t *stop,
	      struct up_sampler_stats *s)
{
	struct loop l = { 0 };
	struct pacing pc;
	bool early_done = !c->early;
	uint64_t start;
	int rc;

	memset(s, 0, sizeof(*s));
	/* What the budget did, should the loop not even start: nothing. */
	s->lowered_at_s = -1;
	s->stall_factor = s->stall_factor_max = 1;
	s->hz_asked = s->hz_now = s->hz_lowest = c->hz;
	rc = loop_setup(&l, t, c, p, s);
	if (rc < 0)
		goto out;
	{
		struct timespec wall;

		clock_gettime(CLOCK_REALTIME, &wall);
		start = l.start = mono_ns();
		s->start_unix_ns = (int64_t)wall.tv_sec * 1000000000 + wall.tv_nsec;
	}
	pacing_start(&pc, c->hz, c->duration_s, !c->no_jitter, start);
	budget_start(&l, c, &pc, s);
	s->stop = UP_STOP_DURATION;
	for (;;) {
		uint64_t pause_ns, now, stopped = 0, resumed = 0, ended, at, late;
		uint64_t missed;
		bool abandoned = false;
		int why = stop_before(c, s, stop);

		if (why >= 0) {
			s->stop = why;
			break;
		}
		now = mono_ns();
		missed = pacing_advance(&pc, now);
		if (missed && credit_missed(&l, c, p, s, missed, now) < 0) {
			stop_on_error(s);
			break;
		}
		if (pc.deadline > pc.end) {
			if (now < pc.end)
				pacing_sleep_until(pc.end, stop);
			s->stop = stop && *stop ? UP_STOP_REQUESTED :
				  UP_STOP_DURATION;
			break;
		}
		/* Behind (the last sample took periods): no sleep at all, as
		 * a timer sleep, however short, costs its wake-up latency,
		 * which under emulation is longer than a sample. */
		at = pacing_instant(&pc);
		/* The guard sleeps until this pause's latest deadline: never
		 * an instant already past, whose alarm would ring before the
		 * pause even starts (a late sampler takes it now). */
		target_quiet_until(t, !missed && at > now ? at : now);
		if (!missed) {
			pacing_sleep_until(at, stop);
			now = mono_ns();
		}
		l.clocks_due = !c->no_activity &&
			       (!l.clocks_at || now - l.clocks_at >= RUN_CLOCK_NS);
		late = now > at ? now - at : 0;
		if (stop && *stop) {
			s->stop = UP_STOP_REQUESTED;
			break;
		}

		l.have_last = false;
		if (take_sample(&l, t, c, s, &pause_ns, &stopped, &resumed,
				&abandoned) < 0) {
			s->stop = end_reason(t);
			if (s->stop == UP_STOP_ERROR)
				snprintf(s->error, sizeof(s->error), "%s",
					 up_error_last());
			break;
		}
		/* Relaxed samples hold no domain: nothing of its time to drop. */
		pacing_sampled(&pc, stopped, l.relaxed ? stopped : resumed);
		/* When the sample ended: paused, as it unpaused. */
		ended = l.relaxed ? mono_ns() : resumed;
		why = stop_after(t, c);
		if (why >= 0) {
			s->stop = why;
			break;
		}
		l.paused_total += l.relaxed ? 0 : pause_ns;
		if (abandoned) {
			/* Its pause outlived the limit: not a clean interval. */
			s->abandoned_samples++;
			for (unsigned v = l.first; v <= l.last; v++)
				l.vs[v].run_known_before = false;
			if (budget_after(&l, &pc, s, pause_ns, ended) &&
			    c->rate_changed)
				c->rate_changed(s, c->rate_changed_arg);
			continue;
		}
		if (keep_sample(&l, p, s, pause_ns, late, stopped, resumed) < 0) {
			stop_on_error(s);
			break;
		}
		if (budget_after(&l, &pc, s, pause_ns, ended) && c->rate_changed)
			c->rate_changed(s, c->rate_changed_arg);
		if (!l.relaxed)
			read_run_clocks(&l, t, c, s, false);
		if (!early_done && ended - start >= c->early_ns) {
			early_done = true;
			c->early(p, s, c->early_arg);
		}
		if (c->each)
			c->each(p, s, c->each_arg);
	}
	/* The time since the last read counts too, short runs included. */
	if (!l.relaxed && s->samples)
		read_run_clocks(&l, t, c, s, true);
	s->elapsed_s = (double)(mono_ns() - start) / 1e9;
	up_mem_get_stats(l.mem, &s->mem);
	/* This run's own: the frames may have been mapped by the last. */
	s->mem.maps -= l.mem_before.maps;
	s->mem.hits -= l.mem_before.hits;
	s->mem.evictions -= l.mem_before.evictions;
	s->mem.map_failures -= l.mem_before.map_failures;
	rc = 0;
out:
	/* Until the next run (uniprofd keeps the domain open between its
	 * profiles), no pause is planned. */
	target_quiet_until(t, UINT64_MAX);
	loop_release(&l, t);
	return rc;
}
