/* uniprofd's symbol cache while one domain's symbols load slowly (a
 * debuginfod server that drips, hostile_debuginfod.h): another kernel's
 * symbols load meanwhile, a second requester of the slow kernel waits for
 * that load instead of fetching again, and the stop flag (SIGTERM) ends
 * both within about a second. The old cache held its lock through the
 * load, so the other domain waited for the whole fetch. */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#endif

#include "hostile_debuginfod.h"
#include "symbol_cache.h"
#include "test.h"
#include "toolkit/debuginfod_fetch.h"

TEST_GLOBALS;

static char dir[256], slow_kernel[512], fast_kernel[512];
static struct hd_server server = { .pid = -1 };
static volatile sig_atomic_t stop_flag;
static struct upd_symbol_cache *cache;

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void overdue(int sig)
{
	static const char msg[] = "not ok - the symbol cache did not answer within its watchdog\n";

	(void)sig;
	if (write(1, msg, sizeof(msg) - 1) < 0) {
		/* nothing more to say */
	}
	_exit(1);
}

struct getter {
	pthread_t t;
	int rc;
	volatile int done;
	double ended;
	char err[512];
};

static void *get_slow(void *arg)
{
	struct getter *g = arg;
	struct upd_symbols *s = NULL;

#ifdef __SANITIZE_ADDRESS__
	/* libdebuginfod writes a new cache's settings with dprintf, whose
	 * stream buffer glibc never frees (not ours; once per cache). */
	__lsan_disable();
#endif
	g->rc = upd_symbols_get(cache, slow_kernel, 8, &s, g->err, sizeof(g->err));
#ifdef __SANITIZE_ADDRESS__
	__lsan_enable();
#endif
	upd_symbols_put(cache, s);
	g->ended = now_s();
	g->done = 1;
	return NULL;
}

static void test_slow_load_blocks_no_one(void)
{
	struct getter first = { .rc = 99 }, second = { .rc = 99 };
	struct upd_symbols *s = NULL;
	char err[512];
	double t0, stopped;
	int rc;

	REQUIRE(pthread_create(&first.t, NULL, get_slow, &first) == 0);
	/* The first requester is fetching once the server has its request. */
	for (int i = 0; i < 200 && hd_requests(&server, "drip") == 0; i++)
		usleep(50 * 1000);
	CHECK(hd_requests(&server, "drip") == 1);
	REQUIRE(pthread_create(&second.t, NULL, get_slow, &second) == 0);
	usleep(300 * 1000);
	/* Another domain's kernel, with its own symbols: loaded while the
	 * fetch drips on (it drips until stopped: DEBUGINFOD_TIMEOUT=30). */
	t0 = now_s();
	rc = upd_symbols_get(cache, fast_kernel, 8, &s, err, sizeof(err));
	CHECK(rc == 0);
	CHECK(s && s->symtab && up_symtab_count(s->symtab) > 20);
	CHECK(now_s() - t0 < 5.0);
	CHECK(!first.done && !second.done);
	upd_symbols_put(cache, s);
	/* Found again, from the cache, still meanwhile. */
	t0 = now_s();
	CHECK(upd_symbols_get(cache, fast_kernel, 8, &s, err, sizeof(err)) == 0);
	CHECK(now_s() - t0 < 2.0);
	upd_symbols_put(cache, s);
	CHECK(upd_symbol_cache_loads(cache) == 1);
	/* The second requester waited instead of fetching again. */
	CHECK(hd_requests(&server, "drip") == 1);
	CHECK(!first.done && !second.done);
	/* SIGTERM: both end promptly (the callback runs about once a
	 * second; margin for a loaded machine). */
	stopped = now_s();
	stop_flag = 1;
	pthread_join(first.t, NULL);
	pthread_join(second.t, NULL);
	CHECK(first.rc == -1 && second.rc == -1);
	CHECK(first.ended - stopped < 4.0);
	CHECK(second.ended - stopped < 4.0);
	fprintf(stderr, "# stopped after %.1f s, %.1f s: %s / %s\n", first.ended - stopped,
		second.ended - stopped, first.err, second.err);
	CHECK(upd_symbol_cache_loads(cache) == 1);
}

/* Each period identifies the domain's kernel again: from what stat says of
 * the file when it is unchanged, and by reading it again when it was
 * rewritten in place (another build under the same path and inode, just
 * after the first was remembered). */
static const char *b;           /* the build directory */

static void test_kernel_rewritten_in_place(void)
{
	struct upd_symbol_cache *c = NULL;
	struct upd_symbols *s = NULL;
	char d[256], k[320], cmd[1024], first[129] = "", err[512];

	snprintf(d, sizeof(d), "/tmp/uniprof-symcache-id-%d", (int)getpid());
	snprintf(k, sizeof(k), "%s/kernel.elf", d);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s' && cp '%s/tests/guest/tg-nofp.elf' '%s'",
		 d, d, b, k);
	REQUIRE(system(cmd) == 0);
	/* Resting (unchanged for over 2 s), so its build-id is remembered. */
	sleep(3);
	REQUIRE(upd_symbol_cache_new(&c, 8, UP_UNWINDER_CFI, "/nonexistent", NULL, NULL) == 0);
	CHECK(upd_symbols_get(c, k, 8, &s, err, sizeof(err)) == 0);
	if (s) {
		snprintf(first, sizeof(first), "%s", s->build_id);
		upd_symbols_put(c, s);
	}
	CHECK(first[0] != '\0');
	CHECK(upd_symbols_get(c, k, 8, &s, err, sizeof(err)) == 0);
	CHECK(s && strcmp(s->build_id, first) == 0);
	upd_symbols_put(c, s);
	CHECK(upd_symbol_cache_loads(c) == 1);
	/* Rewritten in place (cp keeps the inode): another build-id, loaded. */
	snprintf(cmd, sizeof(cmd), "cp '%s/tests/guest/tg-fp.elf' '%s'", b, k);
	REQUIRE(system(cmd) == 0);
	CHECK(upd_symbols_get(c, k, 8, &s, err, sizeof(err)) == 0);
	CHECK(s && s->build_id[0] && strcmp(s->build_id, first) != 0);
	upd_symbols_put(c, s);
	CHECK(upd_symbol_cache_loads(c) == 2);
	upd_symbol_cache_free(c);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
	if (system(cmd) != 0)
		fprintf(stderr, "# cannot remove %s\n", d);
}

int main(void)
{
	char *top = realpath(getenv("top_builddir") ? getenv("top_builddir") : ".", NULL);
	char servers[160], cmd[2048], cachedir[300];

	snprintf(dir, sizeof(dir), "/tmp/uniprof-symcache-%d", (int)getpid());
	snprintf(slow_kernel, sizeof(slow_kernel), "%s/stripped.elf", dir);
	b = top ? top : ".";
	snprintf(fast_kernel, sizeof(fast_kernel), "%s/tests/guest/tg-nofp.elf", b);
	RUN(test_kernel_rewritten_in_place);
	if (!tk_debuginfod_built()) {
		printf("ok - # SKIP the slow load: not built with libdebuginfod\n");
		free(top);
		TEST_MAIN_END();
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s' && objcopy --strip-all '%s/tests/guest/tg-fp.elf' '%s'",
		 dir, dir, b, slow_kernel);
	if (system(cmd) != 0 || hd_start(&server, dir, fast_kernel) < 0) {
		fprintf(stderr, "cannot set up %s\n", dir);
		return 1;
	}
	setenv("no_proxy", "127.0.0.1", 1);
	setenv("NO_PROXY", "127.0.0.1", 1);
	setenv("DEBUGINFOD_TIMEOUT", "30", 1);
	snprintf(cachedir, sizeof(cachedir), "%s/cache", dir);
	setenv("DEBUGINFOD_CACHE_PATH", cachedir, 1);
	snprintf(servers, sizeof(servers), "http://127.0.0.1:%d/drip", server.port);
	if (upd_symbol_cache_new(&cache, 8, UP_UNWINDER_CFI, "/nonexistent",
				 tk_debuginfod_setup(servers), &stop_flag) < 0)
		return 1;
	signal(SIGALRM, overdue);
	alarm(40);
	RUN(test_slow_load_blocks_no_one);
	alarm(0);
	upd_symbol_cache_free(cache);
	hd_stop(&server);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "# cannot remove %s\n", dir);
	free(top);
	TEST_MAIN_END();
}
