/* The symbol search's last step against a real debuginfod server
 * (elfutils', Debian's debuginfod package) on 127.0.0.1, indexing a
 * directory with the test guest's full image, the kernel being a stripped
 * copy: the symbols, their lines and the CFI come from the fetched file,
 * a second search from the cache; an unknown build-id and a server that
 * is down each give one line and no symbols; the core's build-id alone
 * (no kernel file) is enough. Then a server that fights back
 * (hostile_debuginfod.h): a drip, a body past the size limit and a
 * redirect loop each end within their bound with one line and nothing in
 * the cache; a file of another build is refused and removed, so the next
 * run asks again. */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#endif

#include "../unit/hostile_debuginfod.h"
#include "../unit/test.h"
#include "toolkit/debuginfod_fetch.h"
#include "toolkit/image_cache.h"
#include "toolkit/symbols_find.h"
#include "toolkit/unwind_load.h"
#include "uniprof/uniprof.h"

TEST_GLOBALS;

static char dir[256], full[512], stripped[512], other[512], url[128];
static char build_id[64], errfile[600], errtext[8192];
static pid_t server = -1;
static struct hd_server hostile = { .pid = -1 };

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0)
		fprintf(stderr, "# failed: %s\n", cmd);
}

/* A fresh, empty client cache: libdebuginfod also caches misses. */
static void fresh_cache(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	sh("rm -rf '%s'", path);
	setenv("DEBUGINFOD_CACHE_PATH", path, 1);
}

/* The search, its stderr kept in errtext. 1 = symbols found. */
static int search(const char *kernel, const char *id, const char *servers,
		  struct up_symtab **s, char **used)
{
	struct tk_symbol_query q = {
		.kernel = kernel, .build_id = id, .debug_dir = "/nonexistent",
		.verbose = 1, .guest_width = 8, .debuginfod = servers,
	};
	int saved = dup(2), fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	FILE *f;
	size_t n;
	int rc;

	fflush(stderr);
	dup2(fd, 2);
	close(fd);
#ifdef __SANITIZE_ADDRESS__
	/* libdebuginfod writes a new cache's settings with dprintf, whose
	 * stream buffer glibc never frees (not ours; once per cache). */
	__lsan_disable();
#endif
	rc = tk_find_symbols(&q, s, used);
#ifdef __SANITIZE_ADDRESS__
	__lsan_enable();
#endif
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	f = fopen(errfile, "r");
	n = f ? fread(errtext, 1, sizeof(errtext) - 1, f) : 0;
	errtext[n] = '\0';
	if (f)
		fclose(f);
	return rc == 0 && *s ? 1 : rc;
}

static int lines_matching(const char *needle)
{
	int n = 0;

	for (const char *p = errtext; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void start_server(void)
{
	char log[512], db[512], port[16];

	for (int attempt = 0; attempt < 5 && server < 0; attempt++) {
		int p = 20000 + (int)((getpid() * 7 + attempt * 101) % 20000);
		int status;

		snprintf(port, sizeof(port), "%d", p);
		snprintf(log, sizeof(log), "%s/server.log", dir);
		snprintf(db, sizeof(db), "%s/server.sqlite", dir);
		server = fork();
		if (server == 0) {
			int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);

			dup2(fd, 1);
			dup2(fd, 2);
			execlp("debuginfod", "debuginfod", "-F", "-p", port, "-d", db,
			       "-t", "0", "-g", "0", "-c", "1", "--disable-source-scan",
			       "served", (char *)NULL);
			_exit(127);
		}
		snprintf(url, sizeof(url), "http://127.0.0.1:%d", p);
		sleep(1);
		if (waitpid(server, &status, WNOHANG) == server) {
			fprintf(stderr, "# debuginfod on port %d exited (%d): another port\n",
				p, status);
			server = -1;
		}
	}
}

static void stop_server(void)
{
	if (server > 0) {
		kill(server, SIGTERM);
		waitpid(server, NULL, 0);
	}
	server = -1;
}

/* The server indexes in the background: ask until it serves the file (a
 * fresh cache each time, misses being cached), at most a minute. */
static void test_fetched_by_build_id(void)
{
	struct up_symtab *s = NULL;
	char *used = NULL;
	struct tk_unwind uw;
	int found = 0;

	for (int i = 0; i < 120 && found != 1; i++) {
		fresh_cache("cache");
		found = search(stripped, NULL, url, &s, &used);
		if (found != 1) {
			up_symtab_free(s);
			s = NULL;
			free(used);
			used = NULL;
			usleep(500 * 1000);
		}
	}
	if (found != 1)
		fprintf(stderr, "# last try said: %s", errtext);
	REQUIRE(found == 1);
	CHECK(up_symtab_count(s) > 20);
	CHECK_STR(up_symtab_build_id(s), build_id);
	CHECK(up_symtab_has_source(s));                 /* lines from its DWARF */
	CHECK(strncmp(used, dir, strlen(dir)) == 0);    /* in the cache */
	CHECK(lines_matching("(debuginfod, from http://127.0.0.1:") == 1);
	CHECK(!strstr(errtext, "no symbols found"));
	/* The unwind tables can come from that file too. */
	memset(&uw, 0, sizeof(uw));
	CHECK(tk_unwind_load(UP_UNWINDER_CFI, NULL, used, 0, &uw) == 0);
	CHECK(uw.cfi != NULL);
	tk_unwind_release(&uw);
	up_symtab_free(s);
	free(used);
	tk_image_cache_drop();
}

/* Fetched once, found again with the server gone. */
static void test_cached(void)
{
	struct up_symtab *s = NULL;
	char *used = NULL;

	stop_server();
	CHECK(search(stripped, NULL, url, &s, &used) == 1);
	CHECK(strstr(errtext, "debuginfod's cache") != NULL);
	up_symtab_free(s);
	free(used);
}

static void test_unknown_build_id(void)
{
	struct up_symtab *s = NULL;
	char *used = NULL;
	char kernel[600];

	snprintf(kernel, sizeof(kernel), "%s/other-stripped.elf", dir);
	sh("objcopy --strip-all '%s' '%s'", other, kernel);
	fresh_cache("cache-unknown");
	CHECK(search(kernel, NULL, url, &s, &used) == 0);
	CHECK(s == NULL && used == NULL);
	CHECK(lines_matching("xl profile: no symbols found") == 1);
	CHECK(strstr(errtext, "has build-id") != NULL);
	CHECK(strstr(errtext, "-s FILE") != NULL);
}

static void test_server_down(void)
{
	struct up_symtab *s = NULL;
	char *used = NULL;

	fresh_cache("cache-down");
	CHECK(search(stripped, NULL, url, &s, &used) == 0);
	CHECK(s == NULL);
	CHECK(lines_matching("xl profile: no symbols found") == 1);
	CHECK(strstr(errtext, "cannot fetch build-id") != NULL);
	fprintf(stderr, "# server down: %s", strstr(errtext, "xl profile: no symbols"));
}

/* A core without a kernel file: its build-id alone. */
static void test_core_build_id(void)
{
	struct up_symtab *s = NULL;
	char *used = NULL;

	fresh_cache("cache-core");
	CHECK(search(NULL, build_id, url, &s, &used) == 1);
	CHECK(s && up_symtab_count(s) > 20);
	up_symtab_free(s);
	free(used);
}

/* Off: nothing asked, the old line. */
static void test_off(void)
{
	struct up_symtab *s = NULL;
	char *used = NULL;

	CHECK(search(stripped, NULL, NULL, &s, &used) == 0);
	CHECK(!strstr(errtext, "debuginfod"));
	CHECK(lines_matching("no symbols found") == 1);
}


/* A hostile case that does not end is a failure, not a hung suite: the
 * handler says so, removes the test's files (an endless body fills them)
 * and exits. Only async-signal-safe calls. */
static void overdue(int sig)
{
	static const char msg[] = "not ok - a fetch did not end within its watchdog\n";
	pid_t pid;

	(void)sig;
	if (write(1, msg, sizeof(msg) - 1) < 0) {
		/* nothing more to say */
	}
	if (hostile.pid > 0)
		kill(hostile.pid, SIGKILL);
	pid = fork();
	if (pid == 0) {
		execlp("rm", "rm", "-rf", dir, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
	_exit(1);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The largest file seen under the build-id's cache directory while a
 * fetch runs (the temp file libdebuginfod writes), polled every ms. */
static char watched[600];
static volatile int watching;
static long long biggest;

static void *watch(void *arg)
{
	(void)arg;
	while (watching) {
		DIR *d = opendir(watched);
		struct dirent *e;
		struct stat st;

		while (d && (e = readdir(d)))
			if (fstatat(dirfd(d), e->d_name, &st, 0) == 0 && S_ISREG(st.st_mode) &&
			    st.st_size > biggest)
				biggest = st.st_size;
		if (d)
			closedir(d);
		usleep(1000);
	}
	return NULL;
}

/* Entries left in the build-id's cache directory (none if it is gone). */
static int left_in_cache(void)
{
	DIR *d = opendir(watched);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	if (d)
		closedir(d);
	return n;
}

/* One search of the stripped kernel against the hostile server's MODE,
 * in a fresh cache, watched; its time in *took. */
static int hostile_search(const char *mode, const char *cache, unsigned watchdog_s,
			  double *took)
{
	struct up_symtab *s = NULL;
	char *used = NULL, servers[160];
	pthread_t t;
	double t0;
	int rc;

	snprintf(servers, sizeof(servers), "http://127.0.0.1:%d/%s", hostile.port, mode);
	tk_debuginfod_setup(servers);
	fresh_cache(cache);
	snprintf(watched, sizeof(watched), "%s/%s/%s", dir, cache, build_id);
	biggest = 0;
	watching = 1;
	if (pthread_create(&t, NULL, watch, NULL) != 0)
		watching = 0;
	alarm(watchdog_s);
	t0 = now_s();
	rc = search(stripped, NULL, servers, &s, &used);
	*took = now_s() - t0;
	alarm(0);
	if (watching) {
		watching = 0;
		pthread_join(t, NULL);
	}
	up_symtab_free(s);
	free(used);
	tk_image_cache_drop();
	fprintf(stderr, "# %s: %.1f s, largest temp file %lld bytes: %s", mode, *took, biggest,
		strstr(errtext, "xl profile: no symbols") ? strstr(errtext, "xl profile: no symbols") : errtext);
	return rc;
}

/* 16 KiB every 50 ms: fast enough for libdebuginfod's low-speed limit, so
 * only the overall deadline (DEBUGINFOD_TIMEOUT=2 here) ends it. */
static void test_drip_ends_at_deadline(void)
{
	double took;

	setenv("DEBUGINFOD_TIMEOUT", "2", 1);
	CHECK(tk_debuginfod_max_seconds() == 2);
	CHECK(hostile_search("drip", "cache-drip", 20, &took) == 0);
	CHECK(hostile.pid > 0 && hd_requests(&hostile, "drip") >= 1);
	/* The callback runs about once a second: 2 s, plus one, plus margin
	 * for a loaded machine. */
	CHECK(took >= 1.5 && took < 7.0);
	CHECK(lines_matching("xl profile: no symbols found") == 1);
	CHECK(strstr(errtext, "took over 2 s: given up") != NULL);
	CHECK(left_in_cache() == 0);
	setenv("DEBUGINFOD_TIMEOUT", "10", 1);
}

/* A chunked body (no Content-Length) that never ends, against a 1 MiB
 * limit: given up near 1 MiB, not appended to by retries. */
static void test_flood_stops_at_size(void)
{
	double took;

	setenv("DEBUGINFOD_MAXSIZE", "1048576", 1);
	CHECK(tk_debuginfod_max_bytes() == 1048576);
	CHECK(hostile_search("flood", "cache-flood", 15, &took) == 0);
	CHECK(took < 7.0);
	/* One curl_multi_perform's reading past the limit at most (curl
	 * reads at most 100 x 16 KiB per call), with room to spare. */
	CHECK(biggest < 1048576 + 4 * 1048576);
	CHECK(lines_matching("xl profile: no symbols found") == 1);
	CHECK(strstr(errtext, "larger than 1048576 bytes (DEBUGINFOD_MAXSIZE)") != NULL);
	CHECK(left_in_cache() == 0);
	setenv("DEBUGINFOD_MAXSIZE", "2147483648", 1);
}

/* 302 to itself for ever: curl follows without limit; the deadline ends it. */
static void test_redirect_loop_ends(void)
{
	double took;

	setenv("DEBUGINFOD_TIMEOUT", "2", 1);
	CHECK(hostile_search("loop", "cache-loop", 20, &took) == 0);
	CHECK(hd_requests(&hostile, "loop") > 1);
	CHECK(took < 7.0);
	CHECK(lines_matching("xl profile: no symbols found") == 1);
	CHECK(strstr(errtext, "took over 2 s: given up") != NULL);
	CHECK(left_in_cache() == 0);
	setenv("DEBUGINFOD_TIMEOUT", "10", 1);
}

/* Another build's file: refused, and removed, so the next run fetches
 * again instead of reading (and refusing) the cached copy for ever. */
static void test_wrong_build_id_removed(void)
{
	char debuginfo[700];
	double took;
	unsigned before = hd_requests(&hostile, "wrong");

	CHECK(hostile_search("wrong", "cache-wrong", 20, &took) == 0);
	CHECK(hd_requests(&hostile, "wrong") == before + 1);
	CHECK(strstr(errtext, "does not carry that build-id: removed from the cache") != NULL);
	CHECK(lines_matching("xl profile: no symbols found") == 1);
	snprintf(debuginfo, sizeof(debuginfo), "%s/debuginfo", watched);
	CHECK(access(debuginfo, F_OK) != 0);
	CHECK(left_in_cache() == 0);
	/* The next run, same cache: asked again, refused again. */
	{
		struct up_symtab *s = NULL;
		char *used = NULL, servers[160];

		snprintf(servers, sizeof(servers), "http://127.0.0.1:%d/wrong", hostile.port);
		alarm(20);
		CHECK(search(stripped, NULL, servers, &s, &used) == 0);
		alarm(0);
		CHECK(hd_requests(&hostile, "wrong") == before + 2);
		CHECK(access(debuginfo, F_OK) != 0);
		up_symtab_free(s);
		free(used);
		tk_image_cache_drop();
	}
}

int main(void)
{
	char *b = realpath(getenv("top_builddir") ? getenv("top_builddir") : ".", NULL);
	FILE *p;
	char cmd[1024];

	snprintf(dir, sizeof(dir), "/tmp/uniprof-dbgfetch-%d", (int)getpid());
	snprintf(full, sizeof(full), "%s/tests/guest/tg-fp.elf", b ? b : ".");
	snprintf(other, sizeof(other), "%s/tests/guest/tg-nofp.elf", b ? b : ".");
	snprintf(stripped, sizeof(stripped), "%s/stripped.elf", dir);
	snprintf(errfile, sizeof(errfile), "%s/stderr", dir);
	if (!tk_debuginfod_built()) {
		char *path = NULL, from[64], err[256];

		CHECK(tk_debuginfod_fetch("00", NULL, &path, from, sizeof(from), err,
					   sizeof(err)) < 0);
		CHECK(strstr(err, "without libdebuginfod") != NULL);
		printf("ok - not built with libdebuginfod: says so\n");
		TEST_MAIN_END();
	}
	if (system("command -v debuginfod > /dev/null") != 0) {
		fprintf(stderr, "debuginfod (the server) is missing: scripts/install-deps.sh installs it\n");
		return 1;
	}
	sh("rm -rf '%s' && mkdir -p '%s/served' && cp '%s' '%s/served/tg-fp.debug' && objcopy --strip-all '%s' '%s'",
	   dir, dir, full, dir, full, stripped);
	snprintf(cmd, sizeof(cmd), "readelf -n '%s' | sed -n 's/.*Build ID: *//p'", full);
	p = popen(cmd, "r");
	if (!p || !fgets(build_id, sizeof(build_id), p)) {
		fprintf(stderr, "cannot read the build-id of %s\n", full);
		return 1;
	}
	pclose(p);
	build_id[strcspn(build_id, "\n")] = '\0';
	/* The server is local; a proxy in the environment must not see it. */
	setenv("no_proxy", "127.0.0.1", 1);
	setenv("NO_PROXY", "127.0.0.1", 1);
	setenv("DEBUGINFOD_TIMEOUT", "10", 1);
	if (chdir(dir) < 0)
		return 1;
	start_server();
	if (server < 0) {
		fprintf(stderr, "debuginfod did not start: see %s/server.log\n", dir);
		return 1;
	}
	/* As xl profile --debuginfod URL does. */
	CHECK_STR(tk_debuginfod_setup(url), url);
	CHECK_STR(getenv("DEBUGINFOD_MAXSIZE"), "2147483648");   /* the loader's cap */
	RUN(test_off);
	RUN(test_fetched_by_build_id);
	RUN(test_unknown_build_id);
	RUN(test_core_build_id);
	RUN(test_cached);
	RUN(test_server_down);
	stop_server();
	signal(SIGALRM, overdue);
	if (hd_start(&hostile, dir, other) < 0)
		return 1;
	RUN(test_drip_ends_at_deadline);
	RUN(test_flood_stops_at_size);
	RUN(test_redirect_loop_ends);
	RUN(test_wrong_build_id_removed);
	hd_stop(&hostile);
	free(b);
	if (chdir("/") == 0)
		sh("rm -rf '%s'", dir);
	TEST_MAIN_END();
}
