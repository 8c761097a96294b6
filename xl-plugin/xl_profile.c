/* xl profile: the plugin's entry. Its commands are a table, as xl's own
 * (tools/xl/xl_cmdtable.c): a first argument naming one runs it, anything
 * else profiles a domain (xl profile -- NAME for a domain so named).
 * Each command lives in its own cmd_NAME.c. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "subcommands.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} commands[] = {
	{ "report", xlp_cmd_report },
	{ "diff", xlp_cmd_diff },
	{ "core", xlp_cmd_core },
	{ "top", xlp_cmd_top },
};

/* xl profile --core FILE [options]: the same as xl profile core [options]
 * FILE, wherever --core stands before a "--". Returns -1 when argv has no
 * --core, else the command's exit status. */
static int core_alias(int argc, char **argv)
{
	char **args;
	const char *file = NULL;
	int n = 1, rc;

	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--core") == 0 && i + 1 < argc)
			file = argv[i + 1];
		else if (strncmp(argv[i], "--core=", 7) == 0)
			file = argv[i] + 7;
		else if (strcmp(argv[i], "--core") == 0)
			file = "";
	}
	if (!file)
		return -1;
	if (!file[0]) {
		fprintf(stderr, "xl profile: --core needs a core file: xl profile --core FILE\n");
		return 2;
	}
	args = calloc((size_t)argc + 2, sizeof(*args));
	if (!args)
		return 1;
	args[0] = "core";
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--core") == 0) {
			i++;
			continue;
		}
		if (strncmp(argv[i], "--core=", 7) == 0)
			continue;
		args[n++] = argv[i];
	}
	args[n++] = (char *)file;
	rc = xlp_cmd_core(n, args);
	free(args);
	return rc;
}

int main(int argc, char **argv)
{
	int rc;

	for (size_t i = 0; argc > 1 && i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	if ((rc = core_alias(argc, argv)) >= 0)
		return rc;
	return xlp_cmd_profile(argc, argv);
}
