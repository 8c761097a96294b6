/* The AArch64 stage-1 walk on image-target guests: both halves (TTBR0 and
 * TTBR1), 48- 42- and 39-bit address spaces (walks starting at levels 0
 * and 1, a first-level table smaller than a page), 4 KiB pages and 2 MiB
 * and 1 GiB blocks, top-byte-ignore; what it refuses by name (16 and
 * 64 KiB granules, 52-bit addresses, disabled halves); hostile tables:
 * reserved and invalid descriptors at every level, tables outside the
 * guest, loops, and random tables and settings. */
#include "guest_arm64.h"
#include "test.h"
#include "mem/memory.h"
#include "target/image.h"

TEST_GLOBALS;

/* Translate through a fresh up_mem: the registers as the test set them,
 * the tables as the image holds them. */
static int tr(struct up_target *t, const struct up_regs *r, uint64_t va,
	      uint64_t *f)
{
	struct up_mem *m;
	int rc;

	NEED(up_mem_new(&m, t, 0) == 0);
	rc = up_mem_translate(m, r, va, f);
	up_mem_free(m);
	return rc;
}

#define LO_4K 0x0000000040123000ULL
#define HI_4K 0xffff000008123000ULL
#define HI_2M 0xffff000000600000ULL
#define LO_1G 0x0000008040000000ULL

/* A 48-bit guest with one 4 KiB page in each half. */
static void two_pages(struct a64 *g)
{
	a64_init(g, A64_TCR_48);
	a64_map_page(g, LO_4K, 0x5000);
	a64_map_page(g, HI_4K, 0x6000);
}

static void test_48bit_both_halves(void)
{
	struct a64 g;
	struct up_target *t;
	struct up_regs r;
	uint64_t f;

	two_pages(&g);
	a64_map_block(&g, HI_2M, 2, 0x8200);       /* 2 MiB aligned: 512 frames */
	a64_map_block(&g, LO_1G, 1, 0x40000);      /* 1 GiB aligned */
	t = a64_open(&g, NULL);
	r = a64_regs(&g);

	CHECK(tr(t, &r, LO_4K + 0xabc, &f) == 0);
	CHECK_U64(f, 0x5000);
	CHECK(tr(t, &r, HI_4K + 0xfff, &f) == 0);
	CHECK_U64(f, 0x6000);
	CHECK(tr(t, &r, HI_2M + 0x1ff123, &f) == 0);
	CHECK_U64(f, 0x8200 + 0x1ff);
	CHECK(tr(t, &r, LO_1G + 0x3fedc000, &f) == 0);
	CHECK_U64(f, 0x40000 + 0x3fedc);
	/* Next to them: invalid at some level. */
	CHECK(tr(t, &r, LO_4K + 0x1000, &f) == UP_EFAULT);
	CHECK(strstr(up_error_last(), "not mapped") != NULL);
	CHECK(tr(t, &r, HI_4K - 0x1000, &f) == UP_EFAULT);
	CHECK(tr(t, &r, 0, &f) == UP_EFAULT);
	/* Outside both 48-bit halves. */
	CHECK(tr(t, &r, 0x0001000040123000ULL, &f) == UP_EFAULT);
	CHECK(strstr(up_error_last(), "48-bit lower half") != NULL);
	CHECK(tr(t, &r, 0xfffe000008123000ULL, &f) == UP_EFAULT);
	CHECK(strstr(up_error_last(), "upper half") != NULL);
	/* Top byte ignored (TBI0): a tagged pointer finds the same page. */
	CHECK(tr(t, &r, 0x5a00000040123000ULL, &f) == UP_EFAULT);
	r.tcr |= 1ULL << 37;
	CHECK(tr(t, &r, 0x5a00000040123000ULL, &f) == 0);
	CHECK_U64(f, 0x5000);
	/* TTBR's ASID and CnP bits are not part of the address. */
	r = a64_regs(&g);
	r.cr3 |= 0x0042000000000000ULL | 1;
	CHECK(tr(t, &r, LO_4K, &f) == 0);
	CHECK_U64(f, 0x5000);
	up_target_close(t);
	up_image_free(g.img);
}

/* 39 bits (T0SZ 25): walks start at level 1. 42 bits (T1SZ 22): at level
 * 0 with a table of 8 entries, which need not start a page. */
static void test_smaller_spaces(void)
{
	struct a64 g;
	struct up_target *t;
	struct up_regs r;
	uint64_t f, va39 = 0x0000004000201000ULL, va42 = 0xfffffd0000345000ULL;

	a64_init(&g, 25ULL | 22ULL << 16 | A64_TG1_4K);
	g.ttbr1 += 0x40;                       /* 64-byte aligned table */
	a64_map_page(&g, va39, 0x7000);
	a64_map_page(&g, va42, 0x7001);
	t = a64_open(&g, NULL);
	r = a64_regs(&g);
	CHECK(tr(t, &r, va39, &f) == 0);
	CHECK_U64(f, 0x7000);
	CHECK(tr(t, &r, va42 + 8, &f) == 0);
	CHECK_U64(f, 0x7001);
	/* Past 39 bits in the lower half, past 42 in the upper. */
	CHECK(tr(t, &r, 0x0000008000201000ULL, &f) == UP_EFAULT);
	CHECK(strstr(up_error_last(), "39-bit lower half") != NULL);
	CHECK(tr(t, &r, 0xfffff80000345000ULL, &f) == UP_EFAULT);
	up_target_close(t);
	up_image_free(g.img);
}

/* What the walk does not do yet, said by name. */
static void test_refused_settings(void)
{
	struct a64 g;
	struct up_target *t;
	struct up_regs r;
	uint64_t f;

	two_pages(&g);
	t = a64_open(&g, NULL);

	r = a64_regs(&g);
	r.tcr = (r.tcr & ~(3ULL << 30)) | 1ULL << 30;      /* TG1: 16 KiB */
	CHECK(tr(t, &r, HI_4K, &f) == UP_EUNSUPP);
	CHECK(strstr(up_error_last(), "16 KiB granule") != NULL);
	CHECK(tr(t, &r, LO_4K, &f) == 0);                   /* other half */
	r.tcr = (r.tcr & ~(3ULL << 30)) | 3ULL << 30;      /* TG1: 64 KiB */
	CHECK(tr(t, &r, HI_4K, &f) == UP_EUNSUPP);
	CHECK(strstr(up_error_last(), "64 KiB granule") != NULL);
	r = a64_regs(&g);
	r.tcr |= 1ULL << 14;                                /* TG0: 64 KiB */
	CHECK(tr(t, &r, LO_4K, &f) == UP_EUNSUPP);
	CHECK(strstr(up_error_last(), "64 KiB granule") != NULL);
	r = a64_regs(&g);
	r.tcr |= 1ULL << 59;                                /* DS: 52-bit */
	CHECK(tr(t, &r, LO_4K, &f) == UP_EUNSUPP);
	CHECK(strstr(up_error_last(), "52-bit") != NULL);
	r = a64_regs(&g);
	r.tcr = (r.tcr & ~0x3fULL) | 12;                    /* T0SZ 12 */
	CHECK(tr(t, &r, LO_4K, &f) == UP_EUNSUPP);
	CHECK(strstr(up_error_last(), "T0SZ") != NULL);
	r = a64_regs(&g);
	r.tcr |= 1ULL << 23;                                /* EPD1 */
	CHECK(tr(t, &r, HI_4K, &f) == UP_EFAULT);
	CHECK(strstr(up_error_last(), "EPD1") != NULL);
	/* An unknown architecture or paging mode in the registers. */
	r = a64_regs(&g);
	r.arch = (enum up_arch)9;
	CHECK(tr(t, &r, LO_4K, &f) == UP_EUNSUPP);
	r = a64_regs(&g);
	r.paging = UP_PAGING_X86_64;
	CHECK(tr(t, &r, LO_4K, &f) == UP_EUNSUPP);
	up_target_close(t);
	up_image_free(g.img);
}

/* Descriptors a guest may write: invalid or reserved ones at every level,
 * a block where the architecture has none, a table outside the guest, a
 * table pointing back up. */
static void test_hostile_descriptors(void)
{
	struct a64 g;
	struct up_target *t;
	struct up_regs r;
	uint64_t f, l0, l1, l2, l3;

	a64_init(&g, A64_TCR_48);
	a64_map_page(&g, LO_4K, 0x5000);
	l0 = a64_slot(&g, LO_4K, 0);
	l1 = a64_slot(&g, LO_4K, 1);
	l2 = a64_slot(&g, LO_4K, 2);
	l3 = a64_slot(&g, LO_4K, 3);
	/* The same tables under four more addresses, each spoiled at one
	 * level: index 1 beside each slot. */
	a64_wr(&g, l0 + 8, 0x0000000012345000ULL | DESC_BLOCK);  /* L0 block */
	a64_wr(&g, l1 + 8, 0x0000ffff00000000ULL | DESC_TABLE);  /* outside */
	a64_wr(&g, l2 + 8, (g.ttbr0 & ~0xfffULL) | DESC_TABLE);  /* loop up */
	a64_wr(&g, l3 + 8, 0x5001000ULL | DESC_BLOCK);           /* L3 "block" */
	a64_wr(&g, l3 + 16, 0x5002000ULL | 2);                   /* invalid */
	t = a64_open(&g, NULL);
	r = a64_regs(&g);
	CHECK(tr(t, &r, LO_4K + (1ULL << 39), &f) == UP_EFAULT);
	CHECK(strstr(up_error_last(), "block descriptor at level 0") != NULL);
	CHECK(tr(t, &r, LO_4K + (1ULL << 30), &f) == UP_EFAULT);
	CHECK(tr(t, &r, LO_4K + (1ULL << 21), &f) < 0);     /* ends, whatever */
	CHECK(tr(t, &r, LO_4K + 0x1000, &f) == UP_EFAULT);
	CHECK(strstr(up_error_last(), "reserved level 3") != NULL);
	CHECK(tr(t, &r, LO_4K + 0x2000, &f) == UP_EFAULT);
	CHECK(strstr(up_error_last(), "not mapped") != NULL);
	CHECK(tr(t, &r, LO_4K, &f) == 0);
	CHECK_U64(f, 0x5000);
	up_target_close(t);
	up_image_free(g.img);
}

static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	return test_xorshift(&rnd_state);
}

/* Random tables (descriptors pointing among a few frames and beyond) and
 * random settings: every translation ends, with a frame or an error, and
 * the sanitizers see no bad access. */
static void test_random_tables(void)
{
	unsigned ok = 0, refused = 0, beyond = 0;

	for (int round = 0; round < 40; round++) {
		struct a64 g;
		struct up_target *t;
		struct up_regs r;
		uint64_t f;
		uint8_t *d;

		a64_init(&g, A64_TCR_48);
		for (uint64_t fr = 0x100; fr < 0x108; fr++) {
			REQUIRE(up_image_frame(g.img, UP_FRAME_GFN, fr, &d) == 0);
			for (unsigned i = 0; i < 512; i++) {
				uint64_t x = rnd(), desc = rnd() & 3;

				if (x & 1)
					desc |= (0x100 + (x >> 8) % 10) << 12;
				else
					desc |= x & 0x0000fffffffff000ULL;
				for (int b = 0; b < 8; b++)
					d[i * 8 + b] = (uint8_t)(desc >> (8 * b));
			}
		}
		t = a64_open(&g, NULL);
		for (int i = 0; i < 500; i++) {
			r = a64_regs(&g);
			if (i % 5 == 0)
				r.tcr = rnd();
			if (i % 7 == 0)
				r.cr3 = rnd();
			if (tr(t, &r, i % 3 ? rnd() : (rnd() & 0xffffffffffULL) |
			       (i & 1 ? 0xffff000000000000ULL : 0), &f) == 0) {
				ok++;
				/* An output address has 48 bits at most. */
				beyond += f >= 1ULL << 36;
			} else {
				refused++;
			}
		}
		up_target_close(t);
		up_image_free(g.img);
	}
	/* Both ends of the walk were reached, and no frame came from
	 * outside what a descriptor can say. */
	CHECK(ok > 0 && refused > 0);
	CHECK(beyond == 0);
}

int main(void)
{
	RUN(test_48bit_both_halves);
	RUN(test_smaller_spaces);
	RUN(test_refused_settings);
	RUN(test_hostile_descriptors);
	RUN(test_random_tables);
	TEST_MAIN_END();
}
