/* The frame-pointer walk on synthetic stacks: good chains, loops, stacks
 * running off their page, garbage pointers, depth overflow. */
#include "guest.h"
#include "test.h"
#include "mem/memory.h"
#include "target/image.h"

TEST_GLOBALS;

#define STACK_VA 0xffff880000010000ULL   /* 4 pages of stack */
#define IP 0xffffffff80001234ULL

struct fixture {
	struct test_guest g;
	struct up_target *t;
	struct up_mem *m;
	uint64_t frames[64];
	struct up_stack st;
};

static void setup(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	tg_init(&f->g, UP_DOMAIN_PV);
	tg_map_fresh(&f->g, STACK_VA, 4);
	f->st.frames = f->frames;
	f->st.capacity = 64;
}

static void open_target(struct fixture *f)
{
	struct up_regs r = tg_regs(&f->g, 0, 0, 0);

	up_image_add_vcpu(f->g.img, &r);
	f->t = tg_open(&f->g);
	if (up_mem_new(&f->m, f->t, 0) < 0)
		abort();
}

static void teardown(struct fixture *f)
{
	up_mem_free(f->m);
	up_target_close(f->t);
	tg_release(&f->g);
}

static int walk(struct fixture *f, uint64_t sp, uint64_t fp, unsigned depth)
{
	struct up_regs r = tg_regs(&f->g, IP, sp, fp);
	struct up_unwind_opts o = { .max_depth = depth ? depth : 64 };

	up_mem_new_sample(f->m);
	return up_unwind_fp(f->m, &r, &o, &f->st);
}

static void test_good_chain(void)
{
	struct fixture f;
	uint64_t ret[5] = { 0xa1, 0xa2, 0xa3, 0xa4, 0xa5 }, fp;

	setup(&f);
	fp = tg_fp_chain(&f.g, STACK_VA + 0x100, ret, 5);
	open_target(&f);
	CHECK(walk(&f, STACK_VA + 0x100, fp, 0) == 0);
	CHECK(f.st.trunc == UP_TRUNC_NONE);
	CHECK(f.st.depth == 6);
	CHECK_U64(f.frames[0], IP);
	for (int i = 0; i < 5; i++)
		CHECK_U64(f.frames[i + 1], ret[i]);
	teardown(&f);
}

/* A zero return address also ends a chain (entry code that pushed 0). */
static void test_zero_return_ends(void)
{
	struct fixture f;
	uint64_t ret[3] = { 0xb1, 0, 0xb3 }, fp;

	setup(&f);
	fp = tg_fp_chain(&f.g, STACK_VA, ret, 3);
	open_target(&f);
	CHECK(walk(&f, STACK_VA, fp, 0) == 0);
	CHECK(f.st.trunc == UP_TRUNC_NONE);
	CHECK(f.st.depth == 2);
	teardown(&f);
}

static void test_leaf_without_frame(void)
{
	struct fixture f;

	setup(&f);
	open_target(&f);
	CHECK(walk(&f, STACK_VA, 0, 0) == 0);
	CHECK(f.st.depth == 1 && f.st.trunc == UP_TRUNC_NONE);
	teardown(&f);
}

static void test_loop(void)
{
	struct fixture f;
	uint64_t a = STACK_VA + 0x200, b = STACK_VA + 0x300;

	setup(&f);
	tg_poke64(&f.g, a, b);          /* a -> b -> a -> ... */
	tg_poke64(&f.g, a + 8, 0xc1);
	tg_poke64(&f.g, b, a);
	tg_poke64(&f.g, b + 8, 0xc2);
	tg_poke64(&f.g, STACK_VA + 0x400, STACK_VA + 0x400);   /* self */
	tg_poke64(&f.g, STACK_VA + 0x408, 0xc3);
	open_target(&f);
	CHECK(walk(&f, STACK_VA, a, 0) == 0);
	CHECK(f.st.trunc == UP_TRUNC_LOOP);
	CHECK(f.st.depth == 3);
	CHECK(walk(&f, STACK_VA, STACK_VA + 0x400, 0) == 0);
	CHECK(f.st.trunc == UP_TRUNC_LOOP);
	CHECK(f.st.depth == 2);
	teardown(&f);
}

/* The chain leads into the unmapped page above the stack. */
static void test_runs_off_its_page(void)
{
	struct fixture f;
	uint64_t top = STACK_VA + 4 * 4096 - 16;

	setup(&f);
	tg_poke64(&f.g, top, top + 32);     /* next frame is unmapped */
	tg_poke64(&f.g, top + 8, 0xd1);
	open_target(&f);
	CHECK(walk(&f, STACK_VA, top, 0) == 0);
	CHECK(f.st.trunc == UP_TRUNC_UNREADABLE);
	CHECK(f.st.depth == 2);
	/* A frame straddling the end of the mapping cannot be read whole. */
	CHECK(walk(&f, STACK_VA, top + 8, 0) == 0);
	CHECK(f.st.trunc == UP_TRUNC_UNREADABLE);
	CHECK(f.st.depth == 1);
	teardown(&f);
}

static void test_garbage_pointers(void)
{
	struct fixture f;

	setup(&f);
	open_target(&f);
	CHECK(walk(&f, STACK_VA, STACK_VA + 0x103, 0) == 0);
	CHECK(f.st.trunc == UP_TRUNC_ALIGN);
	CHECK(walk(&f, STACK_VA + 0x800, STACK_VA + 0x100, 0) == 0);
	CHECK(f.st.trunc == UP_TRUNC_BOUNDS);    /* below sp */
	CHECK(walk(&f, STACK_VA, 0x00007fffdeadbee8ULL, 0) == 0);
	CHECK(f.st.trunc == UP_TRUNC_BOUNDS);    /* far above the stack */
	CHECK(walk(&f, STACK_VA, 0xdead00000000beefULL & ~7ULL, 0) == 0);
	CHECK(f.st.trunc == UP_TRUNC_BOUNDS);
	CHECK(walk(&f, 0xfffffffffffffff0ULL, 0xfffffffffffffff8ULL, 0) == 0);
	CHECK(f.st.trunc == UP_TRUNC_BOUNDS);    /* would wrap */
	teardown(&f);
}

static void test_depth_overflow(void)
{
	struct fixture f;
	uint64_t ret[40], fp;

	setup(&f);
	for (int i = 0; i < 40; i++)
		ret[i] = 0xe000 + i;
	fp = tg_fp_chain(&f.g, STACK_VA, ret, 40);
	open_target(&f);
	CHECK(walk(&f, STACK_VA, fp, 10) == 0);
	CHECK(f.st.trunc == UP_TRUNC_DEPTH);
	CHECK(f.st.depth == 10);
	CHECK_U64(f.frames[9], 0xe008);
	CHECK(walk(&f, STACK_VA, fp, 41) == 0);   /* exactly fits */
	CHECK(f.st.trunc == UP_TRUNC_NONE);
	CHECK(f.st.depth == 41);
	CHECK(walk(&f, STACK_VA, fp, 100) == UP_EINVAL);  /* buffer too small */
	teardown(&f);
}

static void test_trunc_names(void)
{
	CHECK_STR(up_trunc_name(UP_TRUNC_NONE), "complete");
	CHECK_STR(up_trunc_name(UP_TRUNC_LOOP), "frame pointer loop");
	CHECK_STR(up_trunc_name((enum up_trunc)99), "unknown");
}

int main(void)
{
	RUN(test_good_chain);
	RUN(test_zero_return_ends);
	RUN(test_leaf_without_frame);
	RUN(test_loop);
	RUN(test_runs_off_its_page);
	RUN(test_garbage_pointers);
	RUN(test_depth_overflow);
	RUN(test_trunc_names);
	TEST_MAIN_END();
}
