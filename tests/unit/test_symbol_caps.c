/* Bounded symbol loading on hostile files (issue 11: H2, S1, M1, M3, E1
 * and the table caps): a demangler bomb, a gzip bomb, nm names that are
 * long or hold a NUL, a symbol at the top of the address space, more
 * symbols than the cap. */
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "symbols/table_impl.h"
#include "test.h"
#include "uniprof/uniprof.h"

TEST_GLOBALS;

static long peak_rss_mib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss / 1024;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct up_symtab *load_map(const char *map, size_t len)
{
	struct up_symtab *s = NULL;

	if (up_symtab_load_mem(&s, map, len, "map") < 0)
		fprintf(stderr, "%s: %s\n", test_current, up_error_last());
	return s;
}

static const char *name_at(const struct up_symtab *s, uint64_t addr)
{
	const struct up_symbol *sym = up_symtab_lookup(s, addr);

	return sym ? sym->name : NULL;
}

/* The substitution S<seq>_ (seq 0 is S_, then base 36). */
static int seq_ref(char *out, unsigned i)
{
	static const char digits[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	char tmp[8];
	int n = 0, k = 0;

	if (i == 0)
		return sprintf(out, "S_");
	i--;
	do {
		tmp[n++] = digits[i % 36];
		i /= 36;
	} while (i);
	out[k++] = 'S';
	while (n)
		out[k++] = tmp[--n];
	out[k++] = '_';
	out[k] = '\0';
	return k;
}

/* f(A, A<A,A>, A<A<A,A>,A<A,A>>, ...): each parameter repeats the one
 * before twice, so `levels` parameters demangle to ~2^levels characters
 * from ~10 bytes each. */
static void demangler_bomb(char *out, unsigned levels)
{
	char ref[8];
	int n = sprintf(out, "_Z1f1AS_IS_S_E");

	for (unsigned k = 2; k < levels; k++) {
		seq_ref(ref, k - 1);
		n += sprintf(out + n, "S_I%s%sE", ref, ref);
	}
}

/* H2: 26 levels (254 bytes) demangle to 436 MB in seconds; the name is
 * kept mangled, the names around it are still demangled. */
static void test_demangler_bomb(void)
{
	char bomb[512], map[1024];
	struct up_symtab *s;
	long rss = peak_rss_mib();
	double t0 = now();
	int n;

	demangler_bomb(bomb, 26);
	n = snprintf(map, sizeof(map),
		     "0000000000001000 T _ZN3foo3barEv\n"
		     "0000000000002000 T %s\n"
		     "0000000000003000 T _Z3bazi\n"
		     "0000000000004000 T _Z3quxv\n", bomb);
	s = load_map(map, (size_t)n);
	REQUIRE(s != NULL);
	CHECK_STR(name_at(s, 0x1000), "foo::bar()");
	CHECK_STR(name_at(s, 0x2000), bomb);
	CHECK_STR(name_at(s, 0x3000), "baz(int)");
	CHECK_STR(name_at(s, 0x4000), "qux()");
	CHECK(up_symtab_warning(s) &&
	      strstr(up_symtab_warning(s), "1 C++ names not demangled"));
	CHECK(peak_rss_mib() - rss < 128);
	CHECK(now() - t0 < 30);         /* ~0.5 s; before: minutes */
	up_symtab_free(s);
}

/* A demangled name over 4 KiB (but quick) is kept mangled too. */
static void test_demangled_too_long(void)
{
	char bomb[512], map[1024];
	struct up_symtab *s;
	int n;

	demangler_bomb(bomb, 14);       /* ~30 KB demangled, instantly */
	n = snprintf(map, sizeof(map), "0000000000002000 T %s\n", bomb);
	s = load_map(map, (size_t)n);
	REQUIRE(s != NULL);
	CHECK_STR(name_at(s, 0x2000), bomb);
	CHECK(up_symtab_warning(s) != NULL);
	up_symtab_free(s);
}

/* S1: 400 MiB of zeros gzip to 400 KiB; at most 64 MiB (32x, at least
 * 64 MiB) is inflated before the load stops with one line. The RSS bound
 * leaves room for ASan keeping the freed smaller buffers. */
static void test_gzip_bomb(void)
{
	char path[] = "/tmp/uniprof-gzbomb-XXXXXX";
	int fd = mkstemp(path);
	gzFile gz = gzdopen(fd, "wb1");
	static char zeros[1 << 20];
	struct up_symtab *s = NULL;
	long rss;

	REQUIRE(gz != NULL);
	for (int i = 0; i < 400; i++)
		gzwrite(gz, zeros, sizeof(zeros));
	gzclose(gz);
	rss = peak_rss_mib();
	CHECK(up_symtab_load(&s, path) == UP_EFORMAT);
	CHECK(strstr(up_error_last(), "decompression bomb") != NULL);
	CHECK(peak_rss_mib() - rss < 200);
	unlink(path);
}

/* M1: long names are kept (cut at 4 KiB) and own their code; ten of them
 * do not make the map "not an nm map". */
static void test_nm_long_names(void)
{
	size_t cap = 200000, n = 0;
	char *map = malloc(cap), *longname = malloc(6000);
	struct up_symtab *s;

	memset(longname, 'x', 5999);
	longname[5999] = '\0';
	n += (size_t)sprintf(map + n, "0000000000001000 T short_one\n");
	for (int i = 0; i < 10; i++)
		n += (size_t)sprintf(map + n, "%016x T %d%.*s\n", 0x2000 + i * 0x100,
				     i, 1500 + i * 100, longname);
	n += (size_t)sprintf(map + n, "0000000000003000 T %s\n", longname);
	n += (size_t)sprintf(map + n, "0000000000004000 T short_two\n");
	s = load_map(map, n);
	REQUIRE(s != NULL);
	CHECK(up_symtab_count(s) == 13);
	CHECK_STR(name_at(s, 0x1000), "short_one");
	CHECK(name_at(s, 0x2010) && strlen(name_at(s, 0x2010)) == 1501 &&
	      name_at(s, 0x2010)[0] == '0');
	CHECK(name_at(s, 0x3010) && strlen(name_at(s, 0x3010)) == 4096);
	CHECK_STR(name_at(s, 0x4000), "short_two");
	CHECK(up_symtab_warning(s) &&
	      strstr(up_symtab_warning(s), "1 names longer than 4096 bytes"));
	up_symtab_free(s);
	free(map);
	free(longname);
}

/* M3: a NUL inside a name does not make it another (shorter) name. */
static void test_nm_nul_in_name(void)
{
	static const char map[] = "0000000000001000 T foo\0bar\n"
				  "0000000000002000 T foo\n";
	struct up_symtab *s = load_map(map, sizeof(map) - 1);

	REQUIRE(s != NULL);
	CHECK_STR(name_at(s, 0x1000), "foo?bar");
	CHECK_STR(name_at(s, 0x2000), "foo");
	up_symtab_free(s);
}

/* E1: the last unsized symbol in the top page of the address space. */
static void test_top_of_address_space(void)
{
	static const char map[] = "ffffffff80000000 T low\n"
				  "fffffffffffff800 T top\n";
	struct up_symtab *s = load_map(map, sizeof(map) - 1);

	REQUIRE(s != NULL);
	CHECK_STR(name_at(s, 0xfffffffffffff800ULL), "top");
	CHECK_STR(name_at(s, 0xfffffffffffff900ULL), "top");
	CHECK_STR(name_at(s, 0xffffffff80000010ULL), "low");
	up_symtab_free(s);
}

/* Past the symbol cap the rest is left out, with one line. */
static void test_symbol_cap(void)
{
	struct symtab_limits saved = symtab_limits;
	char map[4096];
	size_t n = 0;
	struct up_symtab *s;

	for (int i = 0; i < 100; i++)
		n += (size_t)sprintf(map + n, "%016x T f%d\n", 0x1000 + i * 16, i);
	symtab_limits.symbols = 50;
	s = load_map(map, n);
	symtab_limits = saved;
	REQUIRE(s != NULL);
	CHECK(up_symtab_count(s) == 50);
	CHECK(up_symtab_warning(s) &&
	      strstr(up_symtab_warning(s), "more than 50 symbols"));
	up_symtab_free(s);
}

/* Demangled names count against the name cap too. */
static void test_demangle_budget(void)
{
	static const char map[] = "0000000000001000 T _ZN3foo3barEv\n"
				  "0000000000002000 T _Z3bazi\n"
				  "0000000000003000 T _Z3quxv\n";
	struct symtab_limits saved = symtab_limits;
	struct up_symtab *s;

	symtab_limits.name_bytes = 30 + 11;     /* mangled, "foo::bar()" */
	s = load_map(map, sizeof(map) - 1);
	symtab_limits = saved;
	REQUIRE(s != NULL);
	CHECK_STR(name_at(s, 0x1000), "foo::bar()");
	CHECK_STR(name_at(s, 0x2000), "_Z3bazi");
	CHECK_STR(name_at(s, 0x3000), "_Z3quxv");
	CHECK(up_symtab_warning(s) &&
	      strstr(up_symtab_warning(s), "2 C++ names not demangled"));
	up_symtab_free(s);
}

int main(void)
{
	RUN(test_demangler_bomb);
	RUN(test_demangled_too_long);
	RUN(test_gzip_bomb);
	RUN(test_nm_long_names);
	RUN(test_nm_nul_in_name);
	RUN(test_top_of_address_space);
	RUN(test_symbol_cap);
	RUN(test_demangle_budget);
	TEST_MAIN_END();
}
