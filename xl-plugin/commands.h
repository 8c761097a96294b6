/* xl profile's commands as data, as xl's own (tools/xl/xl_cmdtable.c):
 * one row each in commands.c with its name, one-line summary, usage and
 * options. The dispatch, each command's --help, parser and usage errors,
 * and the man page check (xl-profile --list-options) all read it. Each
 * command lives in its own cmd_NAME.c, beside its option rows.
 * Exit status of a command: 0, 1 (failed), 2 (bad usage), after one
 * error line. argv[0] is the command's name. */
#ifndef XLP_COMMANDS_H
#define XLP_COMMANDS_H

#include <stddef.h>
#include <stdio.h>

#include "option_docs.h"

/* A run of option rows. A command's options are several runs, in the
 * order --help lists them, so that commands can share some (stored_cmds.c's
 * for report and diff). */
struct xlp_option_rows {
	const struct xlp_option_doc *docs;
	size_t n;
};
#define XLP_OPTION_ROWS(docs) { (docs), sizeof(docs) / sizeof((docs)[0]) }

struct xlp_cmd_spec {
	const char *name;              /* NULL: xl profile itself */
	int (*run)(int argc, char **argv);
	const char *args;              /* after "[options]" in the usage */
	const char *also;              /* another form of the usage, or NULL */
	const char *alias;             /* xl profile ALIAS FILE runs it, or NULL */
	const char *summary;           /* one line: xl profile --help */
	const char *description;       /* its own --help, after the usage */
	/* NULL-terminated; NULL: its options are xlp_parse_options'. */
	const struct xlp_option_rows *const *options;
	unsigned formats;              /* enum tk_command of its -F; 0: none */
};

enum xlp_command_index {
	XLP_COMMAND_PROFILE, XLP_COMMAND_REPORT, XLP_COMMAND_DIFF,
	XLP_COMMAND_CORE, XLP_COMMAND_TOP, XLP_NR_COMMANDS,
};
extern const struct xlp_cmd_spec xlp_commands[XLP_NR_COMMANDS];

int xlp_cmd_profile(int argc, char **argv);  /* a domain, live */
int xlp_cmd_report(int argc, char **argv);   /* stored profiles again */
int xlp_cmd_diff(int argc, char **argv);     /* two stored profiles */
int xlp_cmd_core(int argc, char **argv);     /* stacks of a Xen core file */
int xlp_cmd_top(int argc, char **argv);      /* a live view */

extern const struct xlp_option_rows *const xlp_profile_options[];
extern const struct xlp_option_rows *const xlp_report_options[];
extern const struct xlp_option_rows *const xlp_diff_options[];
extern const struct xlp_option_rows *const xlp_core_options[];
extern const struct xlp_option_rows *const xlp_top_options[];

/* The command argv[1] names, or NULL (then argv[1] is a domain). */
const struct xlp_cmd_spec *xlp_command_find(const char *name);

/* Usage, description and options: a command's --help; xl profile's
 * (XLP_COMMAND_PROFILE) lists every command with its summary. */
void xlp_command_usage(const struct xlp_cmd_spec *cmd, FILE *out);
/* The table as lines for the man page check: "command NAME ARGS" for each,
 * then "alias NAME ALIAS" if it has one and "option NAME -X --LONG" for
 * each of its options (NAME "profile" for xl profile itself). */
void xlp_commands_dump(FILE *out);

/* A command's getopt_long tables, made from its rows; getopt reset
 * (optind 1, no messages of its own). */
#define XLP_COMMAND_MAX_OPTIONS 48          /* xl profile itself has 29 */
struct xlp_command_parser {
	struct xlp_option_doc docs[XLP_COMMAND_MAX_OPTIONS];
	size_t n;
	struct option longopts[XLP_COMMAND_MAX_OPTIONS + 1];
	char shortopts[3 * XLP_COMMAND_MAX_OPTIONS + 2];
};
void xlp_command_parser_init(struct xlp_command_parser *p,
			     const struct xlp_cmd_spec *cmd);
int xlp_command_getopt(struct xlp_command_parser *p, int argc, char **argv);

/* The usage errors, one line each "xl profile NAME: ...": they return 2.
 * An option getopt did not take (c ':', a missing value, or '?'). */
int xlp_command_bad_option(const struct xlp_cmd_spec *cmd, int c, char **argv);
/* "invalid WHAT 'VALUE': FIX". */
int xlp_command_bad_value(const struct xlp_cmd_spec *cmd, const char *what,
			  const char *value, const char *fix);
/* Wrong arguments: "WHY: xl profile NAME [options] ARGS (see --help)". */
int xlp_command_bad_args(const struct xlp_cmd_spec *cmd, const char *why);

#endif
