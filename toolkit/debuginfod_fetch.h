/* Debug files from debuginfod servers, by build-id, through elfutils'
 * libdebuginfod (its cache, its environment: DEBUGINFOD_URLS,
 * DEBUGINFOD_TIMEOUT, DEBUGINFOD_CACHE_PATH). The symbol search asks only
 * when nothing was found locally; never while a domain is paused by us,
 * but maybe while its creator holds it (--paused): so every download is
 * bounded in bytes and in time, whatever the server sends. */
#ifndef TK_DEBUGINFOD_FETCH_H
#define TK_DEBUGINFOD_FETCH_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

/* A download is given up after this long in all (retries, redirects and
 * a slow drip included), or DEBUGINFOD_TIMEOUT or DEBUGINFOD_MAXTIME
 * seconds if smaller. */
#define TK_DEBUGINFOD_MAX_SECONDS 60

/* Whether this build can fetch at all (configure --with-debuginfod). */
bool tk_debuginfod_built(void);

/* The servers to ask: URLS (--debuginfod, or the daemon's settings) or,
 * when NULL, $DEBUGINFOD_URLS; NULL when neither names one (off). Sets
 * libdebuginfod's environment, so call it before any thread starts: the
 * servers, a cache under /var/cache/uniprof when the process has no home
 * (a system service), a size cap equal to the symbol loader's. */
const char *tk_debuginfod_setup(const char *urls);

/* The bounds of one download: the symbol loader's largest file
 * (UP_SYMTAB_MAX_FILE), or DEBUGINFOD_MAXSIZE bytes if smaller; and
 * TK_DEBUGINFOD_MAX_SECONDS, or DEBUGINFOD_TIMEOUT or DEBUGINFOD_MAXTIME
 * if smaller. */
long long tk_debuginfod_max_bytes(void);
unsigned tk_debuginfod_max_seconds(void);

/* Fetch BUILD_ID's (hex) debug file. 0: *path is the cached file
 * (malloc'ed), FROM says where it came from (a URL, or the cache). -1:
 * ERR says why in one line (not on the servers, cannot reach them, too
 * big, too slow, stopped); nothing of a cancelled download stays in the
 * cache. A non-NULL *stop set meanwhile (Ctrl-C, SIGTERM) cancels the
 * download within about a second. */
int tk_debuginfod_fetch(const char *build_id, volatile sig_atomic_t *stop,
			 char **path, char *from, size_t fromlen,
			 char *err, size_t errlen);

#endif
