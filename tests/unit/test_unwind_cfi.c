/* The CFI table and its unwinder: rows compiled from the test guest's
 * .eh_frame, and walks over synthetic stacks with hand-made rows: a good
 * chain to the outermost frame, frame-pointer fallback, no unwind info,
 * unsupported rules, CFAs that do not go up, out of bounds, unreadable
 * stacks, depth overflow. */
#include "unwind/cfi_table.h"
#include "unwind/eh_frame.h"
#include "util/elf_copy.h"
#include "guest.h"
#include "test.h"
#include "mem/memory.h"
#include "target/image.h"

TEST_GLOBALS;

#define STACK 0xffff880000200000ULL
#define IP 0x1010

static char guest_nofp[4096];

static unsigned long sym(const char *name)
{
	return tg_elf_symbol(guest_nofp, name);
}

static void test_table_from_guest(void)
{
	struct up_cfi_table *t;
	const struct up_cfi_info *ci;
	const struct cfi_row *r;
	unsigned long hot = sym("tg_hot_35");

	REQUIRE(up_cfi_table_load(&t, guest_nofp) == 0);
	ci = up_cfi_table_info(t);
	CHECK(ci->fdes > 14 && ci->rows >= ci->fdes);
	CHECK(ci->unsupported == 0);
	CHECK(ci->warning[0] == '\0');
	r = cfi_table_find(t, hot);          /* first instruction: CFA = SP+8 */
	REQUIRE(r != NULL);
	CHECK(r->kind == CFI_ROW_NORMAL && r->cfa_reg == CFI_CFA_SP);
	CHECK(r->cfa_off == 8 && r->ra_off == -8 && r->fp_rule == CFI_FP_SAME);
	for (size_t i = 1; i < t->count; i++)
		CHECK(t->rows[i - 1].start + t->rows[i - 1].len <= t->rows[i].start);
	CHECK(cfi_table_find(t, 0x100000) == NULL);    /* the asm entry: no CFI */
	/* The block index finds exactly what a search of the whole table
	 * finds, at every address around the covered range. */
	REQUIRE(t->index != NULL);
	{
		struct up_cfi_table plain = { .rows = t->rows, .count = t->count };
		uint64_t a = t->rows[0].start - 300;
		uint64_t end = t->rows[t->count - 1].start + t->rows[t->count - 1].len + 300;
		size_t bad = 0;

		for (; a < end; a++)
			bad += cfi_table_find(t, a) != cfi_table_find(&plain, a);
		CHECK(bad == 0);
	}
	up_cfi_table_free(t);
	CHECK(up_cfi_table_load(&t, "/nonexistent") == UP_ENOENT);
}

/* Past 1 MiB the image is compiled from a copy of its headers and
 * .eh_frame only (core/util/elf_copy.c): padded past that, the guest
 * gives the very same table. */
static void test_table_padded(void)
{
	const size_t pad = 2u << 20;
	struct up_cfi_table *a, *b;
	uint8_t *small, *big;
	size_t len;

	big = tg_padded_file(guest_nofp, pad, 0x5a, &small, &len);
	REQUIRE(big != NULL);
	REQUIRE(up_cfi_table_load_mem(&a, small, len, "small") == 0);
	REQUIRE(up_cfi_table_load_mem(&b, big, len + pad, "big") == 0);
	CHECK(a->count == b->count && a->count > 0);
	{
		const struct up_cfi_info *x = up_cfi_table_info(a), *y = up_cfi_table_info(b);

		CHECK(x->fdes == y->fdes && x->rows == y->rows && x->unsupported == y->unsupported);
		CHECK(x->skipped_fdes == y->skipped_fdes && x->refused_fdes == y->refused_fdes);
		CHECK(x->overlapping_fdes == y->overlapping_fdes && x->costly_fdes == y->costly_fdes);
		CHECK(x->fp_fdes == y->fp_fdes);
		CHECK_STR(x->warning, y->warning);
	}
	/* No padding in a row: compared whole. */
	if (a->count == b->count)
		CHECK(memcmp(a->rows, b->rows, a->count * sizeof(*a->rows)) == 0);
	up_cfi_table_free(a);
	up_cfi_table_free(b);
	free(small);
	free(big);
}

/* The guest cut short at every few bytes, or spoilt 32 bytes at a time,
 * through the part copy (its limits lowered; every other time with libdw
 * asked for each plain FDE) and the whole: the same images are refused,
 * saying
 * why, and the others give the same rows; ASan sees a read past the cut. */
static int cut_table(const uint8_t *buf, size_t n, struct up_cfi_table **t)
{
	int rc;

	up_error_clear();
	rc = up_cfi_table_load_mem(t, buf, n, "cut");
	CHECK(rc == 0 || up_error_last()[0] != '\0');
	if (rc < 0)
		*t = NULL;
	return rc;
}

static void test_table_truncated_parts(void)
{
	const struct elf_copy_limits saved = elf_copy_limits;
	uint8_t *img;
	size_t len;

	REQUIRE(up_file_read(guest_nofp, &img, &len) == 0);
	{
		struct up_cfi_table *a, *b;

		REQUIRE(cut_table(img, len, &a) == 0);
		cfi_table_share_plain_rules = false;
		REQUIRE(cut_table(img, len, &b) == 0);
		cfi_table_share_plain_rules = true;
		CHECK(a->count == b->count && a->info.fdes == b->info.fdes &&
		      memcmp(a->rows, b->rows, a->count * sizeof(*a->rows)) == 0);
		up_cfi_table_free(a);
		up_cfi_table_free(b);
	}
	/* Cut, or spoilt where the section table survives and the part
	 * copy is taken. */
	for (size_t n = 0; n < 2 * len && !test_failures; n += n < 128 ? 1 : 251) {
		struct up_cfi_table *a, *b;
		size_t size;
		uint8_t *cut = tg_spoilt_image(img, len, n, &size);
		int ra, rb;

		REQUIRE(cut != NULL);
		elf_copy_limits = saved;
		ra = cut_table(cut, size, &a);
		elf_copy_limits = (struct elf_copy_limits){ 0, true };
		cfi_table_share_plain_rules = n % 2;
		cfi_table_stream = n % 3 != 0;
		rb = cut_table(cut, size, &b);
		cfi_table_share_plain_rules = true;
		cfi_table_stream = true;
		CHECK(ra == rb);
		if (a && b)
			CHECK(a->count == b->count &&
			      memcmp(a->rows, b->rows, a->count * sizeof(*a->rows)) == 0);
		up_cfi_table_free(a);
		up_cfi_table_free(b);
		free(cut);
	}
	elf_copy_limits = saved;
	free(img);
}

/* The .eh_frame of an ELF64 little-endian image, by its headers: file
 * offset, size, address. */
static bool eh_frame_of(const uint8_t *img, size_t len, size_t *off, size_t *size,
			uint64_t *addr)
{
	uint64_t shoff;
	uint16_t shentsize, shnum, shstrndx;
	size_t stroff;

	if (len < 64)
		return false;
	memcpy(&shoff, img + 0x28, 8);
	memcpy(&shentsize, img + 0x3a, 2);
	memcpy(&shnum, img + 0x3c, 2);
	memcpy(&shstrndx, img + 0x3e, 2);
	if (shentsize != 64 || shstrndx >= shnum || shoff > len ||
	    (size_t)shnum * 64 > len - shoff)
		return false;
	memcpy(&stroff, img + shoff + (size_t)shstrndx * 64 + 0x18, 8);
	for (unsigned i = 0; i < shnum; i++) {
		const uint8_t *sh = img + shoff + (size_t)i * 64;
		uint32_t name;
		uint64_t o, n;

		memcpy(&name, sh, 4);
		memcpy(addr, sh + 0x10, 8);
		memcpy(&o, sh + 0x18, 8);
		memcpy(&n, sh + 0x20, 8);
		if (stroff + name + 10 <= len &&
		    memcmp(img + stroff + name, ".eh_frame", 10) == 0 &&
		    o <= len && n <= len - o) {
			*off = (size_t)o;
			*size = (size_t)n;
			return true;
		}
	}
	return false;
}

/* Two tables of one image, the .eh_frame compiled as its one walk vets
 * it and from its list: the same rows, figures and warnings. */
static void same_streamed_or_listed(const uint8_t *img, size_t len)
{
	struct up_cfi_table *a = NULL, *b = NULL;
	int ra, rb;

	cfi_table_stream = true;
	ra = cut_table(img, len, &a);
	cfi_table_stream = false;
	rb = cut_table(img, len, &b);
	cfi_table_stream = true;
	CHECK(ra == rb);
	if (a && b)
		CHECK(a->count == b->count &&
		      memcmp(a->rows, b->rows, a->count * sizeof(*a->rows)) == 0 &&
		      a->info.fdes == b->info.fdes &&
		      a->info.unsupported == b->info.unsupported &&
		      a->info.skipped_fdes == b->info.skipped_fdes &&
		      a->info.overlapping_fdes == b->info.overlapping_fdes &&
		      strcmp(a->info.warning, b->info.warning) == 0);
	up_cfi_table_free(a);
	up_cfi_table_free(b);
}

/* The test guest's .eh_frame as the linker wrote it (in address order:
 * streamed), with an FDE moved before the others (the stream stops,
 * undoes and lists), and with one moved into the one before it
 * (overlapping: dropped either way). */
static void test_table_streamed_or_listed(void)
{
	uint8_t *img;
	size_t len, off, size;
	uint64_t addr;
	struct fde_list l;

	REQUIRE(up_file_read(guest_nofp, &img, &len) == 0);
	REQUIRE(eh_frame_of(img, len, &off, &size, &addr));
	REQUIRE(eh_frame_list_fdes(img + off, size, addr, true, &l) == 0);
	REQUIRE(l.count >= 3);
	same_streamed_or_listed(img, len);
	{
		/* The third FDE in address order: its pc_begin, pcrel sdata4
		 * after its length and CIE pointer. */
		uint8_t *field = img + off + l.fdes[2].fde_offset + 8;
		int32_t was, v;
		int64_t to_first = (int64_t)l.fdes[0].pc_begin - (int64_t)l.fdes[2].pc_begin;
		int64_t to_inside = (int64_t)l.fdes[1].pc_begin + 1 - (int64_t)l.fdes[2].pc_begin;

		memcpy(&was, field, 4);
		v = (int32_t)(was + to_first - 0x100);
		memcpy(field, &v, 4);
		same_streamed_or_listed(img, len);
		v = (int32_t)(was + to_inside);
		memcpy(field, &v, 4);
		same_streamed_or_listed(img, len);
		{
			struct up_cfi_table *t = NULL;

			REQUIRE(cut_table(img, len, &t) == 0);
			CHECK(t->info.overlapping_fdes >= 1);
			up_cfi_table_free(t);
		}
		memcpy(field, &was, 4);
	}
	fde_list_release(&l);
	free(img);
}

struct fx {
	struct test_guest g;
	struct up_target *t;
	struct up_mem *m;
	struct cfi_row rows[8];
	struct up_cfi_table table;
	uint64_t frames[64];
	struct up_stack st;
	struct up_unwind_counts counts;
};

static void setup(struct fx *f)
{
	memset(f, 0, sizeof(*f));
	tg_init(&f->g, UP_DOMAIN_HVM);
	tg_map_fresh(&f->g, STACK, 4);
	f->table.rows = f->rows;
	f->st.frames = f->frames;
	f->st.capacity = 64;
}

static void row(struct fx *f, uint64_t start, uint32_t len, uint8_t kind,
		uint8_t reg, int32_t cfa_off, uint8_t fp_rule, int16_t fp_off)
{
	struct cfi_row r = { .start = start, .len = len, .kind = kind,
			     .cfa_reg = reg, .cfa_off = cfa_off, .ra_off = -8,
			     .fp_rule = fp_rule, .fp_off = fp_off };

	f->rows[f->table.count++] = r;
}

static int walk(struct fx *f, uint64_t sp, uint64_t fp, bool fallback, unsigned depth)
{
	struct up_regs r = tg_regs(&f->g, IP, sp, fp);
	struct up_unwind_opts o = { .max_depth = depth ? depth : 64 };

	if (!f->t) {
		up_image_add_vcpu(f->g.img, &r);
		f->t = tg_open(&f->g);
		up_mem_new(&f->m, f->t, 0);
	}
	memset(&f->counts, 0, sizeof(f->counts));
	up_mem_new_sample(f->m);
	return up_unwind_cfi(f->m, &r, &f->table, &o, fallback, &f->st, &f->counts);
}

static void teardown(struct fx *f)
{
	up_mem_free(f->m);
	up_target_close(f->t);
	tg_release(&f->g);
}

/* f1 (CFA = SP+16) -> f2 (CFA = SP+32, FP saved at CFA-16) -> f3 (outermost). */
static void test_good_chain(void)
{
	struct fx f;

	setup(&f);
	row(&f, 0x1000, 0x100, CFI_ROW_NORMAL, CFI_CFA_SP, 16, CFI_FP_SAME, 0);
	row(&f, 0x2000, 0x100, CFI_ROW_NORMAL, CFI_CFA_SP, 32, CFI_FP_AT_CFA, -16);
	row(&f, 0x3000, 0x100, CFI_ROW_OUTERMOST, 0, 0, 0, 0);
	tg_poke64(&f.g, STACK + 8, 0x2011);          /* f1's return address */
	tg_poke64(&f.g, STACK + 16 + 16, 0x5555);    /* f2 saved FP */
	tg_poke64(&f.g, STACK + 16 + 24, 0x3011);    /* f2's return address */
	CHECK(walk(&f, STACK, 0x77, false, 0) == 0);
	CHECK(f.st.trunc == UP_TRUNC_NONE);
	CHECK(f.st.depth == 3);
	CHECK_U64(f.frames[1], 0x2011);
	CHECK_U64(f.frames[2], 0x3011);
	CHECK(f.counts.cfi == 2 && f.counts.fp == 0);
	/* Depth limit. */
	CHECK(walk(&f, STACK, 0x77, false, 2) == 0);
	CHECK(f.st.trunc == UP_TRUNC_DEPTH && f.st.depth == 2);
	teardown(&f);
}

/* An address without CFI: -u cfi stops there, truncated, whatever rbp
 * holds (in code without frame pointers rbp == 0 means nothing); -u auto
 * takes a frame-pointer step and goes on with CFI. */
static void test_no_info_and_fallback(void)
{
	struct fx f;
	uint64_t fp = STACK + 0x100;

	setup(&f);
	row(&f, 0x2000, 0x100, CFI_ROW_OUTERMOST, 0, 0, 0, 0);
	tg_poke64(&f.g, fp, 0);               /* FP record: caller's FP, ret */
	tg_poke64(&f.g, fp + 8, 0x2011);
	CHECK(walk(&f, STACK, fp, false, 0) == 0);
	CHECK(f.st.trunc == UP_TRUNC_NO_UNWIND_INFO && f.st.depth == 1);
	CHECK(walk(&f, STACK, 0, false, 0) == 0);
	CHECK(f.st.trunc == UP_TRUNC_NO_UNWIND_INFO && f.st.depth == 1);
	CHECK(walk(&f, STACK, fp, true, 0) == 0);
	CHECK(f.st.trunc == UP_TRUNC_NONE && f.st.depth == 2);
	CHECK_U64(f.frames[1], 0x2011);
	CHECK(f.counts.fp == 1 && f.counts.cfi == 0);
	teardown(&f);
}

static void test_unsupported(void)
{
	struct fx f;

	setup(&f);
	row(&f, 0x1000, 0x100, CFI_ROW_UNSUPPORTED, 0, 0, 0, 0);
	CHECK(walk(&f, STACK, 0x10, false, 0) == 0);
	CHECK(f.st.trunc == UP_TRUNC_UNSUPPORTED);
	CHECK(f.counts.unsupported == 1);
	CHECK(walk(&f, STACK, 0x13, true, 0) == 0);   /* FP fallback: misaligned */
	CHECK(f.st.trunc == UP_TRUNC_ALIGN);
	CHECK(f.counts.unsupported == 1);
	teardown(&f);
}

/* Hostile rules: a CFA that does not rise (would loop), one far above the
 * stack, one in unmapped memory. */
static void test_bad_cfa(void)
{
	struct fx f;

	setup(&f);
	row(&f, 0x1000, 0x100, CFI_ROW_NORMAL, CFI_CFA_SP, 0, CFI_FP_SAME, 0);
	CHECK(walk(&f, STACK, 0, false, 0) == 0);
	CHECK(f.st.trunc == UP_TRUNC_BAD_CFA);
	f.rows[0].cfa_off = -64;
	CHECK(walk(&f, STACK, 0, false, 0) == 0);
	CHECK(f.st.trunc == UP_TRUNC_BAD_CFA);
	f.rows[0].cfa_off = INT32_MAX;
	CHECK(walk(&f, STACK, 0, false, 0) == 0);
	CHECK(f.st.trunc == UP_TRUNC_BOUNDS);
	f.rows[0].cfa_off = 4 * 4096 + 64;            /* past the mapped stack */
	CHECK(walk(&f, STACK, 0, false, 0) == 0);
	CHECK(f.st.trunc == UP_TRUNC_UNREADABLE);
	/* CFA from an FP below SP. */
	f.rows[0].cfa_reg = CFI_CFA_FP;
	f.rows[0].cfa_off = 16;
	CHECK(walk(&f, STACK + 0x800, STACK, false, 0) == 0);
	CHECK(f.st.trunc == UP_TRUNC_BAD_CFA);
	teardown(&f);
}

/* Recursion: each frame 32 bytes up until the depth limit. */
static void test_recursion_depth(void)
{
	struct fx f;

	setup(&f);
	row(&f, 0x1000, 0x100, CFI_ROW_NORMAL, CFI_CFA_SP, 32, CFI_FP_SAME, 0);
	for (int i = 0; i < 100; i++)
		tg_poke64(&f.g, STACK + 32 * (uint64_t)i + 24, 0x1011);
	CHECK(walk(&f, STACK, 0, false, 50) == 0);
	CHECK(f.st.trunc == UP_TRUNC_DEPTH && f.st.depth == 50);
	CHECK(f.counts.cfi >= 49);
	teardown(&f);
}

int main(void)
{
	const char *b = getenv("top_builddir");

	snprintf(guest_nofp, sizeof(guest_nofp), "%s/tests/guest/tg-nofp.elf", b ? b : ".");
	RUN(test_table_from_guest);
	RUN(test_table_padded);
	RUN(test_table_truncated_parts);
	RUN(test_table_streamed_or_listed);
	RUN(test_good_chain);
	RUN(test_no_info_and_fallback);
	RUN(test_unsupported);
	RUN(test_bad_cfa);
	RUN(test_recursion_depth);
	TEST_MAIN_END();
}
