/* The `xl` front: distributions ship xl without a plugin mechanism, so this
 * small program sits ahead of the real xl in root's PATH. It runs
 * xl-<command> from our plugin directory for commands xl lacks (`xl
 * profile`), and hands everything else, global options included, to the
 * real xl unchanged. `xl help` lists xl's commands, then the plugins'.
 * Remove it with `rm` (or `make uninstall`): the real xl is untouched. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* What each known plugin does, for `xl help` (help text as data). */
static const struct {
	const char *name;
	const char *summary;
} plugin_docs[] = {
	{ "profile", "Profile a domain's vCPU stacks: flame graph, top list, pprof; report and diff stored profiles (uniprof)" },
};

static const char *plugin_dir(void)
{
	const char *d = getenv("UNIPROF_XL_PLUGIN_DIR");

	return d && *d ? d : XL_PLUGIN_DIR;
}

static const char *real_xl(void)
{
	const char *x = getenv("UNIPROF_REAL_XL");

	return x && *x ? x : REAL_XL;
}

/* xl's own global options (tools/xl/xl.c: -v, -f, -t, -N). */
static int is_global_option(const char *a, int *verbose, int *dryrun)
{
	if (a[0] != '-' || !a[1] || a[1] == '-')
		return 0;
	for (const char *c = a + 1; *c; c++)
		if (!strchr("vftN", *c))
			return 0;
	for (const char *c = a + 1; *c; c++) {
		*verbose += *c == 'v';
		*dryrun |= *c == 'N';
	}
	return 1;
}

/* PLUGIN_DIR/xl-CMD if it is an executable plugin, else NULL. */
static char *plugin_path(const char *cmd)
{
	char *p;

	if (!cmd[0] || strlen(cmd) > 64)
		return NULL;
	for (const char *c = cmd; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-'))
			return NULL;
	if (asprintf(&p, "%s/xl-%s", plugin_dir(), cmd) < 0)
		return NULL;
	if (access(p, X_OK) != 0) {
		free(p);
		return NULL;
	}
	return p;
}

static void exec_real(char **argv)
{
	const char *xl = real_xl();
	char self[PATH_MAX], target[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		self[n] = '\0';
		if (realpath(xl, target) && strcmp(self, target) == 0) {
			fprintf(stderr, "xl: %s is this front, not the real xl: set UNIPROF_REAL_XL or configure --with-real-xl\n",
				xl);
			exit(1);
		}
	}
	argv[0] = (char *)"xl";
	execv(xl, argv);
	fprintf(stderr, "xl: cannot run the real xl (%s): %s\n", xl, strerror(errno));
	exit(127);
}

static void list_plugins(void)
{
	DIR *d = opendir(plugin_dir());
	struct dirent *e;
	int header = 0;

	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		const char *summary = "(plugin)";
		char *p;

		if (strncmp(e->d_name, "xl-", 3) != 0 || !(p = plugin_path(e->d_name + 3)))
			continue;
		free(p);
		for (size_t i = 0; i < sizeof(plugin_docs) / sizeof(plugin_docs[0]); i++)
			if (strcmp(plugin_docs[i].name, e->d_name + 3) == 0)
				summary = plugin_docs[i].summary;
		if (!header++)
			printf("\nCommands added by plugins (%s):\n", plugin_dir());
		printf(" %-19s %s\n", e->d_name + 3, summary);
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	int verbose = 0, dryrun = 0, i = 1, status;
	char *plugin;
	pid_t pid;

	while (i < argc && is_global_option(argv[i], &verbose, &dryrun))
		i++;
	if (i >= argc)
		exec_real(argv);

	if (strcmp(argv[i], "help") == 0) {
		if (i + 1 < argc && (plugin = plugin_path(argv[i + 1]))) {
			execl(plugin, plugin, "--help", (char *)NULL);
			fprintf(stderr, "xl: cannot run %s: %s\n", plugin, strerror(errno));
			return 127;
		}
		if (i + 1 < argc)
			exec_real(argv);
		/* xl's own list first, then ours. */
		fflush(stdout);
		pid = fork();
		if (pid == 0)
			exec_real(argv);
		if (pid < 0 || waitpid(pid, &status, 0) < 0)
			return 1;
		fflush(stdout);
		list_plugins();
		return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	}

	plugin = plugin_path(argv[i]);
	if (!plugin)
		exec_real(argv);
	if (dryrun) {
		fprintf(stderr, "xl: command '%s' does not implement -N (dryrun) option\n", argv[i]);
		free(plugin);
		return 1;
	}
	{
		/* plugin, one -v per global -v, then the command's arguments */
		char **args = calloc((size_t)(verbose + argc - i + 1), sizeof(char *));
		int n = 0;

		if (!args)
			return 1;
		args[n++] = plugin;
		for (int v = 0; v < verbose; v++)
			args[n++] = (char *)"-v";
		for (int k = i + 1; k < argc; k++)
			args[n++] = argv[k];
		args[n] = NULL;
		execv(plugin, args);
		fprintf(stderr, "xl: cannot run %s: %s\n", plugin, strerror(errno));
		return 127;
	}
}
