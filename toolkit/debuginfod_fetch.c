#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_DEBUGINFOD
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#include <pthread.h>
#endif

#include "debuginfod_fetch.h"
#include "uniprof/symbols.h"
#include "util/clock.h"

/* A service has no home for libdebuginfod's default cache. */
#define SERVICE_CACHE "/var/cache/uniprof/debuginfod"

bool tk_debuginfod_built(void)
{
#ifdef HAVE_DEBUGINFOD
	return true;
#else
	return false;
#endif
}

const char *tk_debuginfod_setup(const char *urls)
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

/* A positive whole number from the environment, else 0. */
static long long env_number(const char *name)
{
	const char *v = getenv(name);
	char *end;
	long long n;

	if (!v)
		return 0;
	errno = 0;
	n = strtoll(v, &end, 10);
	return errno || end == v || *end || n <= 0 ? 0 : n;
}

#ifdef HAVE_DEBUGINFOD
/* One download's bounds, checked as it goes (libdebuginfod calls back at
 * least once a second, even when nothing arrives). */
struct fetch_state {
	volatile sig_atomic_t *stop;
	uint64_t start_ns;      /* mono_ns() at the start */
	long long max_bytes, max_ms;
	long long earlier;      /* bytes of attempts before this one */
	long prev;              /* this attempt's bytes at the last call */
	char cache_dir[4096];   /* where the temp file grows; "" if unknown */
	enum { GOING, STOPPED, TOO_BIG, TOO_SLOW } why;
};

static long long elapsed_ms(uint64_t t0_ns)
{
	return (long long)((mono_ns() - t0_ns) / 1000000);
}

/* The bytes on disk under the build-id's cache directory: what curl
 * wrote after decoding, which a compressed body makes larger than the
 * bytes received. */
static long long bytes_on_disk(const char *dir)
{
	long long sum = 0;
	DIR *d = dir[0] ? opendir(dir) : NULL;
	struct dirent *e;
	struct stat st;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && fstatat(dirfd(d), e->d_name, &st, 0) == 0 &&
		    S_ISREG(st.st_mode))
			sum += st.st_size;
	closedir(d);
	return sum;
}

#ifdef HAVE_DEBUGINFOD
/* libdebuginfod is opened when a fetch is asked, not linked, as elfutils'
 * libdw opens it: it brings libcurl, GnuTLS, Kerberos and LDAP, some 40
 * libraries whose loading and constructors cost every start ~430 page
 * faults (tens of ms in an emulated dom0), fetch or not. */
static struct {
	__typeof__(&debuginfod_begin) begin;
	__typeof__(&debuginfod_end) end;
	__typeof__(&debuginfod_get_user_data) get_user_data;
	__typeof__(&debuginfod_set_user_data) set_user_data;
	__typeof__(&debuginfod_set_progressfn) set_progressfn;
	__typeof__(&debuginfod_find_debuginfo) find_debuginfo;
	__typeof__(&debuginfod_get_url) get_url;
	char why[256];          /* "" once every function is found */
} lib;
static pthread_once_t lib_once = PTHREAD_ONCE_INIT;

static void lib_open(void)
{
	void *h = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);
	struct { void **fn; const char *name; } want[] = {
		{ (void **)&lib.begin, "debuginfod_begin" },
		{ (void **)&lib.end, "debuginfod_end" },
		{ (void **)&lib.get_user_data, "debuginfod_get_user_data" },
		{ (void **)&lib.set_user_data, "debuginfod_set_user_data" },
		{ (void **)&lib.set_progressfn, "debuginfod_set_progressfn" },
		{ (void **)&lib.find_debuginfo, "debuginfod_find_debuginfo" },
		{ (void **)&lib.get_url, "debuginfod_get_url" },
	};

	if (!h) {
		snprintf(lib.why, sizeof(lib.why),
			 "cannot load libdebuginfod.so.1 (%s): install the Debian package libdebuginfod1",
			 dlerror());
		return;
	}
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!(*want[i].fn = dlsym(h, want[i].name))) {
			snprintf(lib.why, sizeof(lib.why),
				 "libdebuginfod.so.1 has no %s: too old", want[i].name);
			dlclose(h);
			return;
		}
}
#endif

/* Called as the download goes: nonzero cancels it. DONE is the bytes of
 * this attempt (a loop count before a server answers: small); a retry
 * starts it again but appends to the same temp file, so attempts add up. */
static int progress(debuginfod_client *c, long done, long total)
{
	struct fetch_state *f = lib.get_user_data(c);
	long long got;

	if (f->stop && *f->stop) {
		f->why = STOPPED;
		return 1;
	}
	if (done < f->prev)
		f->earlier += f->prev;
	f->prev = done;
	got = f->earlier + done;
	if (got > f->max_bytes || total > f->max_bytes ||
	    bytes_on_disk(f->cache_dir) > f->max_bytes) {
		f->why = TOO_BIG;
		return 1;
	}
	if (elapsed_ms(f->start_ns) >= f->max_ms) {
		f->why = TOO_SLOW;
		return 1;
	}
	return 0;
}

/* libdebuginfod's cache directory for BUILD_ID, found as it finds it. */
static void cache_dir_of(const char *build_id, char *out, size_t len)
{
	const char *env = getenv("DEBUGINFOD_CACHE_PATH"), *home = getenv("HOME");
	const char *xdg = getenv("XDG_CACHE_HOME");
	char legacy[4096];
	struct stat st;
	int n;

	snprintf(legacy, sizeof(legacy), "%s/.debuginfod_client_cache", home ? home : "/");
	if (env && env[0])
		n = snprintf(out, len, "%s/%s", env, build_id);
	else if (stat(legacy, &st) == 0)
		n = snprintf(out, len, "%s/%s", legacy, build_id);
	else if (xdg && xdg[0])
		n = snprintf(out, len, "%s/debuginfod_client/%s", xdg, build_id);
	else
		n = snprintf(out, len, "%s/.cache/debuginfod_client/%s", home ? home : "",
			     build_id);
	if (n < 0 || (size_t)n >= len)
		out[0] = '\0';
}

/* A cancelled download leaves libdebuginfod's empty "not on any server"
 * mark, which would answer the next runs falsely: take it away. The temp
 * file libdebuginfod removes itself. */
static void forget_cancelled(const char *dir)
{
	char mark[4200];
	struct stat st;

	if (!dir[0])
		return;
	snprintf(mark, sizeof(mark), "%s/debuginfo", dir);
	if (stat(mark, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
		unlink(mark);
	rmdir(dir);     /* only when empty */
}
#endif

long long tk_debuginfod_max_bytes(void)
{
	long long env = env_number("DEBUGINFOD_MAXSIZE");

	return env && env < (long long)UP_SYMTAB_MAX_FILE ? env : (long long)UP_SYMTAB_MAX_FILE;
}

/* libdebuginfod reads DEBUGINFOD_TIMEOUT as a wait for the first bytes
 * (a drip above 100 KB/s goes on) and DEBUGINFOD_MAXTIME per attempt: a
 * user who asks for either gets it as the whole download's bound. */
unsigned tk_debuginfod_max_seconds(void)
{
	long long s = TK_DEBUGINFOD_MAX_SECONDS;
	long long t = env_number("DEBUGINFOD_TIMEOUT"), m = env_number("DEBUGINFOD_MAXTIME");

	if (t && t < s)
		s = t;
	if (m && m < s)
		s = m;
	return (unsigned)s;
}

int tk_debuginfod_fetch(const char *build_id, volatile sig_atomic_t *stop,
			 char **path, char *from, size_t fromlen,
			 char *err, size_t errlen)
{
#ifdef HAVE_DEBUGINFOD
	debuginfod_client *c;
	const char *servers = getenv("DEBUGINFOD_URLS"), *url;
	struct fetch_state f = { .stop = stop };
	int fd;

	*path = NULL;
	pthread_once(&lib_once, lib_open);
	if (lib.why[0]) {
		snprintf(err, errlen, "%s", lib.why);
		return -1;
	}
	c = lib.begin();
	if (!servers)
		servers = "no server: DEBUGINFOD_URLS is not set";
	if (!c) {
		snprintf(err, errlen, "cannot start libdebuginfod's client");
		return -1;
	}
	f.max_bytes = tk_debuginfod_max_bytes();
	f.max_ms = (long long)tk_debuginfod_max_seconds() * 1000;
	cache_dir_of(build_id, f.cache_dir, sizeof(f.cache_dir));
	f.start_ns = mono_ns();
	lib.set_user_data(c, &f);
	lib.set_progressfn(c, progress);
	/* Length 0: the build-id is given as a hex string. */
	fd = lib.find_debuginfo(c, (const unsigned char *)build_id, 0, path);
	url = lib.get_url(c);
	snprintf(from, fromlen, "%s", url ? url : "debuginfod's cache");
	/* A file that arrived whole before the deadline struck is good. */
	if (fd >= 0 && (f.why == GOING || f.why == TOO_SLOW)) {
		lib.end(c);
		close(fd);
		return 0;
	}
	if (fd >= 0) {
		close(fd);
		if (f.why == TOO_BIG)
			unlink(*path);
	}
	free(*path);
	*path = NULL;
	if (f.why != GOING)
		forget_cancelled(f.cache_dir);
	if (f.why == STOPPED || (stop && *stop))
		snprintf(err, errlen, "stopped while fetching build-id %s", build_id);
	else if (f.why == TOO_BIG || fd == -EFBIG)
		snprintf(err, errlen, "the debug file of build-id %s from %s is larger than %lld bytes (DEBUGINFOD_MAXSIZE): not fetched",
			 build_id, url ? url : servers, f.max_bytes);
	else if (f.why == TOO_SLOW)
		snprintf(err, errlen, "fetching build-id %s from %s took over %lld s: given up",
			 build_id, url ? url : servers, f.max_ms / 1000);
	else if (fd == -ENOENT)
		snprintf(err, errlen, "no server in DEBUGINFOD_URLS (%s) has build-id %s",
			 servers, build_id);
	else
		snprintf(err, errlen, "cannot fetch build-id %s from %s: %s", build_id,
			 servers, strerror(-fd));
	lib.end(c);
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
