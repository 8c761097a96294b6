/* xl profile: sample a domain's stacks and write a profile beside its logs.
 * This file is the command's flow; options, domain lookup, symbol search
 * and file writing live in their own files. */
#include "config.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "toolkit/domain.h"
#include "toolkit/image_cache.h"
#include "toolkit/kernel_map_load.h"
#include "toolkit/options.h"
#include "toolkit/formats.h"
#include "toolkit/output_files.h"
#include "realtime.h"
#include "toolkit/report.h"
#include "stack_print.h"
#include "subcommands.h"
#include "toolkit/symbols_find.h"
#include "toolkit/unwind_load.h"
#include "uniprof/uniprof.h"

static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* No SA_RESTART: the sampler's sleep must wake up to see the flag. */
static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

struct run {
	struct xlp_options *opt;
	struct xlp_domain dom;
	struct up_symtab *symtab;
	const char *symbols_used;
	struct up_profile *profile;
	struct up_sampler_stats stats;
	struct xlp_unwind uw;
	struct up_kernel_map *kmap;
	const char *hypercalls;
	enum up_arch arch;        /* the domain's, kept past the target's close */
	double setup_ms;          /* start to first sample: symbols, tables */
	struct timespec started;  /* wall clock, for the pprof header */
	bool realtime;            /* sampled SCHED_FIFO with memory locked */
};

/* After the first seconds: a guest whose CPU time the samples cannot
 * see is said now, while the admin can still stop and fix dom0's
 * configuration, not only at the end. */
#define EARLY_NS (3ULL * 1000 * 1000 * 1000)

static void early_warning(const struct up_profile *p,
			  const struct up_sampler_stats *s, void *arg)
{
	const struct run *r = arg;
	struct xlp_report rep = { .opt = r->opt, .dom = &r->dom,
				  .profile = p, .stats = s };

	xlp_busy_warnings_early(&rep, (double)EARLY_NS / 1e9, stderr);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
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
		.profile = r->profile, .symtab = r->symtab, .vcpu = r->opt->vcpu,
		.missing_why = r->stats.abandoned_samples ?
			"the walk outlived --max-pause; the sample was dropped" : "offline",
	};

	printf("domain %s (id %u, %s)%s\n", r->dom.name, r->dom.domid, r->dom.type,
	       r->dom.crashed ? ", crashed" : r->dom.shutdown ? ", shut down" : "");
	xlp_print_stacks_text(&sp, stdout);
	return r->stats.samples ? 0 : 1;
}

/* xl profile --core FILE [options]: the same as xl profile core [options]
 * FILE, wherever --core stands before a "--". Returns -1 when argv has no
 * --core, else the command's exit status. */
static int core_alias(int argc, char **argv)
{
	char **args;
	const char *file = NULL;
	int n = 1, rc;

	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--core") == 0 && i + 1 < argc)
			file = argv[i + 1];
		else if (strncmp(argv[i], "--core=", 7) == 0)
			file = argv[i] + 7;
		else if (strcmp(argv[i], "--core") == 0)
			file = "";
	}
	if (!file)
		return -1;
	if (!file[0]) {
		fprintf(stderr, "xl profile: --core needs a core file: xl profile --core FILE\n");
		return 2;
	}
	args = calloc((size_t)argc + 2, sizeof(*args));
	if (!args)
		return 1;
	args[0] = "core";
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--core") == 0) {
			i++;
			continue;
		}
		if (strncmp(argv[i], "--core=", 7) == 0)
			continue;
		args[n++] = argv[i];
	}
	args[n++] = (char *)file;
	rc = xlp_cmd_core(n, args);
	free(args);
	return rc;
}

static int fail(const char *what)
{
	fprintf(stderr, "xl profile: %s%s\n", what ? what : "", up_error_last());
	return 1;
}

int main(int argc, char **argv)
{
	struct xlp_options opt;
	struct run r;
	struct up_target *t = NULL;
	struct up_sampler_config cfg;
	struct xlp_symbol_query q = { 0 };
	char *stem = NULL, *symbols_used = NULL;
	double start_ms = now_ms();
	int rc;

	/* Subcommands come first; a domain of that name: xl profile -- NAME. */
	if (argc > 1 && strcmp(argv[1], "report") == 0)
		return xlp_cmd_report(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "diff") == 0)
		return xlp_cmd_diff(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "core") == 0)
		return xlp_cmd_core(argc - 1, argv + 1);
	if ((rc = core_alias(argc, argv)) >= 0)
		return rc;
	rc = xlp_parse_options(argc, argv, &opt);
	if (rc)
		return rc == 1 ? 0 : 2;
	memset(&r, 0, sizeof(r));
	r.opt = &opt;
	install_signals();
	if (xlp_libxl_open() < 0)
		return 1;

	if (opt.wait) {
		if (!opt.quiet)
			fprintf(stderr, "xl profile: waiting for domain %s%s (Ctrl-C gives up)\n",
				opt.domain, opt.paused ? " to be created paused" : "");
		if (xlp_domain_wait(opt.domain, opt.paused, &stop_requested) != 0) {
			fprintf(stderr, "xl profile: stopped before domain %s appeared\n",
				opt.domain);
			rc = 1;
			goto out;
		}
	}
	if (xlp_domain_lookup(opt.domain, &r.dom) < 0) {
		rc = 1;
		goto out;
	}
	if (opt.paused && !r.dom.paused) {
		fprintf(stderr, "xl profile: domain %s is not paused: --paused is for domains created with 'xl create -p'\n",
			r.dom.name);
		rc = 1;
		goto out;
	}
	if (r.dom.dying) {
		fprintf(stderr, "xl profile: domain %s is being destroyed: nothing left to profile\n",
			r.dom.name);
		rc = 1;
		goto out;
	}
	if (r.dom.shutdown && !opt.once) {
		fprintf(stderr, "xl profile: domain %s has %s and is kept, its vCPUs stopped: there is no CPU time to sample; print their stacks with 'xl profile --once %s'\n",
			r.dom.name, r.dom.crashed ? "crashed" : "shut down", r.dom.name);
		rc = 1;
		goto out;
	}
	if (opt.vcpu >= 0 && opt.vcpu >= r.dom.max_vcpus) {
		fprintf(stderr, "xl profile: vCPU %d does not exist: domain %s has %d vCPUs (0-%d)\n",
			opt.vcpu, r.dom.name, r.dom.max_vcpus, r.dom.max_vcpus - 1);
		rc = 2;
		goto out;
	}
	if ((opt.once ? up_target_open_xen_stopped(&t, r.dom.domid, opt.hypercalls) :
			up_target_open_xen_with(&t, r.dom.domid, opt.hypercalls)) < 0) {
		rc = fail(NULL);
		goto out;
	}
	r.hypercalls = up_target_info(t)->hypercalls;
	if (opt.verbose)
		fprintf(stderr, "xl profile: hypercalls: %s\n", r.hypercalls);
	q.explicit_file = opt.symbols;
	q.kernel = r.dom.kernel;
	q.debug_dir = getenv("UNIPROF_DEBUG_DIR");
	q.force = opt.force_symbols;
	q.verbose = opt.verbose;
	q.arch = r.arch = up_target_info(t)->arch;
	/* A PV guest's width is fixed when it is built; an HVM/PVH vCPU's
	 * changes as it boots, so only PV is cross-checked. */
	if (up_target_info(t)->type == UP_DOMAIN_PV)
		q.guest_width = up_target_info(t)->guest_width;
	if (xlp_find_symbols(&q, &r.symtab, &symbols_used) < 0) {
		rc = 1;
		goto out;
	}
	r.symbols_used = symbols_used;
	if (xlp_unwind_load(opt.unwinder, r.dom.kernel, r.symbols_used, opt.verbose, &r.uw) < 0 ||
	    xlp_kernel_map_load(r.dom.kernel, r.symbols_used, r.symtab, r.uw.cfi,
				&opt, &r.kmap) < 0) {
		rc = 1;
		goto out;
	}
	xlp_image_cache_drop();         /* before sampling locks memory */
	/* Decide where files go before sampling, so a bad path costs no run. */
	if (!opt.once && !(stem = xlp_output_stem(opt.output, r.dom.name))) {
		rc = 1;
		goto out;
	}
	if (up_crash_guard_install(t) < 0 ||
	    up_profile_new(&r.profile, up_target_info(t)->max_vcpus) < 0) {
		rc = fail(NULL);
		goto out;
	}
	up_sampler_config_init(&cfg);
	cfg.hz = opt.hz;
	cfg.duration_s = opt.duration_s;
	cfg.vcpu = opt.vcpu;
	cfg.unwind.max_depth = opt.max_depth;
	cfg.max_pause_ns = (uint64_t)opt.max_pause_ms * 1000000;
	xlp_unwind_configure(&r.uw, r.kmap, &cfg);
	cfg.no_activity = opt.no_vcpu_state;
	cfg.consistency = opt.consistency;
	if (!opt.quiet && !opt.once && !opt.no_vcpu_state) {
		cfg.early = early_warning;
		cfg.early_arg = &r;
		cfg.early_ns = EARLY_NS;
	}
	if (opt.once) {
		cfg.max_samples = 1;
		cfg.stopped_ok = true;
	}
	if (!opt.quiet && !opt.once)
		fprintf(stderr, "xl profile: sampling %s (id %u) at %g Hz%s%s; Ctrl-C stops\n",
			r.dom.name, r.dom.domid, opt.hz,
			opt.consistency == UP_CONSISTENCY_RELAXED ?
			", relaxed (no domain pause)" : "",
			opt.duration_s > 0 ? "" : " until it ends");
	if (opt.paused && xlp_domain_unpause(&r.dom) < 0) {
		rc = 1;
		goto out;
	}
	r.setup_ms = now_ms() - start_ms;
	if (opt.verbose)
		fprintf(stderr, "xl profile: set up in %.0f ms, %ld KiB resident\n",
			r.setup_ms, peak_rss_kib());
	if (!opt.no_realtime) {
		const char *why;

		r.realtime = xlp_realtime_enter(&why);
		if (!r.realtime && opt.verbose)
			fprintf(stderr, "xl profile: sampling at normal priority: %s\n", why);
	}
	clock_gettime(CLOCK_REALTIME, &r.started);
	rc = up_sample(t, &cfg, r.profile, &stop_requested, &r.stats);
	xlp_realtime_leave();
	if (rc < 0) {
		rc = fail(NULL);
		goto out;
	}
	/* The domain is running again; now the slow work. */
	up_target_close(t);
	t = NULL;
	if (r.stats.stop == UP_STOP_ERROR)
		fprintf(stderr, "xl profile: sampling stopped: %s\n", r.stats.error);
	if (opt.once) {
		rc = print_once(&r);
		goto out;
	}

	if (xlp_account_unseen(r.profile, &r.stats) < 0)
		fprintf(stderr, "xl profile: %s\n", up_error_last());

	struct xlp_report rep = {
		.opt = &opt, .dom = &r.dom, .arch = r.arch,
		.symtab = r.symtab,
		.symbols_used = r.symbols_used, .profile = r.profile,
		.stats = &r.stats, .unwinder = r.uw.unwinder,
		.hypercalls = r.hypercalls,
		.setup_ms = r.setup_ms, .peak_rss_kib = peak_rss_kib(),
		.realtime = r.realtime,
	};

	struct xlp_report_source out;

	xlp_report_source(&out, &rep, r.kmap, &r.started, opt.formats);
	rc = xlp_formats_write(&out.src, opt.formats, stem,
			       opt.quiet ? NULL : stdout) < 0 ? 1 : 0;
	xlp_report_source_release(&out);
	xlp_busy_warnings(&rep, stderr);
	if (!opt.quiet) {
		const struct up_output_opts view = { .vcpu = -1,
						     .with_idle = opt.with_idle };

		xlp_report_text(&rep, stdout);
		fputc('\n', stdout);
		up_profile_write_top(r.profile, r.symtab, &view,
				     opt.top < 10 ? opt.top : 10, stdout);
	}
	if (rc == 0 && r.stats.stop == UP_STOP_ERROR)
		rc = 1;
out:
	up_target_close(t);
	up_sampler_stats_release(&r.stats);
	up_profile_free(r.profile);
	up_symtab_free(r.symtab);
	xlp_unwind_release(&r.uw);
	up_kernel_map_free(r.kmap);
	xlp_domain_release(&r.dom);
	xlp_image_cache_drop();
	xlp_libxl_close();
	free(symbols_used);
	free(stem);
	return rc;
}
