/* Symbol lookup: ELF (plain and gzip) checked against `nm -n` of the same
 * file, first/last/between/before-first addresses, nm maps, demangling and
 * malformed input. */
#include <unistd.h>
#include <zlib.h>

#include "guest.h"
#include "symbols/lookup_cache.h"
#include "test.h"

TEST_GLOBALS;

static char fixture[4096];

static const struct up_symbol *find(const struct up_symtab *s, const char *name)
{
	for (size_t i = 0; i < up_symtab_count(s); i++)
		if (strcmp(up_symtab_symbol(s, i)->name, name) == 0)
			return up_symtab_symbol(s, i);
	return NULL;
}

static void test_elf_against_nm(void)
{
	struct up_symtab *s;
	char cmd[4200], line[1024];
	unsigned checked = 0;
	FILE *p;

	REQUIRE(up_symtab_load(&s, fixture) == 0);
	CHECK(up_symtab_format_of(s) == UP_SYMTAB_ELF);
	CHECK(up_symtab_elf_machine(s) == 62);   /* EM_X86_64 */
	CHECK(up_symtab_elf_width(s) == 8);
	CHECK(up_symtab_build_id(s) && strlen(up_symtab_build_id(s)) == 40);
	snprintf(cmd, sizeof(cmd), "nm -n '%s'", fixture);
	p = popen(cmd, "r");
	REQUIRE(p != NULL);
	while (fgets(line, sizeof(line), p)) {
		unsigned long long addr;
		char type, name[512];
		const struct up_symbol *sym;

		if (sscanf(line, "%llx %c %511s", &addr, &type, name) != 3 ||
		    strncmp(name, "fx_", 3) != 0)
			continue;
		sym = up_symtab_lookup(s, addr);
		CHECK(sym != NULL && strcmp(sym->name, name) == 0);
		checked++;
	}
	pclose(p);
	CHECK(checked == 3);
	up_symtab_free(s);
}

static void test_lookup_edges(void)
{
	struct up_symtab *s;
	const struct up_symbol *a, *first, *last;
	char buf[128];

	REQUIRE(up_symtab_load(&s, fixture) == 0);
	a = find(s, "fx_alpha");
	REQUIRE(a && a->size > 0);
	CHECK(up_symtab_lookup(s, a->addr) == a);
	CHECK(up_symtab_lookup(s, a->addr + a->size - 1) == a);
	CHECK(up_symtab_lookup(s, a->addr + a->size) != a);
	first = up_symtab_symbol(s, 0);
	last = up_symtab_symbol(s, up_symtab_count(s) - 1);
	CHECK(up_symtab_lookup(s, first->addr) == first);
	CHECK(up_symtab_lookup(s, first->addr - 1) == NULL);   /* before first */
	CHECK(up_symtab_lookup(s, 0) == NULL);
	CHECK(up_symtab_lookup(s, last->addr) == last);
	CHECK(up_symtab_lookup(s, last->addr + (last->size ? last->size : 0x100000)) == NULL);
	CHECK(up_symtab_lookup(s, UINT64_MAX) == NULL);
	up_symtab_format(s, a->addr + 2, true, buf, sizeof(buf));
	CHECK_STR(buf, "fx_alpha+0x2");
	up_symtab_format(s, a->addr + 2, false, buf, sizeof(buf));
	CHECK_STR(buf, "fx_alpha");
	up_symtab_format(s, 0x10, true, buf, sizeof(buf));
	CHECK_STR(buf, "0x10");
	up_symtab_free(s);
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The writers' lookups, resolved in one walk (dense: every edge of every
 * symbol; sparse: a few far apart), answer as the binary search does. */
static void check_warmed(struct up_symtab *s, size_t every)
{
	size_t n = 0, cap = 4 * up_symtab_count(s) + 4, m = 0;
	uint64_t *pcs = malloc(cap * sizeof(*pcs));

	REQUIRE(pcs != NULL);
	for (size_t i = 0; i < up_symtab_count(s); i += every) {
		const struct up_symbol *y = up_symtab_symbol(s, i);

		pcs[n++] = y->addr - 1;
		pcs[n++] = y->addr;
		pcs[n++] = y->addr + (y->size ? y->size - 1 : 1);
		pcs[n++] = y->addr + (y->size ? y->size : 0x100000);
	}
	pcs[n++] = 0;
	pcs[n++] = UINT64_MAX;
	qsort(pcs, n, sizeof(*pcs), u64_cmp);
	for (size_t i = 0; i < n; i++)
		if (m == 0 || pcs[m - 1] != pcs[i])
			pcs[m++] = pcs[i];
	symtab_warm(s, pcs, m, true);
	for (size_t i = 0; i < m; i++) {
		CHECK(symtab_cached(s, pcs[i]));
		CHECK(symtab_lookup_cached(s, pcs[i]) == up_symtab_lookup(s, pcs[i]));
	}
	/* A new pass forgets them; lookups stay right. */
	up_symtab_source_new_pass(s);
	CHECK(!symtab_cached(s, pcs[0]));
	for (size_t i = 0; i < m; i++)
		CHECK(symtab_lookup_cached(s, pcs[i]) == up_symtab_lookup(s, pcs[i]));
	free(pcs);
}

static void test_gzip_image(void)
{
	struct up_symtab *plain, *gz;
	char path[] = "/tmp/uniprof-test-XXXXXX";
	int fd = mkstemp(path);
	gzFile out;
	FILE *in;
	char buf[8192];
	size_t n;

	REQUIRE(fd >= 0);
	close(fd);
	in = fopen(fixture, "rb");
	out = gzopen(path, "wb");
	REQUIRE(in && out);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		gzwrite(out, buf, (unsigned)n);
	fclose(in);
	gzclose(out);
	REQUIRE(up_symtab_load(&plain, fixture) == 0);
	CHECK(up_symtab_load(&gz, path) == 0);
	if (!test_failures) {
		CHECK(up_symtab_count(gz) == up_symtab_count(plain));
		CHECK_STR(up_symtab_build_id(gz), up_symtab_build_id(plain));
		CHECK(find(gz, "fx_beta") != NULL);
		CHECK(find(gz, "fx_beta")->addr == find(plain, "fx_beta")->addr);
		up_symtab_free(gz);
	}
	up_symtab_free(plain);
	unlink(path);
}

static const char nm_map[] =
	"ffffffff80000000 T _start\n"
	"ffffffff80000040 t helper\n"
	"ffffffff80000100 D some_data\n"       /* not code: skipped */
	"ffffffff80000080 T _ZN3net6Socket4sendEPKcm\n"
	"ffffffff80000080 W send_alias\n"       /* weaker alias */
	"ffffffff800000c0 T last_func\n"
	"ffffffff80000200 B _end\n";

static void test_nm_map(void)
{
	struct up_symtab *s;
	const struct up_symbol *sym;

	REQUIRE(up_symtab_load_mem(&s, nm_map, sizeof(nm_map) - 1, "map") == 0);
	CHECK(up_symtab_format_of(s) == UP_SYMTAB_NM);
	CHECK(up_symtab_count(s) == 4);
	CHECK(up_symtab_build_id(s) == NULL);
	CHECK(up_symtab_lookup(s, 0xffffffff7fffffffULL) == NULL);
	sym = up_symtab_lookup(s, 0xffffffff80000000ULL);
	CHECK(sym && strcmp(sym->name, "_start") == 0);
	sym = up_symtab_lookup(s, 0xffffffff8000007fULL);
	CHECK(sym && strcmp(sym->name, "helper") == 0);
	sym = up_symtab_lookup(s, 0xffffffff80000090ULL);
	CHECK(sym && strcmp(sym->name, "net::Socket::send(char const*, unsigned long)") == 0);
	sym = up_symtab_lookup(s, 0xffffffff800001ffULL);   /* up to _end */
	CHECK(sym && strcmp(sym->name, "last_func") == 0);
	CHECK(up_symtab_lookup(s, 0xffffffff80000200ULL) == NULL);
	up_symtab_free(s);
}

static void test_warmed_lookups(void)
{
	struct up_symtab *s;

	REQUIRE(up_symtab_load(&s, fixture) == 0);
	check_warmed(s, 1);
	up_symtab_free(s);
	REQUIRE(up_symtab_load(&s, fixture) == 0);
	check_warmed(s, up_symtab_count(s) / 3 + 1);
	up_symtab_free(s);
	REQUIRE(up_symtab_load_mem(&s, nm_map, sizeof(nm_map) - 1, "map") == 0);
	check_warmed(s, 1);
	up_symtab_free(s);
}

static void test_malformed(void)
{
	struct up_symtab *s = NULL;
	static const char junk[] = "this is\nnot a\nsymbol map\nat all\n"
				   "x\ny\nz\nw\nv\nu\n";
	static const char data_only[] = "0000000000001000 D data\n";
	char elfjunk[256];

	CHECK(up_symtab_load_mem(&s, junk, sizeof(junk) - 1, "junk") == UP_EFORMAT);
	CHECK(strstr(up_error_last(), "junk") != NULL);
	CHECK(up_symtab_load_mem(&s, data_only, sizeof(data_only) - 1, "d") == UP_EFORMAT);
	CHECK(up_symtab_load_mem(&s, "", 0, "empty") == UP_EFORMAT);
	memset(elfjunk, 0xff, sizeof(elfjunk));
	memcpy(elfjunk, "\177ELF", 4);
	CHECK(up_symtab_load_mem(&s, elfjunk, sizeof(elfjunk), "bad.elf") < 0);
	CHECK(up_symtab_load(&s, "/nonexistent/kernel") == UP_ENOENT);
	CHECK(strstr(up_error_last(), "/nonexistent/kernel") != NULL);
}

int main(int argc, char **argv)
{
	const char *dir = getenv("top_builddir");

	(void)argc;
	snprintf(fixture, sizeof(fixture), "%s/tests/unit/fixture_symbols",
		 dir ? dir : ".");
	if (access(fixture, R_OK) != 0) {
		fprintf(stderr, "%s: fixture %s missing\n", argv[0], fixture);
		return 1;
	}
	RUN(test_elf_against_nm);
	RUN(test_lookup_edges);
	RUN(test_warmed_lookups);
	RUN(test_gzip_image);
	RUN(test_nm_map);
	RUN(test_malformed);
	TEST_MAIN_END();
}
