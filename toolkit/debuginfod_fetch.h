/* Debug files from debuginfod servers, by build-id, through elfutils'
 * libdebuginfod (its cache, its environment: DEBUGINFOD_URLS,
 * DEBUGINFOD_TIMEOUT, DEBUGINFOD_CACHE_PATH). The symbol search asks only
 * when nothing was found locally; never while a domain is paused. */
#ifndef XLP_DEBUGINFOD_FETCH_H
#define XLP_DEBUGINFOD_FETCH_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

/* Whether this build can fetch at all (configure --with-debuginfod). */
bool xlp_debuginfod_built(void);

/* The servers to ask: URLS (--debuginfod, or the daemon's settings) or,
 * when NULL, $DEBUGINFOD_URLS; NULL when neither names one (off). Sets
 * libdebuginfod's environment, so call it before any thread starts: the
 * servers, a cache under /var/cache/uniprof when the process has no home
 * (a system service), a size cap equal to the symbol loader's. */
const char *xlp_debuginfod_setup(const char *urls);

/* Fetch BUILD_ID's (hex) debug file. 0: *path is the cached file
 * (malloc'ed), FROM says where it came from (a URL, or the cache). -1:
 * ERR says why (not on the servers, cannot reach them, stopped). A
 * non-NULL *stop set meanwhile (Ctrl-C) cancels the download. */
int xlp_debuginfod_fetch(const char *build_id, volatile sig_atomic_t *stop,
			 char **path, char *from, size_t fromlen,
			 char *err, size_t errlen);

#endif
