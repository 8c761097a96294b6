/* An option table as data: one row per option (its getopt entry, short
 * key, argument and help), from which every command's getopt tables and
 * --help are made (commands.c, options.c). */
#ifndef XLP_OPTION_DOCS_H
#define XLP_OPTION_DOCS_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

struct xlp_option_doc {
	struct option opt;
	int key;              /* short letter or a value >= 256 */
	const char *arg;
	const char *help;
};

/* getopt_long's tables from the docs: longopts holds n + 1 entries,
 * shortopts at least 3 * n + 2 bytes. */
void xlp_getopt_tables(const struct xlp_option_doc *docs, size_t n,
		       struct option *longopts, char *shortopts);
void xlp_print_option_docs(FILE *out, const struct xlp_option_doc *docs,
			   size_t n);
/* The same for a command that writes formats (enum tk_command): -F's
 * help is made from the formats' table (tk_format_help), its doc's help
 * saying only when the default applies ("txt to stdout; with -o, "). */
void xlp_print_option_docs_for(FILE *out, const struct xlp_option_doc *docs,
			       size_t n, unsigned command);
#endif
