/* The output formats' table, their writers and the write loop. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "output_files.h"

static int failed(const struct tk_source *src, int rc)
{
	if (rc < 0)
		fprintf(stderr, "%s: %s\n", src->cmd, up_error_last());
	return rc;
}

/* The folded file is the data: every stack, blocked ones under [idle]. */
struct up_output_opts tk_folded_opts(const struct up_output_opts *view)
{
	return (struct up_output_opts){ .version = UP_OUTPUT_OPTS_VERSION,
					.vcpu = view->vcpu, .with_idle = true,
					.raw = true, .no_inline = view->no_inline,
					.lines = view->lines };
}

static int write_folded(const struct tk_source *src, FILE *out)
{
	const struct up_output_opts all = tk_folded_opts(&src->view);

	return failed(src, up_profile_write_folded(src->profile, src->names,
						   &all, out));
}

/* The flame graph shows the view: on-CPU time unless --idle. */
static int write_svg(const struct tk_source *src, FILE *out)
{
	const struct tk_diff_view *d = src->diff;

	if (d)
		return failed(src, up_profile_write_diff_svg(d->before, d->before_names,
							     src->profile, src->names,
							     &src->view, src->title, out));
	return failed(src, up_profile_write_svg(src->profile, src->names,
						&src->view, src->title, out));
}

static int write_json(const struct tk_source *src, FILE *out)
{
	return src->summary_json(src, out);
}

/* The summary, then the top list (diff: the table of changes). */
static int write_txt(const struct tk_source *src, FILE *out)
{
	const struct tk_diff_view *d = src->diff;

	src->summary_text(src, out);
	if (d)
		return failed(src, up_diff_write_table(d->entries, d->nr_entries,
						       src->top, d->kept[0], d->kept[1],
						       out));
	fputc('\n', out);
	return failed(src, up_profile_write_top(src->profile, src->names,
						&src->view, src->top, out));
}

/* The sample times as a heat map, over the view's samples (on-CPU time
 * unless --idle). */
static int write_heatmap(const struct tk_source *src, FILE *out)
{
	const struct up_profile *p = src->profile;
	char legend[400], unseen[160] = "", untimed[80] = "";
	uint64_t end = up_profile_time_end(p), kept, hidden = 0;

	/* [unseen] CPU time has no time: the page cannot place it, and
	 * says how much of the flame graph's view that leaves out. */
	kept = up_profile_kept_samples(p, &src->view);
	for (unsigned v = 0; !src->view.with_idle && v < up_profile_nr_vcpus(p); v++)
		if (src->view.vcpu < 0 || (unsigned)src->view.vcpu == v)
			hidden += up_profile_vcpu_unseen(p, v);
	if (hidden && hidden <= kept) {
		kept -= hidden;
		snprintf(unseen, sizeof(unseen),
			 "; CPU time worth %" PRIu64 " samples that no sample saw ([unseen] in the flame graph) has no time and is not here", hidden);
	}
	if (up_profile_samples(p) > up_profile_timed(p))
		snprintf(untimed, sizeof(untimed), "; %" PRIu64 " samples have no time kept and are not here",
			 up_profile_samples(p) - up_profile_timed(p));
	snprintf(legend, sizeof(legend), "%" PRIu64 " samples over %.1f s, %s%s%s",
		 kept, (double)end / 1e9,
		 src->view.with_idle ? "blocked vCPUs' under [idle]" : "on-CPU time only",
		 unseen, untimed);
	return failed(src, up_profile_write_heatmap(src->profile, src->names,
						    &src->view, src->title,
						    legend, out));
}

/* pprof carries inlined calls and lines itself: --no-inline folds the
 * calls into their callers' lines; lines are there whenever known. */
static int write_pprof(const struct tk_source *src, FILE *out)
{
	struct up_pprof_meta meta;

	if (!src->pprof)        /* the source said why when it made none */
		return -1;
	meta = *src->pprof;
	meta.no_inline = src->view.no_inline;
	return failed(src, up_profile_write_pprof(src->profile, src->names,
						  &meta, out));
}

#define STORED (TK_CMD_PROFILE | TK_CMD_REPORT)
#define VIEWS (TK_CMD_PROFILE | TK_CMD_REPORT | TK_CMD_DIFF)

/* In the order files are written (and listed): the bits' order. */
const struct tk_format_row tk_format_table[] = {
	{ "folded", ".folded", TK_FORMAT_FOLDED, STORED, write_folded },
	{ "svg", ".svg", TK_FORMAT_SVG, VIEWS, write_svg },
	{ "json", ".json", TK_FORMAT_JSON, VIEWS, write_json },
	{ "txt", ".txt", TK_FORMAT_TXT, VIEWS, write_txt },
	{ "pprof", ".pb.gz", TK_FORMAT_PPROF, STORED | TK_CMD_DAEMON, write_pprof },
	{ "heatmap", ".heatmap.html", TK_FORMAT_HEATMAP, STORED, write_heatmap, true },
};

const size_t tk_format_count = sizeof(tk_format_table) / sizeof(tk_format_table[0]);

const struct tk_format_row *tk_format_row(unsigned bit)
{
	for (size_t i = 0; i < tk_format_count; i++)
		if (tk_format_table[i].bit == bit)
			return &tk_format_table[i];
	return NULL;
}

unsigned tk_formats_of(unsigned command)
{
	unsigned formats = 0;

	for (size_t i = 0; i < tk_format_count; i++)
		if (tk_format_table[i].commands & command)
			formats |= tk_format_table[i].bit;
	return formats;
}

unsigned tk_formats_default(unsigned command)
{
	unsigned formats = 0;

	for (size_t i = 0; i < tk_format_count; i++)
		if ((tk_format_table[i].commands & command) &&
		    !tk_format_table[i].on_request)
			formats |= tk_format_table[i].bit;
	return formats;
}

int tk_parse_formats(const char *arg, unsigned allowed, unsigned *formats)
{
	char buf[256], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < tk_format_count; i++)
			if (strcmp(tok, tk_format_table[i].name) == 0 &&
			    (allowed & tk_format_table[i].bit))
				break;
		if (i == tk_format_count)
			return -1;
		*formats |= tk_format_table[i].bit;
	}
	return *formats ? 0 : -1;
}

/* Append one name to a list in buf: "a, b" then " or c" (last). */
static void list_add(char *buf, size_t len, size_t *at, const char *name,
		     bool first, bool last, const char *last_sep)
{
	int n;

	if (*at >= len)
		return;
	n = snprintf(buf + *at, len - *at, "%s%s",
		     first ? "" : last ? last_sep : ", ", name);
	*at += n > 0 ? (size_t)n : 0;
}

/* The names of the formats in mask, in the table's order. */
static void names_of(unsigned mask, const char *last_sep, char *buf,
		     size_t len)
{
	size_t at = 0, left = 0;

	for (size_t i = 0; i < tk_format_count; i++)
		left += (mask & tk_format_table[i].bit) != 0;
	if (len)
		buf[0] = '\0';
	for (size_t i = 0, k = 0; i < tk_format_count; i++)
		if (mask & tk_format_table[i].bit) {
			list_add(buf, len, &at, tk_format_table[i].name, k == 0,
				 k + 1 == left, last_sep);
			k++;
		}
}

void tk_format_names(unsigned command, const char *last_sep, char *buf,
		      size_t len)
{
	names_of(tk_formats_of(command), last_sep, buf, len);
}

void tk_format_help(unsigned command, const char *default_when, char *buf,
		     size_t len)
{
	char all[128], but[128] = "all";
	unsigned extra = tk_formats_of(command) & ~tk_formats_default(command);

	names_of(tk_formats_of(command), ", ", all, sizeof(all));
	if (extra) {
		memcpy(but, "all but ", 9);
		names_of(extra, " and ", but + 8, sizeof(but) - 8);
	}
	snprintf(buf, len, "%s; repeat or comma-separate (default: %s%s)", all,
		 default_when ? default_when : "", but);
}

int tk_parse_formats_arg(const char *cmd, const char *arg, unsigned command,
			  unsigned *formats)
{
	char names[128];

	if (tk_parse_formats(arg, tk_formats_of(command), formats) == 0)
		return 0;
	tk_format_names(command, " or ", names, sizeof(names));
	fprintf(stderr, "%s: invalid format '%s': use %s\n", cmd, arg, names);
	return -1;
}

const char *tk_format_suffix(unsigned format)
{
	const struct tk_format_row *row = tk_format_row(format);

	return row ? row->suffix : "";
}

int tk_format_write(unsigned format, const struct tk_source *src, FILE *out)
{
	const struct tk_format_row *row = tk_format_row(format);

	if (!row) {
		fprintf(stderr, "%s: no format %#x\n", src->cmd, format);
		return -1;
	}
	return row->write(src, out);
}

int tk_formats_write(struct tk_source *src, unsigned formats,
		      const char *stem, FILE *report)
{
	const struct tk_format_row *rows[TK_FORMATS_MAX];
	char *paths[TK_FORMATS_MAX] = { NULL };
	size_t n = 0;
	int rc = 0;

	/* Each path is known before any is written: a summary lists them. */
	for (int last = 0; last < 2; last++)
		for (size_t i = 0; i < tk_format_count && n < TK_FORMATS_MAX; i++) {
			const struct tk_format_row *row = &tk_format_table[i];

			if ((formats & row->bit) &&
			    !(src->lists_files & row->bit) == !last)
				rows[n++] = row;
		}
	src->nr_files = 0;
	for (size_t i = 0; i < n; i++) {
		if (asprintf(&paths[i], "%s%s", stem, rows[i]->suffix) < 0) {
			paths[i] = NULL;
			rc = -1;
			goto out;
		}
		src->files[src->nr_files++] = paths[i];
	}
	for (size_t i = 0; i < n; i++) {
		struct tk_file f;

		if (tk_file_open(&f, stem, rows[i]->suffix) < 0) {
			rc = -1;
			continue;
		}
		if (rows[i]->write(src, f.f) < 0) {
			tk_file_abort(&f);
			rc = -1;
			continue;
		}
		if (tk_file_commit(&f) < 0)
			rc = -1;
		else if (report)
			fprintf(report, "wrote %s\n", f.path);
		free(f.path);
	}
out:
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	src->nr_files = 0;
	tk_source_warnings(src);
	return rc;
}

void tk_source_warnings(const struct tk_source *src)
{
	const char *w = up_symtab_source_warning(src->names);

	if (w)
		fprintf(stderr, "%s: source lines: %s\n", src->cmd, w);
}
