/* One profile of one domain into memory (see profile_run.h). */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "toolkit/formats.h"
#include "toolkit/kernel_map_load.h"
#include "profile_run.h"
#include "toolkit/run_output.h"
#include "toolkit/run_checks.h"
#include "toolkit/sampler_cpu.h"
#include "util/clock.h"

void upd_run_result_free(struct upd_run_result *r)
{
	free(r->pprof);
	r->pprof = NULL;
	r->len = 0;
}

/* The run as xl profile's outputs see it (toolkit/run.h), its settings
 * from the request, written as xl profile writes its pprof file. */
static int write_pprof(const struct upd_run_params *p, struct upd_symbols *sym,
		       const struct up_profile *profile,
		       const struct up_sampler_stats *stats, const char *hypercalls,
		       struct upd_run_result *r)
{
	struct tk_domain dom = {
		.domid = p->dom->domid, .name = (char *)p->dom->name,
		.type = p->dom->type, .kernel = p->dom->kernel,
		.max_vcpus = p->dom->vcpus,
	};
	struct tk_run rep = {
		.asked = { .hz = p->hz, .consistency = p->consistency },
		.dom = &dom, .symtab = sym->symtab,
		.symbols_used = sym->symbols_used, .profile = profile,
		.stats = stats, .unwinder = sym->uw.unwinder,
		.hypercalls = hypercalls,
	};
	struct tk_run_source out;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	if (!f) {
		snprintf(r->error, sizeof(r->error), "out of memory");
		return -1;
	}
	tk_run_source(&out, &rep, sym->kmap, &r->started, TK_FORMAT_PPROF);
	/* The table outlives this run (cached per build): its source-line
	 * caps are this profile's. */
	up_symtab_source_new_pass(sym->symtab);
	rc = tk_format_write(TK_FORMAT_PPROF, &out.src, f);
	tk_run_source_release(&out);
	if (up_symtab_source_warning(sym->symtab))
		upd_log("domain %s: source lines: %s", p->dom->name,
			up_symtab_source_warning(sym->symtab));
	if (fclose(f) != 0 || rc < 0) {
		free(buf);
		snprintf(r->error, sizeof(r->error), "cannot write the pprof profile (see the daemon's log)");
		return -1;
	}
	r->pprof = (unsigned char *)buf;
	r->len = len;
	return 0;
}

/* Each run samples from the dom0 vCPU best placed for its domain, as xl
 * profile does (toolkit/sampler_cpu.h); the calling thread's CPUs are
 * given back after. The choice is kept a minute per domain: the backends
 * move seldom, and a push every period would otherwise wait for the
 * window each time, and the backends' load is read only for a choice
 * (a walk of every dom0 thread's stat: 0.85 s of a pushed period's set-up
 * under emulation when it was read for every run). Said in the log once
 * when none is free: every domain would say it alike. */
#define CHOICE_KEEP_NS (60ULL * 1000000000ULL)
#define CHOICES 64

static atomic_bool said_no_free_cpu;
static pthread_mutex_t choices_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	uint32_t domid;
	uint64_t at_ns;
	struct tk_sampler_cpu where;
} choices[CHOICES];

static void place_sampler(const struct upd_run_params *p,
			  struct tk_sampler_cpu *where, cpu_set_t *saved)
{
	struct tk_backend_load before;
	struct tk_cpu_view *v;
	unsigned slot = p->dom->domid % CHOICES;
	bool known;

	CPU_ZERO(saved);
	pthread_mutex_lock(&choices_lock);
	known = choices[slot].at_ns && choices[slot].domid == p->dom->domid &&
		mono_ns() - choices[slot].at_ns < CHOICE_KEEP_NS;
	if (known)
		*where = choices[slot].where;
	pthread_mutex_unlock(&choices_lock);
	if (!known) {
		memset(where, 0, sizeof(*where));
		where->cpu = -1;
		if (!(v = malloc(sizeof(*v))))
			return;
		tk_backend_load_read(&before);
		tk_cpu_view_probe(p->dom->domid, &before, v);
		if (tk_sampler_cpu_choose(v, -1, where) < 0)
			where->cpu = -1;
		free(v);
		pthread_mutex_lock(&choices_lock);
		choices[slot].domid = p->dom->domid;
		choices[slot].at_ns = mono_ns();
		choices[slot].where = *where;
		pthread_mutex_unlock(&choices_lock);
	}
	if (tk_sampler_cpu_apply(where, saved) < 0)
		where->cpu = -1;
	if (!where->fit && !atomic_exchange(&said_no_free_cpu, true))
		upd_log("%s: %s", p->dom->name, where->why);
}

unsigned upd_stall_start(double hz, double budget_hz)
{
	double k;

	if (!(budget_hz > 0) || !(hz > budget_hz))
		return 1;
	/* A hair under a whole ratio is that ratio (hz / k read back). */
	k = ceil(hz / budget_hz - 1e-9);
	return k < UP_SAMPLER_MAX_STALL_FACTOR ? (unsigned)k : UP_SAMPLER_MAX_STALL_FACTOR;
}

void upd_run_note_of(const struct upd_run_params *p, double rate_scale,
		     const struct upd_run_result *r, struct upd_run_note *n)
{
	memset(n, 0, sizeof(*n));
	n->paused_pct = r->paused_pct;
	n->pause_mean_us = r->pause_mean_us;
	n->hz_asked = p->hz_asked;
	n->rate_scale = rate_scale;
	n->hz = p->hz;
	n->max_stall_pct = p->max_stall_pct > 0 ? p->max_stall_pct :
			   UP_SAMPLER_DEFAULT_MAX_STALL_PCT;
	n->hz_final = r->hz_final;
	n->hz_lowest = r->hz_lowest;
	n->lowered_at_s = r->lowered_at_s;
	n->stall_factor = r->stall_factor;
	n->stall_factor_max = r->stall_factor_max;
	n->setup_ms = r->setup_ms;
	n->write_ms = r->write_ms;
	n->uncovered_ms = -1;
}

/* Every sample any run took since the daemon started (/status), kept
 * as each is taken: what the fleet bench divides the daemon's CPU by. */
static atomic_ullong samples_taken;

uint64_t upd_samples_taken(void)
{
	return atomic_load(&samples_taken);
}

static void count_sample(const struct up_profile *p,
			 const struct up_sampler_stats *s, void *arg)
{
	(void)p;
	(void)s;
	(void)arg;
	atomic_fetch_add(&samples_taken, 1);
}

/* Said once in the log, at once, when a profile lowers a domain's rate
 * that was not lowered already (its last profile ended at the rate
 * asked): the rest is in /domains. */
struct rate_note {
	const struct upd_run_params *p;
	bool said;
};

static void rate_changed(const struct up_sampler_stats *s, void *arg)
{
	struct rate_note *n = arg;

	if (n->said || s->stall_factor <= 1 || n->p->budget_hz > 0)
		return;
	n->said = true;
	upd_log("domain %s stood still %.1f %% of its time for samples (budget %g %%): rate lowered to %.5g Hz from %g Hz; max_stall to change",
		n->p->dom->name, s->window_stall_pct, s->max_stall_pct, s->hz_now,
		s->hz_asked);
}

int upd_profile_run(struct upd_symbol_cache *cache, const struct upd_run_params *p,
		    struct upd_run_result *r)
{
	struct rate_note note = { .p = p };
	struct tk_sampler_cpu where;
	cpu_set_t cpus;
	struct up_target *t = NULL;
	struct up_profile *profile = NULL;
	struct up_sampler_stats stats;
	struct up_sampler_config cfg;
	struct upd_symbols *sym = NULL;
	const struct up_target_info *info;
	char hypercalls[64] = "";
	unsigned width = 0;
	uint64_t t0 = mono_ns(), t1;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	memset(&stats, 0, sizeof(stats));
	if (p->dom->shutdown) {
		snprintf(r->error, sizeof(r->error),
			 "domain %s has shut down or crashed: its vCPUs are stopped, nothing to sample",
			 p->dom->name);
		/* Its pages are not held mapped while it waits to go. */
		if (p->keep && *p->keep)
			up_target_keep_frames(*p->keep, false);
		goto out;
	}
	if (p->keep && *p->keep) {
		t = *p->keep;
	} else if (up_target_open_xen_with(&t, p->dom->domid, UP_HYPERCALLS_AUTO) < 0 ||
		   up_crash_guard_install(t) < 0) {
		snprintf(r->error, sizeof(r->error), "cannot open domain %s: %s", p->dom->name,
			 up_error_last());
		goto out;
	}
	if (p->keep) {
		*p->keep = t;
		/* The next period maps the same page tables and stack. */
		up_target_keep_frames(t, true);
	}
	info = up_target_info(t);
	snprintf(hypercalls, sizeof(hypercalls), "%s", info->hypercalls);
	if (info->type == UP_DOMAIN_PV)
		width = info->guest_width;
	if (upd_symbols_get(cache, p->dom->kernel, width, &sym, r->error, sizeof(r->error)) < 0)
		goto out;
	snprintf(r->build_id, sizeof(r->build_id), "%s", sym->build_id);
	/* Until its stubs are seen (a PVH guest asks Xen for them as it
	 * boots): an entry serves one profile at a time. */
	if (!sym->hypercall_probed)
		sym->hypercall_probed = tk_kernel_map_probe(sym->kmap, sym->symtab, t,
							     false, "uniprofd");
	if (up_profile_new(&profile, info->max_vcpus) < 0) {
		snprintf(r->error, sizeof(r->error), "cannot profile domain %s: %s", p->dom->name,
			 up_error_last());
		goto out;
	}
	up_sampler_config_init(&cfg, UP_SAMPLER_CONFIG_VERSION);
	cfg.hz = p->hz;
	cfg.duration_s = p->seconds;
	cfg.vcpu = -1;
	cfg.consistency = p->consistency;
	cfg.max_stall_pct = p->max_stall_pct;
	cfg.stall_factor_start = upd_stall_start(p->hz, p->budget_hz);
	cfg.rate_changed = rate_changed;
	cfg.rate_changed_arg = &note;
	cfg.each = count_sample;
	tk_unwind_configure(&sym->uw, sym->kmap, &cfg);
	place_sampler(p, &where, &cpus);
	r->setup_ms = (double)(mono_ns() - t0) / 1e6;
	clock_gettime(CLOCK_REALTIME, &r->started);
	up_sample(t, &cfg, profile, p->stop, &stats);
	clock_gettime(CLOCK_REALTIME, &r->ended);
	t1 = mono_ns();
	tk_sampler_cpu_restore(&where, &cpus);
	/* The domain runs free again before the slow part (a kept one runs
	 * free between samples already). */
	if (!p->keep || stats.stop == UP_STOP_ERROR || stats.stop == UP_STOP_GONE ||
	    stats.stop == UP_STOP_SHUTDOWN) {
		up_target_close(t);
		t = NULL;
		if (p->keep)
			*p->keep = NULL;
	}
	r->samples = stats.samples;
	r->stop = stats.stop;
	r->elapsed_s = stats.elapsed_s;
	r->pause_mean_us = up_sampler_pause_mean(&stats) / 1e3;
	r->hz_final = stats.hz_now;
	r->hz_lowest = stats.hz_lowest;
	r->lowered_at_s = tk_budget_lowered(&stats) ? stats.lowered_at_s : -1;
	r->stall_factor = stats.stall_factor;
	r->stall_factor_max = stats.stall_factor_max;
	/* The vCPU that stood still longest, as xl profile's stall_pct. */
	for (unsigned v = 0; v < stats.nr_vcpus; v++) {
		double pct = up_sampler_stall_pct(&stats, v);

		if (pct > r->paused_pct)
			r->paused_pct = pct;
	}
	if (stats.stop == UP_STOP_ERROR && !stats.samples) {
		snprintf(r->error, sizeof(r->error), "sampling domain %s failed: %s", p->dom->name,
			 stats.error);
		goto out;
	}
	if (stats.stop == UP_STOP_ERROR)
		upd_log("sampling %s stopped early: %s", p->dom->name, stats.error);
	if (tk_account_unseen(profile, &stats) < 0)
		upd_log("%s: %s", p->dom->name, up_error_last());
	for (unsigned v = 0; v < up_profile_nr_vcpus(profile); v++)
		if (up_profile_vcpu_unseen(profile, v))
			upd_log("%s: vCPU %u ran %.1f%% of the time but was seen busy in %.1f%% of the samples: its profile holds [unseen] (a guest driven by dom0's backends; give the sampler a dom0 vCPU of its own)",
				p->dom->name, v, up_sampler_running_pct(&stats, v),
				tk_busy_pct(profile, v));
	rc = write_pprof(p, sym, profile, &stats, hypercalls, r);
	r->write_ms = (double)(mono_ns() - t1) / 1e6;
out:
	/* A kept domain stays open for the next run unless this one failed
	 * before sampling (closed then: the next run opens it afresh). */
	if (p->keep && rc == 0)
		t = NULL;
	else if (p->keep && *p->keep == t)
		*p->keep = NULL;
	up_target_close(t);
	upd_symbols_put(cache, sym);
	up_sampler_stats_release(&stats);
	up_profile_free(profile);
	return rc;
}
