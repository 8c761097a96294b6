/* A live run's outputs (see run_output.h). */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run_output.h"
#include "run_checks.h"
#include "summary.h"

/* The pprof header: in its comments what the other summaries say of the
 * run ("key: value"; report reads domain, type and vcpus back). */
static void pprof_header(struct tk_run_source *rs, const struct tk_run *r,
			const struct up_kernel_map *kmap, const struct timespec *started)
{
	const struct up_sampler_stats *s = r->stats;
	unsigned nv = up_profile_nr_vcpus(r->profile);
	char **lines = calloc(19 + nv, sizeof(*lines));
	char budget[640];
	size_t n = 0;
	struct up_pprof_meta m;

	up_pprof_meta_init(&m, UP_PPROF_META_VERSION);
	m.hz = r->asked.hz;
	/* The sample times count from the sampler's start. */
	m.time_nanos = s->start_unix_ns ? s->start_unix_ns :
		       (int64_t)started->tv_sec * 1000000000 + started->tv_nsec;
	m.duration_nanos = (int64_t)llround(s->elapsed_s * 1e9);
	if (!lines) {
		fprintf(stderr, "xl profile: cannot write the pprof profile: out of memory\n");
		return;
	}
	/* A mapping per executable PT_LOAD of the image the code map was
	 * read from, as its program header says; none without one. */
	for (size_t i = 0; i < up_kernel_map_segments(kmap) && i < UP_KERNEL_MAX_TEXT; i++) {
		const struct up_kernel_segment *seg = up_kernel_map_segment(kmap, i);

		rs->maps[i] = (struct up_pprof_mapping){
			seg->start, seg->limit, seg->file_offset,
			up_kernel_map_image(kmap),
			r->symtab ? up_symtab_build_id(r->symtab) : NULL,
		};
		m.nr_mappings = i + 1;
	}
	m.mappings = rs->maps;
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
	LINE("frequency: %g Hz", r->asked.hz);
	LINE("samples: %" PRIu64 " in %.1f s, stopped: %s", s->samples, s->elapsed_s,
	     up_stop_reason_name(s->stop));
	if (up_profile_credited(r->profile))
		LINE("credited: %" PRIu64 " of the %" PRIu64 " counted are periods the sampler missed, counted as the stack it sampled before them (label credited=missed)",
		     up_profile_credited(r->profile), up_profile_samples(r->profile));
	LINE("consistency: %s", up_consistency_name(r->asked.consistency));
	LINE("%s per sample: mean %.0f us, p50 %.0f us, p99 %.0f us, max %.0f us",
	     r->asked.consistency == UP_CONSISTENCY_RELAXED ?
	     "longest vCPU stall" : "pause",
	     up_sampler_pause_mean(s) / 1e3,
	     (double)up_sampler_pause_percentile(s, 50) / 1e3,
	     (double)up_sampler_pause_percentile(s, 99) / 1e3,
	     (double)up_sampler_pause_percentile(s, 100) / 1e3);
	tk_budget_text(s, budget, sizeof(budget));
	LINE("%s", budget);
	LINE("vcpu state: %s", r->asked.no_vcpu_state ? "not asked (--no-vcpu-state)" :
	     "state label busy or idle, from Xen at each sample");
	for (unsigned v = 0; v < nv; v++) {
		double busy = tk_busy_pct(r->profile, v), run = up_sampler_running_pct(s, v);

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

void tk_run_summary(const struct tk_run *r, struct tk_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->cmd = "xl profile";
	s->tool = "uniprof xl profile " PACKAGE_VERSION;
	s->profile = r->profile;
	s->names = r->symtab;
	up_output_opts_init(&s->view, UP_OUTPUT_OPTS_VERSION);   /* every vCPU */
	s->view.with_idle = r->asked.with_idle;
	s->view.no_inline = r->asked.no_inline;
	s->view.lines = r->asked.lines;
	s->top = r->asked.top;
	s->run = r;
	s->outputs = r->files;
	s->nr_outputs = r->nr_files;
}

void tk_run_text(const struct tk_run *r, FILE *out)
{
	struct tk_summary s;

	tk_run_summary(r, &s);
	tk_summary_text(&s, out);
}

int tk_run_json(const struct tk_run *r, FILE *out)
{
	struct tk_summary s;

	tk_run_summary(r, &s);
	return tk_summary_json(&s, out);
}

void tk_run_source(struct tk_run_source *rs, const struct tk_run *r,
		       const struct up_kernel_map *kmap,
		       const struct timespec *started, unsigned formats)
{
	struct tk_source *src = &rs->src;

	memset(rs, 0, sizeof(*rs));
	tk_run_summary(r, &rs->summary);
	src->cmd = "xl profile";
	src->profile = r->profile;
	src->names = r->symtab;
	/* The flame graph and the top list show what the summaries count. */
	src->view = rs->summary.view;
	src->top = rs->summary.top;
	src->title = rs->title;
	src->summary_text = tk_summary_source_text;
	src->summary_json = tk_summary_source_json;
	src->ctx = &rs->summary;
	src->lists_files = TK_FORMAT_JSON;
	snprintf(rs->title, sizeof(rs->title), "%s (%s): %" PRIu64 " %s stacks at %g Hz",
		 r->dom->name, r->dom->type,
		 up_profile_kept_samples(r->profile, &src->view),
		 r->asked.with_idle ? "busy and idle" : "on-CPU", r->asked.hz);
	/* Without a header the pprof writer fails (this said why). */
	if (formats & TK_FORMAT_PPROF)
		pprof_header(rs, r, kmap, started);
}

void tk_run_source_release(struct tk_run_source *rs)
{
	for (size_t i = 0; i < rs->nr_lines; i++)
		free(rs->lines[i]);
	free(rs->lines);
	rs->lines = NULL;
	rs->nr_lines = 0;
}
