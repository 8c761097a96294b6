/* xl profile report and xl profile diff: commands on stored profiles,
 * run anywhere the package is installed (no Xen needed), and what they
 * share: loading with symbols, writing each format to a file or stdout. */
#ifndef XLP_STORED_CMDS_H
#define XLP_STORED_CMDS_H

#include <stdbool.h>
#include <stdio.h>

#include "commands.h"
#include "toolkit/formats.h"
#include "uniprof/uniprof.h"

/* The options report and diff share. */
enum { XLP_OPT_TOP = 256, XLP_OPT_VCPU, XLP_OPT_IDLE, XLP_OPT_FORCE_SYMBOLS,
       XLP_OPT_NO_INLINE, XLP_OPT_LINES, XLP_OPT_FROM, XLP_OPT_TO };
struct xlp_stored_opts {
	struct up_output_opts view;
	unsigned top;
	const char *output;
	bool quiet;
};
/* The option rows report and diff share, -F's first, -q's and -h's last
 * (the others' texts differ: each command's own). */
extern const struct xlp_option_rows xlp_stored_format_rows;
extern const struct xlp_option_rows xlp_stored_view_rows;
extern const struct xlp_option_rows xlp_stored_end_rows;
/* One getopt result c that is not the command's own: 1 when it was -o,
 * -q, --idle, --no-inline, --lines, --vcpu or --top, else -2 after one error line (a bad value,
 * an unknown option or a missing value: exit status 2). */
int xlp_stored_option(const struct xlp_cmd_spec *cmd, int c, char **argv,
		      struct xlp_stored_opts *o);

/* Load stored profiles; with symbols (-s), their addresses are named by
 * that file, which must have the profile's build-id unless force. NULL
 * after one error line. *symtab_out holds the -s table (free it after). */
struct up_stored *xlp_stored_load(const char *cmd, char *const *paths, size_t n,
				  const char *symbols, bool force,
				  struct up_symtab **symtab_out);

/* Write each format of formats from src: to stdout when output is NULL
 * (one format only; gzip data never to a terminal), else to STEM.SUFFIX,
 * output being a stem or a directory (then DIR/default_stem). The exit
 * status: 0, 1 (a file failed) or 2 (bad usage). */
int xlp_write_formats(const char *cmd, const char *output,
		      const char *default_stem, unsigned formats,
		      struct tk_source *src, bool quiet);

/* The default stem of an input: its file name without .pb.gz, .folded... */
char *xlp_input_stem(const char *path, const char *tail);

#endif
