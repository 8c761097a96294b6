/* xl profile <Domain>: sample a domain's stacks and write a profile beside
 * its logs. This file is the command's flow: check the domain, load its
 * symbols and unwind tables, sample, write the files; options, domain
 * lookup, symbol search and the output formats live in the toolkit. */
#include "config.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "realtime.h"
#include "stack_print.h"
#include "live_domain.h"
#include "commands.h"
#include "toolkit/domain.h"
#include "toolkit/formats.h"
#include "toolkit/image_cache.h"
#include "toolkit/kernel_map_load.h"
#include "options.h"
#include "toolkit/output_files.h"
#include "toolkit/run_output.h"
#include "toolkit/run_checks.h"
#include "toolkit/pcpu_clock.h"
#include "toolkit/sampler_cpu.h"
#include "toolkit/symbols_find.h"
#include "toolkit/unwind_load.h"
#include "uniprof/uniprof.h"
#include "util/clock.h"

static volatile sig_atomic_t stop_requested;

struct run {
	struct xlp_options *opt;
	struct xlp_live live;     /* the domain, its symbols and tables */
	char *stem;               /* where the files go */
	struct up_profile *profile;
	struct up_sampler_stats stats;
	double setup_ms;          /* start to first sample: symbols, tables */
	struct timespec started;  /* wall clock, for the pprof header */
	bool realtime;            /* sampled SCHED_FIFO with memory locked */
	struct tk_backend_load backends; /* at the start: the placement's window */
	struct xlp_setup_steps steps;    /* where set-up went, for -v */
	struct tk_sampler_cpu where; /* the dom0 CPU the sampler ran on */
	struct tk_pcpu_clock *pcpus[2]; /* Xen's idle clocks around sampling */
	double *others_pct;       /* per vCPU (run.h) */
	unsigned rate_said;       /* the stall budget's factor last said (0: none) */
	unsigned rate_lines;      /* lines said of it */
};

/* After the first seconds: a guest whose CPU time the samples cannot
 * see is said now, while the admin can still stop and fix dom0's
 * configuration, not only at the end. */
#define EARLY_NS (3ULL * 1000 * 1000 * 1000)

/* What the run's outputs say it was asked for. */
static struct tk_run_settings run_settings(const struct xlp_options *o)
{
	return (struct tk_run_settings){
		.hz = o->hz, .consistency = o->consistency,
		.no_vcpu_state = o->no_vcpu_state, .with_idle = o->with_idle,
		.no_inline = o->no_inline, .lines = o->lines, .top = o->top,
	};
}

static void early_warning(const struct up_profile *p,
			  const struct up_sampler_stats *s, void *arg)
{
	const struct run *r = arg;
	struct tk_run rep = { .asked = run_settings(r->opt), .dom = &r->live.dom,
				  .profile = p, .stats = s };

	tk_busy_warnings_early(&rep, (double)EARLY_NS / 1e9, stderr);
}

static void between_samples(const struct up_profile *p,
			    const struct up_sampler_stats *s, void *arg)
{
	struct run *r = arg;

	(void)s;
	xlp_live_between_samples(&r->live, up_profile_time_end(p));
}

/* The stall budget changed the rate: said at once, on one line, the first
 * time and when it changed by half or double since (or came back to the
 * rate asked), a few times at most; the summary says the rest. Between
 * samples, never while the domain is paused. */
#define RATE_LINES 8

static void rate_changed(const struct up_sampler_stats *s, void *arg)
{
	struct run *r = arg;
	unsigned k = s->stall_factor, was = r->rate_said ? r->rate_said : 1;
	const char *name = r->live.dom.name;

	if (r->rate_lines > RATE_LINES ||
	    (r->rate_said && k != 1 && k < 2 * was && 2 * k > was))
		return;
	if (++r->rate_lines > RATE_LINES) {
		fprintf(stderr, "xl profile: %s: the stall budget keeps changing the rate; the summary gives the rate reached\n",
			name);
		return;
	}
	if (!r->rate_said)
		fprintf(stderr, "xl profile: %s stood still %.1f %% of its time for samples (budget %g %%): rate lowered to %.5g Hz from %g Hz; --max-stall PCT to change\n",
			name, s->window_stall_pct, s->max_stall_pct, s->hz_now, s->hz_asked);
	else
		fprintf(stderr, "xl profile: %s stood still %.1f %% of its time for samples (budget %g %%): rate %s to %.5g Hz%s\n",
			name, s->window_stall_pct, s->max_stall_pct,
			k > was ? "lowered" : "raised", s->hz_now,
			k == 1 ? ", the rate asked" : "");
	r->rate_said = k;
}

static double now_ms(void)
{
	return (double)mono_ns() / 1e6;
}

static long peak_rss_kib(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : 0;
}

/* -1: one stack per vCPU on the terminal, for a domain that hangs. */
static int print_once(const struct run *r)
{
	struct xlp_stack_print sp = {
		.profile = r->profile, .symtab = r->live.symtab, .vcpu = r->opt->vcpu,
		.missing_why = r->stats.abandoned_samples ?
			"the walk outlived --max-pause; the sample was dropped" : "offline",
	};

	printf("domain %s (id %u, %s)%s\n", r->live.dom.name, r->live.dom.domid, r->live.dom.type,
	       r->live.dom.crashed ? ", crashed" : r->live.dom.shutdown ? ", shut down" : "");
	xlp_print_stacks_text(&sp, stdout);
	return r->stats.samples ? 0 : 1;
}

static int fail(const char *what)
{
	fprintf(stderr, "xl profile: %s%s\n", what ? what : "", up_error_last());
	return 1;
}

/* Sample until the duration, Ctrl-C or the domain's end, then close the
 * domain: it runs free again before the slow work. 0, or -1 after one
 * error line. */
static int sample(struct run *r, double start_ms)
{
	const struct xlp_options *opt = r->opt;
	struct up_sampler_config cfg;
	cpu_set_t cpus;
	int rc;

	xlp_live_configure(&r->live, &cfg);
	cfg.each = between_samples;
	cfg.each_arg = r;
	if (!opt->quiet && !opt->once && !opt->no_vcpu_state) {
		cfg.early = early_warning;
		cfg.early_arg = r;
		cfg.early_ns = EARLY_NS;
	}
	if (!opt->quiet && !opt->once) {
		cfg.rate_changed = rate_changed;
		cfg.rate_changed_arg = r;
	}
	/* Where to sample from: after the symbols' load, which gave the
	 * backends' work a window to be counted in. */
	if (tk_sampler_cpu_place(r->live.dom.domid, &r->backends, opt->sampler_cpu,
				  "xl profile", opt->verbose, opt->quiet || opt->once,
				  &r->where, &cpus) < 0)
		return -1;
	if (!opt->quiet && !opt->once)
		fprintf(stderr, "xl profile: sampling %s (id %u) at %g Hz%s%s; Ctrl-C stops\n",
			r->live.dom.name, r->live.dom.domid, opt->hz,
			opt->consistency == UP_CONSISTENCY_RELAXED ?
			", relaxed (no domain pause)" : "",
			opt->duration_s > 0 ? "" : " until it ends");
	xlp_setup_step(&r->steps, "placement");
	if (opt->paused && tk_domain_unpause(&r->live.dom) < 0)
		return -1;
	r->setup_ms = now_ms() - start_ms;
	if (opt->verbose) {
		char steps[512];

		xlp_setup_steps_format(&r->steps, (uint64_t)(start_ms * 1e6), steps,
				       sizeof(steps));
		fprintf(stderr, "xl profile: set up in %.0f ms (%s), %ld KiB resident\n",
			r->setup_ms, steps, peak_rss_kib());
	}
	if (!opt->no_realtime) {
		const char *why;

		r->realtime = xlp_realtime_enter(&why);
		if (!r->realtime && opt->verbose)
			fprintf(stderr, "xl profile: sampling at normal priority: %s\n", why);
	}
	clock_gettime(CLOCK_REALTIME, &r->started);
	if (r->pcpus[0])
		tk_pcpu_clock_read(r->pcpus[0]);
	rc = up_sample(r->live.t, &cfg, r->profile, &stop_requested, &r->stats);
	if (r->pcpus[1])
		tk_pcpu_clock_read(r->pcpus[1]);
	xlp_realtime_leave();
	tk_sampler_cpu_restore(&r->where, &cpus);
	if (rc < 0) {
		fail(NULL);
		return -1;
	}
	up_target_close(r->live.t);
	r->live.t = NULL;
	if (r->stats.stop == UP_STOP_ERROR)
		fprintf(stderr, "xl profile: sampling stopped: %s\n", r->stats.error);
	return 0;
}

/* For each vCPU, the most of the run other vCPUs held every pCPU it may
 * use (run.h): whether it can have waited for them. */
static void others_on_pcpus(struct run *r)
{
	struct tk_cpuset may_run[64];
	unsigned n = 0, nv = r->stats.nr_vcpus;

	if (!r->pcpus[0] || !r->pcpus[1] || !r->pcpus[0]->ok || !r->pcpus[1]->ok ||
	    tk_domain_vcpu_pcpus(r->live.dom.domid, may_run, 64, &n) < 0 ||
	    !(r->others_pct = calloc(nv ? nv : 1, sizeof(*r->others_pct))))
		return;
	for (unsigned v = 0; v < nv; v++)
		r->others_pct[v] = v < n ?
			tk_pcpu_others_pct(r->pcpus[0], r->pcpus[1], &may_run[v],
					    up_sampler_running_pct(&r->stats, v)) : -1;
}

/* The files, the warnings, and unless -q the summary and top ten on the
 * terminal. The exit status. */
static int write_results(struct run *r)
{
	const struct xlp_options *opt = r->opt;
	struct tk_run_source out;
	int rc;

	if (tk_account_unseen(r->profile, &r->stats) < 0)
		fprintf(stderr, "xl profile: %s\n", up_error_last());
	others_on_pcpus(r);

	struct tk_run rep = {
		.asked = run_settings(opt), .dom = &r->live.dom, .arch = r->live.arch,
		.symtab = r->live.symtab,
		.symbols_used = r->live.symbols_used, .profile = r->profile,
		.stats = &r->stats, .unwinder = r->live.uw.unwinder,
		.hypercalls = r->live.hypercalls,
		.setup_ms = r->setup_ms, .peak_rss_kib = peak_rss_kib(),
		.realtime = r->realtime, .sampler = &r->where,
		.others_pct = r->others_pct, .nr_others = r->others_pct ? r->stats.nr_vcpus : 0,
	};

	uint64_t write_ns = mono_ns();

	tk_run_source(&out, &rep, r->live.kmap, &r->started, opt->formats);
	rc = tk_formats_write(&out.src, opt->formats, r->stem,
			       opt->quiet ? NULL : stdout) < 0 ? 1 : 0;
	tk_run_source_release(&out);
	if (opt->verbose)
		fprintf(stderr, "xl profile: outputs written in %.0f ms\n",
			(double)(mono_ns() - write_ns) / 1e6);
	tk_busy_warnings(&rep, stderr);
	/* A guest that ends at once (a unikernel's test, run from boot with
	 * --paused) leaves files with nothing in them: said, not left to be
	 * found. */
	if (!r->stats.samples && (r->stats.stop == UP_STOP_SHUTDOWN ||
				  r->stats.stop == UP_STOP_GONE))
		fprintf(stderr, "xl profile: warning: no samples: %s %s %.2f s after sampling began, before the first sample; the files written hold no stacks (a higher -f samples sooner)\n",
			r->live.dom.name,
			r->stats.stop == UP_STOP_SHUTDOWN ? "shut down" : "was destroyed",
			r->stats.elapsed_s);
	if (!opt->quiet) {
		const struct up_output_opts view = { .version = UP_OUTPUT_OPTS_VERSION,
						     .vcpu = -1,
						     .with_idle = opt->with_idle,
						     .no_inline = opt->no_inline,
						     .lines = opt->lines };

		tk_run_text(&rep, stdout);
		fputc('\n', stdout);
		up_profile_write_top(r->profile, r->live.symtab, &view,
				     opt->top < 10 ? opt->top : 10, stdout);
	}
	if (rc == 0 && r->stats.stop == UP_STOP_ERROR)
		rc = 1;
	return rc;
}

int xlp_cmd_profile(int argc, char **argv)
{
	struct xlp_options opt;
	struct run r;
	double start_ms = now_ms();
	int rc;

	rc = xlp_parse_options(argc, argv, &opt);
	if (rc)
		return rc == 1 ? 0 : 2;
	memset(&r, 0, sizeof(r));
	r.opt = &opt;
	xlp_live_stop_on_signals(&stop_requested);
	if (tk_libxl_open() < 0)
		return 1;
	xlp_setup_step(&r.steps, "libxl");

	r.live.opt = &opt;
	r.live.steps = &r.steps;
	if ((rc = xlp_live_check(&r.live, &stop_requested)) != 0)
		goto out;
	tk_backend_load_read(&r.backends);
	xlp_setup_step(&r.steps, "checks");
	rc = 1;
	if (xlp_live_open(&r.live) < 0)
		goto out;
	/* Decide where files go before sampling, so a bad path costs no run. */
	if (!opt.once && !(r.stem = tk_output_stem(opt.output, r.live.dom.name)))
		goto out;
	r.pcpus[0] = malloc(sizeof(*r.pcpus[0]));
	r.pcpus[1] = malloc(sizeof(*r.pcpus[1]));
	if (up_crash_guard_install(r.live.t) < 0 ||
	    up_profile_new(&r.profile, up_target_info(r.live.t)->max_vcpus) < 0) {
		rc = fail(NULL);
		goto out;
	}
	xlp_setup_step(&r.steps, "crash guard");
	if (sample(&r, start_ms) < 0)
		goto out;
	rc = opt.once ? print_once(&r) : write_results(&r);
out:
	up_sampler_stats_release(&r.stats);
	up_profile_free(r.profile);
	xlp_live_release(&r.live);
	tk_image_cache_drop();
	tk_libxl_close();
	free(r.stem);
	free(r.pcpus[0]);
	free(r.pcpus[1]);
	free(r.others_pct);
	return rc;
}
