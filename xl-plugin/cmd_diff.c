/* xl profile diff BEFORE AFTER: what changed between two stored profiles
 * (two builds, two loads): a differential flame graph, a table of the
 * functions whose share changed most, JSON. Functions match by name. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "toolkit/json_write.h"
#include "options.h"
#include "commands.h"
#include "stored_cmds.h"

/* Its rows between the shared ones (stored_cmds.c's). */
static const struct xlp_option_doc output_docs[] = {
	{ { "output", required_argument, NULL, 'o' }, 'o', "STEM",
	  "write STEM.svg, STEM.txt, STEM.json (a directory: DIR/AFTER-diff.*); default: stdout, one format" },
	{ { "idle", no_argument, NULL, XLP_OPT_IDLE }, XLP_OPT_IDLE, NULL,
	  "compare blocked (idle) stacks too (default: on-CPU time only)" },
};
static const struct xlp_option_doc top_docs[] = {
	{ { "top", required_argument, NULL, XLP_OPT_TOP }, XLP_OPT_TOP, "N",
	  "functions in the table (default 20)" },
};
static const struct xlp_option_rows output_rows = XLP_OPTION_ROWS(output_docs);
static const struct xlp_option_rows top_rows = XLP_OPTION_ROWS(top_docs);

const struct xlp_option_rows *const xlp_diff_options[] = {
	&xlp_stored_format_rows, &output_rows, &xlp_stored_view_rows,
	&top_rows, &xlp_stored_end_rows, NULL,
};

struct diff {
	const char *path[2];
	struct up_stored *s[2];
	struct up_output_opts view;
	unsigned top;
	struct up_diff_entry *e;
	size_t n;
	uint64_t kept[2];
	int inline_only;        /* up_profile_diff_inline: folded when > 0 */
};

/* Which side alone had inlined calls, folded into their callers on both:
 * "before", "after", or NULL (compared as they are). */
static const char *inline_side(const struct diff *d)
{
	return d->inline_only == UP_DIFF_INLINE_ONLY_BEFORE ? "before" :
	       d->inline_only == UP_DIFF_INLINE_ONLY_AFTER ? "after" : NULL;
}

static const char *side_name(const struct diff *d, int i)
{
	const char *dom = up_stored_comment(d->s[i], "domain");

	return dom ? dom : d->path[i];
}

/* The samples' worth of CPU time no sample saw ([unseen]) in one side. */
static uint64_t unseen_of(const struct up_profile *p, int vcpu)
{
	uint64_t n = 0;

	for (unsigned v = 0; v < up_profile_nr_vcpus(p); v++)
		if (vcpu < 0 || (unsigned)vcpu == v)
			n += up_profile_vcpu_unseen(p, v);
	return n;
}

static void text(const struct tk_source *src, FILE *out)
{
	const struct diff *d = src->ctx;

	for (int i = 0; i < 2; i++) {
		uint64_t u = unseen_of(up_stored_profile(d->s[i]), d->view.vcpu);

		fputs(i ? "after:  " : "before: ", out);
		up_text_print_escaped(out, d->path[i]);
		fprintf(out, " (%" PRIu64 " %s samples", d->kept[i],
			d->view.with_idle ? "busy and idle" : "on-CPU");
		if (up_stored_build_id(d->s[i])) {
			fputs(", build-id ", out);
			up_text_print_escaped(out, up_stored_build_id(d->s[i]));
		}
		/* A share of [unseen] dilutes every other share of its side. */
		if (u && !d->view.with_idle)
			fprintf(out, ", %" PRIu64 " of them [unseen]: CPU time no sample saw", u);
		fputs(")\n", out);
	}
	if (inline_side(d))
		fprintf(out, "inlined calls: only %s has them, folded into their callers on both sides (as --no-inline)\n",
			d->inline_only == UP_DIFF_INLINE_ONLY_BEFORE ? "BEFORE" : "AFTER");
	fputc('\n', out);
}

static int json(const struct tk_source *src, FILE *out)
{
	const struct diff *d = src->ctx;
	yajl_gen g = tk_json_open(out);

	if (!g)
		return -1;
	yajl_gen_map_open(g);
	tk_json_key(g, "tool");
	tk_json_str(g, "uniprof xl profile diff " PACKAGE_VERSION);
	for (int i = 0; i < 2; i++) {
		tk_json_key(g, i ? "after" : "before");
		yajl_gen_map_open(g);
		tk_json_key(g, "file"); tk_json_str(g, d->path[i]);
		tk_json_key(g, "domain"); tk_json_str(g, up_stored_comment(d->s[i], "domain"));
		tk_json_key(g, "build_id"); tk_json_str(g, up_stored_build_id(d->s[i]));
		tk_json_key(g, "samples"); yajl_gen_integer(g, (long long)d->kept[i]);
		yajl_gen_map_close(g);
	}
	tk_json_key(g, "covers");
	tk_json_str(g, d->view.with_idle ? "busy and idle" : "on-cpu");
	/* The side whose inlined calls were folded: null when none. */
	tk_json_key(g, "inlined_folded");
	tk_json_str(g, inline_side(d));
	tk_json_key(g, "functions");
	yajl_gen_array_open(g);
	for (size_t i = 0; i < d->n && i < d->top; i++) {
		const struct up_diff_entry *e = &d->e[i];

		yajl_gen_map_open(g);
		tk_json_key(g, "function"); tk_json_str(g, e->name);
		tk_json_key(g, "self_before"); yajl_gen_integer(g, (long long)e->self_before);
		tk_json_key(g, "self_after"); yajl_gen_integer(g, (long long)e->self_after);
		tk_json_key(g, "self_before_pct"); tk_json_num(g, e->self_before_pct, 2);
		tk_json_key(g, "self_after_pct"); tk_json_num(g, e->self_after_pct, 2);
		tk_json_key(g, "delta_points"); tk_json_num(g, e->delta, 2);
		tk_json_key(g, "total_before_pct"); tk_json_num(g, e->total_before_pct, 2);
		tk_json_key(g, "total_after_pct"); tk_json_num(g, e->total_after_pct, 2);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
	yajl_gen_map_close(g);
	yajl_gen_free(g);
	return ferror(out) ? -1 : 0;
}

static int write_diff(const struct diff *d, const struct xlp_stored_opts *so,
		      unsigned formats)
{
	char title[600], *stem;
	const struct tk_diff_view dv = {
		.before = up_stored_profile(d->s[0]), .before_names = up_stored_symtab(d->s[0]),
		.entries = d->e, .nr_entries = d->n, .kept = { d->kept[0], d->kept[1] },
	};
	struct tk_source src = {
		.cmd = "xl profile diff", .profile = up_stored_profile(d->s[1]),
		.names = up_stored_symtab(d->s[1]), .view = d->view, .top = d->top,
		.title = title, .diff = &dv, .summary_text = text, .summary_json = json,
		.ctx = d,
	};
	int rc;

	snprintf(title, sizeof(title), "%s -> %s: %s", side_name(d, 0),
		 side_name(d, 1), d->view.with_idle ? "busy and idle" : "on-CPU");
	stem = xlp_input_stem(d->path[1], "-diff");
	rc = stem ? xlp_write_formats("diff", so->output, stem, formats, &src,
				      so->quiet) : 1;
	free(stem);
	return rc;
}

int xlp_cmd_diff(int argc, char **argv)
{
	const struct xlp_cmd_spec *cmd = &xlp_commands[XLP_COMMAND_DIFF];
	struct xlp_command_parser parser;
	struct xlp_stored_opts so = { .view = UP_OUTPUT_OPTS_INIT, .top = 20 };
	unsigned formats = 0;
	struct diff d = { .view = UP_OUTPUT_OPTS_INIT };
	int c, rc = 1;

	xlp_command_parser_init(&parser, cmd);
	while ((c = xlp_command_getopt(&parser, argc, argv)) != -1) {
		switch (c) {
		case 'F':
			if (tk_parse_formats_arg("xl profile diff", optarg,
						  TK_CMD_DIFF, &formats) < 0)
				return 2;
			break;
		case 'h':
			xlp_command_usage(cmd, stdout);
			return 0;
		default:
			if (xlp_stored_option(cmd, c, argv, &so) < 0)
				return 2;
		}
	}
	d.view = so.view;
	d.top = so.top;
	if (argc - optind != 2)
		return xlp_command_bad_args(cmd, "give two profiles");
	if (!formats)
		formats = so.output ? tk_formats_default(TK_CMD_DIFF) : TK_FORMAT_TXT;
	for (int i = 0; i < 2; i++) {
		struct up_symtab *none;

		d.path[i] = argv[optind + i];
		d.s[i] = xlp_stored_load("diff", argv + optind + i, 1, NULL, false, &none);
		if (!d.s[i])
			goto out;
	}
	d.inline_only = up_profile_diff_inline(up_stored_profile(d.s[0]), up_stored_symtab(d.s[0]),
					       up_stored_profile(d.s[1]), up_stored_symtab(d.s[1]),
					       &d.view);
	if (d.inline_only < 0 ||
	    up_profile_diff(up_stored_profile(d.s[0]), up_stored_symtab(d.s[0]),
			    up_stored_profile(d.s[1]), up_stored_symtab(d.s[1]),
			    &d.view, &d.e, &d.n, &d.kept[0], &d.kept[1]) < 0) {
		fprintf(stderr, "xl profile diff: %s\n", up_error_last());
		goto out;
	}
	rc = write_diff(&d, &so, formats);
out:
	up_diff_free(d.e, d.n);
	up_stored_free(d.s[0]);
	up_stored_free(d.s[1]);
	return rc;
}
