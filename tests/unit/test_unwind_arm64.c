/* Unwinding AArch64 guests by frame records (x29 = the current record,
 * [x29] the caller's x29, [x29 + 8] the saved x30), through a hypercall:
 * a vCPU blocked in "hvc #0xea1" inside a stub with no frame record has
 * its caller only in x30 (LR). Hostile chains end truncated, as on x86. */
#include "guest_arm64.h"
#include "test.h"
#include "mem/memory.h"
#include "target/image.h"

TEST_GLOBALS;

#define TEXT 0xffff000000080000ULL        /* kernel code, 2 pages */
#define STACK 0xffff000000200000ULL       /* 4 pages of stack */
#define STUB (TEXT + 0x100)               /* mov x16, #29; hvc; ret */
#define HVC_XEN 0xd401d422u
#define MOV_X16_29 0xd28003b0u
#define RET 0xd65f03c0u
#define NOP 0xd503201fu

struct fixture {
	struct a64 g;
	struct up_target *t;
	struct up_mem *m;
	struct up_kernel_map *k;
	uint64_t frames[64];
	struct up_stack st;
};

static void setup(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	a64_init(&f->g, A64_TCR_48);
	a64_map_fresh(&f->g, TEXT, 2);
	a64_map_fresh(&f->g, STACK, 4);
	for (uint64_t a = TEXT; a < TEXT + 0x2000; a += 4)
		a64_poke32(&f->g, a, NOP);
	a64_poke32(&f->g, STUB, MOV_X16_29);
	a64_poke32(&f->g, STUB + 4, HVC_XEN);
	a64_poke32(&f->g, STUB + 8, RET);
	f->st.frames = f->frames;
	f->st.capacity = 64;
	REQUIRE(up_kernel_map_new(&f->k) == 0);
	REQUIRE(up_kernel_map_add_text(f->k, TEXT, TEXT + 0x2000) == 0);
}

static void open_target(struct fixture *f)
{
	f->t = a64_open(&f->g, NULL);
	REQUIRE(up_mem_new(&f->m, f->t, 0) == 0);
}

static void teardown(struct fixture *f)
{
	up_mem_free(f->m);
	up_target_close(f->t);
	up_image_free(f->g.img);
	up_kernel_map_free(f->k);
}

/* Records from sp upwards, 32 bytes apart, each pointing to the next;
 * ret[i] is the return address saved in record i. The last links to 0. */
static uint64_t chain(struct fixture *f, uint64_t sp, const uint64_t *ret,
		      unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		uint64_t at = sp + 32ULL * i;

		a64_poke64(&f->g, at, i + 1 < n ? at + 32 : 0);
		a64_poke64(&f->g, at + 8, ret[i]);
	}
	return sp;
}

static int walk(struct fixture *f, uint64_t ip, uint64_t sp, uint64_t fp,
		uint64_t lr)
{
	struct up_regs r = a64_regs(&f->g);
	struct up_unwind_opts o = { .max_depth = 64, .kernel = f->k,
				    .domain_type = UP_DOMAIN_HVM };

	r.ip = ip;
	r.sp = sp;
	r.fp = fp;
	r.lr = lr;
	up_mem_new_sample(f->m);
	return up_unwind_fp(f->m, &r, &o, &f->st);
}

static void test_frame_records(void)
{
	struct fixture f;
	uint64_t ret[3] = { TEXT + 0x404, TEXT + 0x808, TEXT + 0xc0c }, fp;

	setup(&f);
	fp = chain(&f, STACK + 0x100, ret, 3);
	open_target(&f);
	CHECK(walk(&f, TEXT + 0x200, STACK + 0xf0, fp, TEXT + 0x404) == 0);
	CHECK(f.st.depth == 4 && f.st.trunc == UP_TRUNC_NONE);
	CHECK_U64(f.frames[0], TEXT + 0x200);
	CHECK_U64(f.frames[1], TEXT + 0x404);
	CHECK_U64(f.frames[3], TEXT + 0xc0c);
	teardown(&f);
}

/* Blocked in the hypercall: pc after the hvc, the caller in LR, the
 * caller's own record at x29 (the stub made none). */
static void test_hypercall_stub(void)
{
	struct fixture f;
	uint64_t ret[2] = { TEXT + 0x808, TEXT + 0xc0c }, fp;

	setup(&f);
	fp = chain(&f, STACK + 0x100, ret, 2);
	open_target(&f);
	CHECK(walk(&f, STUB + 8, STACK + 0xf0, fp, TEXT + 0x404) == 0);
	CHECK(f.st.depth == 4 && f.st.trunc == UP_TRUNC_NONE);
	CHECK_U64(f.frames[0], STUB + 8);
	CHECK_U64(f.frames[1], TEXT + 0x404);      /* from LR */
	CHECK_U64(f.frames[2], TEXT + 0x808);
	CHECK_U64(f.frames[3], TEXT + 0xc0c);
	/* Anywhere else in the code, LR is not taken for a caller. */
	CHECK(walk(&f, STUB + 4, STACK + 0xf0, fp, TEXT + 0x404) == 0);
	CHECK(f.st.depth == 3);
	CHECK_U64(f.frames[1], TEXT + 0x808);
	/* A stub with no caller to return to: truncated, said so. */
	CHECK(walk(&f, STUB + 8, STACK + 0xf0, fp, 0) == 0);
	CHECK(f.st.depth == 1 && f.st.trunc == UP_TRUNC_HYPERCALL_STUB);
	/* LR outside the kernel's code. */
	CHECK(walk(&f, STUB + 8, STACK + 0xf0, fp, 0x1234) == 0);
	CHECK(f.st.depth == 1 && f.st.trunc == UP_TRUNC_OUTSIDE_TEXT);
	/* A pc whose previous word is unmapped or misaligned: no stub. */
	CHECK(walk(&f, TEXT, STACK + 0xf0, fp, TEXT + 0x404) == 0);
	CHECK(f.st.depth == 3 && f.st.trunc == UP_TRUNC_NONE);
	CHECK(walk(&f, STUB + 9, STACK + 0xf0, fp, TEXT + 0x404) == 0);
	CHECK(f.frames[1] == TEXT + 0x808);
	teardown(&f);
}

/* Chains a guest may leave: a loop, a record below sp, a misaligned one,
 * one in unmapped memory. Each ends truncated with its reason. */
static void test_hostile_chains(void)
{
	struct fixture f;
	uint64_t at = STACK + 0x100;

	setup(&f);
	a64_poke64(&f.g, at, at + 32);
	a64_poke64(&f.g, at + 8, TEXT + 0x404);
	a64_poke64(&f.g, at + 32, at);               /* back to the first */
	a64_poke64(&f.g, at + 40, TEXT + 0x808);
	open_target(&f);
	CHECK(walk(&f, TEXT + 0x200, STACK + 0xf0, at, 0) == 0);
	CHECK(f.st.trunc == UP_TRUNC_LOOP && f.st.depth == 3);
	CHECK(walk(&f, TEXT + 0x200, STACK + 0x200, at, 0) == 0);
	CHECK(f.st.trunc == UP_TRUNC_BOUNDS && f.st.depth == 1);
	CHECK(walk(&f, TEXT + 0x200, STACK + 0xf0, at + 4, 0) == 0);
	CHECK(f.st.trunc == UP_TRUNC_ALIGN && f.st.depth == 1);
	CHECK(walk(&f, TEXT + 0x200, STACK + 0x3ff0, STACK + 0x4000, 0) == 0);
	CHECK(f.st.trunc == UP_TRUNC_UNREADABLE && f.st.depth == 1);
	teardown(&f);
}

/* A zero x29 ends a chain whole only in code that keeps frame records;
 * in a kernel built without them, x29 is a general register, and a zero
 * there says nothing: the stack is truncated, not whole. */
static void test_zero_fp_without_frame_records(void)
{
	struct fixture f;

	setup(&f);
	open_target(&f);
	CHECK(walk(&f, TEXT + 0x200, STACK + 0xf0, 0, 0) == 0);
	CHECK(f.st.depth == 1 && f.st.trunc == UP_TRUNC_NONE);
	up_kernel_map_set_frame_pointers(f.k, UP_FP_OMITTED);
	CHECK(walk(&f, TEXT + 0x200, STACK + 0xf0, 0, 0) == 0);
	CHECK(f.st.depth == 1 && f.st.trunc == UP_TRUNC_NO_UNWIND_INFO);
	/* An outermost function is whole all the same. */
	REQUIRE(up_kernel_map_add_entry(f.k, TEXT + 0x200, TEXT + 0x240) == 0);
	CHECK(walk(&f, TEXT + 0x210, STACK + 0xf0, 0, 0) == 0);
	CHECK(f.st.depth == 1 && f.st.trunc == UP_TRUNC_NONE);
	teardown(&f);
}

int main(void)
{
	RUN(test_frame_records);
	RUN(test_zero_fp_without_frame_records);
	RUN(test_hypercall_stub);
	RUN(test_hostile_chains);
	TEST_MAIN_END();
}
