/* xl profile: the plugin's entry. Its commands are a table, as xl's own
 * (tools/xl/xl_cmdtable.c; ours in commands.c): a first argument naming
 * one runs it, anything else profiles a domain (xl profile -- NAME for a
 * domain so named). Each command lives in its own cmd_NAME.c. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

/* xl profile --core FILE [options]: the same as xl profile core [options]
 * FILE, wherever --core (core's alias in the table) stands before a "--".
 * Returns -1 when argv has no --core, else the command's exit status. */
static int core_alias(int argc, char **argv)
{
	const char *alias = xlp_commands[XLP_COMMAND_CORE].alias;
	size_t len = strlen(alias);
	char **args;
	const char *file = NULL;
	int n = 1, rc;

	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], alias) == 0 && i + 1 < argc)
			file = argv[i + 1];
		else if (strncmp(argv[i], alias, len) == 0 && argv[i][len] == '=')
			file = argv[i] + len + 1;
		else if (strcmp(argv[i], alias) == 0)
			file = "";
	}
	if (!file)
		return -1;
	if (!file[0]) {
		fprintf(stderr, "xl profile: %s needs a core file: %s\n", alias,
			xlp_commands[XLP_COMMAND_CORE].also);
		return 2;
	}
	args = calloc((size_t)argc + 2, sizeof(*args));
	if (!args)
		return 1;
	args[0] = "core";
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], alias) == 0) {
			i++;
			continue;
		}
		if (strncmp(argv[i], alias, len) == 0 && argv[i][len] == '=')
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
	const struct xlp_cmd_spec *cmd = argc > 1 ? xlp_command_find(argv[1]) : NULL;
	int rc;

	if (cmd)
		return cmd->run(argc - 1, argv + 1);
	/* Not for users (undocumented): the table, for the man page check. */
	if (argc == 2 && strcmp(argv[1], "--list-options") == 0) {
		xlp_commands_dump(stdout);
		return 0;
	}
	if ((rc = core_alias(argc, argv)) >= 0)
		return rc;
	return xlp_commands[XLP_COMMAND_PROFILE].run(argc, argv);
}
