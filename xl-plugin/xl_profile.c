/* xl profile: sample a domain's stacks and write a profile beside its logs.
 * This file is the command's flow; options, domain lookup, symbol search
 * and file writing live in their own files. */
#include "config.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "domain.h"
#include "options.h"
#include "output_files.h"
#include "symbols_find.h"
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
};

static void write_summary(const struct run *r, FILE *out)
{
	const struct up_sampler_stats *s = &r->stats;
	uint64_t total = up_profile_samples(r->profile);
	uint64_t trunc = up_profile_truncated(r->profile);

	fprintf(out, "domain %s (id %u, %s), kernel %s\n", r->dom.name,
		r->dom.domid, r->dom.type, r->dom.kernel ? r->dom.kernel : "unknown");
	fprintf(out, "symbols %s\n", r->symbols_used ? r->symbols_used : "none (addresses)");
	fprintf(out, "%" PRIu64 " samples in %.1f s at %g Hz (%" PRIu64 " stacks), stopped: %s\n",
		s->samples, s->elapsed_s, r->opt->hz, total,
		up_stop_reason_name(s->stop));
	fprintf(out, "pause per sample: p50 %.0f us, p99 %.0f us, max %.0f us\n",
		(double)up_sampler_pause_percentile(s, 50) / 1e3,
		(double)up_sampler_pause_percentile(s, 99) / 1e3,
		(double)up_sampler_pause_percentile(s, 100) / 1e3);
	fprintf(out, "truncated stacks %" PRIu64 " (%.1f%%), missed deadlines %" PRIu64 "\n",
		trunc, total ? 100.0 * (double)trunc / (double)total : 0.0,
		s->missed_deadlines);
	fprintf(out, "guest frames mapped %" PRIu64 ", reused %" PRIu64 ", map failures %" PRIu64 "\n",
		s->mem.maps, s->mem.hits, s->mem.map_failures);
	for (unsigned v = 0; v < up_profile_nr_vcpus(r->profile); v++)
		fprintf(out, "vcpu%u %" PRIu64 " stacks\n", v,
			up_profile_vcpu_samples(r->profile, v));
}

static int write_outputs(struct run *r, const char *stem, FILE *report)
{
	struct xlp_file f;
	int rc = 0;

	if (r->opt->formats & XLP_FORMAT_FOLDED) {
		if (xlp_file_open(&f, stem, ".folded") < 0)
			return -1;
		if (up_profile_write_folded(r->profile, r->symtab, NULL, f.f) < 0) {
			fprintf(stderr, "xl profile: %s\n", up_error_last());
			xlp_file_abort(&f);
			return -1;
		}
		rc |= xlp_file_commit(&f);
		if (report)
			fprintf(report, "wrote %s\n", f.path);
		free(f.path);
	}
	if (r->opt->formats & XLP_FORMAT_TXT) {
		if (xlp_file_open(&f, stem, ".txt") < 0)
			return -1;
		write_summary(r, f.f);
		fputc('\n', f.f);
		up_profile_write_top(r->profile, r->symtab, NULL, r->opt->top, f.f);
		rc |= xlp_file_commit(&f);
		if (report)
			fprintf(report, "wrote %s\n", f.path);
		free(f.path);
	}
	return rc;
}

int main(int argc, char **argv)
{
	struct xlp_options opt;
	struct run r;
	struct up_target *t = NULL;
	struct up_sampler_config cfg;
	char *stem = NULL;
	int rc;

	rc = xlp_parse_options(argc, argv, &opt);
	if (rc)
		return rc == 1 ? 0 : 2;
	memset(&r, 0, sizeof(r));
	r.opt = &opt;
	install_signals();

	if (xlp_domain_lookup(opt.domain, &r.dom) < 0)
		return 1;
	if (opt.vcpu >= 0 && opt.vcpu >= r.dom.max_vcpus) {
		fprintf(stderr, "xl profile: vCPU %d does not exist: domain %s has %d vCPUs (0-%d)\n",
			opt.vcpu, r.dom.name, r.dom.max_vcpus, r.dom.max_vcpus - 1);
		rc = 2;
		goto out;
	}
	if (xlp_find_symbols(opt.symbols, r.dom.kernel, opt.verbose, &r.symtab,
			     &r.symbols_used) < 0) {
		rc = 1;
		goto out;
	}
	/* Decide where files go before sampling, so a bad path costs no run. */
	stem = xlp_output_stem(opt.output, r.dom.name);
	if (!stem) {
		rc = 1;
		goto out;
	}
	if (up_target_open_xen(&t, r.dom.domid) < 0) {
		fprintf(stderr, "xl profile: %s\n", up_error_last());
		rc = 1;
		goto out;
	}
	if (up_crash_guard_install(t) < 0) {
		fprintf(stderr, "xl profile: %s\n", up_error_last());
		rc = 1;
		goto out;
	}
	if (up_profile_new(&r.profile, up_target_info(t)->max_vcpus) < 0) {
		fprintf(stderr, "xl profile: %s\n", up_error_last());
		rc = 1;
		goto out;
	}
	up_sampler_config_init(&cfg);
	cfg.hz = opt.hz;
	cfg.duration_s = opt.duration_s;
	cfg.vcpu = opt.vcpu;
	cfg.unwind.max_depth = opt.max_depth;
	if (!opt.quiet)
		fprintf(stderr, "xl profile: sampling %s (id %u) at %g Hz%s; Ctrl-C stops\n",
			r.dom.name, r.dom.domid, opt.hz,
			opt.duration_s > 0 ? "" : " until it ends");
	if (up_sample(t, &cfg, r.profile, &stop_requested, &r.stats) < 0) {
		fprintf(stderr, "xl profile: %s\n", up_error_last());
		rc = 2;
		goto out;
	}
	/* The domain is running again; now the slow work. */
	up_target_close(t);
	t = NULL;
	if (r.stats.stop == UP_STOP_ERROR)
		fprintf(stderr, "xl profile: sampling stopped: %s\n", r.stats.error);
	rc = write_outputs(&r, stem, opt.quiet ? NULL : stdout) < 0 ? 1 : 0;
	if (!opt.quiet) {
		write_summary(&r, stdout);
		fputc('\n', stdout);
		up_profile_write_top(r.profile, r.symtab, NULL,
				     opt.top < 10 ? opt.top : 10, stdout);
	}
	if (rc == 0 && r.stats.stop == UP_STOP_ERROR)
		rc = 1;
out:
	up_target_close(t);
	up_sampler_stats_release(&r.stats);
	up_profile_free(r.profile);
	up_symtab_free(r.symtab);
	xlp_domain_release(&r.dom);
	free(stem);
	return rc;
}
