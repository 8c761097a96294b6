/* xl profile's command table and what reads it: --help, the parsers'
 * getopt tables, the usage errors, the dump the man page check reads. */
#include "config.h"

#include <getopt.h>
#include <string.h>

#include "commands.h"
#include "toolkit/formats.h"

const struct xlp_cmd_spec xlp_commands[XLP_NR_COMMANDS] = {
	[XLP_COMMAND_PROFILE] = {
		.name = NULL, .run = xlp_cmd_profile, .args = "<Domain>",
		.summary = "profile a running domain: flame graph, folded stacks, summary, top list, pprof",
		.description =
			"Profile a running domain's vCPU stacks from dom0, without changing the guest.\n"
			"<Domain> is a domain name or id. Writes a flame graph (SVG), folded stacks,\n"
			"a JSON summary, a top list of functions and a pprof profile.\n"
			"A domain named as a command: xl profile -- report.",
		.options = xlp_profile_options, .formats = TK_CMD_PROFILE,
	},
	[XLP_COMMAND_REPORT] = {
		.name = "report", .run = xlp_cmd_report, .args = "FILE...",
		.summary = "render stored profiles again (pprof or folded), filtered, re-symbolized",
		.description =
			"Render stored profiles again, without Xen, the guest or its image: a pprof\n"
			"profile (NAME.pb.gz, the durable format) or folded stacks. Several files are\n"
			"merged by function name.",
		.options = xlp_report_options, .formats = TK_CMD_REPORT,
	},
	[XLP_COMMAND_DIFF] = {
		.name = "diff", .run = xlp_cmd_diff, .args = "BEFORE AFTER",
		.summary = "compare two stored profiles: a differential flame graph, the functions that changed",
		.description =
			"Compare two stored profiles (pprof or folded), of one build or two: functions\n"
			"match by name, shares are of each profile's own samples. The flame graph takes\n"
			"its widths from AFTER and colours each frame by the change of its share since\n"
			"BEFORE (red grew, blue shrank); the table lists the functions whose self share\n"
			"changed most.",
		.options = xlp_diff_options, .formats = TK_CMD_DIFF,
	},
	[XLP_COMMAND_CORE] = {
		.name = "core", .run = xlp_cmd_core, .args = "FILE",
		.also = "xl profile --core FILE [options]", .alias = "--core",
		.summary = "print the stacks in a Xen core file (xl dump-core, on_crash = \"coredump-destroy\")",
		.description =
			"Print the stack of every vCPU in a Xen core file, symbolized: the file xl\n"
			"writes for a crashed domain with on_crash = \"coredump-destroy\" (in\n"
			XEN_DUMP_DIR "/NAME), or 'xl dump-core DOMAIN FILE' of a hung one.\n"
			"No Xen is needed to read it.",
		.options = xlp_core_options,
	},
	[XLP_COMMAND_TOP] = {
		.name = "top", .run = xlp_cmd_top, .args = "DOMAIN",
		.also = "xl profile top [options] --replay FILE",
		.summary = "show the hottest functions live, as xentop does",
		.description =
			"A live view of where a domain spends its CPU time, refreshed each second:\n"
			"the hottest functions over the last interval and since the start, each vCPU's\n"
			"busy and blocked share, the sampler's own cost. Keys: v next vCPU, i idle\n"
			"stacks, s sort by self or total, f freeze, q quit. Nothing is written to disk\n"
			"(xl profile writes the files).",
		.options = xlp_top_options,
	},
};

const struct xlp_cmd_spec *xlp_command_find(const char *name)
{
	for (size_t i = 0; i < XLP_NR_COMMANDS; i++)
		if (xlp_commands[i].name && strcmp(name, xlp_commands[i].name) == 0)
			return &xlp_commands[i];
	return NULL;
}

/* "xl profile" or "xl profile NAME", as every line of a command begins. */
static void print_prog(const struct xlp_cmd_spec *cmd, FILE *out)
{
	fprintf(out, "xl profile%s%s", cmd->name ? " " : "",
		cmd->name ? cmd->name : "");
}

/* Its rows in one array, in order: the count. */
static size_t flatten(const struct xlp_cmd_spec *cmd,
		      struct xlp_option_doc docs[XLP_COMMAND_MAX_OPTIONS])
{
	size_t n = 0;

	for (size_t r = 0; cmd->options && cmd->options[r]; r++)
		for (size_t i = 0; i < cmd->options[r]->n &&
		     n < XLP_COMMAND_MAX_OPTIONS; i++)
			docs[n++] = cmd->options[r]->docs[i];
	return n;
}

void xlp_command_usage(const struct xlp_cmd_spec *cmd, FILE *out)
{
	struct xlp_option_doc docs[XLP_COMMAND_MAX_OPTIONS];
	size_t n = flatten(cmd, docs);

	fputs("Usage: ", out);
	print_prog(cmd, out);
	fprintf(out, " [options] %s\n", cmd->args);
	if (cmd->also)
		fprintf(out, "       %s\n", cmd->also);
	fprintf(out, "\n%s\n", cmd->description);
	/* xl profile itself: every command, with its summary. */
	if (!cmd->name) {
		fputs("\nCommands (see xl profile COMMAND --help):\n", out);
		for (size_t i = 0; i < XLP_NR_COMMANDS; i++) {
			const struct xlp_cmd_spec *c = &xlp_commands[i];

			if (!c->name)
				continue;
			fprintf(out, "  xl profile %s [options] %s\n", c->name, c->args);
			if (c->also)
				fprintf(out, "  %s\n", c->also);
			fprintf(out, "      %s\n", c->summary);
		}
	}
	fputs("\nOptions:\n", out);
	xlp_print_option_docs_for(out, docs, n, cmd->formats);
}

void xlp_commands_dump(FILE *out)
{
	for (size_t i = 0; i < XLP_NR_COMMANDS; i++) {
		const struct xlp_cmd_spec *c = &xlp_commands[i];
		const char *name = c->name ? c->name : "profile";
		struct xlp_option_doc docs[XLP_COMMAND_MAX_OPTIONS];
		size_t n = flatten(c, docs);

		fprintf(out, "command %s %s\n", name, c->args);
		if (c->alias)
			fprintf(out, "alias %s %s\n", name, c->alias);
		for (size_t j = 0; j < n; j++) {
			fprintf(out, "option %s", name);
			if (docs[j].key < 256)
				fprintf(out, " -%c", docs[j].key);
			fprintf(out, " --%s\n", docs[j].opt.name);
		}
	}
}

void xlp_command_parser_init(struct xlp_command_parser *p,
			     const struct xlp_cmd_spec *cmd)
{
	p->n = flatten(cmd, p->docs);
	xlp_getopt_tables(p->docs, p->n, p->longopts, p->shortopts);
	opterr = 0;
	optind = 1;
}

int xlp_command_getopt(struct xlp_command_parser *p, int argc, char **argv)
{
	return getopt_long(argc, argv, p->shortopts, p->longopts, NULL);
}

int xlp_command_bad_option(const struct xlp_cmd_spec *cmd, int c, char **argv)
{
	print_prog(cmd, stderr);
	if (c == ':')
		fprintf(stderr, ": option %s needs a value", argv[optind - 1]);
	else if (optopt > 0 && optopt < 256 && strncmp(argv[optind - 1], "--", 2) != 0)
		/* A short one, maybe among others (-qx): argv names them all. */
		fprintf(stderr, ": unknown option -%c", optopt);
	else
		fprintf(stderr, ": unknown option %s", argv[optind - 1]);
	fputs(" (see ", stderr);
	print_prog(cmd, stderr);
	fputs(" --help)\n", stderr);
	return 2;
}

int xlp_command_bad_value(const struct xlp_cmd_spec *cmd, const char *what,
			  const char *value, const char *fix)
{
	print_prog(cmd, stderr);
	fprintf(stderr, ": invalid %s '%s': %s\n", what, value, fix);
	return 2;
}

int xlp_command_bad_args(const struct xlp_cmd_spec *cmd, const char *why)
{
	print_prog(cmd, stderr);
	fprintf(stderr, ": %s: ", why);
	print_prog(cmd, stderr);
	fprintf(stderr, " [options] %s (see --help)\n", cmd->args);
	return 2;
}
