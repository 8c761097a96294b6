#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HAVE_DEBUGINFOD
#include <elfutils/debuginfod.h>
#endif

#include "debuginfod_fetch.h"
#include "uniprof/symbols.h"

/* A service has no home for libdebuginfod's default cache. */
#define SERVICE_CACHE "/var/cache/uniprof/debuginfod"

bool xlp_debuginfod_built(void)
{
#ifdef HAVE_DEBUGINFOD
	return true;
#else
	return false;
#endif
}

const char *xlp_debuginfod_setup(const char *urls)
{
	const char *env;

	if (urls && setenv("DEBUGINFOD_URLS", urls, 1) < 0)
		return NULL;
	env = getenv("DEBUGINFOD_URLS");
	if (!env || !env[strspn(env, " \t")])
		return NULL;
	if (!getenv("DEBUGINFOD_CACHE_PATH") && !getenv("XDG_CACHE_HOME") &&
	    !getenv("HOME")) {
		/* libdebuginfod makes the last level only. */
		mkdir("/var/cache", 0755);
		mkdir("/var/cache/uniprof", 0755);
		setenv("DEBUGINFOD_CACHE_PATH", SERVICE_CACHE, 1);
	}
	/* Do not download what the symbol loader would refuse. */
	if (!getenv("DEBUGINFOD_MAXSIZE")) {
		char max[24];

		snprintf(max, sizeof(max), "%llu", UP_SYMTAB_MAX_FILE);
		setenv("DEBUGINFOD_MAXSIZE", max, 1);
	}
	return env;
}

#ifdef HAVE_DEBUGINFOD
/* Called as the download goes: nonzero cancels it. */
static int progress(debuginfod_client *c, long done, long total)
{
	volatile sig_atomic_t *stop = debuginfod_get_user_data(c);

	(void)done;
	(void)total;
	return stop && *stop;
}
#endif

int xlp_debuginfod_fetch(const char *build_id, volatile sig_atomic_t *stop,
			 char **path, char *from, size_t fromlen,
			 char *err, size_t errlen)
{
#ifdef HAVE_DEBUGINFOD
	debuginfod_client *c = debuginfod_begin();
	const char *servers = getenv("DEBUGINFOD_URLS"), *url;
	int fd;

	*path = NULL;
	if (!servers)
		servers = "no server: DEBUGINFOD_URLS is not set";
	if (!c) {
		snprintf(err, errlen, "cannot start libdebuginfod's client");
		return -1;
	}
	debuginfod_set_user_data(c, (void *)stop);
	debuginfod_set_progressfn(c, progress);
	/* Length 0: the build-id is given as a hex string. */
	fd = debuginfod_find_debuginfo(c, (const unsigned char *)build_id, 0, path);
	url = debuginfod_get_url(c);
	snprintf(from, fromlen, "%s", url ? url : "debuginfod's cache");
	debuginfod_end(c);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	free(*path);
	*path = NULL;
	if (stop && *stop)
		snprintf(err, errlen, "stopped while fetching build-id %s", build_id);
	else if (fd == -ENOENT)
		snprintf(err, errlen, "no server in DEBUGINFOD_URLS (%s) has build-id %s",
			 servers, build_id);
	else
		snprintf(err, errlen, "cannot fetch build-id %s from %s: %s", build_id,
			 servers, strerror(-fd));
	return -1;
#else
	(void)build_id;
	(void)stop;
	(void)from;
	(void)fromlen;
	*path = NULL;
	snprintf(err, errlen, "this xl profile was built without libdebuginfod (configure --with-debuginfod; Debian: libdebuginfod-dev)");
	return -1;
#endif
}
