/* xl profile report FILE...: render stored profiles (pprof or folded) again,
 * on any machine: folded, svg, txt, json or pprof, filtered by vCPU and
 * state, re-symbolized with -s. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "toolkit/json_write.h"
#include "toolkit/options.h"
#include "toolkit/report.h"
#include "stored_cmds.h"
#include "subcommands.h"

static const struct xlp_option_doc docs[] = {
	{ { "format", required_argument, NULL, 'F' }, 'F', "FORMAT",
	  "folded, svg, txt, json, pprof; repeat or comma-separate (default: txt to stdout; with -o, all)" },
	{ { "output", required_argument, NULL, 'o' }, 'o', "STEM",
	  "write STEM.folded, STEM.svg, ... (a directory: DIR/NAME-report.*); default: stdout, one format" },
	{ { "symbols", required_argument, NULL, 's' }, 's', "FILE",
	  "name the profile's addresses from this ELF image or nm map (pprof only; its build-id must match)" },
	{ { "force-symbols", no_argument, NULL, XLP_OPT_FORCE_SYMBOLS }, XLP_OPT_FORCE_SYMBOLS, NULL,
	  "use the -s file even if its build-id differs from the profile's" },
	{ { "idle", no_argument, NULL, XLP_OPT_IDLE }, XLP_OPT_IDLE, NULL,
	  "also show blocked (idle) stacks, under [idle], in the flame graph and top list" },
	{ { "vcpu", required_argument, NULL, XLP_OPT_VCPU }, XLP_OPT_VCPU, "N",
	  "only vCPU N's stacks" },
	{ { "top", required_argument, NULL, XLP_OPT_TOP }, XLP_OPT_TOP, "N",
	  "functions in the top list (default 20)" },
	{ { "quiet", no_argument, NULL, 'q' }, 'q', NULL, "print nothing but errors" },
	{ { "help", no_argument, NULL, 'h' }, 'h', NULL, "show this help" },
};

#define NDOCS (sizeof(docs) / sizeof(docs[0]))

struct report {
	char *const *files;
	size_t nr_files;
	const struct up_stored *s;
	const struct up_symtab *names;
	struct up_output_opts view;
	unsigned top;
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: xl profile report [options] FILE...\n"
		"\n"
		"Render stored profiles again, without Xen, the guest or its image: a pprof\n"
		"profile (NAME.pb.gz, the durable format) or folded stacks. Several files are\n"
		"merged by function name.\n"
		"\n"
		"Options:\n");
	xlp_print_option_docs(out, docs, NDOCS);
}

static const char *format_name(const struct up_stored *s)
{
	return up_stored_format_of(s) == UP_STORED_PPROF ? "pprof" : "folded";
}

static void summary_text(const struct xlp_source *src, FILE *out)
{
	const struct report *r = src->ctx;
	const struct up_profile *p = up_stored_profile(r->s);
	const char *dom = up_stored_comment(r->s, "domain");
	const char *type = up_stored_comment(r->s, "type");
	uint64_t total = up_profile_samples(p), trunc = up_profile_truncated(p);
	double hz = up_stored_hz(r->s);

	fputs("profile", out);
	for (size_t i = 0; i < r->nr_files; i++) {
		fputs(i ? ", " : " ", out);
		up_text_print_escaped(out, r->files[i]);
	}
	fprintf(out, " (%s)\n", format_name(r->s));
	if (dom) {
		fputs("domain ", out);
		up_text_print_escaped(out, dom);
		fputs(" (", out);
		up_text_print_escaped(out, type ? type : "?");
		fputs(")\n", out);
	}
	if (up_stored_kernel(r->s)) {
		fputs("kernel ", out);
		up_text_print_escaped(out, up_stored_kernel(r->s));
		fputs(", build-id ", out);
		up_text_print_escaped(out, up_stored_build_id(r->s) ? up_stored_build_id(r->s) : "none");
		fputc('\n', out);
	}
	fprintf(out, "%" PRIu64 " samples (%zu distinct stacks)", total,
		up_profile_unique_stacks(p));
	if (hz > 0)
		fprintf(out, " at %g Hz", hz);
	if (up_stored_duration_nanos(r->s) > 0)
		fprintf(out, " over %.1f s", (double)up_stored_duration_nanos(r->s) / 1e9);
	fputc('\n', out);
	fprintf(out, "truncated stacks %" PRIu64 " (%.1f%%), dropped %" PRIu64 "\n",
		trunc, total ? 100.0 * (double)trunc / (double)total : 0.0,
		up_profile_dropped(p));
	xlp_text_truncated_by(p, out);
	for (unsigned v = 0; v < up_profile_nr_vcpus(p); v++) {
		double busy = xlp_busy_pct(p, v);

		fprintf(out, "vcpu%u %" PRIu64 " stacks", v, up_profile_vcpu_samples(p, v));
		if (busy >= 0)
			fprintf(out, ", busy %.1f%% (%" PRIu64 " on-CPU, %" PRIu64 " blocked)",
				busy, up_profile_vcpu_busy(p, v), up_profile_vcpu_blocked(p, v));
		if (up_profile_vcpu_unseen(p, v))
			fprintf(out, ", CPU time worth %" PRIu64 " samples no sample saw ([unseen])",
				up_profile_vcpu_unseen(p, v));
		fputc('\n', out);
	}
	if (up_stored_nr_comments(r->s)) {
		fputs("recorded:\n", out);
		for (size_t i = 0; i < up_stored_nr_comments(r->s); i++) {
			fputs("  ", out);
			up_text_print_escaped(out, up_stored_comment_line(r->s, i));
			fputc('\n', out);
		}
	}
	fprintf(out, "flame graph and top list: %s%s\n", r->view.with_idle ?
		"busy and blocked (idle) stacks, blocked ones under [idle]" :
		"on-CPU time only (--idle adds blocked stacks)",
		r->view.vcpu >= 0 ? ", one vCPU" : "");
}

static int summary_json(const struct xlp_source *src, FILE *out)
{
	const struct report *r = src->ctx;
	const struct up_profile *p = up_stored_profile(r->s);
	uint64_t kept = up_profile_kept_samples(p, &r->view);
	struct up_top_entry *top = NULL;
	size_t ntop = 0;
	yajl_gen g = xlp_json_open(out);

	if (!g || up_profile_top(p, r->names, &r->view, &top, &ntop) < 0) {
		fprintf(stderr, "xl profile report: cannot build the JSON summary: out of memory\n");
		if (g)
			yajl_gen_free(g);
		return -1;
	}
	yajl_gen_map_open(g);
	xlp_json_key(g, "tool");
	xlp_json_str(g, "uniprof xl profile report " PACKAGE_VERSION);
	xlp_json_key(g, "files");
	yajl_gen_array_open(g);
	for (size_t i = 0; i < r->nr_files; i++)
		xlp_json_str(g, r->files[i]);
	yajl_gen_array_close(g);
	xlp_json_key(g, "format"); xlp_json_str(g, format_name(r->s));
	xlp_json_key(g, "domain");
	yajl_gen_map_open(g);
	xlp_json_key(g, "name"); xlp_json_str(g, up_stored_comment(r->s, "domain"));
	xlp_json_key(g, "type"); xlp_json_str(g, up_stored_comment(r->s, "type"));
	xlp_json_key(g, "kernel"); xlp_json_str(g, up_stored_kernel(r->s));
	yajl_gen_map_close(g);
	xlp_json_key(g, "build_id"); xlp_json_str(g, up_stored_build_id(r->s));
	xlp_json_key(g, "frequency_hz");
	if (up_stored_hz(r->s) > 0)
		xlp_json_num(g, up_stored_hz(r->s), 3);
	else
		yajl_gen_null(g);
	xlp_json_key(g, "duration_s");
	xlp_json_num(g, (double)up_stored_duration_nanos(r->s) / 1e9, 3);
	xlp_json_key(g, "samples"); yajl_gen_integer(g, (long long)up_profile_samples(p));
	xlp_json_key(g, "truncated_stacks");
	yajl_gen_integer(g, (long long)up_profile_truncated(p));
	xlp_json_key(g, "dropped_stacks"); yajl_gen_integer(g, (long long)up_profile_dropped(p));
	xlp_json_truncated_by(g, p);
	xlp_json_key(g, "vcpus");
	yajl_gen_array_open(g);
	for (unsigned v = 0; v < up_profile_nr_vcpus(p); v++) {
		yajl_gen_map_open(g);
		xlp_json_vcpu_counts(g, p, v);
		xlp_json_busy_pct(g, p, v);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
	xlp_json_key(g, "recorded");
	yajl_gen_array_open(g);
	for (size_t i = 0; i < up_stored_nr_comments(r->s); i++)
		xlp_json_str(g, up_stored_comment_line(r->s, i));
	yajl_gen_array_close(g);
	xlp_json_key(g, "top_list_covers");
	xlp_json_str(g, r->view.with_idle ? "busy and idle" : "on-cpu");
	xlp_json_key(g, "top_list_samples"); yajl_gen_integer(g, (long long)kept);
	xlp_json_top(g, top, ntop, r->top, kept);
	yajl_gen_map_close(g);
	yajl_gen_free(g);
	up_top_free(top, ntop);
	return ferror(out) ? -1 : 0;
}

/* The live run's title when the profile says its domain, type and rate. */
static void svg_title(const struct report *r, char *buf, size_t len)
{
	const struct up_profile *p = up_stored_profile(r->s);
	const char *dom = up_stored_comment(r->s, "domain");
	const char *type = up_stored_comment(r->s, "type");
	const char *freq = up_stored_comment(r->s, "frequency");
	uint64_t kept = up_profile_kept_samples(p, &r->view);
	const char *what = r->view.with_idle ? "busy and idle" : "on-CPU";
	char rate[64] = "";

	if (freq)
		snprintf(rate, sizeof(rate), " at %s", freq);
	else if (up_stored_hz(r->s) > 0)
		snprintf(rate, sizeof(rate), " at %g Hz", up_stored_hz(r->s));
	if (dom)
		snprintf(buf, len, "%s (%s): %" PRIu64 " %s stacks%s", dom,
			 type ? type : "?", kept, what, rate);
	else
		snprintf(buf, len, "%s: %" PRIu64 " %s stacks%s", r->files[0], kept,
			 what, rate);
}

/* The pprof header: the stored one, comments and all; NULL when out of
 * memory (the pprof file then fails). */
static const char **pprof_header(const struct report *r, struct up_pprof_meta *m)
{
	size_t n = up_stored_nr_comments(r->s);
	const char **lines = calloc(n + 1, sizeof(*lines));

	if (!lines)
		return NULL;
	for (size_t i = 0; i < n; i++)
		lines[i] = up_stored_comment_line(r->s, i);
	*m = (struct up_pprof_meta){
		.hz = up_stored_hz(r->s), .time_nanos = up_stored_time_nanos(r->s),
		.duration_nanos = up_stored_duration_nanos(r->s),
		.kernel = up_stored_kernel(r->s), .build_id = up_stored_build_id(r->s),
		.comments = lines, .nr_comments = n,
		.names_only = up_stored_names_only(r->s),
	};
	return lines;
}

/* Write the formats of the loaded profile. */
static int write_report(const struct report *r, const struct xlp_stored_opts *so,
			unsigned formats)
{
	char title[512], *stem;
	struct up_pprof_meta meta;
	const char **lines = NULL;
	struct xlp_source src = {
		.cmd = "xl profile report", .profile = up_stored_profile(r->s),
		.names = r->names, .view = r->view, .top = r->top, .title = title,
		.summary_text = summary_text, .summary_json = summary_json, .ctx = r,
	};
	int rc;

	svg_title(r, title, sizeof(title));
	if ((formats & XLP_FORMAT_PPROF) && (lines = pprof_header(r, &meta)))
		src.pprof = &meta;
	stem = xlp_input_stem(r->files[0], "-report");
	rc = stem ? xlp_write_formats("report", so->output, stem, formats, &src,
				      so->quiet) : 1;
	free(stem);
	free(lines);
	return rc;
}

int xlp_cmd_report(int argc, char **argv)
{
	struct option longopts[NDOCS + 1];
	char shortopts[3 * NDOCS + 2];
	struct xlp_stored_opts so = { .view = { .vcpu = -1 }, .top = 20 };
	const char *symbols = NULL;
	unsigned formats = 0;
	bool force = false;
	struct report r = { .view = { .vcpu = -1 } };
	struct up_symtab *symtab = NULL;
	struct up_stored *s;
	int c, rc;

	xlp_getopt_tables(docs, NDOCS, longopts, shortopts);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'F':
			if (xlp_parse_formats(optarg, xlp_formats_of(XLP_CMD_REPORT), &formats) < 0) {
				fprintf(stderr, "xl profile report: invalid format '%s': use folded, svg, txt, json or pprof\n", optarg);
				return 2;
			}
			break;
		case 's': symbols = optarg; break;
		case XLP_OPT_FORCE_SYMBOLS: force = true; break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			if (xlp_stored_option("report", c, argv, &so) < 0)
				return 2;
		}
	}
	r.view = so.view;
	r.top = so.top;
	if (optind >= argc) {
		fprintf(stderr, "xl profile report: no profile given: xl profile report [options] FILE... (see --help)\n");
		return 2;
	}
	if (!formats)
		formats = so.output ? xlp_formats_of(XLP_CMD_REPORT) : XLP_FORMAT_TXT;
	r.files = argv + optind;
	r.nr_files = (size_t)(argc - optind);
	s = xlp_stored_load("report", r.files, r.nr_files, symbols, force, &symtab);
	if (!s)
		return 1;
	r.s = s;
	r.names = up_stored_symtab(s);
	if (r.view.vcpu >= 0 && (unsigned)r.view.vcpu >= up_profile_nr_vcpus(up_stored_profile(s))) {
		fprintf(stderr, "xl profile report: vCPU %d is not in the profile: it has vCPUs 0-%u\n",
			r.view.vcpu, up_profile_nr_vcpus(up_stored_profile(s)) - 1);
		rc = 2;
	} else {
		rc = write_report(&r, &so, formats);
	}
	up_stored_free(s);
	up_symtab_free(symtab);
	return rc;
}
