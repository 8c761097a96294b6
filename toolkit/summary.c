/* The summary writer (see summary.h): text and JSON, for a live run and for
 * stored profiles alike; the parts only one source has are written when
 * it has them. */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_gen.h>

#include "toolkit/json_write.h"
#include "toolkit/run_checks.h"
#include "toolkit/summary.h"

#define str tk_json_str
#define key tk_json_key
#define num tk_json_num

/* --- text ---------------------------------------------------------------- */

/* A live run: the domain, the symbols, the sampler and its cost. */
static void run_head_text(const struct tk_run *r, FILE *out)
{
	const struct up_sampler_stats *s = r->stats;

	fprintf(out, "domain %s (id %u, %s), kernel %s\n", r->dom->name,
		r->dom->domid, r->dom->type,
		r->dom->kernel ? r->dom->kernel : "unknown");
	fprintf(out, "symbols %s\n",
		r->symbols_used ? r->symbols_used : "none (addresses)");
	fprintf(out, "%" PRIu64 " samples in %.1f s at %g Hz (%" PRIu64
		" stacks), stopped: %s\n", s->samples, s->elapsed_s,
		r->asked.hz, up_profile_samples(r->profile),
		up_stop_reason_name(s->stop));
	{
		char budget[640];

		tk_budget_text(s, budget, sizeof(budget));
		fprintf(out, "%s\n", budget);
	}
	if (tk_rate_short(r) > 0)
		fprintf(out, "rate reached %.0f Hz of the %g asked: one sample takes %.0f us here (the %s, p50 %.0f us, and what the sampler does around it), so it sampled back to back; the periods it missed count as the last sample\n",
			tk_rate_short(r), r->asked.hz, 1e6 / tk_rate_short(r),
			r->asked.consistency == UP_CONSISTENCY_RELAXED ?
			"longest vCPU stall" : "pause",
			(double)up_sampler_pause_percentile(s, 50) / 1e3);
	if (r->asked.consistency == UP_CONSISTENCY_RELAXED) {
		fprintf(out, "consistency relaxed (no domain pause): a vCPU stood still only to copy its registers\n");
		fprintf(out, "vCPU stacks: %" PRIu64 " exact (the vCPU did not run), %" PRIu64
			" verified unchanged, %" PRIu64 " cut to the IP (the stack moved under two walks), %"
			PRIu64 " unchecked (too many words); %" PRIu64 " of them walked twice\n",
			s->relaxed_still, s->relaxed_stable, s->relaxed_dropped,
			s->relaxed_unverified, s->relaxed_retried);
	}
	fprintf(out, "%s per sample: mean %.0f us, p50 %.0f us, p99 %.0f us, max %.0f us (%s)\n",
		r->asked.consistency == UP_CONSISTENCY_RELAXED ?
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
	fprintf(out, "sampled at %s", r->realtime ?
		"real-time priority, memory locked" : "normal priority");
	if (r->sampler && r->sampler->cpu >= 0)
		fprintf(out, ", on dom0 CPU %d (%s)", r->sampler->cpu,
			r->sampler->forced ? "--sampler-cpu" :
			r->sampler->fit ? "free of backends and of the guest's pCPUs" :
			"the best there was; none is free");
	else if (r->sampler && !r->sampler->fit)
		fputs(", on dom0's one vCPU, which the backends share", out);
	fputc('\n', out);
	fprintf(out, "set up in %.0f ms (symbols, unwind tables), peak memory %ld KiB\n",
		r->setup_ms, r->peak_rss_kib);
}

static const char *stored_format(const struct up_stored *st)
{
	return up_stored_format_of(st) == UP_STORED_PPROF ? "pprof" : "folded";
}

/* The folded file's lines: the distinct stacks it shows (-1: out of
 * memory). */
static long long folded_stacks(const struct tk_summary *s)
{
	const struct up_output_opts o = tk_folded_opts(&s->view);
	size_t n;

	return up_profile_folded_count(s->profile, s->names, &o, &n) < 0 ?
	       -1 : (long long)n;
}

/* Whether mapping i is the first with its file and build-id: each build
 * of several files merged named once. */
static bool first_build(const struct up_pprof_mapping *m, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (!m[j].file == !m[i].file && !m[j].build_id == !m[i].build_id &&
		    (!m[i].file || strcmp(m[j].file, m[i].file) == 0) &&
		    (!m[i].build_id || strcmp(m[j].build_id, m[i].build_id) == 0))
			return false;
	return m[i].file || m[i].build_id;
}

/* Several files merged: each merged line as it reads (they say when the
 * files differ), and every build they were taken of. */
static void merged_head_text(const struct up_stored *st, FILE *out)
{
	static const char *const keys[] = { "domain", "type" };
	const struct up_pprof_mapping *m;
	size_t n;

	for (size_t k = 0; k < 2; k++) {
		const char *v = up_stored_comment(st, keys[k]);

		if (!v)
			continue;
		fprintf(out, "%s ", keys[k]);
		up_text_print_escaped(out, v);
		fputc('\n', out);
	}
	m = up_stored_mappings(st, &n);
	for (size_t i = 0; i < n; i++) {
		if (!first_build(m, i))
			continue;
		fputs("kernel ", out);
		up_text_print_escaped(out, m[i].file ? m[i].file : "(no name)");
		fputs(", build-id ", out);
		up_text_print_escaped(out, m[i].build_id ? m[i].build_id : "none");
		fputc('\n', out);
	}
}

/* Stored profiles: the files, and the domain and kernel they recorded. */
static void stored_head_text(const struct tk_summary *s, FILE *out)
{
	const struct up_stored *st = s->stored;
	const char *dom = up_stored_comment(st, "domain");
	const char *type = up_stored_comment(st, "type");
	double hz = up_stored_hz(st);
	long long distinct;

	fputs("profile", out);
	for (size_t i = 0; i < s->nr_inputs; i++) {
		fputs(i ? ", " : " ", out);
		up_text_print_escaped(out, s->inputs[i]);
	}
	if (s->nr_inputs > 1) {
		fprintf(out, " (%zu files merged by %s)\n", s->nr_inputs,
			up_stored_names_only(st) ? "function name" : "address");
		merged_head_text(st, out);
	} else {
		fprintf(out, " (%s)\n", stored_format(st));
	}
	if (s->nr_inputs == 1 && dom) {
		fputs("domain ", out);
		up_text_print_escaped(out, dom);
		fputs(" (", out);
		up_text_print_escaped(out, type ? type : "?");
		fputs(")\n", out);
	}
	if (s->nr_inputs == 1 && up_stored_kernel(st)) {
		fputs("kernel ", out);
		up_text_print_escaped(out, up_stored_kernel(st));
		fputs(", build-id ", out);
		up_text_print_escaped(out, up_stored_build_id(st) ? up_stored_build_id(st) : "none");
		fputc('\n', out);
	}
	fprintf(out, "%" PRIu64 " samples", up_profile_samples(s->profile));
	if ((distinct = folded_stacks(s)) >= 0)
		fprintf(out, " (%lld distinct stacks)", distinct);
	if (hz > 0)
		fprintf(out, " at %g Hz", hz);
	if (s->ranged)
		fprintf(out, " taken from %.3f s to %.3f s of the run ([unseen] CPU time left out)",
			s->from_s, s->to_s);
	else if (up_stored_duration_nanos(st) > 0)
		fprintf(out, " over %.1f s", (double)up_stored_duration_nanos(st) / 1e9);
	fputc('\n', out);
}

/* Truncated stacks, with the run's missed deadlines or the files'
 * dropped stacks, then why they were cut. */
static void truncation_text(const struct tk_summary *s, FILE *out)
{
	uint64_t total = up_profile_samples(s->profile);
	uint64_t trunc = up_profile_truncated(s->profile);

	fprintf(out, "truncated stacks %" PRIu64 " (%.1f%%)", trunc,
		total ? 100.0 * (double)trunc / (double)total : 0.0);
	if (s->run)
		fprintf(out, ", missed deadlines %" PRIu64
			", missed periods counted as the last sample %" PRIu64 "\n",
			s->run->stats->missed_deadlines,
			s->run->stats->covered_periods);
	else
		fprintf(out, ", dropped %" PRIu64 ", credited for missed periods %" PRIu64 "\n",
			up_profile_dropped(s->profile), up_profile_credited(s->profile));
	for (int why = 1; why < UP_TRUNC_COUNT; why++)
		if (up_profile_truncated_by(s->profile, (enum up_trunc)why))
			fprintf(out, "  truncated: %s %" PRIu64 "\n",
				up_trunc_name((enum up_trunc)why),
				up_profile_truncated_by(s->profile, (enum up_trunc)why));
}

/* A live run: how it read the guest and unwound. */
static void run_walk_text(const struct tk_run *r, FILE *out)
{
	const struct up_sampler_stats *s = r->stats;

	fprintf(out, "guest frames mapped %" PRIu64 ", reused %" PRIu64
		", map failures %" PRIu64 "\n", s->mem.maps, s->mem.hits,
		s->mem.map_failures);
	fprintf(out, "unwinder %s: frames by CFI %" PRIu64 ", by frame pointer %" PRIu64
		", by libunwind %" PRIu64 ", out of the hypercall page %" PRIu64
		", CFI rules not expressible %" PRIu64 "\n",
		up_unwinder_name(r->unwinder), s->frames.cfi, s->frames.fp,
		s->frames.libunwind, s->frames.hypercall, s->frames.unsupported);
}

/* One vCPU: its stacks and busy share; a live run adds Xen's run time and
 * the stall, stored profiles the CPU time no sample saw. */
static void vcpu_text(const struct tk_summary *s, unsigned v, FILE *out)
{
	const struct up_profile *p = s->profile;
	double busy = tk_busy_pct(p, v);

	fprintf(out, "vcpu%u %" PRIu64 " stacks", v, up_profile_vcpu_samples(p, v));
	if (busy >= 0 && up_profile_vcpu_waiting(p, v))
		fprintf(out, ", busy %.1f%% (%" PRIu64 " on-CPU, %" PRIu64 " blocked, %" PRIu64 " woken and waiting to run)",
			busy, up_profile_vcpu_busy(p, v), up_profile_vcpu_blocked(p, v),
			up_profile_vcpu_waiting(p, v));
	else if (busy >= 0)
		fprintf(out, ", busy %.1f%% (%" PRIu64 " on-CPU, %" PRIu64 " blocked)",
			busy, up_profile_vcpu_busy(p, v), up_profile_vcpu_blocked(p, v));
	if (s->run) {
		const struct up_sampler_stats *st = s->run->stats;
		double running = up_sampler_running_pct(st, v);

		if (running >= 0)
			fprintf(out, ", ran %.1f%% of the time by Xen's accounting", running);
		if (up_sampler_stall_pct(st, v) >= 0)
			fprintf(out, ", stood still %.2f%% of the time for samples",
				up_sampler_stall_pct(st, v));
		if (tk_busy_check(s->run, v) == TK_BUSY_SAMPLES_LOW)
			fprintf(out, " (samples low: CPU time worth %" PRIu64
				" samples no sample saw, shown as [unseen])",
				up_profile_vcpu_unseen(p, v));
		if (tk_busy_waiting(s->run, v) > 0)
			fprintf(out, " (on-CPU above running by %.0f points: see the warning)",
				tk_busy_waiting(s->run, v));
		if (tk_others_pct(s->run, v) >= 0)
			fprintf(out, ", other vCPUs held its pCPUs at most %.1f%% of the time",
				tk_others_pct(s->run, v));
		/* Its state is read before its registers, and a guest that
		 * blocks and wakes often is found blocked more than it is
		 * (docs/IO-GUESTS.md). */
		if (s->run->asked.consistency == UP_CONSISTENCY_RELAXED &&
		    tk_busy_pct(p, v) >= 0)
			fputs(" (relaxed: the waiting share is a lower bound)", out);
	} else if (up_profile_vcpu_unseen(p, v)) {
		fprintf(out, ", CPU time worth %" PRIu64 " samples no sample saw ([unseen])",
			up_profile_vcpu_unseen(p, v));
	}
	fputc('\n', out);
}

static void recorded_text(const struct up_stored *st, FILE *out)
{
	if (!up_stored_nr_comments(st))
		return;
	fputs("recorded:\n", out);
	for (size_t i = 0; i < up_stored_nr_comments(st); i++) {
		fputs("  ", out);
		up_text_print_escaped(out, up_stored_comment_line(st, i));
		fputc('\n', out);
	}
}

void tk_summary_text(const struct tk_summary *s, FILE *out)
{
	if (s->run)
		run_head_text(s->run, out);
	else
		stored_head_text(s, out);
	truncation_text(s, out);
	if (s->run)
		run_walk_text(s->run, out);
	for (unsigned v = 0; v < up_profile_nr_vcpus(s->profile); v++)
		vcpu_text(s, v, out);
	if (s->stored)
		recorded_text(s->stored, out);
	fprintf(out, "flame graph and top list: %s%s\n", s->view.with_idle ?
		"busy and blocked (idle) stacks as sampled, blocked ones under [idle] ([unseen] CPU time in the on-CPU view only)" :
		"on-CPU time only (--idle adds blocked stacks)",
		s->view.vcpu >= 0 ? ", one vCPU" : "");
}

/* --- JSON ---------------------------------------------------------------- */

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

static void domain_json(yajl_gen g, const struct tk_summary *s)
{
	key(g, "domain");
	yajl_gen_map_open(g);
	if (s->run) {
		key(g, "name"); str(g, s->run->dom->name);
		key(g, "id"); yajl_gen_integer(g, s->run->dom->domid);
		key(g, "type"); str(g, s->run->dom->type);
		key(g, "arch"); str(g, up_arch_name(s->run->arch));
		key(g, "kernel"); str(g, s->run->dom->kernel);
	} else {
		const char *id = up_stored_comment(s->stored, "domain id");
		char *end = NULL;
		unsigned long domid = id && isdigit((unsigned char)id[0]) ?
				      strtoul(id, &end, 10) : 0;   /* a domid_t */

		key(g, "name"); str(g, up_stored_comment(s->stored, "domain"));
		/* As recorded in the pprof's comments; null when not. */
		key(g, "id");
		if (end && !*end && domid <= 0xffff)
			yajl_gen_integer(g, (long long)domid);
		else
			yajl_gen_null(g);
		key(g, "type"); str(g, up_stored_comment(s->stored, "type"));
		key(g, "arch"); str(g, up_stored_comment(s->stored, "arch"));
		key(g, "kernel"); str(g, up_stored_kernel(s->stored));
	}
	yajl_gen_map_close(g);
}

/* A live run: its symbols, unwinder and sampler settings. */
static void run_setup_json(yajl_gen g, const struct tk_run *r)
{
	const struct up_sampler_stats *s = r->stats;

	key(g, "symbols");
	yajl_gen_map_open(g);
	key(g, "file"); str(g, r->symbols_used);
	key(g, "build_id"); str(g, r->symtab ? up_symtab_build_id(r->symtab) : NULL);
	key(g, "functions");
	yajl_gen_integer(g, r->symtab ? (long long)up_symtab_count(r->symtab) : 0);
	yajl_gen_map_close(g);
	key(g, "unwinder"); str(g, up_unwinder_name(r->unwinder));
	key(g, "hypercalls"); str(g, r->hypercalls);
	key(g, "consistency"); str(g, up_consistency_name(r->asked.consistency));
	if (r->asked.consistency == UP_CONSISTENCY_RELAXED) {
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
	if (r->sampler) {
		key(g, "sampler_cpu");
		yajl_gen_map_open(g);
		key(g, "cpu");
		if (r->sampler->cpu >= 0)
			yajl_gen_integer(g, r->sampler->cpu);
		else
			yajl_gen_null(g);
		key(g, "fit"); yajl_gen_bool(g, r->sampler->fit);
		key(g, "forced"); yajl_gen_bool(g, r->sampler->forced);
		key(g, "why"); str(g, r->sampler->why);
		yajl_gen_map_close(g);
	}
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
}

/* What the stall budget did: the budget (100: none), the share the domain
 * stood still over the run, the rate asked, at the end and at the lowest,
 * when it was first lowered (null: never), the periods lowered-rate
 * samples stood for beyond themselves, the samples statistics rest on. */
static void stall_budget_json(yajl_gen g, const struct up_sampler_stats *st)
{
	double still = tk_stood_still_pct(st);

	key(g, "stall_budget");
	yajl_gen_map_open(g);
	key(g, "max_stall_pct"); num(g, st->max_stall_pct, 3);
	key(g, "stood_still_pct");
	if (still >= 0)
		num(g, still, 3);
	else
		yajl_gen_null(g);
	key(g, "hz_asked"); num(g, st->hz_asked, 3);
	key(g, "hz_final"); num(g, st->hz_now, 3);
	key(g, "hz_lowest"); num(g, st->hz_lowest, 3);
	key(g, "factor"); yajl_gen_integer(g, st->stall_factor);
	key(g, "factor_max"); yajl_gen_integer(g, st->stall_factor_max);
	key(g, "rate_lowered_at_s");
	if (tk_budget_lowered(st))
		num(g, st->lowered_at_s, 3);
	else
		yajl_gen_null(g);
	key(g, "rate_changes"); yajl_gen_integer(g, st->rate_changes);
	key(g, "window_stall_pct"); num(g, st->window_stall_pct, 2);
	key(g, "budget_periods"); yajl_gen_integer(g, (long long)st->budget_periods);
	key(g, "effective_samples"); num(g, tk_effective_samples(st), 1);
	yajl_gen_map_close(g);
}

/* Rate, time and counts: the sampler's own for a live run, what the
 * files recorded for stored ones. */
static void counts_json(yajl_gen g, const struct tk_summary *s)
{
	const struct up_profile *p = s->profile;
	double hz = s->run ? s->run->asked.hz : up_stored_hz(s->stored);
	long long distinct;

	key(g, "frequency_hz");
	if (hz > 0)
		num(g, hz, 3);
	else
		yajl_gen_null(g);
	key(g, "duration_s");
	num(g, s->run ? s->run->stats->elapsed_s : s->ranged ? s->to_s - s->from_s :
	    (double)up_stored_duration_nanos(s->stored) / 1e9, 3);
	/* When sampling began (ns since 1970): sample times count from it. */
	key(g, "start_unix_ns");
	yajl_gen_integer(g, s->run ? (long long)s->run->stats->start_unix_ns :
			 (long long)up_stored_time_nanos(s->stored));
	if (s->ranged) {
		key(g, "time_range");
		yajl_gen_map_open(g);
		key(g, "from_s"); num(g, s->from_s, 3);
		key(g, "to_s"); num(g, s->to_s, 3);
		yajl_gen_map_close(g);
	}
	if (s->run) {
		key(g, "stop_reason"); str(g, up_stop_reason_name(s->run->stats->stop));
		key(g, "samples"); yajl_gen_integer(g, (long long)s->run->stats->samples);
		key(g, "stacks"); yajl_gen_integer(g, (long long)up_profile_samples(p));
	} else {
		key(g, "samples"); yajl_gen_integer(g, (long long)up_profile_samples(p));
	}
	/* The folded file's lines, as the text summary counts them. */
	key(g, "distinct_stacks");
	if ((distinct = folded_stacks(s)) >= 0)
		yajl_gen_integer(g, distinct);
	else
		yajl_gen_null(g);
	key(g, "truncated_stacks"); yajl_gen_integer(g, (long long)up_profile_truncated(p));
	key(g, "dropped_stacks"); yajl_gen_integer(g, (long long)up_profile_dropped(p));
	/* Of the stacks counted, those of periods the sampler missed. */
	key(g, "credited_stacks"); yajl_gen_integer(g, (long long)up_profile_credited(p));
	key(g, "truncated_by");
	yajl_gen_map_open(g);
	for (int why = 1; why < UP_TRUNC_COUNT; why++)
		if (up_profile_truncated_by(p, (enum up_trunc)why)) {
			key(g, up_trunc_name((enum up_trunc)why));
			yajl_gen_integer(g, (long long)up_profile_truncated_by(p, (enum up_trunc)why));
		}
	yajl_gen_map_close(g);
	if (s->run) {
		const struct up_sampler_stats *st = s->run->stats;

		key(g, "missed_deadlines"); yajl_gen_integer(g, (long long)st->missed_deadlines);
		key(g, "covered_periods"); yajl_gen_integer(g, (long long)st->covered_periods);
		key(g, "rate_reached_hz");
		num(g, st->elapsed_s > 0 ? (double)st->samples / st->elapsed_s : 0, 1);
		key(g, "rate_short"); yajl_gen_bool(g, tk_rate_short(s->run) > 0);
		key(g, "vcpu_state_failures"); yajl_gen_integer(g, (long long)st->activity_failures);
		key(g, "abandoned_samples"); yajl_gen_integer(g, (long long)st->abandoned_samples);
		stall_budget_json(g, st);
	}
}

static void vcpu_json(yajl_gen g, const struct tk_summary *s, unsigned v)
{
	const struct up_profile *p = s->profile;
	const struct up_sampler_stats *st = s->run ? s->run->stats : NULL;

	yajl_gen_map_open(g);
	key(g, "vcpu"); yajl_gen_integer(g, v);
	key(g, "stacks"); yajl_gen_integer(g, (long long)up_profile_vcpu_samples(p, v));
	key(g, "busy"); yajl_gen_integer(g, (long long)up_profile_vcpu_busy(p, v));
	key(g, "blocked"); yajl_gen_integer(g, (long long)up_profile_vcpu_blocked(p, v));
	key(g, "waiting"); yajl_gen_integer(g, (long long)up_profile_vcpu_waiting(p, v));
	key(g, "unseen"); yajl_gen_integer(g, (long long)up_profile_vcpu_unseen(p, v));
	if (st && v < st->nr_vcpus) {
		key(g, "paused_ms");
		num(g, (double)st->vcpu_paused_ns[v] / 1e6, 3);
		key(g, "paused_while_blocked_ms");
		num(g, (double)st->vcpu_paused_blocked_ns[v] / 1e6, 3);
		key(g, "stall_pct");
		if (up_sampler_stall_pct(st, v) >= 0)
			num(g, up_sampler_stall_pct(st, v), 3);
		else
			yajl_gen_null(g);
	}
	key(g, "busy_pct");
	if (tk_busy_pct(p, v) >= 0)
		num(g, tk_busy_pct(p, v), 2);
	else
		yajl_gen_null(g);
	if (st) {
		key(g, "running_pct");
		if (up_sampler_running_pct(st, v) >= 0)
			num(g, up_sampler_running_pct(st, v), 2);
		else
			yajl_gen_null(g);
		key(g, "busy_check");
		str(g, tk_busy_check_name(tk_busy_check(s->run, v)));
		key(g, "waiting_points");
		num(g, tk_busy_waiting(s->run, v), 1);
		key(g, "waiting_pct");
		num(g, tk_waiting_pct(p, v) >= 0 ? tk_waiting_pct(p, v) : 0, 2);
		key(g, "others_on_pcpus_pct");
		if (tk_others_pct(s->run, v) >= 0)
			num(g, tk_others_pct(s->run, v), 1);
		else
			yajl_gen_null(g);
	}
	yajl_gen_map_close(g);
}

/* A live run: the sampler's cost and the guest frames it mapped. */
static void run_cost_json(yajl_gen g, const struct up_sampler_stats *s)
{
	percentiles_us(g, "pause_us", s, up_sampler_pause_percentile);
	percentiles_us(g, "wake_late_us", s, up_sampler_wake_late_percentile);
	key(g, "guest_frames");
	yajl_gen_map_open(g);
	key(g, "mapped"); yajl_gen_integer(g, (long long)s->mem.maps);
	key(g, "reused"); yajl_gen_integer(g, (long long)s->mem.hits);
	key(g, "map_failures"); yajl_gen_integer(g, (long long)s->mem.map_failures);
	yajl_gen_map_close(g);
}

static void strings_json(yajl_gen g, const char *k, const char *const *v,
			 size_t n)
{
	key(g, k);
	yajl_gen_array_open(g);
	for (size_t i = 0; i < n; i++)
		str(g, v[i]);
	yajl_gen_array_close(g);
}

/* Every build the files were taken of (several when merged), once. */
static void builds_json(yajl_gen g, const struct up_stored *st)
{
	size_t n;
	const struct up_pprof_mapping *m = up_stored_mappings(st, &n);

	key(g, "builds");
	yajl_gen_array_open(g);
	for (size_t i = 0; i < n; i++) {
		if (!first_build(m, i))
			continue;
		yajl_gen_map_open(g);
		key(g, "file"); str(g, m[i].file);
		key(g, "build_id"); str(g, m[i].build_id);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
}

int tk_summary_json(const struct tk_summary *s, FILE *out)
{
	uint64_t kept = up_profile_kept_samples(s->profile, &s->view);
	struct up_top_entry *top = NULL;
	size_t ntop = 0;
	yajl_gen g = tk_json_open(out);

	if (!g || up_profile_top(s->profile, s->names, &s->view, &top, &ntop) < 0) {
		fprintf(stderr, "%s: cannot build the JSON summary: out of memory\n",
			s->cmd);
		if (g)
			yajl_gen_free(g);
		return -1;
	}
	yajl_gen_map_open(g);
	key(g, "tool"); str(g, s->tool);
	if (s->stored) {
		strings_json(g, "files", (const char *const *)s->inputs, s->nr_inputs);
		key(g, "format"); str(g, stored_format(s->stored));
	}
	domain_json(g, s);
	if (s->run)
		run_setup_json(g, s->run);
	else {
		key(g, "build_id"); str(g, up_stored_build_id(s->stored));
		builds_json(g, s->stored);
	}
	counts_json(g, s);
	key(g, "vcpus");
	yajl_gen_array_open(g);
	for (unsigned v = 0; v < up_profile_nr_vcpus(s->profile); v++)
		vcpu_json(g, s, v);
	yajl_gen_array_close(g);
	if (s->run)
		run_cost_json(g, s->run->stats);
	if (s->stored) {
		const size_t n = up_stored_nr_comments(s->stored);

		key(g, "recorded");
		yajl_gen_array_open(g);
		for (size_t i = 0; i < n; i++)
			str(g, up_stored_comment_line(s->stored, i));
		yajl_gen_array_close(g);
	}
	key(g, "top_list_covers");
	str(g, s->view.with_idle ? "busy and idle" : "on-cpu");
	key(g, "top_list_samples"); yajl_gen_integer(g, (long long)kept);
	tk_json_top(g, top, ntop, s->top, kept);
	if (s->run)
		strings_json(g, "files", s->outputs, s->nr_outputs);
	yajl_gen_map_close(g);
	yajl_gen_free(g);
	up_top_free(top, ntop);
	return ferror(out) ? -1 : 0;
}

void tk_summary_source_text(const struct tk_source *src, FILE *out)
{
	tk_summary_text(src->ctx, out);
}

int tk_summary_source_json(const struct tk_source *src, FILE *out)
{
	struct tk_summary s = *(const struct tk_summary *)src->ctx;

	s.outputs = src->files;
	s.nr_outputs = src->nr_files;
	return tk_summary_json(&s, out);
}
