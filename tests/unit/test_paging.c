/* The page walker on image-target guests: 4K/2M/1G pages, not-present
 * entries, PV (machine frames) vs HVM (guest frames), live remapping, and
 * the frame cache's bounds. */
#include "guest.h"
#include "test.h"
#include "target/image_hooks.h"
#include "mem/memory.h"
#include "target/image.h"

TEST_GLOBALS;

#define VA_4K 0xffff800000123000ULL
#define VA_2M 0x0000000040200000ULL
#define VA_1G 0x0000007f80000000ULL

static struct up_target *open_with_vcpu(struct test_guest *g)
{
	struct up_regs r = tg_regs(g, 0, 0, 0);

	up_image_add_vcpu(g->img, &r);
	return tg_open(g);
}

static void translate_all_sizes(enum up_domain_type type)
{
	struct test_guest g;
	struct up_target *t;
	struct up_mem *m;
	struct up_regs r;
	uint64_t f4k, f;

	tg_init(&g, type);
	f4k = tg_alloc(&g);
	tg_map_4k(&g, VA_4K, f4k);
	tg_map_2m(&g, VA_2M, 0x200);        /* 2 MiB aligned: 512 frames */
	tg_map_1g(&g, VA_1G, 0x40000);      /* 1 GiB aligned */
	t = open_with_vcpu(&g);
	r = tg_regs(&g, 0, 0, 0);
	REQUIRE(up_mem_new(&m, t, 0) == 0);

	CHECK(up_mem_translate(m, &r, VA_4K, &f) == 0);
	CHECK_U64(f, f4k);
	CHECK(up_mem_translate(m, &r, VA_4K + 0xfff, &f) == 0);
	CHECK_U64(f, f4k);
	CHECK(up_mem_translate(m, &r, VA_2M, &f) == 0);
	CHECK_U64(f, 0x200);
	CHECK(up_mem_translate(m, &r, VA_2M + 0x1ff123, &f) == 0);
	CHECK_U64(f, 0x200 + 0x1ff);
	CHECK(up_mem_translate(m, &r, VA_1G + 0x3fedc000, &f) == 0);
	CHECK_U64(f, 0x40000 + 0x3fedc);
	/* Next to the mappings: not present at some level. */
	CHECK(up_mem_translate(m, &r, VA_4K + 0x1000, &f) == UP_EFAULT);
	CHECK(up_mem_translate(m, &r, VA_2M + 0x200000, &f) == UP_EFAULT);
	CHECK(up_mem_translate(m, &r, VA_1G + 0x40000000, &f) == UP_EFAULT);
	CHECK(up_mem_translate(m, &r, 0, &f) == UP_EFAULT);

	up_mem_free(m);
	CHECK(up_target_image_mapped(t) == 0);   /* every frame unmapped */
	up_target_close(t);
	tg_release(&g);
}

static void test_pages_pv(void)
{
	translate_all_sizes(UP_DOMAIN_PV);
}

static void test_pages_hvm(void)
{
	translate_all_sizes(UP_DOMAIN_HVM);
}

/* A PV walk asks for machine frames: the same tables read as guest frames
 * are not found, so the kinds cannot be mixed up silently. */
static void test_frame_kind_matters(void)
{
	struct test_guest g;
	struct up_target *t;
	struct up_mem *m;
	struct up_regs r;
	uint64_t f;

	tg_init(&g, UP_DOMAIN_PV);
	tg_map_fresh(&g, VA_4K, 1);
	t = open_with_vcpu(&g);
	REQUIRE(up_mem_new(&m, t, 0) == 0);
	r = tg_regs(&g, 0, 0, 0);
	CHECK(r.frame_kind == UP_FRAME_MFN);
	CHECK(up_mem_translate(m, &r, VA_4K, &f) == 0);
	r.frame_kind = UP_FRAME_GFN;
	CHECK(up_mem_translate(m, &r, VA_4K, &f) == UP_EFAULT);
	/* Paging off only exists for translated (HVM/PVH) guests. */
	r.paging = UP_PAGING_NONE;
	r.frame_kind = UP_FRAME_MFN;
	CHECK(up_mem_translate(m, &r, VA_4K, &f) == UP_EUNSUPP);
	up_mem_free(m);
	up_target_close(t);
	tg_release(&g);
}

static void test_paging_off_is_identity(void)
{
	struct test_guest g;
	struct up_target *t;
	struct up_mem *m;
	struct up_regs r;
	uint64_t f, v = 0;

	tg_init(&g, UP_DOMAIN_HVM);
	tg_data(&g, 0x345)[8] = 0x5a;
	t = open_with_vcpu(&g);
	REQUIRE(up_mem_new(&m, t, 0) == 0);
	r = tg_regs(&g, 0, 0, 0);
	r.paging = UP_PAGING_NONE;
	CHECK(up_mem_translate(m, &r, 0x345008, &f) == 0);
	CHECK_U64(f, 0x345);
	CHECK(up_mem_read_u64(m, &r, 0x345008, &v) == 0);
	CHECK_U64(v, 0x5a);
	up_mem_free(m);
	up_target_close(t);
	tg_release(&g);
}

static void test_bad_addresses_and_modes(void)
{
	struct test_guest g;
	struct up_target *t;
	struct up_mem *m;
	struct up_regs r;
	uint64_t f;
	uint8_t *pml4;

	tg_init(&g, UP_DOMAIN_HVM);
	tg_map_fresh(&g, VA_4K, 1);
	/* PS set in a PML4 entry is reserved. */
	pml4 = tg_data(&g, g.root);
	pml4[8 * 5] = 0x81;
	t = open_with_vcpu(&g);
	REQUIRE(up_mem_new(&m, t, 0) == 0);
	r = tg_regs(&g, 0, 0, 0);
	CHECK(up_mem_translate(m, &r, 0x0000800000000000ULL, &f) == UP_EFAULT);
	CHECK(up_mem_translate(m, &r, 0xffff7fffffffffffULL, &f) == UP_EFAULT);
	CHECK(up_mem_translate(m, &r, 5ULL << 39, &f) == UP_EFAULT);
	r.paging = UP_PAGING_X86_PAE;
	CHECK(up_mem_translate(m, &r, VA_4K, &f) == UP_EUNSUPP);
	CHECK(strstr(up_error_last(), "PAE") != NULL);
	r.paging = UP_PAGING_X86_64_LA57;
	CHECK(up_mem_translate(m, &r, VA_4K, &f) == UP_EUNSUPP);
	r.paging = (enum up_paging)77;
	CHECK(up_mem_translate(m, &r, VA_4K, &f) == UP_EUNSUPP);
	up_mem_free(m);
	up_target_close(t);
	tg_release(&g);
}

/* Reads cross page boundaries, and across two unrelated frames. */
static void test_read_across_pages(void)
{
	struct test_guest g;
	struct up_target *t;
	struct up_mem *m;
	struct up_regs r;
	uint8_t buf[16];

	tg_init(&g, UP_DOMAIN_PV);
	tg_map_fresh(&g, VA_4K, 2);
	tg_poke64(&g, VA_4K + 4088, 0x0807060504030201ULL);
	tg_poke64(&g, VA_4K + 4096, 0x100f0e0d0c0b0a09ULL);
	t = open_with_vcpu(&g);
	REQUIRE(up_mem_new(&m, t, 0) == 0);
	r = tg_regs(&g, 0, 0, 0);
	CHECK(up_mem_read(m, &r, VA_4K + 4088, buf, 16) == 0);
	for (int i = 0; i < 16; i++)
		CHECK(buf[i] == i + 1);
	CHECK(up_mem_read(m, &r, VA_4K + 8190, buf, 4) == UP_EFAULT);
	up_mem_free(m);
	up_target_close(t);
	tg_release(&g);
}

/* The guest remaps between samples: the next sample must see it. */
static void test_remap_is_seen(void)
{
	struct test_guest g;
	struct up_target *t;
	struct up_mem *m;
	struct up_regs r;
	uint64_t f1, f2, f, v;
	uint64_t pt;
	uint8_t *ptp;

	tg_init(&g, UP_DOMAIN_HVM);
	f1 = tg_alloc(&g);
	f2 = tg_alloc(&g);
	tg_data(&g, f1)[0] = 1;
	tg_data(&g, f2)[0] = 2;
	tg_map_4k(&g, VA_4K, f1);
	t = open_with_vcpu(&g);
	REQUIRE(up_mem_new(&m, t, 0) == 0);
	r = tg_regs(&g, 0, 0, 0);
	up_mem_new_sample(m);
	CHECK(up_mem_read_u64(m, &r, VA_4K, &v) == 0 && v == 1);
	/* The image's frames are live memory: patch the PTE in place, as a
	 * guest would, through the mapping the walker itself uses. */
	pt = 0;
	for (uint64_t fr = g.root; fr < g.next_frame; fr++) {
		const void *p;

		if (up_target_map_frame(t, UP_FRAME_GFN, fr, &p) == 0) {
			uint64_t e;

			memcpy(&e, (const uint8_t *)p + ((VA_4K >> 12) & 511) * 8, 8);
			if ((e >> 12) == f1 && (e & 1))
				pt = fr;
			up_target_unmap_frame(t, p);
		}
	}
	REQUIRE(pt != 0);
	{
		const void *p;
		uint64_t e = f2 << 12 | 3;

		REQUIRE(up_target_map_frame(t, UP_FRAME_GFN, pt, &p) == 0);
		ptp = (uint8_t *)p;
		memcpy(ptp + ((VA_4K >> 12) & 511) * 8, &e, 8);
		up_target_unmap_frame(t, p);
	}
	up_mem_new_sample(m);
	CHECK(up_mem_translate(m, &r, VA_4K, &f) == 0);
	CHECK_U64(f, f2);
	CHECK(up_mem_read_u64(m, &r, VA_4K, &v) == 0 && v == 2);
	up_mem_free(m);
	up_target_close(t);
	tg_release(&g);
}

/* A cache far smaller than the working set still reads right, evicts, and
 * leaves nothing mapped. */
static void test_small_cache_evicts(void)
{
	struct test_guest g;
	struct up_target *t;
	struct up_mem *m;
	struct up_mem_stats st;
	struct up_regs r;
	uint64_t v;

	tg_init(&g, UP_DOMAIN_PV);
	tg_map_fresh(&g, VA_4K, 64);
	for (unsigned i = 0; i < 64; i++)
		tg_poke64(&g, VA_4K + i * 4096ULL + 16, 1000 + i);
	t = open_with_vcpu(&g);
	REQUIRE(up_mem_new(&m, t, 8) == 0);
	r = tg_regs(&g, 0, 0, 0);
	for (int round = 0; round < 3; round++) {
		for (unsigned i = 0; i < 64; i++) {
			up_mem_new_sample(m);
			CHECK(up_mem_read_u64(m, &r, VA_4K + i * 4096ULL + 16, &v) == 0);
			CHECK_U64(v, 1000 + i);
		}
	}
	up_mem_get_stats(m, &st);
	CHECK(st.evictions > 0);
	CHECK(st.hits > 0);
	CHECK(up_target_image_mapped(t) <= 8);
	up_mem_free(m);
	CHECK(up_target_image_mapped(t) == 0);
	up_target_close(t);
	tg_release(&g);
}

/* A frame that will not map is asked for once per 128 samples: a walk reading
 * past a stack's end into memory the guest does not have would otherwise
 * pay a hypercall per word while the guest stands still (a Solo5 stack
 * ends at the top of its RAM: 42 failed maps a sample, 33 ms pauses). */
static void test_failed_frame_asked_once(void)
{
	struct test_guest g;
	struct up_target *t;
	struct up_mem *m;
	struct up_mem_stats st;
	struct up_regs r;
	uint64_t w;

	tg_init(&g, UP_DOMAIN_HVM);
	tg_map_4k(&g, VA_4K, 0x7ffff);            /* no such frame */
	t = open_with_vcpu(&g);
	REQUIRE(up_mem_new(&m, t, 0) == 0);
	r = tg_regs(&g, 0, 0, 0);
	up_mem_new_sample(m);
	for (int i = 0; i < 40; i++)
		CHECK(up_mem_read_u64(m, &r, VA_4K + 8 * (uint64_t)i, &w) < 0);
	up_mem_get_stats(m, &st);
	CHECK_U64(st.map_failures, 1);
	/* Not again for a while (about a second at 97 Hz), then again. */
	for (int i = 0; i < 126; i++) {       /* samples 2 to 127 */
		up_mem_new_sample(m);
		CHECK(up_mem_read_u64(m, &r, VA_4K, &w) < 0);
	}
	up_mem_get_stats(m, &st);
	CHECK_U64(st.map_failures, 1);
	up_mem_new_sample(m);
	CHECK(up_mem_read_u64(m, &r, VA_4K, &w) < 0);
	up_mem_get_stats(m, &st);
	CHECK_U64(st.map_failures, 2);
	up_mem_free(m);
	up_target_close(t);
	tg_release(&g);
}

int main(void)
{
	RUN(test_pages_pv);
	RUN(test_pages_hvm);
	RUN(test_frame_kind_matters);
	RUN(test_paging_off_is_identity);
	RUN(test_bad_addresses_and_modes);
	RUN(test_read_across_pages);
	RUN(test_remap_is_seen);
	RUN(test_small_cache_evicts);
	RUN(test_failed_frame_asked_once);
	TEST_MAIN_END();
}
