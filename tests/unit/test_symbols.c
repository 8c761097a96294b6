/* Symbol lookup: ELF (plain and gzip) checked against `nm -n` of the same
 * file, first/last/between/before-first addresses, nm maps, demangling and
 * malformed input. */
#include <unistd.h>
#include <zlib.h>

#include "util/elf_copy.h"
#include "guest.h"
#include "symbols/lookup_cache.h"
#include "test.h"
#include "private.h"

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

/* The hypercall page's stubs named in a finished table: each stub
 * replaces the symbol at its address (hypercall_page, an alias at a stub's
 * address), the others in the page and around it stay, and naming again
 * changes nothing. */
static void test_hypercall_stubs(void)
{
	static const char map[] =
		"0000000000010ff0 T before\n"
		"0000000000011000 T hypercall_page\n"
		"0000000000011011 t odd_inside\n"
		"0000000000011040 t stub_alias\n"
		"0000000000012000 T after\n"
		"0000000000012100 A _end\n";
	struct up_symtab *s;
	const struct up_symbol *sym;
	char name[128];

	REQUIRE(up_symtab_load_mem(&s, map, sizeof(map) - 1, "map") == 0);
	REQUIRE(up_symtab_count(s) == 5);
	for (int round = 0; round < 2; round++) {
		REQUIRE(up_symtab_name_hypercalls(s, 0x11000) == 0);
		CHECK(up_symtab_count(s) == 5 - 2 + 128);
		up_symtab_format(s, 0x11000, false, name, sizeof(name));
		CHECK_STR(name, "hypercall_page [set_trap_table]");
		up_symtab_format(s, 0x11011, false, name, sizeof(name));
		CHECK_STR(name, "odd_inside");
		up_symtab_format(s, 0x11045, false, name, sizeof(name));
		CHECK_STR(name, "hypercall_page [set_gdt]");
		up_symtab_format(s, 0x11fff, false, name, sizeof(name));
		CHECK_STR(name, "hypercall_page [#127]");
		sym = up_symtab_lookup(s, 0x10ff8);
		CHECK(sym && strcmp(sym->name, "before") == 0);
		sym = up_symtab_lookup(s, 0x12050);
		CHECK(sym && strcmp(sym->name, "after") == 0);
		for (size_t i = 1; i < up_symtab_count(s); i++)
			CHECK(up_symtab_symbol(s, i - 1)->addr < up_symtab_symbol(s, i)->addr);
	}
	CHECK(up_symtab_name_hypercalls(s, 0x11001) == UP_EINVAL);
	up_symtab_free(s);
}

/* A map in no order, over addresses that differ in every byte, with up
 * to three aliases an address: the table comes out in address order with
 * the best alias kept (global over weak over local, then the first
 * name), as a sort by (address, rank, name) then one per address gives. */
#define SHUFFLED 3000

static uint64_t shuffled_addr(unsigned i)
{
	/* Distinct (an odd multiplier is a bijection), spread over 64 bits. */
	return ((uint64_t)i + 1) * 0x9e3779b97f4a7c15ULL;
}

static void test_shuffled_aliases(void)
{
	static char map[SHUFFLED * 3 * 48];
	static unsigned order[SHUFFLED * 3];
	struct up_symtab *s;
	size_t len = 0, n = 0;
	uint64_t rng = 88172645463325252ULL, last = 0;

	for (unsigned i = 0; i < SHUFFLED; i++)
		for (unsigned kind = 0; kind < 3; kind++)
			if (kind == 0 || (i % 3) != kind)   /* some lack an alias */
				order[n++] = i * 3 + kind;
	for (size_t i = n; i > 1; i--) {            /* Fisher-Yates */
		size_t j;

		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		j = rng % i;
		unsigned t = order[i - 1];
		order[i - 1] = order[j];
		order[j] = t;
	}
	for (size_t k = 0; k < n; k++) {
		unsigned i = order[k] / 3, kind = order[k] % 3;

		len += (size_t)snprintf(map + len, sizeof(map) - len, "%016llx %c %c_%u\n",
					(unsigned long long)shuffled_addr(i), "tWT"[kind],
					"lwg"[kind], i);
	}
	REQUIRE(up_symtab_load_mem(&s, map, len, "shuffled") == 0);
	CHECK(up_symtab_count(s) == SHUFFLED);
	for (size_t k = 0; k < up_symtab_count(s) && !test_failures; k++) {
		const struct up_symbol *sym = up_symtab_symbol(s, k);
		unsigned i = 0;
		char want[32];

		CHECK(k == 0 || sym->addr > last);
		last = sym->addr;
		while (i < SHUFFLED && shuffled_addr(i) != sym->addr)
			i++;
		REQUIRE(i < SHUFFLED);
		/* i % 3 == 2: no global; == 1: no weak. */
		snprintf(want, sizeof(want), "%c_%u", i % 3 == 2 ? 'w' : 'g', i);
		CHECK_STR(sym->name, want);
		CHECK(up_symtab_lookup(s, sym->addr) == sym);
	}
	up_symtab_free(s);
}

/* An image past 1 MiB is parsed from a copy holding only its headers,
 * notes and tables (core/util/elf_copy.c): padded past that, the fixture
 * loads, identifies and maps as it does whole, and with its section
 * table pointed past its end it is refused without reading outside. */
#define PAD (2u << 20)

static void same_loads(const uint8_t *small, size_t small_len,
		       const uint8_t *big, size_t big_len)
{
	struct up_symtab *a, *b;
	struct up_elf_identity ia, ib;
	struct up_kernel_map *ka, *kb;
	uint64_t alo = 0, ahi = 0, blo = 0, bhi = 0;

	REQUIRE(up_symtab_load_mem(&a, small, small_len, "small") == 0);
	REQUIRE(up_symtab_load_mem(&b, big, big_len, "big") == 0);
	CHECK(up_symtab_count(a) == up_symtab_count(b));
	CHECK_STR(up_symtab_build_id(a), up_symtab_build_id(b));
	CHECK(up_symtab_has_source(a) == up_symtab_has_source(b));
	for (size_t i = 0; i < up_symtab_count(a) && i < up_symtab_count(b); i++) {
		CHECK(up_symtab_symbol(a, i)->addr == up_symtab_symbol(b, i)->addr);
		CHECK(up_symtab_symbol(a, i)->size == up_symtab_symbol(b, i)->size);
		CHECK_STR(up_symtab_symbol(a, i)->name, up_symtab_symbol(b, i)->name);
	}
	CHECK(up_elf_identify_mem(small, small_len, "small", &ia) == 0);
	CHECK(up_elf_identify_mem(big, big_len, "big", &ib) == 0);
	CHECK_STR(ia.build_id, ib.build_id);
	CHECK_STR(ia.debuglink, ib.debuglink);
	CHECK(ia.machine == ib.machine && ia.width == ib.width &&
	      ia.has_symtab == ib.has_symtab);
	REQUIRE(up_kernel_map_load_mem(&ka, small, small_len, "small", a) == 0);
	REQUIRE(up_kernel_map_load_mem(&kb, big, big_len, "big", b) == 0);
	CHECK(up_kernel_map_text_ranges(ka) == up_kernel_map_text_ranges(kb));
	CHECK(up_kernel_map_entries(ka) == up_kernel_map_entries(kb));
	CHECK(up_kernel_map_hypercall_page(ka) == up_kernel_map_hypercall_page(kb));
	CHECK(up_kernel_map_text_span(ka, &alo, &ahi) == up_kernel_map_text_span(kb, &blo, &bhi));
	CHECK(alo == blo && ahi == bhi);
	up_kernel_map_free(ka);
	up_kernel_map_free(kb);
	up_symtab_free(a);
	up_symtab_free(b);
}

static void test_large_image(void)
{
	uint8_t *small, *big;
	size_t len;
	struct up_symtab *s = NULL;
	struct up_elf_identity id;
	struct up_kernel_map *k = NULL;
	uint64_t shoff;
	uint16_t shnum;

	big = tg_padded_file(fixture, PAD, 0xa5, &small, &len);
	REQUIRE(big != NULL);
	same_loads(small, len, big, len + PAD);
	/* Every section placed past the end but one, which runs from 16
	 * bytes before it for 2^40: the copy takes those 16 bytes and no
	 * more (ASan sees any read past the image), libelf refuses them. */
	memcpy(&shoff, big + 40, sizeof(shoff));          /* e_shoff */
	memcpy(&shnum, big + 60, sizeof(shnum));          /* e_shnum */
	REQUIRE(shoff < len && shnum * 64u <= len - shoff);
	for (uint64_t off = shoff + 64; off < shoff + shnum * 64u; off += 64) {
		uint64_t past = len + PAD + 4096, huge = (uint64_t)1 << 40;

		if (off == shoff + 64)
			past = len + PAD - 16;
		memcpy(big + off + 24, &past, sizeof(past));   /* sh_offset */
		memcpy(big + off + 32, &huge, sizeof(huge));   /* sh_size */
	}
	CHECK(up_symtab_load_mem(&s, big, len + PAD, "huge") < 0);
	if (up_elf_identify_mem(big, len + PAD, "huge", &id) == 0)
		CHECK(id.build_id[0] == '\0');
	if (up_kernel_map_load_mem(&k, big, len + PAD, "huge", NULL) == 0)
		up_kernel_map_free(k);
	free(small);
	free(big);
}

/* The image cut short at every few bytes, spoilt 32 bytes at a time,
 * and with sections that wrap
 * past the top of the address space, through the part copy (its limits
 * lowered: the fixture is small) and through the whole copy: each load
 * refuses the same inputs, saying why, or gives the same table; ASan
 * sees any read past the cut. */
static int load_all(const uint8_t *buf, size_t len, size_t *count)
{
	struct up_symtab *s = NULL;
	struct up_elf_identity id;
	struct up_kernel_map *k = NULL;
	int rc;

	up_error_clear();
	rc = up_symtab_load_mem(&s, buf, len, "cut");
	CHECK(rc == 0 ? s != NULL : up_error_last()[0] != '\0');
	*count = rc == 0 ? up_symtab_count(s) : 0;
	if (up_elf_identify_mem(buf, len, "cut", &id) == 0)
		rc = rc * 2 + (id.build_id[0] != '\0');
	if (up_kernel_map_load_mem(&k, buf, len, "cut", s) == 0) {
		rc = rc * 2 + 1;
		up_kernel_map_free(k);
	}
	up_symtab_free(s);
	return rc;
}

static void test_truncated_parts(void)
{
	const struct elf_copy_limits saved = elf_copy_limits;
	uint8_t *img, *cut;
	size_t len;
	uint64_t shoff;
	uint16_t shnum;

	REQUIRE(up_file_read(fixture, &img, &len) == 0);
	/* Cut, or spoilt where the section table survives and the part
	 * copy is taken. */
	for (size_t n = 0; n < 2 * len && !test_failures; n += n < 128 ? 1 : n <= len ? 61 : 29) {
		size_t size, whole_count, parts_count;
		int whole, parts;

		cut = tg_spoilt_image(img, len, n, &size);
		REQUIRE(cut != NULL);
		elf_copy_limits = saved;
		whole = load_all(cut, size, &whole_count);
		elf_copy_limits = (struct elf_copy_limits){ 0, true };
		parts = load_all(cut, size, &parts_count);
		CHECK(whole == parts && whole_count == parts_count);
		free(cut);
	}
	/* Sections running past the end and wrapping around 2^64. */
	memcpy(&shoff, img + 40, sizeof(shoff));
	memcpy(&shnum, img + 60, sizeof(shnum));
	REQUIRE(shoff < len && shnum >= 3 && shnum * 64u <= len - shoff);
	for (unsigned i = 1; i < shnum; i++) {
		uint64_t off = i % 2 ? UINT64_MAX - 15 : len - 16, size = UINT64_MAX;

		memcpy(img + shoff + i * 64u + 24, &off, sizeof(off));
		memcpy(img + shoff + i * 64u + 32, &size, sizeof(size));
	}
	{
		size_t count;
		struct up_symtab *s = NULL;

		elf_copy_limits = (struct elf_copy_limits){ 0, true };
		CHECK(up_symtab_load_mem(&s, img, len, "wrapping") < 0);
		CHECK(up_error_last()[0] != '\0');
		load_all(img, len, &count);
		CHECK(count == 0);
	}
	elf_copy_limits = saved;
	free(img);
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
	RUN(test_hypercall_stubs);
	RUN(test_shuffled_aliases);
	RUN(test_large_image);
	RUN(test_truncated_parts);
	RUN(test_malformed);
	TEST_MAIN_END();
}
