/* xl profile report FILE...: render stored profiles (pprof or folded) again,
 * on any machine: folded, svg, txt, json, pprof or heatmap, filtered by
 * vCPU, state and time range, re-symbolized with -s. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "toolkit/json_write.h"
#include "options.h"
#include "toolkit/summary.h"
#include "commands.h"
#include "stored_cmds.h"

/* Its rows between the shared ones (stored_cmds.c's). */
static const struct xlp_option_doc output_docs[] = {
	{ { "output", required_argument, NULL, 'o' }, 'o', "STEM",
	  "write STEM.folded, STEM.svg, ... (a directory: DIR/NAME-report.*); default: stdout, one format" },
	{ { "symbols", required_argument, NULL, 's' }, 's', "FILE",
	  "name the profile's addresses from this ELF image or nm map (pprof only; its build-id must match)" },
	{ { "force-symbols", no_argument, NULL, XLP_OPT_FORCE_SYMBOLS }, XLP_OPT_FORCE_SYMBOLS, NULL,
	  "use the -s file even if its build-id differs from the profile's" },
	{ { "idle", no_argument, NULL, XLP_OPT_IDLE }, XLP_OPT_IDLE, NULL,
	  "also show blocked (idle) stacks, under [idle], and waiting ones, under [waiting], in the flame graph and top list" },
};
static const struct xlp_option_doc range_docs[] = {
	{ { "top", required_argument, NULL, XLP_OPT_TOP }, XLP_OPT_TOP, "N",
	  "functions in the top list (default 20)" },
	{ { "from", required_argument, NULL, XLP_OPT_FROM }, XLP_OPT_FROM, "T",
	  "only samples taken T seconds or more after the run's start (a pprof written by xl profile or uniprofd)" },
	{ { "to", required_argument, NULL, XLP_OPT_TO }, XLP_OPT_TO, "T",
	  "only samples taken before T seconds after the run's start" },
};
static const struct xlp_option_rows output_rows = XLP_OPTION_ROWS(output_docs);
static const struct xlp_option_rows range_rows = XLP_OPTION_ROWS(range_docs);

const struct xlp_option_rows *const xlp_report_options[] = {
	&xlp_stored_format_rows, &output_rows, &xlp_stored_view_rows,
	&range_rows, &xlp_stored_end_rows, NULL,
};

struct report {
	char *const *files;
	size_t nr_files;
	const struct up_stored *s;
	const struct up_symtab *names;
	struct up_output_opts view;
	unsigned top;
	const struct up_profile *profile;   /* the stored one, or its range */
	bool ranged;
	double from_s, to_s;
};

/* The live run's title when the profile says its domain, type and rate. */
static void svg_title(const struct report *r, char *buf, size_t len)
{
	const struct up_profile *p = r->profile;
	const char *dom = up_stored_comment(r->s, "domain");
	const char *type = up_stored_comment(r->s, "type");
	const char *freq = up_stored_comment(r->s, "frequency");
	uint64_t kept = up_profile_kept_samples(p, &r->view);
	const char *what = r->view.with_idle ? "busy and idle" : "on-CPU";
	char rate[64] = "", range[64] = "";

	if (r->ranged)
		snprintf(range, sizeof(range), ", %.3f-%.3f s", r->from_s, r->to_s);
	if (freq)
		snprintf(rate, sizeof(rate), " at %s", freq);
	else if (up_stored_hz(r->s) > 0)
		snprintf(rate, sizeof(rate), " at %g Hz", up_stored_hz(r->s));
	if (dom)
		snprintf(buf, len, "%s (%s): %" PRIu64 " %s stacks%s%s", dom,
			 type ? type : "?", kept, what, rate, range);
	else if (r->nr_files > 1)
		snprintf(buf, len, "%s and %zu more merged: %" PRIu64 " %s stacks%s%s",
			 r->files[0], r->nr_files - 1, kept, what, rate, range);
	else
		snprintf(buf, len, "%s: %" PRIu64 " %s stacks%s%s", r->files[0],
			 kept, what, rate, range);
}

/* The pprof header: the stored one, comments and all, saying when its
 * frames have no addresses; NULL when out of memory (the pprof file then
 * fails). */
static const char **pprof_header(const struct report *r, struct up_pprof_meta *m)
{
	size_t n = up_stored_nr_comments(r->s);
	const char **lines = calloc(n + 2, sizeof(*lines));

	if (!lines)
		return NULL;
	for (size_t i = 0; i < n; i++)
		lines[i] = up_stored_comment_line(r->s, i);
	if (up_stored_names_only(r->s) && !up_stored_comment(r->s, "addresses"))
		lines[n++] = r->nr_files > 1 ? "addresses: none (files merged by function name)" :
			     up_stored_format_of(r->s) == UP_STORED_FOLDED ?
			     "addresses: none (read from folded stacks)" :
			     "addresses: none (frames read by function name)";
	up_pprof_meta_init(m, UP_PPROF_META_VERSION);
	m->hz = up_stored_hz(r->s);
	m->time_nanos = up_stored_time_nanos(r->s);
	m->duration_nanos = up_stored_duration_nanos(r->s);
	m->comments = lines;
	m->nr_comments = n;
	m->names_only = up_stored_names_only(r->s);
	/* The mappings as read, every field: the rewrite's locations are in
	 * the mappings they were in. */
	m->mappings = up_stored_mappings(r->s, &m->nr_mappings);
	return lines;
}

/* Write the formats of the loaded profile. */
static int write_report(const struct report *r, const struct xlp_stored_opts *so,
			unsigned formats)
{
	char title[512], *stem;
	struct up_pprof_meta meta;
	const char **lines = NULL;
	struct tk_summary sum = {
		.cmd = "xl profile report",
		.tool = "uniprof xl profile report " PACKAGE_VERSION,
		.profile = r->profile, .names = r->names,
		.view = r->view, .top = r->top, .stored = r->s,
		.inputs = r->files, .nr_inputs = r->nr_files,
		.ranged = r->ranged, .from_s = r->from_s, .to_s = r->to_s,
	};
	struct tk_source src = {
		.cmd = "xl profile report", .profile = r->profile,
		.names = r->names, .view = r->view, .top = r->top, .title = title,
		.summary_text = tk_summary_source_text,
		.summary_json = tk_summary_source_json, .ctx = &sum,
	};
	int rc;

	svg_title(r, title, sizeof(title));
	if ((formats & TK_FORMAT_PPROF) && (lines = pprof_header(r, &meta))) {
		if (r->ranged)
			meta.duration_nanos = llround((r->to_s - r->from_s) * 1e9);
		src.pprof = &meta;
	}
	stem = xlp_input_stem(r->files[0], "-report");
	rc = stem ? xlp_write_formats("report", so->output, stem, formats, &src,
				      so->quiet) : 1;
	free(stem);
	free(lines);
	return rc;
}

/* Seconds since the run's start: a decimal number, 0 up to a year. */
static int parse_seconds(const char *opt, const char *arg, double *out)
{
	double v;

	if (tk_parse_double(arg, &v) < 0 || v < 0 || v > 365.0 * 86400) {
		xlp_command_bad_value(&xlp_commands[XLP_COMMAND_REPORT], opt, arg,
				      "give seconds since the run's start, e.g. 2.5");
		return -1;
	}
	*out = v;
	return 0;
}

/* The range's samples, as a profile of their own (*slice, freed by the
 * caller). 0, or 1/2 after one error line. */
static int take_range(struct report *r, bool from_set, bool to_set,
		      struct up_profile **slice)
{
	const struct up_profile *p = up_stored_profile(r->s);
	double end_s = (double)up_profile_time_end(p) / 1e9;

	if (!up_profile_has_times(p)) {
		fprintf(stderr, "xl profile report: %s%s sample times (folded stacks, or a pprof from an older uniprof%s): --from/--to need a pprof written by xl profile or uniprofd\n",
			r->nr_files > 1 ? "none of the files merged has" : r->files[0],
			r->nr_files > 1 ? "" : " has no",
			r->nr_files > 1 ? ", or starts too far apart: see above" : "");
		return 1;
	}
	if (from_set && r->from_s > end_s) {
		fprintf(stderr, "xl profile report: --from %.3f is past the profile's last sample, at %.3f s\n",
			r->from_s, end_s);
		return 2;
	}
	if (!to_set)
		r->to_s = end_s + 1e-3;
	if (r->from_s >= r->to_s) {
		fprintf(stderr, "xl profile report: --from %.3f is not before --to %.3f: give a range that is not empty\n",
			r->from_s, r->to_s);
		return 2;
	}
	if (up_profile_slice(p, (uint64_t)llround(r->from_s * 1e9),
			     (uint64_t)llround(r->to_s * 1e9), slice) < 0) {
		fprintf(stderr, "xl profile report: %s\n", up_error_last());
		return 1;
	}
	if (up_profile_samples(p) > up_profile_timed(p))
		fprintf(stderr, "xl profile report: warning: %" PRIu64 " of the profile's %" PRIu64 " samples have no time (past the run's bound on times, or from a file without them) and are in no range\n",
			up_profile_samples(p) - up_profile_timed(p), up_profile_samples(p));
	r->ranged = true;
	r->profile = *slice;
	return 0;
}

int xlp_cmd_report(int argc, char **argv)
{
	const struct xlp_cmd_spec *cmd = &xlp_commands[XLP_COMMAND_REPORT];
	struct xlp_command_parser parser;
	struct xlp_stored_opts so = { .view = UP_OUTPUT_OPTS_INIT, .top = 20 };
	const char *symbols = NULL;
	unsigned formats = 0;
	bool force = false, from_set = false, to_set = false;
	struct report r = { .view = UP_OUTPUT_OPTS_INIT };
	struct up_profile *slice = NULL;
	struct up_symtab *symtab = NULL;
	struct up_stored *s;
	int c, rc;

	xlp_command_parser_init(&parser, cmd);
	while ((c = xlp_command_getopt(&parser, argc, argv)) != -1) {
		switch (c) {
		case 'F':
			if (tk_parse_formats_arg("xl profile report", optarg,
						  TK_CMD_REPORT, &formats) < 0)
				return 2;
			break;
		case 's': symbols = optarg; break;
		case XLP_OPT_FORCE_SYMBOLS: force = true; break;
		case XLP_OPT_FROM:
			if (parse_seconds("--from", optarg, &r.from_s) < 0)
				return 2;
			from_set = true;
			break;
		case XLP_OPT_TO:
			if (parse_seconds("--to", optarg, &r.to_s) < 0)
				return 2;
			to_set = true;
			break;
		case 'h':
			xlp_command_usage(cmd, stdout);
			return 0;
		default:
			if (xlp_stored_option(cmd, c, argv, &so) < 0)
				return 2;
		}
	}
	r.view = so.view;
	r.top = so.top;
	if (optind >= argc)
		return xlp_command_bad_args(cmd, "no profile given");
	if (!formats)
		formats = so.output ? tk_formats_default(TK_CMD_REPORT) : TK_FORMAT_TXT;
	r.files = argv + optind;
	r.nr_files = (size_t)(argc - optind);
	s = xlp_stored_load("report", r.files, r.nr_files, symbols, force, &symtab);
	if (!s)
		return 1;
	r.s = s;
	r.names = up_stored_symtab(s);
	r.profile = up_stored_profile(s);
	if ((from_set || to_set) && (rc = take_range(&r, from_set, to_set, &slice))) {
		/* said */
	} else if (r.view.vcpu >= 0 && (unsigned)r.view.vcpu >= up_profile_nr_vcpus(up_stored_profile(s))) {
		fprintf(stderr, "xl profile report: vCPU %d is not in the profile: it has vCPUs 0-%u\n",
			r.view.vcpu, up_profile_nr_vcpus(up_stored_profile(s)) - 1);
		rc = 2;
	} else {
		rc = write_report(&r, &so, formats);
	}
	up_profile_free(slice);
	up_stored_free(s);
	up_symtab_free(symtab);
	return rc;
}
