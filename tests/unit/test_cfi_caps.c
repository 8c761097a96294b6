/* Bounded CFI compile on hostile images (issue 11: H5, H3, H4): small
 * crafted ELF files whose .eh_frame would make libdw allocate gigabytes
 * (a huge register number), multiply rows (duplicate FDEs) or run in
 * quadratic time (one FDE of many rows). Each is checked by what the table
 * says (counts, rows) and by the peak RSS the load added. */
#include <elf.h>
#include <sys/resource.h>

#include "unwind/cfi_table.h"
#include "unwind/eh_frame.h"
#include "test.h"
#include "uniprof/uniprof.h"
#include "private.h"

TEST_GLOBALS;

#define EH_ADDR 0x400000ULL
#define HDR_ADDR 0x500000ULL

struct buf {
	uint8_t *b;
	size_t n, cap;
};

static void put(struct buf *s, const void *p, size_t n)
{
	if (n == 0)
		return;
	if (s->n + n > s->cap) {
		s->cap = (s->n + n) * 2;
		s->b = realloc(s->b, s->cap);
	}
	memcpy(s->b + s->n, p, n);
	s->n += n;
}

static void put8(struct buf *s, uint8_t v) { put(s, &v, 1); }
static void put32(struct buf *s, uint32_t v) { put(s, &v, 4); }
static void put64(struct buf *s, uint64_t v) { put(s, &v, 8); }

static void patch_length(struct buf *s, size_t start)
{
	uint32_t l;

	while ((s->n - start) % 4)
		put8(s, 0);                     /* DW_CFA_nop */
	l = (uint32_t)(s->n - start - 4);
	memcpy(s->b + start, &l, 4);
}

/* CFA = rsp + 8, RA at CFA - 8 (x86_64 at a call), then extra. */
static const uint8_t cie_std[] = { 0x0c, 7, 8, 0x90, 1 };

/* A CIE "zR" with absolute 8-byte FDE addresses; returns its offset. */
static size_t put_cie(struct buf *s, const uint8_t *extra, size_t n)
{
	size_t start = s->n;

	put32(s, 0);
	put32(s, 0);                    /* CIE id */
	put(s, "\1zR", 4);              /* version 1, "zR" */
	put8(s, 1);                     /* code align */
	put8(s, 0x78);                  /* data align -8 */
	put8(s, 16);                    /* return address: rip */
	put8(s, 1);                     /* augmentation length */
	put8(s, 0x04);                  /* udata8 */
	put(s, cie_std, sizeof(cie_std));
	put(s, extra, n);
	patch_length(s, start);
	return start;
}

static size_t put_fde(struct buf *s, size_t cie, uint64_t pc, uint64_t len,
		      const uint8_t *ins, size_t n)
{
	size_t start = s->n;

	put32(s, 0);
	put32(s, (uint32_t)(s->n - cie));       /* CIE pointer */
	put64(s, pc);
	put64(s, len);
	put8(s, 0);                             /* augmentation length */
	put(s, ins, n);
	patch_length(s, start);
	return start;
}

/* ELF64 x86_64 with .eh_frame at EH_ADDR and, if given, .eh_frame_hdr. */
static struct buf make_elf(const struct buf *eh, const struct buf *hdr)
{
	static const char names[] = "\0.eh_frame\0.eh_frame_hdr\0.shstrtab";
	struct buf e = { 0 };
	Elf64_Ehdr eh64 = { .e_ident = { 0x7f, 'E', 'L', 'F', ELFCLASS64,
					 ELFDATA2LSB, EV_CURRENT } };
	Elf64_Shdr sh[4] = { { 0 } };
	size_t eh_off, hdr_off = 0, names_off;
	unsigned n = 0;

	put(&e, &eh64, sizeof(eh64));
	eh_off = e.n;
	put(&e, eh->b, eh->n);
	if (hdr) {
		hdr_off = e.n;
		put(&e, hdr->b, hdr->n);
	}
	names_off = e.n;
	put(&e, names, sizeof(names));
	while (e.n % 8)
		put8(&e, 0);
	sh[++n] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_PROGBITS,
				.sh_flags = SHF_ALLOC, .sh_addr = EH_ADDR,
				.sh_offset = eh_off, .sh_size = eh->n,
				.sh_addralign = 8 };
	if (hdr)
		sh[++n] = (Elf64_Shdr){ .sh_name = 11, .sh_type = SHT_PROGBITS,
					.sh_flags = SHF_ALLOC, .sh_addr = HDR_ADDR,
					.sh_offset = hdr_off, .sh_size = hdr->n,
					.sh_addralign = 4 };
	sh[++n] = (Elf64_Shdr){ .sh_name = 25, .sh_type = SHT_STRTAB,
				.sh_offset = names_off, .sh_size = sizeof(names),
				.sh_addralign = 1 };
	eh64.e_type = ET_EXEC;
	eh64.e_machine = EM_X86_64;
	eh64.e_version = EV_CURRENT;
	eh64.e_ehsize = sizeof(eh64);
	eh64.e_shentsize = sizeof(Elf64_Shdr);
	eh64.e_shnum = (uint16_t)(n + 1);
	eh64.e_shstrndx = (uint16_t)n;
	eh64.e_shoff = e.n;
	put(&e, sh, (n + 1) * sizeof(Elf64_Shdr));
	memcpy(e.b, &eh64, sizeof(eh64));
	return e;
}

static long peak_rss_mib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss / 1024;
}

/* With UNIPROF_TEST_DUMP=DIR, each crafted image is also written there
 * (to measure other builds with, or to seed a fuzzer). */
static void dump(const struct buf *elf)
{
	static unsigned seq;
	const char *dir = getenv("UNIPROF_TEST_DUMP");
	char path[4096];
	FILE *f;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/%s-%u.elf", dir, test_current, seq++);
	f = fopen(path, "wb");
	if (f) {
		fwrite(elf->b, 1, elf->n, f);
		fclose(f);
	}
}

/* Load; the peak RSS may grow by at most `mib` on the way. */
static struct up_cfi_table *load(const struct buf *elf, long mib)
{
	struct up_cfi_table *t = NULL;
	long before = peak_rss_mib();

	dump(elf);
	if (up_cfi_table_load_mem(&t, elf->b, elf->n, "crafted") < 0)
		fprintf(stderr, "%s: load: %s\n", test_current, up_error_last());
	CHECK(peak_rss_mib() - before <= mib);
	return t;
}

/* An offset rule for a register numbered in the millions: libdw would
 * size each row's frame state by it (16 bytes a register). */
static const uint8_t huge_reg[] = { 0x41, 0x05, 0xff, 0xff, 0xff, 0x07, 1 };
static const uint8_t one_row[] = { 0x41, 0x0e, 16 };
static const uint8_t other_row[] = { 0x41, 0x0e, 24 };

/* The row at pc came from the vetted FDE (CFA offset 16, not 24). */
static bool from_vetted(const struct up_cfi_table *t, uint64_t pc)
{
	const struct cfi_row *r = cfi_table_find(t, pc);

	return r && r->kind == CFI_ROW_NORMAL && r->cfa_off == 16;
}

/* H5: the FDE naming the register is refused before libdw sees it; the
 * clean one beside it compiles. */
static void test_huge_register(void)
{
	struct buf eh = { 0 }, elf;
	size_t cie = put_cie(&eh, NULL, 0);
	struct up_cfi_table *t;

	put_fde(&eh, cie, 0x1000, 0x10, huge_reg, sizeof(huge_reg));
	put_fde(&eh, cie, 0x2000, 0x10, one_row, sizeof(one_row));
	put32(&eh, 0);
	elf = make_elf(&eh, NULL);
	t = load(&elf, 64);
	REQUIRE(t != NULL);
	CHECK(t->info.refused_fdes == 1);
	CHECK(strstr(t->info.warning, "DWARF register") != NULL);
	CHECK(cfi_table_find(t, 0x1000) == NULL);
	CHECK(cfi_table_find(t, 0x2000) != NULL);
	up_cfi_table_free(t);

	/* In the CIE: every FDE of it is refused. */
	eh.n = 0;
	cie = put_cie(&eh, huge_reg + 1, sizeof(huge_reg) - 1);
	put_fde(&eh, cie, 0x1000, 0x10, one_row, sizeof(one_row));
	put_fde(&eh, put_cie(&eh, NULL, 0), 0x2000, 0x10, one_row, sizeof(one_row));
	put32(&eh, 0);
	free(elf.b);
	elf = make_elf(&eh, NULL);
	t = load(&elf, 64);
	REQUIRE(t != NULL);
	CHECK(t->info.refused_fdes == 1);
	CHECK(cfi_table_find(t, 0x2000) != NULL);
	up_cfi_table_free(t);

	/* Nothing else: the error says why there is no table. */
	eh.n = 0;
	put_fde(&eh, put_cie(&eh, NULL, 0), 0x1000, 0x10, huge_reg, sizeof(huge_reg));
	put32(&eh, 0);
	free(elf.b);
	elf = make_elf(&eh, NULL);
	CHECK(up_cfi_table_load_mem(&t, elf.b, elf.n, "crafted") == UP_ENOENT);
	CHECK(strstr(up_error_last(), "1 FDEs refused (first: DWARF register 16777215 (above 255))") != NULL);
	free(elf.b);
	free(eh.b);
}

/* H5, through libdw's own lookup: a refused FDE listed first for the same
 * range, or one off the chain that the image's .eh_frame_hdr points at,
 * must never be the one libdw interprets. */
static void test_libdw_finds_only_vetted(void)
{
	struct buf eh = { 0 }, hdr = { 0 }, elf;
	struct up_cfi_table *t;
	size_t cie, evil;

	/* Refused duplicate first. */
	cie = put_cie(&eh, NULL, 0);
	put_fde(&eh, put_cie(&eh, huge_reg + 1, sizeof(huge_reg) - 1),
		0x1000, 0x10, other_row, sizeof(other_row));
	put_fde(&eh, cie, 0x1000, 0x10, one_row, sizeof(one_row));
	put32(&eh, 0);
	elf = make_elf(&eh, NULL);
	t = load(&elf, 64);
	REQUIRE(t != NULL);
	CHECK(t->info.rows == 2);
	CHECK(from_vetted(t, 0x1001));
	up_cfi_table_free(t);
	free(elf.b);

	/* Off the chain (after the terminator), found by the search table. */
	eh.n = 0;
	cie = put_cie(&eh, NULL, 0);
	put_fde(&eh, cie, 0x1000, 0x10, one_row, sizeof(one_row));
	put32(&eh, 0);
	cie = put_cie(&eh, huge_reg + 1, sizeof(huge_reg) - 1);
	evil = put_fde(&eh, cie, 0x1000, 0x10, other_row, sizeof(other_row));
	put8(&hdr, 1);                          /* version */
	put8(&hdr, 0x1b);                       /* eh_frame_ptr: pcrel sdata4 */
	put8(&hdr, 0x03);                       /* count: udata4 */
	put8(&hdr, 0x3b);                       /* table: datarel sdata4 */
	put32(&hdr, (uint32_t)(EH_ADDR - (HDR_ADDR + 4)));
	put32(&hdr, 1);
	put32(&hdr, (uint32_t)(0x1000 - HDR_ADDR));
	put32(&hdr, (uint32_t)(EH_ADDR + evil - HDR_ADDR));
	elf = make_elf(&eh, &hdr);
	t = load(&elf, 64);
	REQUIRE(t != NULL);
	CHECK(from_vetted(t, 0x1001));
	up_cfi_table_free(t);
	free(elf.b);
	free(hdr.b);
	free(eh.b);
}

/* A program of `rows` rows alternating CFA offsets 16 and 8. */
static uint8_t *many_rows(size_t rows, size_t *n)
{
	uint8_t *p = malloc(rows * 3);

	for (size_t i = 0; i < rows; i++) {
		p[3 * i] = 0x41;                /* advance_loc 1 */
		p[3 * i + 1] = 0x0e;            /* def_cfa_offset */
		p[3 * i + 2] = i % 2 ? 8 : 16;
	}
	*n = rows * 3;
	return p;
}

/* H3: 2000 copies of one FDE make the rows of one. */
static void test_duplicate_fdes(void)
{
	struct buf eh = { 0 }, elf;
	size_t n, cie = put_cie(&eh, NULL, 0);
	uint8_t *prog = many_rows(32, &n);
	struct up_cfi_table *t;

	for (int i = 0; i < 2000; i++)
		put_fde(&eh, cie, 0x1000, 0x40, prog, n);
	put32(&eh, 0);
	elf = make_elf(&eh, NULL);
	t = load(&elf, 64);
	REQUIRE(t != NULL);
	CHECK(t->info.rows <= 34);
	CHECK(t->info.fdes == 1);
	CHECK(t->info.overlapping_fdes == 1999);
	CHECK(strstr(t->info.warning, "1999 FDEs overlapping") != NULL);
	up_cfi_table_free(t);
	free(prog);
	free(elf.b);
	free(eh.b);
}

/* H4: one FDE of 40000 rows would be interpreted 40000 times from its
 * start; it becomes one unsupported row. A large real-sized FDE (500
 * rows) still compiles row by row. */
static void test_quadratic_fde(void)
{
	struct buf eh = { 0 }, elf;
	size_t n, cie = put_cie(&eh, NULL, 0);
	uint8_t *big = many_rows(40000, &n), *fair;
	struct up_cfi_table *t;

	put_fde(&eh, cie, 0x100000, 40001, big, n);
	fair = many_rows(500, &n);
	put_fde(&eh, cie, 0x200000, 501, fair, n);
	put32(&eh, 0);
	elf = make_elf(&eh, NULL);
	t = load(&elf, 64);
	REQUIRE(t != NULL);
	CHECK(t->info.costly_fdes == 1);
	CHECK(t->info.fdes == 1);
	CHECK(t->info.rows == 1 + 501);
	CHECK(strstr(t->info.warning, "too costly") != NULL);
	{
		const struct cfi_row *r = cfi_table_find(t, 0x100000 + 20000);

		CHECK(r && r->kind == CFI_ROW_UNSUPPORTED && r->len == 40001);
	}
	up_cfi_table_free(t);
	free(big);
	free(fair);
	free(elf.b);
	free(eh.b);
}

/* An FDE whose cost, rows times bytes, is past 32 bits: 65,537 rows of
 * 65,536 bytes (one advance_loc each) is 2^32 + 65,536, which taken in
 * 32 bits would read as 65,536 and pass the cap. Refused as too costly. */
static void test_cost_past_32_bits(void)
{
	struct buf eh = { 0 }, elf;
	size_t cie = put_cie(&eh, NULL, 0), n = 65536;
	uint8_t *prog = malloc(n);
	struct up_cfi_table *t;

	REQUIRE(prog != NULL);
	memset(prog, 0x41, n);          /* advance_loc 1 */
	put_fde(&eh, cie, 0x100000, n + 1, prog, n);
	put32(&eh, 0);
	elf = make_elf(&eh, NULL);
	t = load(&elf, 64);
	REQUIRE(t != NULL);
	CHECK(t->info.costly_fdes == 1);
	CHECK(t->info.rows == 1);
	up_cfi_table_free(t);
	free(prog);
	free(elf.b);
	free(eh.b);
}

/* remember_state nested past the cap: libdw copies the whole state each
 * time; refused like a huge register. */
static void test_remember_depth(void)
{
	struct buf eh = { 0 }, elf;
	size_t cie = put_cie(&eh, NULL, 0);
	uint8_t prog[200];
	struct up_cfi_table *t;
	struct fde_list l;

	memset(prog, 0x0a, sizeof(prog));       /* DW_CFA_remember_state */
	put_fde(&eh, cie, 0x1000, 0x10, prog, sizeof(prog));
	put_fde(&eh, cie, 0x2000, 0x10, one_row, sizeof(one_row));
	put32(&eh, 0);
	CHECK(eh_frame_list_fdes(eh.b, eh.n, EH_ADDR, true, &l) == 0);
	CHECK(l.count == 1 && l.refused == 1);
	CHECK(strstr(l.refused_why, "remember_state") != NULL);
	fde_list_release(&l);
	elf = make_elf(&eh, NULL);
	t = load(&elf, 64);
	REQUIRE(t != NULL);
	CHECK(t->info.refused_fdes == 1);
	up_cfi_table_free(t);
	free(elf.b);
	free(eh.b);
}

/* More FDEs than EH_MAX_FDES: the list stops there and says so. */
static void test_fde_cap(void)
{
	struct buf eh = { 0 };
	size_t cie = put_cie(&eh, NULL, 0);
	struct fde_list l;

	for (uint64_t i = 0; i < EH_MAX_FDES + 10; i++)
		put_fde(&eh, cie, 0x1000 + 16 * i, 16, NULL, 0);
	put32(&eh, 0);
	CHECK(eh_frame_list_fdes(eh.b, eh.n, EH_ADDR, true, &l) == 0);
	CHECK(l.capped);
	CHECK(l.count == EH_MAX_FDES);
	CHECK(l.end < eh.n);
	fde_list_release(&l);
	free(eh.b);
}

/* Rows in the last blocks of the address space, as a hostile image's FDEs
 * may place them (found by fuzz_cfi_table): the index's block past the top
 * wrapped to 0 and lookups in the last block found nothing. Every row is
 * found at both its ends, the gaps and the very top find none. */
static void test_top_of_address_space(void)
{
	struct cfi_row rows[] = {
		{ .start = 0xfffffffffffffe80ULL, .len = 0x20 },
		{ .start = 0xffffffffffffff52ULL, .len = 12 },
		{ .start = 0xffffffffffffff62ULL, .len = 4 },
		{ .start = 0xffffffffffffffa6ULL, .len = 56 },
		{ .start = 0xfffffffffffffff0ULL, .len = 15 },
	};
	struct up_cfi_table t = { .rows = rows, .count = 5 };

	cfi_table_index(&t);
	REQUIRE(t.index != NULL);
	CHECK(t.blocks == 2);
	for (size_t i = 0; i < t.count; i++) {
		CHECK(cfi_table_find(&t, rows[i].start) == &rows[i]);
		CHECK(cfi_table_find(&t, rows[i].start + rows[i].len - 1) == &rows[i]);
	}
	CHECK(cfi_table_find(&t, 0xffffffffffffff00ULL) == NULL);
	CHECK(cfi_table_find(&t, 0xffffffffffffff5eULL) == NULL);
	CHECK(cfi_table_find(&t, UINT64_MAX) == NULL);
	CHECK(cfi_table_find(&t, 0) == NULL);
	free(t.index);
}

int main(void)
{
	RUN(test_huge_register);
	RUN(test_libdw_finds_only_vetted);
	RUN(test_duplicate_fdes);
	RUN(test_quadratic_fde);
	RUN(test_cost_past_32_bits);
	RUN(test_remember_depth);
	RUN(test_fde_cap);
	RUN(test_top_of_address_space);
	TEST_MAIN_END();
}
