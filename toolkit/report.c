#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <yajl/yajl_gen.h>

#include "json_write.h"
#include "report.h"

double xlp_busy_pct(const struct up_profile *p, unsigned v)
{
	uint64_t busy = up_profile_vcpu_busy(p, v);
	uint64_t known = busy + up_profile_vcpu_blocked(p, v);

	return known ? 100.0 * (double)busy / (double)known : -1;
}

static enum xlp_busy_check busy_check(const struct up_profile *profile,
				      const struct up_sampler_stats *s,
				      unsigned v)
{
	double sampled = xlp_busy_pct(profile, v);
	double running = up_sampler_running_pct(s, v);
	double n = (double)s->samples, p, tol;

	if (sampled < 0 || running < 0 || n < 1)
		return XLP_BUSY_UNKNOWN;
	/* Busy (running or waiting for a CPU) is never less than running:
	 * samples that say so beyond sampling error (3.5 standard errors
	 * of a share of n samples, plus 1.5 points for the edges of our
	 * pauses, which the two clocks do not share) are skewed. More
	 * busy than running is no fault: a vCPU waits for a CPU after
	 * each of our pauses, and for other domains. */
	p = sampled / 100;
	tol = 1.5 + 3.5 * 100 * sqrt(p * (1 - p) / n);
	return sampled < running - tol ? XLP_BUSY_SAMPLES_LOW :
					 XLP_BUSY_CONSISTENT;
}

enum xlp_busy_check xlp_busy_check(const struct xlp_report *r, unsigned v)
{
	return busy_check(r->profile, r->stats, v);
}

/* The samples a vCPU's run time by Xen is worth beyond those that found
 * it busy, when they fell short beyond sampling error; else 0. */
static uint64_t unseen_samples(const struct up_profile *p,
			       const struct up_sampler_stats *s, unsigned v)
{
	uint64_t busy = up_profile_vcpu_busy(p, v);
	double known = (double)(busy + up_profile_vcpu_blocked(p, v));
	double worth = up_sampler_running_pct(s, v) / 100 * known;

	if (busy_check(p, s, v) != XLP_BUSY_SAMPLES_LOW || worth <= (double)busy)
		return 0;
	return (uint64_t)llround(worth - (double)busy);
}

int xlp_account_unseen(struct up_profile *p, const struct up_sampler_stats *s)
{
	for (unsigned v = 0; v < up_profile_nr_vcpus(p) && v < s->nr_vcpus; v++) {
		uint64_t n = unseen_samples(p, s, v), had = up_profile_vcpu_unseen(p, v);

		/* Once: asked again, nothing more is missing. */
		if (n > had && up_profile_add_unseen(p, v, n - had) < 0)
			return -1;
	}
	return 0;
}

const char *xlp_busy_check_name(enum xlp_busy_check c)
{
	switch (c) {
	case XLP_BUSY_CONSISTENT: return "consistent";
	case XLP_BUSY_SAMPLES_LOW: return "samples low";
	case XLP_BUSY_UNKNOWN: break;
	}
	return "unknown";
}

/* One line per vCPU whose samples found it busy well below Xen's run
 * time: after secs of sampling (secs > 0), or at the end. */
static void busy_lines(const struct xlp_report *r, double secs, FILE *out)
{
	for (unsigned v = 0; v < up_profile_nr_vcpus(r->profile); v++) {
		if (xlp_busy_check(r, v) != XLP_BUSY_SAMPLES_LOW)
			continue;
		if (secs > 0)
			fprintf(out, "xl profile: after %.0f s: ", secs);
		else
			fputs("xl profile: warning: ", out);
		fprintf(out, "vCPU %u was busy in %.1f%% of the samples but ran %.1f%% of the time by Xen's accounting: ",
			v, xlp_busy_pct(r->profile, v), up_sampler_running_pct(r->stats, v));
		if (secs > 0)
			fputs("most of its CPU time is going unseen (the warning at the end says why and what to change in dom0; Ctrl-C keeps what was sampled)\n",
			      out);
		else
			fputs("its CPU time came in bursts the sampler could not catch (work driven by backends that share dom0's CPU with the sampler, or the guest on dom0's CPU); [unseen] in the flame graph and top list stands for it; give the sampler a dom0 vCPU that neither the guest nor its backends use (dom0_max_vcpus=2 or more, the guest's cpus= elsewhere, taskset -c N xl profile)\n",
			      out);
	}
}

void xlp_busy_warnings(const struct xlp_report *r, FILE *out)
{
	busy_lines(r, 0, out);
}

void xlp_busy_warnings_early(const struct xlp_report *r, double secs, FILE *out)
{
	busy_lines(r, secs, out);
}

void xlp_report_text(const struct xlp_report *r, FILE *out)
{
	const struct up_sampler_stats *s = r->stats;
	uint64_t total = up_profile_samples(r->profile);
	uint64_t trunc = up_profile_truncated(r->profile);

	fprintf(out, "domain %s (id %u, %s), kernel %s\n", r->dom->name,
		r->dom->domid, r->dom->type,
		r->dom->kernel ? r->dom->kernel : "unknown");
	fprintf(out, "symbols %s\n",
		r->symbols_used ? r->symbols_used : "none (addresses)");
	fprintf(out, "%" PRIu64 " samples in %.1f s at %g Hz (%" PRIu64
		" stacks), stopped: %s\n", s->samples, s->elapsed_s,
		r->opt->hz, total, up_stop_reason_name(s->stop));
	if (r->opt->consistency == UP_CONSISTENCY_RELAXED) {
		fprintf(out, "consistency relaxed (no domain pause): a vCPU stood still only to copy its registers\n");
		fprintf(out, "vCPU stacks: %" PRIu64 " exact (the vCPU did not run), %" PRIu64
			" verified unchanged, %" PRIu64 " cut to the IP (the stack moved under two walks), %"
			PRIu64 " unchecked (too many words); %" PRIu64 " of them walked twice\n",
			s->relaxed_still, s->relaxed_stable, s->relaxed_dropped,
			s->relaxed_unverified, s->relaxed_retried);
	}
	fprintf(out, "%s per sample: mean %.0f us, p50 %.0f us, p99 %.0f us, max %.0f us (%s)\n",
		r->opt->consistency == UP_CONSISTENCY_RELAXED ?
		"longest vCPU stall" : "pause",
		up_sampler_pause_mean(s) / 1e3,
		(double)up_sampler_pause_percentile(s, 50) / 1e3,
		(double)up_sampler_pause_percentile(s, 99) / 1e3,
		(double)up_sampler_pause_percentile(s, 100) / 1e3,
		r->hypercalls ? r->hypercalls : "?");
	fprintf(out, "sampler woke late: p50 %.0f us, p99 %.0f us, max %.0f us\n",
		(double)up_sampler_wake_late_percentile(s, 50) / 1e3,
		(double)up_sampler_wake_late_percentile(s, 99) / 1e3,
		(double)up_sampler_wake_late_percentile(s, 100) / 1e3);
	fprintf(out, "sampled at %s\n", r->realtime ?
		"real-time priority, memory locked" : "normal priority");
	fprintf(out, "set up in %.0f ms (symbols, unwind tables), peak memory %ld KiB\n",
		r->setup_ms, r->peak_rss_kib);
	fprintf(out, "truncated stacks %" PRIu64 " (%.1f%%), missed deadlines %"
		PRIu64 ", missed periods counted as the last sample %" PRIu64 "\n", trunc,
		total ? 100.0 * (double)trunc / (double)total : 0.0,
		s->missed_deadlines, s->covered_periods);
	xlp_text_truncated_by(r->profile, out);
	fprintf(out, "guest frames mapped %" PRIu64 ", reused %" PRIu64
		", map failures %" PRIu64 "\n", s->mem.maps, s->mem.hits,
		s->mem.map_failures);
	fprintf(out, "unwinder %s: frames by CFI %" PRIu64 ", by frame pointer %" PRIu64
		", by libunwind %" PRIu64 ", out of the hypercall page %" PRIu64
		", CFI rules not expressible %" PRIu64 "\n",
		up_unwinder_name(r->unwinder), s->frames.cfi, s->frames.fp,
		s->frames.libunwind, s->frames.hypercall, s->frames.unsupported);
	for (unsigned v = 0; v < up_profile_nr_vcpus(r->profile); v++) {
		double busy = xlp_busy_pct(r->profile, v);
		double running = up_sampler_running_pct(s, v);

		fprintf(out, "vcpu%u %" PRIu64 " stacks", v,
			up_profile_vcpu_samples(r->profile, v));
		if (busy >= 0)
			fprintf(out, ", busy %.1f%% (%" PRIu64 " on-CPU, %" PRIu64 " blocked)",
				busy, up_profile_vcpu_busy(r->profile, v),
				up_profile_vcpu_blocked(r->profile, v));
		if (running >= 0)
			fprintf(out, ", ran %.1f%% of the time by Xen's accounting", running);
		if (up_sampler_stall_pct(s, v) >= 0)
			fprintf(out, ", stood still %.2f%% of the time for samples",
				up_sampler_stall_pct(s, v));
		if (xlp_busy_check(r, v) == XLP_BUSY_SAMPLES_LOW)
			fprintf(out, " (samples low: CPU time worth %" PRIu64
				" samples no sample saw, shown as [unseen])",
				up_profile_vcpu_unseen(r->profile, v));
		fputc('\n', out);
	}
	fprintf(out, "flame graph and top list: %s\n", r->opt->with_idle ?
		"busy and blocked (idle) stacks as sampled, blocked ones under [idle] ([unseen] CPU time in the on-CPU view only)" :
		"on-CPU time only (--idle adds blocked stacks)");
}

void xlp_text_truncated_by(const struct up_profile *p, FILE *out)
{
	for (int why = 1; why < UP_TRUNC_COUNT; why++)
		if (up_profile_truncated_by(p, (enum up_trunc)why))
			fprintf(out, "  truncated: %s %" PRIu64 "\n",
				up_trunc_name((enum up_trunc)why),
				up_profile_truncated_by(p, (enum up_trunc)why));
}

void xlp_json_truncated_by(yajl_gen g, const struct up_profile *p)
{
	xlp_json_key(g, "truncated_by");
	yajl_gen_map_open(g);
	for (int why = 1; why < UP_TRUNC_COUNT; why++)
		if (up_profile_truncated_by(p, (enum up_trunc)why)) {
			xlp_json_key(g, up_trunc_name((enum up_trunc)why));
			yajl_gen_integer(g, (long long)up_profile_truncated_by(p, (enum up_trunc)why));
		}
	yajl_gen_map_close(g);
}

void xlp_json_vcpu_counts(yajl_gen g, const struct up_profile *p, unsigned v)
{
	xlp_json_key(g, "vcpu"); yajl_gen_integer(g, v);
	xlp_json_key(g, "stacks"); yajl_gen_integer(g, (long long)up_profile_vcpu_samples(p, v));
	xlp_json_key(g, "busy"); yajl_gen_integer(g, (long long)up_profile_vcpu_busy(p, v));
	xlp_json_key(g, "blocked"); yajl_gen_integer(g, (long long)up_profile_vcpu_blocked(p, v));
	xlp_json_key(g, "unseen"); yajl_gen_integer(g, (long long)up_profile_vcpu_unseen(p, v));
}

void xlp_json_busy_pct(yajl_gen g, const struct up_profile *p, unsigned v)
{
	xlp_json_key(g, "busy_pct");
	if (xlp_busy_pct(p, v) >= 0)
		xlp_json_num(g, xlp_busy_pct(p, v), 2);
	else
		yajl_gen_null(g);
}

#define str xlp_json_str
#define key xlp_json_key
#define num xlp_json_num

static void us(yajl_gen g, const char *k, uint64_t ns)
{
	key(g, k);
	num(g, (double)ns / 1e3, 1);
}

/* KEY: { p50, p99, max } in microseconds of one of the sampler's series. */
static void percentiles_us(yajl_gen g, const char *k,
			   const struct up_sampler_stats *s,
			   uint64_t (*pct)(const struct up_sampler_stats *, double))
{
	key(g, k);
	yajl_gen_map_open(g);
	us(g, "p50", pct(s, 50));
	us(g, "p99", pct(s, 99));
	us(g, "max", pct(s, 100));
	if (pct == up_sampler_pause_percentile) {
		key(g, "mean");
		num(g, up_sampler_pause_mean(s) / 1e3, 1);
	}
	yajl_gen_map_close(g);
}

int xlp_report_json(const struct xlp_report *r, FILE *out)
{
	const struct up_sampler_stats *s = r->stats;
	const struct up_output_opts view = { .vcpu = -1,
					     .with_idle = r->opt->with_idle };
	uint64_t total = up_profile_samples(r->profile);
	uint64_t kept = up_profile_kept_samples(r->profile, &view);
	struct up_top_entry *top = NULL;
	size_t ntop = 0;
	yajl_gen g = xlp_json_open(out);

	if (!g || up_profile_top(r->profile, r->symtab, &view, &top, &ntop) < 0) {
		fprintf(stderr, "xl profile: cannot build the JSON summary: out of memory\n");
		if (g)
			yajl_gen_free(g);
		return -1;
	}
	yajl_gen_map_open(g);
	key(g, "tool");
	str(g, "uniprof xl profile " PACKAGE_VERSION);
	key(g, "domain");
	yajl_gen_map_open(g);
	key(g, "name"); str(g, r->dom->name);
	key(g, "id"); yajl_gen_integer(g, r->dom->domid);
	key(g, "type"); str(g, r->dom->type);
	key(g, "arch"); str(g, up_arch_name(r->arch));
	key(g, "kernel"); str(g, r->dom->kernel);
	yajl_gen_map_close(g);
	key(g, "symbols");
	yajl_gen_map_open(g);
	key(g, "file"); str(g, r->symbols_used);
	key(g, "build_id"); str(g, r->symtab ? up_symtab_build_id(r->symtab) : NULL);
	key(g, "functions");
	yajl_gen_integer(g, r->symtab ? (long long)up_symtab_count(r->symtab) : 0);
	yajl_gen_map_close(g);
	key(g, "unwinder"); str(g, up_unwinder_name(r->unwinder));
	key(g, "hypercalls"); str(g, r->hypercalls);
	key(g, "consistency"); str(g, up_consistency_name(r->opt->consistency));
	if (r->opt->consistency == UP_CONSISTENCY_RELAXED) {
		key(g, "relaxed");
		yajl_gen_map_open(g);
		key(g, "exact"); yajl_gen_integer(g, (long long)s->relaxed_still);
		key(g, "verified"); yajl_gen_integer(g, (long long)s->relaxed_stable);
		key(g, "walked_again"); yajl_gen_integer(g, (long long)s->relaxed_retried);
		key(g, "dropped"); yajl_gen_integer(g, (long long)s->relaxed_dropped);
		key(g, "unverified"); yajl_gen_integer(g, (long long)s->relaxed_unverified);
		yajl_gen_map_close(g);
	}
	key(g, "realtime"); yajl_gen_bool(g, r->realtime);
	key(g, "setup_ms"); num(g, r->setup_ms, 1);
	key(g, "peak_rss_kib"); yajl_gen_integer(g, r->peak_rss_kib);
	key(g, "unwound_frames");
	yajl_gen_map_open(g);
	key(g, "cfi"); yajl_gen_integer(g, (long long)s->frames.cfi);
	key(g, "fp"); yajl_gen_integer(g, (long long)s->frames.fp);
	key(g, "libunwind"); yajl_gen_integer(g, (long long)s->frames.libunwind);
	key(g, "hypercall_page"); yajl_gen_integer(g, (long long)s->frames.hypercall);
	key(g, "unsupported"); yajl_gen_integer(g, (long long)s->frames.unsupported);
	yajl_gen_map_close(g);
	key(g, "frequency_hz"); num(g, r->opt->hz, 3);
	key(g, "duration_s"); num(g, s->elapsed_s, 3);
	key(g, "stop_reason"); str(g, up_stop_reason_name(s->stop));
	key(g, "samples"); yajl_gen_integer(g, (long long)s->samples);
	key(g, "stacks"); yajl_gen_integer(g, (long long)total);
	key(g, "truncated_stacks");
	yajl_gen_integer(g, (long long)up_profile_truncated(r->profile));
	key(g, "dropped_stacks"); yajl_gen_integer(g, (long long)up_profile_dropped(r->profile));
	xlp_json_truncated_by(g, r->profile);
	key(g, "top_list_covers"); str(g, r->opt->with_idle ? "busy and idle" : "on-cpu");
	key(g, "top_list_samples"); yajl_gen_integer(g, (long long)kept);
	key(g, "missed_deadlines"); yajl_gen_integer(g, (long long)s->missed_deadlines);
	key(g, "covered_periods"); yajl_gen_integer(g, (long long)s->covered_periods);
	key(g, "vcpu_state_failures"); yajl_gen_integer(g, (long long)s->activity_failures);
	key(g, "abandoned_samples"); yajl_gen_integer(g, (long long)s->abandoned_samples);
	key(g, "vcpus");
	yajl_gen_array_open(g);
	for (unsigned v = 0; v < up_profile_nr_vcpus(r->profile); v++) {
		yajl_gen_map_open(g);
		xlp_json_vcpu_counts(g, r->profile, v);
		if (v < s->nr_vcpus) {
			key(g, "paused_ms");
			num(g, (double)s->vcpu_paused_ns[v] / 1e6, 3);
			key(g, "paused_while_blocked_ms");
			num(g, (double)s->vcpu_paused_blocked_ns[v] / 1e6, 3);
			key(g, "stall_pct");
			if (up_sampler_stall_pct(s, v) >= 0)
				num(g, up_sampler_stall_pct(s, v), 3);
			else
				yajl_gen_null(g);
		}
		xlp_json_busy_pct(g, r->profile, v);
		key(g, "running_pct");
		if (up_sampler_running_pct(s, v) >= 0)
			num(g, up_sampler_running_pct(s, v), 2);
		else
			yajl_gen_null(g);
		key(g, "busy_check");
		str(g, xlp_busy_check_name(xlp_busy_check(r, v)));
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
	percentiles_us(g, "pause_us", s, up_sampler_pause_percentile);
	percentiles_us(g, "wake_late_us", s, up_sampler_wake_late_percentile);
	key(g, "guest_frames");
	yajl_gen_map_open(g);
	key(g, "mapped"); yajl_gen_integer(g, (long long)s->mem.maps);
	key(g, "reused"); yajl_gen_integer(g, (long long)s->mem.hits);
	key(g, "map_failures"); yajl_gen_integer(g, (long long)s->mem.map_failures);
	yajl_gen_map_close(g);
	xlp_json_top(g, top, ntop, r->opt->top, kept);
	key(g, "files");
	yajl_gen_array_open(g);
	for (unsigned i = 0; i < r->nr_files; i++)
		str(g, r->files[i]);
	yajl_gen_array_close(g);
	yajl_gen_map_close(g);
	yajl_gen_free(g);
	up_top_free(top, ntop);
	return ferror(out) ? -1 : 0;
}

/* The pprof header: in its comments what the other summaries say of the
 * run ("key: value"; report reads domain, type and vcpus back). */
static void pprof_header(struct xlp_report_source *rs, const struct xlp_report *r,
			const struct up_kernel_map *kmap, const struct timespec *started)
{
	const struct up_sampler_stats *s = r->stats;
	unsigned nv = up_profile_nr_vcpus(r->profile);
	char **lines = calloc(18 + nv, sizeof(*lines));
	size_t n = 0;
	struct up_pprof_meta m = {
		.hz = r->opt->hz, .kernel = r->dom->kernel,
		.build_id = r->symtab ? up_symtab_build_id(r->symtab) : NULL,
		.time_nanos = (int64_t)started->tv_sec * 1000000000 + started->tv_nsec,
		.duration_nanos = (int64_t)llround(s->elapsed_s * 1e9),
	};

	if (!lines) {
		fprintf(stderr, "xl profile: cannot write the pprof profile: out of memory\n");
		return;
	}
	up_kernel_map_text_span(kmap, &m.text_start, &m.text_end);
#define LINE(...) do { if (asprintf(&lines[n], __VA_ARGS__) >= 0) n++; } while (0)
	LINE("tool: uniprof xl profile %s", PACKAGE_VERSION);
	LINE("domain: %s", r->dom->name);
	LINE("domain id: %u", r->dom->domid);
	LINE("type: %s", r->dom->type);
	LINE("arch: %s", up_arch_name(r->arch));
	LINE("vcpus: %u", nv);
	LINE("symbols: %s", r->symbols_used ? r->symbols_used : "none (addresses)");
	LINE("unwinder: %s", up_unwinder_name(r->unwinder));
	LINE("hypercalls: %s", r->hypercalls ? r->hypercalls : "?");
	LINE("frequency: %g Hz", r->opt->hz);
	LINE("samples: %" PRIu64 " in %.1f s, stopped: %s", s->samples, s->elapsed_s,
	     up_stop_reason_name(s->stop));
	LINE("consistency: %s", up_consistency_name(r->opt->consistency));
	LINE("%s per sample: mean %.0f us, p50 %.0f us, p99 %.0f us, max %.0f us",
	     r->opt->consistency == UP_CONSISTENCY_RELAXED ?
	     "longest vCPU stall" : "pause",
	     up_sampler_pause_mean(s) / 1e3,
	     (double)up_sampler_pause_percentile(s, 50) / 1e3,
	     (double)up_sampler_pause_percentile(s, 99) / 1e3,
	     (double)up_sampler_pause_percentile(s, 100) / 1e3);
	LINE("vcpu state: %s", r->opt->no_vcpu_state ? "not asked (--no-vcpu-state)" :
	     "state label busy or idle, from Xen at each sample");
	for (unsigned v = 0; v < nv; v++) {
		double busy = xlp_busy_pct(r->profile, v), run = up_sampler_running_pct(s, v);

		if (busy >= 0 && run >= 0 && up_profile_vcpu_unseen(r->profile, v))
			LINE("vcpu%u: busy %.1f%% of the samples, ran %.1f%% by Xen's accounting: CPU time worth %" PRIu64 " samples unseen ([unseen])",
			     v, busy, run, up_profile_vcpu_unseen(r->profile, v));
		else if (busy >= 0 && run >= 0)
			LINE("vcpu%u: busy %.1f%% of the samples, ran %.1f%% by Xen's accounting", v, busy, run);
		else if (busy >= 0)
			LINE("vcpu%u: busy %.1f%% of the samples", v, busy);
	}
#undef LINE
	m.comments = (const char *const *)lines;
	m.nr_comments = n;
	rs->meta = m;
	rs->lines = lines;
	rs->nr_lines = n;
	rs->src.pprof = &rs->meta;
}

static void live_text(const struct xlp_source *src, FILE *out)
{
	xlp_report_text(src->ctx, out);
}

/* The JSON summary lists the files of this write. */
static int live_json(const struct xlp_source *src, FILE *out)
{
	struct xlp_report r = *(const struct xlp_report *)src->ctx;

	r.nr_files = 0;
	for (size_t i = 0; i < src->nr_files &&
	     i < sizeof(r.files) / sizeof(r.files[0]); i++)
		r.files[r.nr_files++] = src->files[i];
	return xlp_report_json(&r, out);
}

void xlp_report_source(struct xlp_report_source *rs, const struct xlp_report *r,
		       const struct up_kernel_map *kmap,
		       const struct timespec *started, unsigned formats)
{
	struct xlp_source *src = &rs->src;

	memset(rs, 0, sizeof(*rs));
	src->cmd = "xl profile";
	src->profile = r->profile;
	src->names = r->symtab;
	src->view.vcpu = -1;
	src->view.with_idle = r->opt->with_idle;
	src->top = r->opt->top;
	src->title = rs->title;
	src->summary_text = live_text;
	src->summary_json = live_json;
	src->ctx = r;
	src->lists_files = XLP_FORMAT_JSON;
	snprintf(rs->title, sizeof(rs->title), "%s (%s): %" PRIu64 " %s stacks at %g Hz",
		 r->dom->name, r->dom->type,
		 up_profile_kept_samples(r->profile, &src->view),
		 r->opt->with_idle ? "busy and idle" : "on-CPU", r->opt->hz);
	/* Without a header the pprof writer fails (this said why). */
	if (formats & XLP_FORMAT_PPROF)
		pprof_header(rs, r, kmap, started);
}

void xlp_report_source_release(struct xlp_report_source *rs)
{
	for (size_t i = 0; i < rs->nr_lines; i++)
		free(rs->lines[i]);
	free(rs->lines);
	rs->lines = NULL;
	rs->nr_lines = 0;
}
