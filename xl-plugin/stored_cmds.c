/* What xl profile report and diff share. */
#include "config.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "toolkit/kernel_map_load.h"
#include "options.h"
#include "stored_cmds.h"

static const struct xlp_option_doc format_docs[] = {
	{ { "format", required_argument, NULL, 'F' }, 'F', "FORMAT",
	  "txt to stdout; with -o, " /* then the formats' table's */ },
};
static const struct xlp_option_doc view_docs[] = {
	{ { "no-inline", no_argument, NULL, XLP_OPT_NO_INLINE }, XLP_OPT_NO_INLINE, NULL,
	  "fold inlined calls back into their callers (a profile with inlined calls, or -s with DWARF)" },
	{ { "lines", no_argument, NULL, XLP_OPT_LINES }, XLP_OPT_LINES, NULL,
	  "add the source file and line to each stack's leaf frame (from the profile's lines, or -s with DWARF)" },
	{ { "vcpu", required_argument, NULL, XLP_OPT_VCPU }, XLP_OPT_VCPU, "N",
	  "only vCPU N's stacks" },
};
static const struct xlp_option_doc end_docs[] = {
	{ { "quiet", no_argument, NULL, 'q' }, 'q', NULL, "print nothing but errors" },
	{ { "help", no_argument, NULL, 'h' }, 'h', NULL, "show this help" },
};
const struct xlp_option_rows xlp_stored_format_rows = XLP_OPTION_ROWS(format_docs);
const struct xlp_option_rows xlp_stored_view_rows = XLP_OPTION_ROWS(view_docs);
const struct xlp_option_rows xlp_stored_end_rows = XLP_OPTION_ROWS(end_docs);

int xlp_stored_option(const struct xlp_cmd_spec *cmd, int c, char **argv,
		      struct xlp_stored_opts *o)
{
	unsigned v;

	switch (c) {
	case 'o':
		o->output = optarg;
		return 1;
	case 'q':
		o->quiet = true;
		return 1;
	case XLP_OPT_IDLE:
		o->view.with_idle = true;
		return 1;
	case XLP_OPT_NO_INLINE:
		o->view.no_inline = true;
		return 1;
	case XLP_OPT_LINES:
		o->view.lines = true;
		return 1;
	case XLP_OPT_VCPU:
		if (tk_parse_uint(optarg, 4095, &v) < 0)
			return -xlp_command_bad_value(cmd, "vCPU", optarg,
						      "give a vCPU number from 0");
		o->view.vcpu = (int)v;
		return 1;
	case XLP_OPT_TOP:
		if (tk_parse_uint(optarg, 100000, &o->top) < 0)
			return -xlp_command_bad_value(cmd, "top count", optarg,
						      "give a number of functions");
		return 1;
	}
	return -xlp_command_bad_option(cmd, c, argv);
}

struct up_stored *xlp_stored_load(const char *cmd, char *const *paths, size_t n,
				  const char *symbols, bool force,
				  struct up_symtab **symtab_out)
{
	struct up_symtab *t = NULL;
	struct up_stored *s = NULL;
	const char *want, *have;

	*symtab_out = NULL;
	if (symbols && up_symtab_load(&t, symbols) < 0) {
		fprintf(stderr, "xl profile %s: %s\n", cmd, up_error_last());
		return NULL;
	}
	/* Hypercall stubs named as in the live run ("hypercall_page
	 * [sched_op]"): the code map names them in the table. */
	if (t) {
		struct up_kernel_map *k = NULL;

		if (tk_kernel_map_load(symbols, NULL, t, NULL, NULL, 0, false, &k) < 0) {
			up_symtab_free(t);
			return NULL;
		}
		up_kernel_map_free(k);
	}
	if (up_stored_load(&s, (const char *const *)paths, n, t) < 0) {
		fprintf(stderr, "xl profile %s: %s\n", cmd, up_error_last());
		up_symtab_free(t);
		return NULL;
	}
	/* Bounds a hostile file hit: said, and the rest of it shown. */
	if (up_stored_warning(s))
		fprintf(stderr, "xl profile %s: %s\n", cmd, up_stored_warning(s));
	want = up_stored_build_id(s);
	have = t ? up_symtab_build_id(t) : NULL;
	if (t && want && !force && (!have || strcmp(want, have) != 0)) {
		fprintf(stderr, "xl profile %s: %s has build-id %s but the profile was taken of build-id %s: its addresses would get wrong names; give the matching image, or --force-symbols\n",
			cmd, symbols, have ? have : "(none)", want);
		up_stored_free(s);
		up_symtab_free(t);
		return NULL;
	}
	*symtab_out = t;
	return s;
}

char *xlp_input_stem(const char *path, const char *tail)
{
	static const char *const exts[] = { ".pb.gz", ".pprof", ".pb", ".gz",
					    ".folded", ".txt" };
	const char *base = strrchr(path, '/');
	char *stem;

	base = base ? base + 1 : path;
	if (asprintf(&stem, "%s", base) < 0)
		return NULL;
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		size_t l = strlen(stem), e = strlen(exts[i]);

		if (l > e && strcmp(stem + l - e, exts[i]) == 0) {
			stem[l - e] = '\0';
			break;
		}
	}
	if (tail) {
		char *t;

		if (asprintf(&t, "%s%s", stem, tail) < 0)
			t = NULL;
		free(stem);
		stem = t;
	}
	return stem;
}

int xlp_write_formats(const char *cmd, const char *output,
		      const char *default_stem, unsigned formats,
		      struct tk_source *src, bool quiet)
{
	struct stat st;
	char *stem;
	int rc = 0;

	if (!output) {
		if (formats & (formats - 1)) {
			fprintf(stderr, "xl profile %s: several formats need -o STEM (files STEM.svg, ...); without -o one format goes to stdout\n",
				cmd);
			return 2;
		}
		if (formats == TK_FORMAT_PPROF && isatty(STDOUT_FILENO)) {
			fprintf(stderr, "xl profile %s: pprof is gzip data: not written to a terminal; give -o STEM or redirect stdout\n",
				cmd);
			return 2;
		}
		if (tk_format_write(formats, src, stdout) < 0 || fflush(stdout) != 0)
			return 1;
		tk_source_warnings(src);
		return 0;
	}
	if (stat(output, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (asprintf(&stem, "%s/%s", output, default_stem) < 0)
			return 1;
	} else if (!(stem = strdup(output))) {
		return 1;
	}
	if (tk_formats_write(src, formats, stem, quiet ? NULL : stdout) < 0)
		rc = 1;
	free(stem);
	return rc;
}
