/* The symbol search order of xl profile, on files laid out in a temporary
 * directory: kernel with symbols, build-id debug file, .gnu_debuglink,
 * KERNEL.debug / .dbg / .syms / System.map, build-id mismatch (refused,
 * or used with force), wrong word size, explicit -s. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../unit/test.h"
#include "toolkit/image_cache.h"
#include "toolkit/symbols_find.h"
#include "uniprof/uniprof.h"
#include "private.h"

TEST_GLOBALS;

static char dir[256], full[512], stripped[512], other[512], arm64[512];
static char cmd[4096];

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* Fresh case directory with a stripped kernel "k.elf" in it. */
static void fresh(const char *name, char *kernel, size_t len)
{
	sh("rm -rf '%s/%s' && mkdir -p '%s/%s'", dir, name, dir, name);
	snprintf(kernel, len, "%s/%s/k.elf", dir, name);
	sh("cp '%s' '%s'", stripped, kernel);
}

static int find(const char *kernel, const char *explicit_file, bool force,
		const char *debug_dir, char **used)
{
	struct tk_symbol_query q = {
		.explicit_file = explicit_file, .kernel = kernel,
		.debug_dir = debug_dir, .force = force, .verbose = 0,
		.guest_width = 8,
	};
	struct up_symtab *s = NULL;
	int rc = tk_find_symbols(&q, &s, used);

	if (rc == 0 && !s)
		rc = 1;        /* nothing found */
	up_symtab_free(s);
	return rc;
}

static void expect_found(const char *kernel, const char *debug_dir,
			 const char *want_suffix)
{
	char *used = NULL;

	CHECK(find(kernel, NULL, false, debug_dir, &used) == 0);
	CHECK(used && strlen(used) >= strlen(want_suffix) &&
	      strcmp(used + strlen(used) - strlen(want_suffix), want_suffix) == 0);
	if (used && !strstr(used, want_suffix))
		fprintf(stderr, "  found %s, wanted *%s\n", used, want_suffix);
	free(used);
}

static void test_kernel_with_symbols(void)
{
	char *used = NULL;

	CHECK(find(full, NULL, false, "/nonexistent", &used) == 0);
	CHECK_STR(used, full);
	free(used);
}

static void test_order_beside(void)
{
	char k[600];

	fresh("beside", k, sizeof(k));
	sh("nm -n '%s' > '%s/beside/System.map'", full, dir);
	expect_found(k, "/nonexistent", "/beside/System.map");
	sh("cp '%s' '%s.syms'", full, k);
	expect_found(k, "/nonexistent", "k.elf.syms");
	sh("cp '%s' '%s.dbg'", full, k);
	expect_found(k, "/nonexistent", "k.elf.dbg");
	sh("cp '%s' '%s.debug'", full, k);
	expect_found(k, "/nonexistent", "k.elf.debug");
}

static void test_build_id_and_debuglink(void)
{
	char k[600], bid[1024] = "";
	struct up_elf_identity id;
	FILE *f;

	fresh("bid", k, sizeof(k));
	REQUIRE(up_elf_identify(k, &id) == 0);
	CHECK(!id.has_symtab);
	REQUIRE(strlen(id.build_id) == 40);
	snprintf(bid, sizeof(bid), "%s/debug/.build-id/%.2s", dir, id.build_id);
	sh("mkdir -p '%s' && cp '%s' '%s/%s.debug'", bid, full, bid, id.build_id + 2);
	sh("cp '%s' '%s.debug'", full, k);   /* the build-id file comes first */
	snprintf(bid, sizeof(bid), "%s/debug", dir);
	expect_found(k, bid, ".debug");
	{
		char *used = NULL;

		find(k, NULL, false, bid, &used);
		CHECK(used && strstr(used, "/.build-id/") != NULL);
		free(used);
	}

	fresh("link", k, sizeof(k));
	sh("mkdir -p '%s/link/.debug' && objcopy --only-keep-debug '%s' '%s/link/.debug/sym.elf'",
	   dir, full, dir);
	sh("objcopy --add-gnu-debuglink='%s/link/.debug/sym.elf' '%s'", dir, k);
	REQUIRE(up_elf_identify(k, &id) == 0);
	CHECK_STR(id.debuglink, "sym.elf");
	expect_found(k, "/nonexistent", "/link/.debug/sym.elf");
	f = fopen(k, "rb");
	CHECK(f != NULL);
	if (f)
		fclose(f);
}

/* A kernel with symbols but no DWARF: its debug file with DWARF wins (the
 * source lines), one without DWARF does not (the kernel's own stays). */
static void test_debug_file_for_lines(void)
{
	char k[600], bid[1024];
	struct tk_symbol_query q = { .guest_width = 8 };
	struct up_elf_identity id;
	struct up_symtab *s = NULL;
	char *used = NULL;

	fresh("lines", k, sizeof(k));
	sh("objcopy --strip-debug '%s' '%s'", full, k);
	REQUIRE(up_elf_identify(k, &id) == 0);
	REQUIRE(id.has_symtab && strlen(id.build_id) == 40);
	snprintf(bid, sizeof(bid), "%s/lines/debug/.build-id/%.2s", dir, id.build_id);
	sh("mkdir -p '%s' && objcopy --strip-debug '%s' '%s/%s.debug'", bid, full, bid,
	   id.build_id + 2);   /* symbols, no DWARF: not better */
	snprintf(bid, sizeof(bid), "%s/lines/debug", dir);
	q.kernel = k;
	q.debug_dir = bid;
	CHECK(tk_find_symbols(&q, &s, &used) == 0);
	CHECK(s && !up_symtab_has_source(s));
	CHECK_STR(used, k);
	up_symtab_free(s);
	free(used);
	s = NULL;
	used = NULL;
	snprintf(bid, sizeof(bid), "%s/lines/debug/.build-id/%.2s", dir, id.build_id);
	sh("objcopy --only-keep-debug '%s' '%s/%s.debug'", full, bid, id.build_id + 2);
	snprintf(bid, sizeof(bid), "%s/lines/debug", dir);
	tk_image_cache_drop();    /* the same path, new contents */
	CHECK(tk_find_symbols(&q, &s, &used) == 0);
	CHECK(s && up_symtab_has_source(s));
	CHECK(used && strstr(used, "/.build-id/") != NULL);
	up_symtab_free(s);
	free(used);
}

static void test_build_id_mismatch(void)
{
	char k[600], *used = NULL;

	fresh("bad", k, sizeof(k));
	sh("cp '%s' '%s.debug'", other, k);
	CHECK(find(k, NULL, false, "/nonexistent", &used) == 1);   /* refused */
	CHECK(used == NULL);
	CHECK(find(k, NULL, true, "/nonexistent", &used) == 0);    /* forced */
	free(used);
	used = NULL;
	/* Explicit -s with another build-id: an error, unless forced. */
	CHECK(find(k, other, false, "/nonexistent", &used) == -1);
	CHECK(find(k, other, true, "/nonexistent", &used) == 0);
	free(used);
}

static void test_explicit_and_missing(void)
{
	char k[600], *used = NULL;

	fresh("none", k, sizeof(k));
	CHECK(find(k, NULL, false, "/nonexistent", &used) == 1);
	CHECK(find(k, "/nonexistent/syms", false, "/nonexistent", &used) == -1);
	CHECK(find(NULL, NULL, false, "/nonexistent", &used) == 1);
	CHECK(find(k, full, false, "/nonexistent", &used) == 0);
	CHECK_STR(used, full);
	free(used);
}

/* A 32-bit image for a 64-bit guest is an error that says so. */
static void test_wrong_width(void)
{
	struct tk_symbol_query q = { .explicit_file = NULL, .guest_width = 4 };
	struct up_symtab *s = NULL;
	char *used = NULL;

	q.explicit_file = full;
	CHECK(tk_find_symbols(&q, &s, &used) == -1);
	up_symtab_free(s);
	free(used);
}

/* Images are taken for the domain's architecture only: an AArch64 image
 * for an AArch64 domain, refused for an x86 one (given with -s or named as
 * its kernel), and the other way round. */
static void test_architecture(void)
{
	struct tk_symbol_query q = { .arch = UP_ARCH_AARCH64 };
	struct up_symtab *s = NULL;
	char *used = NULL;

	q.explicit_file = full;
	CHECK(tk_find_symbols(&q, &s, &used) == -1);
	if (access(arm64, R_OK) != 0) {
		printf("# %s not built (no cross compiler): AArch64 half skipped\n", arm64);
		return;
	}
	q.explicit_file = arm64;
	CHECK(tk_find_symbols(&q, &s, &used) == 0 && s != NULL);
	CHECK(used && strcmp(used, arm64) == 0);
	up_symtab_free(s);
	free(used);
	s = NULL;
	used = NULL;
	q.arch = UP_ARCH_X86_64;
	CHECK(tk_find_symbols(&q, &s, &used) == -1);
	q.explicit_file = NULL;
	q.kernel = arm64;
	CHECK(tk_find_symbols(&q, &s, &used) == -1);
	up_symtab_free(s);
	free(used);
}

/* A FIFO where a candidate is looked for (any name a kernel's directory
 * or its debug link gives) is passed over at once: opening it for reading
 * blocked the search, and a guest held for --paused, forever. In a child
 * under an alarm, so that the old behaviour fails rather than hangs. */
static void test_fifo_candidates(void)
{
	char k[600], fifo[700];
	pid_t pid;
	int st = 0;

	fresh("fifo", k, sizeof(k));
	snprintf(fifo, sizeof(fifo), "%s.debug", k);
	REQUIRE(mkfifo(fifo, 0600) == 0);
	sh("nm -n '%s' > '%s/fifo/System.map'", full, dir);
	pid = fork();
	REQUIRE(pid >= 0);
	if (pid == 0) {
		char *used = NULL;
		int ok;

		alarm(20);
		ok = find(k, NULL, false, "/nonexistent", &used) == 0 && used &&
		     strstr(used, "/fifo/System.map") != NULL;
		/* Named explicitly: an error, not a hang. */
		ok = ok && find(k, fifo, false, "/nonexistent", &used) == -1 &&
		     strstr(up_error_last(), "not a regular file") != NULL;
		_exit(ok ? 0 : 1);
	}
	REQUIRE(waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (WIFSIGNALED(st))
		fprintf(stderr, "  the search was killed by signal %d (blocked on the FIFO)\n",
			WTERMSIG(st));
}

int main(void)
{
	const char *b = getenv("top_builddir");

	snprintf(dir, sizeof(dir), "/tmp/uniprof-symfind-%d", (int)getpid());
	snprintf(full, sizeof(full), "%s/tests/guest/tg-fp.elf", b ? b : ".");
	snprintf(other, sizeof(other), "%s/tests/guest/tg-nofp.elf", b ? b : ".");
	snprintf(stripped, sizeof(stripped), "%s/stripped.elf", dir);
	snprintf(arm64, sizeof(arm64), "%s/tests/unit/fixture_arm64.elf", b ? b : ".");
	if (access(full, R_OK) != 0 || access(other, R_OK) != 0) {
		fprintf(stderr, "test guests missing: %s\n", full);
		return 1;
	}
	sh("mkdir -p '%s' && objcopy --strip-all '%s' '%s'", dir, full, stripped);
	RUN(test_kernel_with_symbols);
	RUN(test_order_beside);
	RUN(test_build_id_and_debuglink);
	RUN(test_debug_file_for_lines);
	RUN(test_build_id_mismatch);
	RUN(test_explicit_and_missing);
	RUN(test_wrong_width);
	RUN(test_architecture);
	RUN(test_fifo_candidates);
	sh("rm -rf '%s'", dir);
	TEST_MAIN_END();
}
