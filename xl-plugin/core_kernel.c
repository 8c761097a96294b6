/* xl profile core: which kernel the core's domain ran, for its symbols:
 * the one its xl configuration names (libxlutil, xl's own parser), checked
 * against the build-ids the core holds; else the configuration or debug
 * file whose kernel has one of them. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libxlutil.h>

#include "core_run.h"
#include "toolkit/image_cache.h"

char *xlp_core_guess_name(const char *file)
{
	char *tmp = strdup(file), *base, *name;
	size_t n;

	if (!tmp)
		return NULL;
	base = basename(tmp);
	name = strdup(base);
	free(tmp);
	if (name && (n = strlen(name)) > 5 && strcmp(name + n - 5, ".core") == 0)
		name[n - 5] = '\0';
	return name;
}

/* The kernel an xl configuration names, through libxlutil (xl's own
 * parser). 0 with *kernel NULL when the file does not exist or names none
 * (said with -v); -1 after one line when it cannot be parsed. A probe (a
 * configuration of some other domain, looked at for its build-id) says
 * nothing. */
static int config_kernel(struct core_run *r, const char *path, bool explicit,
			 bool probe)
{
	FILE *report;
	struct stat st;
	XLU_Config *cfg;
	const char *k = NULL;
	int rc = 0;

	if (stat(path, &st) < 0) {
		if (explicit) {
			fprintf(stderr, "xl profile core: cannot read configuration %s: %s\n",
				path, strerror(errno));
			return -1;
		}
		if (r->opt.verbose && !probe)
			fprintf(stderr, "xl profile core: no configuration at %s\n", path);
		return 0;
	}
	report = probe ? fopen("/dev/null", "w") : stderr;
	cfg = report ? xlu_cfg_init(report, path) : NULL;
	if (!cfg) {
		if (report && report != stderr)
			fclose(report);
		if (!probe)
			fprintf(stderr, "xl profile core: out of memory\n");
		return -1;
	}
	if (xlu_cfg_readfile(cfg, path) != 0) {
		if (!probe)
			fprintf(stderr, "xl profile core: cannot parse configuration %s (see above); give symbols with -s FILE\n",
				path);
		rc = -1;
	} else if (xlu_cfg_get_string(cfg, "kernel", &k, 1) == 0 && k) {
		r->kernel = strdup(k);
		r->config_used = strdup(path);
		if (r->opt.verbose && !probe)
			fprintf(stderr, "xl profile core: %s names kernel %s\n", path, k);
	} else if (r->opt.verbose && !probe) {
		fprintf(stderr, "xl profile core: %s names no kernel\n", path);
	}
	xlu_cfg_destroy(cfg);
	if (report != stderr)
		fclose(report);
	return rc;
}

int xlp_core_find_config(struct core_run *r)
{
	char *path;
	int rc;

	if (r->config)
		return config_kernel(r, r->config, true, false);
	if (r->opt.symbols || !r->name || !r->name[0])
		return 0;
	if (asprintf(&path, "%s/%s.cfg", XEN_CONFIG_DIR, r->name) < 0)
		return -1;
	rc = config_kernel(r, path, false, false);
	free(path);
	return rc;
}

#define MAX_IDS 16
#define MAX_CONFIGS 1024

static bool has_id(char (*ids)[41], size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(ids[i], id) == 0)
			return true;
	return false;
}

/* A configuration's kernel whose build-id the core does not hold is
 * stale: dropped, said in one line. */
int xlp_core_find_by_build_id(struct core_run *r, struct up_target *t)
{
	char ids[MAX_IDS][41];
	struct up_elf_identity kid;
	size_t n = 0, seen = 0;
	DIR *d;
	struct dirent *e;

	if (up_target_core_build_ids(t, ids, MAX_IDS, &n) < 0 || n == 0) {
		if (r->opt.verbose)
			fprintf(stderr, "xl profile core: no build-id note in the core's memory\n");
		return 0;
	}
	if (r->opt.verbose)
		for (size_t i = 0; i < n; i++)
			fprintf(stderr, "xl profile core: the core holds build-id %s\n", ids[i]);
	if (r->kernel) {
		if (tk_elf_identify(r->kernel, &kid) < 0 || !kid.build_id[0] ||
		    has_id(ids, n, kid.build_id))
			return 0;
		fprintf(stderr, "xl profile core: %s (from %s) has build-id %s, which the core does not hold: a stale configuration? looking for the core's build-id instead\n",
			r->kernel, r->config_used, kid.build_id);
		free(r->kernel);
		free(r->config_used);
		r->kernel = r->config_used = NULL;
	}
	d = opendir(XEN_CONFIG_DIR);
	while (d && !r->kernel && (e = readdir(d)) && seen++ < MAX_CONFIGS) {
		size_t len = strlen(e->d_name);
		char *path;
		struct core_run probe;

		if (len < 5 || strcmp(e->d_name + len - 4, ".cfg") != 0 ||
		    asprintf(&path, "%s/%s", XEN_CONFIG_DIR, e->d_name) < 0)
			continue;
		memset(&probe, 0, sizeof(probe));
		if (config_kernel(&probe, path, false, true) == 0 && probe.kernel &&
		    tk_elf_identify(probe.kernel, &kid) == 0 &&
		    has_id(ids, n, kid.build_id)) {
			r->kernel = probe.kernel;
			r->config_used = probe.config_used;
			probe.kernel = probe.config_used = NULL;
			if (r->opt.verbose)
				fprintf(stderr, "xl profile core: %s names %s, build-id %s: the core's\n",
					path, r->kernel, kid.build_id);
		}
		free(probe.kernel);
		free(probe.config_used);
		free(path);
	}
	if (d)
		closedir(d);
	for (size_t i = 0; i < n && !r->kernel; i++) {
		const char *debug = getenv("UNIPROF_DEBUG_DIR");
		char *path;

		if (asprintf(&path, "%s/.build-id/%.2s/%s.debug", debug ? debug : "/usr/lib/debug",
			     ids[i], ids[i] + 2) < 0)
			continue;
		if (access(path, R_OK) == 0) {
			r->kernel = path;
			if (r->opt.verbose)
				fprintf(stderr, "xl profile core: %s: by the core's build-id\n", path);
		} else {
			free(path);
		}
	}
	/* Left for debuginfod, if it is on. */
	if (!r->kernel)
		snprintf(r->build_id, sizeof(r->build_id), "%s", ids[0]);
	return 0;
}
