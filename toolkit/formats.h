/* The output formats as data, one row each: the name -F takes, the suffix
 * after a file stem, its bit, the commands that offer it and its writer;
 * and the one loop that writes a profile's files. xl profile, report,
 * diff and uniprofd all write through them: adding a format is a writer,
 * a row (and its bit) and the man page. */
#ifndef TK_FORMATS_H
#define TK_FORMATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "uniprof/uniprof.h"

enum tk_format {
	TK_FORMAT_FOLDED = 1 << 0,
	TK_FORMAT_SVG = 1 << 1,
	TK_FORMAT_JSON = 1 << 2,
	TK_FORMAT_TXT = 1 << 3,
	TK_FORMAT_PPROF = 1 << 4,
	TK_FORMAT_HEATMAP = 1 << 5,
};

#define TK_FORMAT_ALL \
	(TK_FORMAT_FOLDED | TK_FORMAT_SVG | TK_FORMAT_JSON | TK_FORMAT_TXT | \
	 TK_FORMAT_PPROF | TK_FORMAT_HEATMAP)

/* The commands that write formats. */
enum tk_command {
	TK_CMD_PROFILE = 1 << 0,     /* xl profile: a live run's files */
	TK_CMD_REPORT = 1 << 1,      /* xl profile report: stored profiles */
	TK_CMD_DIFF = 1 << 2,        /* xl profile diff: two stored profiles */
	TK_CMD_DAEMON = 1 << 3,      /* uniprofd: a profile in memory */
};

#define TK_CMD_ALL \
	(TK_CMD_PROFILE | TK_CMD_REPORT | TK_CMD_DIFF | TK_CMD_DAEMON)

/* At most this many formats (the loop's arrays). */
#define TK_FORMATS_MAX 8

/* What diff writes from, beside the AFTER profile of its source. */
struct tk_diff_view {
	const struct up_profile *before;
	const struct up_symtab *before_names;
	const struct up_diff_entry *entries;    /* up_profile_diff's table */
	size_t nr_entries;
	uint64_t kept[2];                       /* samples of each side */
};

/* What the writers write from: one profile (a live run's, or stored ones),
 * or the difference of two. The command fills it; the summaries are its
 * own (a live run knows its pauses, a stored profile its comments). */
struct tk_source {
	const char *cmd;                        /* error lines: "CMD: ..." */
	const struct up_profile *profile;       /* diff: AFTER */
	const struct up_symtab *names;          /* NULL: the profile's own */
	struct up_output_opts view;             /* flame graph and top list */
	unsigned top;                           /* functions in the top list */
	const char *title;                      /* the flame graph's */
	const struct up_pprof_meta *pprof;      /* pprof's header */
	const struct tk_diff_view *diff;       /* set for diff */
	/* The text summary before the top list (or diff's table), and the
	 * JSON document (-1 after one error line); ctx is theirs. */
	void (*summary_text)(const struct tk_source *src, FILE *out);
	int (*summary_json)(const struct tk_source *src, FILE *out);
	const void *ctx;
	/* Formats whose writer lists the files written: written after the
	 * others (a reader that sees one finds the rest complete). */
	unsigned lists_files;
	/* Set by tk_formats_write while it writes: every file of the
	 * write, in the order written. */
	const char *files[TK_FORMATS_MAX];
	size_t nr_files;
};

/* One format's writer: 0, or -1 after one error line. */
typedef int (*tk_format_writer)(const struct tk_source *src, FILE *out);

struct tk_format_row {
	const char *name;             /* as -F takes it */
	const char *suffix;           /* after the file stem */
	unsigned bit;                 /* enum tk_format */
	unsigned commands;            /* enum tk_command: those offering it */
	tk_format_writer write;
	bool on_request;              /* only when -F names it, not by default */
};

extern const struct tk_format_row tk_format_table[];
extern const size_t tk_format_count;

/* The folded file's options for a view: every stack as recorded, blocked
 * ones under [idle], of the view's vCPU, inlined calls and lines as the
 * view has them. */
struct up_output_opts tk_folded_opts(const struct up_output_opts *view);

/* The row of one format bit, or NULL. */
const struct tk_format_row *tk_format_row(unsigned bit);
/* The formats a command offers (enum tk_command). */
unsigned tk_formats_of(unsigned command);
/* Those it writes when -F names none (-o STEM alone). */
unsigned tk_formats_default(unsigned command);
/* "folded,svg" -> TK_FORMAT_* bits added to *formats, within allowed;
 * -1 if a name is not one of them. */
int tk_parse_formats(const char *arg, unsigned allowed, unsigned *formats);
/* The names of the formats a command offers, in the table's order:
 * "folded, svg, ..., pprof" then last_sep (", " or " or ") and the last. */
void tk_format_names(unsigned command, const char *last_sep, char *buf,
		      size_t len);
/* -F's help for a command, from the table: "folded, ..., heatmap; repeat
 * or comma-separate (default: WHEN all but heatmap)", default_when saying
 * when the default applies ("txt to stdout; with -o, ") or NULL. */
void tk_format_help(unsigned command, const char *default_when, char *buf,
		     size_t len);
/* -F's argument: tk_parse_formats within what the command offers; 0, or
 * -1 after one line "CMD: invalid format 'ARG': use folded, ... or heatmap". */
int tk_parse_formats_arg(const char *cmd, const char *arg, unsigned command,
			  unsigned *formats);
/* The file name suffix of one format (".pb.gz" for pprof), or "". */
const char *tk_format_suffix(unsigned format);

/* Write one format to out: 0, or -1 after one error line. */
int tk_format_write(unsigned format, const struct tk_source *src, FILE *out);

/* Write each format of formats to STEM+SUFFIX, in the table's order (those
 * in src->lists_files last), each through a temporary name and a rename;
 * "wrote PATH" on report after each unless report is NULL. A file that
 * fails does not stop the others. 0, or -1 after an error line each. */
/* A line on stderr when resolving source lines met a cap (after the
 * writers ran; tk_formats_write says it itself). */
void tk_source_warnings(const struct tk_source *src);

int tk_formats_write(struct tk_source *src, unsigned formats,
		      const char *stem, FILE *report);

#endif
