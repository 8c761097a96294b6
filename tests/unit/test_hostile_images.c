/* Hostile guests: thousands of random images (page tables, stacks and
 * registers of random bytes, biased so walks go deep) must never crash or
 * hang the library; every walk ends within its limits. Also random bytes as
 * image files and symbol files. Runs under ASan/UBSan in the test build.
 * UNIPROF_FUZZ_ITERS and UNIPROF_FUZZ_SEED override the defaults. */
#include "guest.h"
#include "test.h"
#include "target/image_hooks.h"
#include "mem/memory.h"
#include "target/image.h"

TEST_GLOBALS;

static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

#define NFRAMES 24

/* A value that looks like something a walker would follow. */
static uint64_t plausible(uint64_t frame_base, uint64_t sp)
{
	switch (rnd() % 6) {
	case 0: return rnd();
	case 1: return 0;
	case 2: return (frame_base + rnd() % NFRAMES) << 12 | (rnd() & 0x1ff) | 1;
	case 3: return ((frame_base + rnd() % NFRAMES) << 12) | 0x81;   /* PS */
	case 4: return sp + (rnd() % 512) * 8 - 256;
	default: return sp + (rnd() % 4096);
	}
}

static struct up_target *random_guest(void)
{
	enum up_domain_type type = rnd() & 1 ? UP_DOMAIN_PV : UP_DOMAIN_HVM;
	enum up_frame_kind kind = type == UP_DOMAIN_PV ? UP_FRAME_MFN : UP_FRAME_GFN;
	uint64_t base = rnd() % 4 ? 0x100 : 0;
	uint64_t sp = (rnd() & 1 ? 0xffff800000000000ULL : 0) |
		      ((base + rnd() % NFRAMES) << 12) | (rnd() & 0xff8);
	struct up_image *img;
	struct up_target *t;
	unsigned nv = 1 + rnd() % 3;
	void *buf;
	size_t len;

	up_image_new(&img, type);
	for (unsigned i = 0; i < NFRAMES; i++) {
		uint8_t *d;

		if (rnd() % 8 == 0)
			continue;         /* holes */
		up_image_frame(img, rnd() % 16 ? kind : !kind, base + i, &d);
		for (unsigned off = 0; off < 4096; off += 8) {
			uint64_t v = plausible(base, sp);

			memcpy(d + off, &v, 8);
		}
	}
	for (unsigned v = 0; v < nv; v++) {
		struct up_regs r = {
			.ip = rnd(), .sp = rnd() % 8 ? sp : rnd(),
			.fp = rnd() % 8 ? plausible(base, sp) & ~7ULL : rnd(),
			.cr3 = rnd() % 8 ? (base + rnd() % NFRAMES) << 12 : rnd(),
			.paging = rnd() % 8 ? UP_PAGING_X86_64 : (enum up_paging)(rnd() % 6),
			.frame_kind = rnd() % 16 ? kind : (enum up_frame_kind)!kind,
			.guest_width = 8, .online = rnd() % 8 != 0,
		};

		up_image_add_vcpu(img, &r);
	}
	up_image_serialize(img, &buf, &len);
	up_image_free(img);
	if (up_target_open_image_mem(&t, buf, len) < 0)
		t = NULL;
	free(buf);
	return t;
}

/* Valid page tables over a stack of random links that mostly go up, some
 * table entries corrupted: walks get deep and then meet garbage. */
static struct up_target *structured_guest(void)
{
	struct test_guest g;
	struct up_target *t;
	uint64_t stack = 0xffff880000100000ULL, top = stack + 4 * 4096;
	unsigned nv = 1 + rnd() % 2;

	tg_init(&g, rnd() & 1 ? UP_DOMAIN_PV : UP_DOMAIN_HVM);
	tg_map_fresh(&g, stack, 4);
	for (uint64_t va = stack; va < top; va += 16) {
		uint64_t link = va + 16 + (rnd() % 64) * 8;

		tg_poke64(&g, va, rnd() % 16 ? link : plausible(0x100, va));
		tg_poke64(&g, va + 8, rnd() % 32 ? rnd() : 0);
	}
	for (uint64_t f = g.root; f < g.next_frame; f++) {
		uint8_t *d = tg_data(&g, f);

		if (rnd() % 4 == 0) {
			uint64_t v = rnd();

			memcpy(d + (rnd() % 512) * 8, &v, 8);
		}
	}
	for (unsigned v = 0; v < nv; v++) {
		uint64_t sp = stack + (rnd() % 1024) * 8;
		struct up_regs r = tg_regs(&g, rnd(), sp, sp + (rnd() % 64) * 8);

		up_image_add_vcpu(g.img, &r);
	}
	t = tg_open(&g);
	tg_release(&g);
	return t;
}

static unsigned iterations(unsigned dflt)
{
	const char *e = getenv("UNIPROF_FUZZ_ITERS");

	return e ? (unsigned)strtoul(e, NULL, 0) : dflt;
}

static void test_random_guests(void)
{
	unsigned n = iterations(3000), walks = 0, deep = 0;
	uint64_t frames[128];

	for (unsigned i = 0; i < n; i++) {
		struct up_target *t = i % 2 ? random_guest() : structured_guest();
		struct up_mem *m;

		REQUIRE(t != NULL);
		REQUIRE(up_mem_new(&m, t, 1 + rnd() % 64) == 0);
		for (unsigned v = 0; v < up_target_info(t)->max_vcpus; v++) {
			struct up_regs r;
			struct up_stack st = { .frames = frames, .capacity = 128 };
			struct up_unwind_opts o = { .max_depth = 1 + rnd() % 128 };
			uint8_t buf[64];
			uint64_t f;

			CHECK(up_target_get_regs(t, v, &r) == 0);
			up_mem_new_sample(m);
			CHECK(up_unwind_fp(m, &r, &o, &st) == 0);
			CHECK(st.depth >= 1 && st.depth <= o.max_depth);
			CHECK(st.trunc <= UP_TRUNC_BUDGET);
			if (st.depth > 2)
				deep++;
			for (int k = 0; k < 8; k++) {
				uint64_t va = k & 1 ? rnd() : r.sp + rnd() % 8192;

				up_mem_translate(m, &r, va, &f);
				up_mem_read(m, &r, va, buf, 1 + rnd() % sizeof(buf));
			}
			walks++;
		}
		up_mem_free(m);
		CHECK(up_target_image_mapped(t) == 0);
		up_target_close(t);
	}
	/* The bias must actually produce deep walks, or this proves little. */
	CHECK(walks >= n);
	CHECK(deep > n / 10);
	printf("# %u walks, %u deeper than 2 frames\n", walks, deep);
}

static void test_random_sampling(void)
{
	unsigned n = iterations(3000) / 10;

	for (unsigned i = 0; i < n; i++) {
		struct up_target *t = random_guest();
		struct up_sampler_config c;
		struct up_sampler_stats st;
		struct up_profile *p;

		REQUIRE(t != NULL);
		up_sampler_config_init(&c, UP_SAMPLER_CONFIG_VERSION);
		c.hz = 50000;
		c.max_samples = 5;
		c.cache_frames = 1 + rnd() % 8;
		REQUIRE(up_profile_new(&p, up_target_info(t)->max_vcpus) == 0);
		CHECK(up_sample(t, &c, p, NULL, &st) == 0);
		CHECK(st.stop == UP_STOP_MAX_SAMPLES);
		CHECK(!up_target_paused_by_us(t));
		up_sampler_stats_release(&st);
		up_profile_free(p);
		up_target_close(t);
	}
}

static void test_random_files(void)
{
	unsigned n = iterations(3000);
	uint8_t buf[8192];

	for (unsigned i = 0; i < n; i++) {
		size_t len = rnd() % sizeof(buf);
		struct up_target *t = NULL;
		struct up_symtab *s = NULL;

		for (size_t k = 0; k < len; k++)
			buf[k] = (uint8_t)rnd();
		if (i % 3 == 0 && len >= 8)
			memcpy(buf, "UPIMAGE1", 8);
		if (up_target_open_image_mem(&t, buf, len) == 0)
			up_target_close(t);
		if (i % 2 == 0 && len >= 4)
			memcpy(buf, "\177ELF", 4);
		if (up_symtab_load_mem(&s, buf, len, "random") == 0) {
			up_symtab_lookup(s, rnd());
			up_symtab_free(s);
		}
	}
}

int main(void)
{
	const char *seed = getenv("UNIPROF_FUZZ_SEED");

	rng_state = seed ? strtoull(seed, NULL, 0) : 0x5eed5eed12345ULL;
	if (!rng_state)
		rng_state = 1;
	printf("# seed %#llx\n", (unsigned long long)rng_state);
	RUN(test_random_guests);
	RUN(test_random_sampling);
	RUN(test_random_files);
	TEST_MAIN_END();
}
