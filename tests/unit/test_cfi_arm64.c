/* CFI for AArch64 images: the table compiled from what GCC writes for the
 * architecture (DWARF sp 31, x29, return address column x30; a leaf's
 * return address still in the link register), and walks over a synthetic
 * AArch64 guest: a leaf, a function with a frame record, one without a
 * frame pointer, the entry; out of a hypercall stub with no CFI; a link
 * register taken for a caller only in the interrupted frame. */
#include <unistd.h>

#include "unwind/cfi_table.h"
#include "guest.h"
#include "guest_arm64.h"
#include "test.h"
#include "mem/memory.h"
#include "target/image.h"

TEST_GLOBALS;

#define STACK 0x0000000000800000ULL
#define STUB 0x400800ULL          /* no FDE here: mov x16; hvc; ret */
#define HVC_XEN 0xd401d422u

static char fixture[4096];

static uint64_t sym(const char *name)
{
	uint64_t a = tg_elf_symbol(fixture, name);

	NEED(a != 0);
	return a;
}

static void test_table(void)
{
	struct up_cfi_table *t;
	const struct cfi_row *r;
	uint64_t leaf = sym("a64_leaf"), mid = sym("a64_mid");
	uint64_t nofp = sym("a64_nofp"), start = sym("_start");

	REQUIRE(up_cfi_table_load(&t, fixture) == 0);
	CHECK(up_cfi_table_info(t)->unsupported == 0);
	/* A leaf: sp never moves, the return address stays in x30. */
	r = cfi_table_find(t, leaf + 4);
	REQUIRE(r != NULL);
	CHECK(r->kind == CFI_ROW_NORMAL && r->cfa_reg == CFI_CFA_SP);
	CHECK(r->cfa_off == 0 && r->ra_rule == CFI_RA_IN_LR);
	CHECK(r->fp_rule == CFI_FP_SAME);
	/* A function's first instruction: the same, before it saves. */
	r = cfi_table_find(t, mid);
	REQUIRE(r != NULL);
	CHECK(r->kind == CFI_ROW_NORMAL && r->ra_rule == CFI_RA_IN_LR);
	/* After "stp x29, x30, [sp, #-32]!": both saved under the CFA. */
	r = cfi_table_find(t, mid + 8);
	REQUIRE(r != NULL);
	CHECK(r->kind == CFI_ROW_NORMAL && r->cfa_reg == CFI_CFA_SP);
	CHECK(r->cfa_off == 32 && r->ra_rule == CFI_RA_AT_CFA && r->ra_off == -24);
	CHECK(r->fp_rule == CFI_FP_AT_CFA && r->fp_off == -32);
	/* Without a frame pointer: x30 alone, x29 untouched. */
	r = cfi_table_find(t, nofp + 8);
	REQUIRE(r != NULL);
	CHECK(r->cfa_off == 144 && r->ra_off == -144 && r->fp_rule == CFI_FP_SAME);
	r = cfi_table_find(t, start + 8);
	REQUIRE(r != NULL);
	CHECK(r->cfa_off == 16 && r->ra_off == -8 && r->fp_off == -16);
	CHECK(cfi_table_find(t, STUB + 8) == NULL);
	up_cfi_table_free(t);
}

/* An image for a machine uniprof does not unwind (32-bit Arm here) is
 * refused by name, not read with another's register numbers. */
static void test_other_machine(void)
{
	FILE *f = fopen(fixture, "rb");
	static uint8_t buf[1 << 20];
	struct up_cfi_table *t;
	size_t n;

	REQUIRE(f != NULL);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	REQUIRE(n > 64 && n < sizeof(buf));
	buf[18] = 40;                        /* e_machine: EM_ARM */
	buf[19] = 0;
	CHECK(up_cfi_table_load_mem(&t, buf, n, "arm.elf") == UP_EUNSUPP);
	CHECK(strstr(up_error_last(), "ELF machine 40") != NULL);
	CHECK(strstr(up_error_last(), "-u fp") != NULL);
}

struct fx {
	struct a64 g;
	struct up_target *t;
	struct up_mem *m;
	struct up_cfi_table *table;
	struct up_kernel_map *k;
	uint64_t frames[64];
	struct up_stack st;
	uint64_t ret_mid, ret_nofp, ret_start;
};

/* A guest stopped in a64_leaf, called from a64_mid, from a64_nofp, from
 * _start (outermost): the stack as the fixture's code leaves it. */
static void setup(struct fx *f)
{
	uint64_t s = STACK + 0x800;         /* the leaf's sp */
	const struct cfi_row *r;

	memset(f, 0, sizeof(*f));
	NEED(up_cfi_table_load(&f->table, fixture) == 0);
	/* Return addresses inside each caller's body, past its prologue. */
	r = cfi_table_find(f->table, sym("a64_mid") + 8);
	NEED(r != NULL);
	f->ret_mid = r->start + 8;
	r = cfi_table_find(f->table, sym("a64_nofp") + 8);
	NEED(r != NULL);
	f->ret_nofp = r->start + 8;
	f->ret_start = sym("_start") + 12;
	a64_init(&f->g, A64_TCR_48);
	a64_map_fresh(&f->g, 0x400000, 2);
	a64_map_fresh(&f->g, STACK, 2);
	a64_poke32(&f->g, STUB, 0xd28003b0u);        /* mov x16, #29 */
	a64_poke32(&f->g, STUB + 4, HVC_XEN);
	a64_poke32(&f->g, STUB + 8, 0xd65f03c0u);    /* ret */
	/* a64_mid's frame: CFA = s + 32; x29 at CFA-32, x30 at CFA-24. */
	a64_poke64(&f->g, s, 0);
	a64_poke64(&f->g, s + 8, f->ret_nofp);
	/* a64_nofp's: CFA = (s + 32) + 144; x30 at CFA-144. */
	a64_poke64(&f->g, s + 32, f->ret_start);
	f->t = a64_open(&f->g, NULL);
	NEED(up_mem_new(&f->m, f->t, 0) == 0);
	NEED(up_kernel_map_new(&f->k) == 0);
	NEED(up_kernel_map_add_text(f->k, 0x400000, 0x401000) == 0);
	NEED(up_kernel_map_add_entry(f->k, sym("_start"), sym("_start") + 0x1c) == 0);
	f->st.frames = f->frames;
	f->st.capacity = 64;
}

static void teardown(struct fx *f)
{
	up_mem_free(f->m);
	up_target_close(f->t);
	up_image_free(f->g.img);
	up_cfi_table_free(f->table);
	up_kernel_map_free(f->k);
}

static int walk(struct fx *f, uint64_t ip, uint64_t lr)
{
	struct up_regs r = a64_regs(&f->g);
	struct up_unwind_opts o = { .max_depth = 64, .kernel = f->k,
				    .domain_type = UP_DOMAIN_HVM };

	r.ip = ip;
	r.sp = STACK + 0x800;
	r.fp = 0x1234;                      /* x29 is not the CFA's base */
	r.lr = lr;
	up_mem_new_sample(f->m);
	return up_unwind_cfi(f->m, &r, f->table, &o, false, &f->st, NULL);
}

static void test_walks(void)
{
	struct fx f;

	setup(&f);
	/* In the leaf: its caller from x30, then two frames from memory,
	 * then the entry ends the stack whole. */
	CHECK(walk(&f, sym("a64_leaf") + 4, f.ret_mid) == 0);
	CHECK(f.st.trunc == UP_TRUNC_NONE && f.st.depth == 4);
	CHECK_U64(f.frames[1], f.ret_mid);
	CHECK_U64(f.frames[2], f.ret_nofp);
	CHECK_U64(f.frames[3], f.ret_start);
	/* Blocked in a hypercall stub with no CFI: x30, then the same. */
	CHECK(walk(&f, STUB + 8, f.ret_mid) == 0);
	CHECK(f.st.trunc == UP_TRUNC_NONE && f.st.depth == 4);
	CHECK_U64(f.frames[1], f.ret_mid);
	CHECK_U64(f.frames[3], f.ret_start);
	/* x30 outside the code: truncated there. */
	CHECK(walk(&f, sym("a64_leaf") + 4, 0x7777) == 0);
	CHECK(f.st.trunc == UP_TRUNC_OUTSIDE_TEXT && f.st.depth == 1);
	/* A caller whose row keeps its return address in x30 (a return
	 * address at a function's first instruction): x30 was the callee's,
	 * so that frame cannot be unwound; said so. */
	CHECK(walk(&f, sym("a64_leaf") + 4, sym("a64_mid") + 4) == 0);
	CHECK(f.st.trunc == UP_TRUNC_UNSUPPORTED && f.st.depth == 2);
	teardown(&f);
}

/* libunwind unwinds its host's architecture: from an x86 build an AArch64
 * stack is refused, truncated at its pc, not walked with x86 rules. */
static void test_libunwind_refuses(void)
{
	struct fx f;
	struct up_libunwind *lu;
	struct up_regs r;
	struct up_unwind_opts o = { .max_depth = 64 };
	uint64_t ip, sp, fp;
	enum up_trunc trunc = UP_TRUNC_NONE;

	if (UP_ARCH_HOST == UP_ARCH_AARCH64) {
		printf("# an AArch64 build's libunwind is the native one: refusal not tested\n");
		return;
	}
	setup(&f);
	r = a64_regs(&f.g);
	r.ip = sym("a64_leaf") + 4;
	r.sp = STACK + 0x800;
	r.lr = f.ret_mid;
	REQUIRE(up_libunwind_load(&lu, fixture) == 0);
	CHECK(up_unwind_libunwind(f.m, &r, lu, &o, &f.st) == 0);
	CHECK(f.st.depth == 1 && f.st.trunc == UP_TRUNC_UNSUPPORTED);
	ip = r.ip;
	sp = r.sp;
	fp = 0;
	CHECK(up_libunwind_step(f.m, &r, lu, true, &ip, &sp, &fp, &trunc) < 0);
	CHECK(trunc == UP_TRUNC_UNSUPPORTED);
	up_libunwind_free(lu);
	teardown(&f);
}

int main(void)
{
	const char *b = getenv("top_builddir");

	snprintf(fixture, sizeof(fixture), "%s/tests/unit/fixture_arm64.elf",
		 b ? b : ".");
	if (access(fixture, R_OK) != 0) {
		printf("SKIP: %s not built (no aarch64-linux-gnu-gcc: apt-get install gcc-aarch64-linux-gnu)\n",
		       fixture);
		return 77;
	}
	RUN(test_table);
	RUN(test_other_machine);
	RUN(test_walks);
	RUN(test_libunwind_refuses);
	TEST_MAIN_END();
}
