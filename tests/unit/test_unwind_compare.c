/* The CFI table against libunwind, frame by frame, on stacks built to
 * match the test guest's real unwind information: for each sampled IP in
 * the no-frame-pointer build, a call chain down to tg_entry64 is laid out
 * on a synthetic stack exactly as the code would have (CFA offsets and
 * saved registers from the CFI), then both unwinders walk it. And the
 * per-frame fallback: a rule beyond the table goes to libunwind. */
#include "unwind/cfi_table.h"
#include "guest.h"
#include "test.h"
#include "mem/memory.h"
#include "target/image.h"

TEST_GLOBALS;

#define STACK 0xffff880000400000ULL

static char elf[4096];

static unsigned long sym(const char *name)
{
	return tg_elf_symbol(elf, name);
}

/* The return address of caller's call to callee. */
static unsigned long ret_after_call(const char *caller, const char *callee)
{
	unsigned long call = tg_shell_hex(
		"objdump -d --no-show-raw-insn '%s' | awk '/^[0-9a-f]+ <%s>:/ { in_f = 1; next } /^[0-9a-f]+ </ { in_f = 0 } in_f && /call.*<%s>/ { sub(\":\", \"\", $1); print $1; exit }'",
		elf, caller, callee);

	return call ? call + 5 : 0;     /* call rel32 is 5 bytes */
}

/* Lay out the frames for ip and its callers (rets, innermost first). */
static int build(struct test_guest *g, const struct up_cfi_table *t, uint64_t ip,
		 const uint64_t *rets, unsigned n, uint64_t sp)
{
	uint64_t pc = ip;

	for (unsigned i = 0; i < n; i++) {
		const struct cfi_row *r = cfi_table_find(t, pc);
		uint64_t cfa;

		if (!r || r->kind != CFI_ROW_NORMAL || r->cfa_reg != CFI_CFA_SP)
			return -1;
		cfa = sp + (uint64_t)(int64_t)r->cfa_off;
		tg_poke64(g, cfa + (uint64_t)(int64_t)r->ra_off, rets[i]);
		if (r->fp_rule == CFI_FP_AT_CFA)
			tg_poke64(g, cfa + (uint64_t)(int64_t)r->fp_off, 0);
		sp = cfa;
		pc = rets[i] - 1;
	}
	return 0;
}

static void compare_at(const struct up_cfi_table *t, const struct up_libunwind *lu,
		       uint64_t ip, const uint64_t *rets, unsigned n)
{
	struct test_guest g;
	struct up_target *tgt;
	struct up_mem *m;
	struct up_regs r;
	uint64_t a[64], b[64];
	struct up_stack sa = { .frames = a, .capacity = 64 };
	struct up_stack sb = { .frames = b, .capacity = 64 };
	struct up_unwind_opts o = { .max_depth = 64 };

	tg_init(&g, UP_DOMAIN_HVM);
	tg_map_fresh(&g, STACK, 4);
	REQUIRE(build(&g, t, ip, rets, n, STACK + 0x100) == 0);
	r = tg_regs(&g, ip, STACK + 0x100, 0);
	up_image_add_vcpu(g.img, &r);
	tgt = tg_open(&g);
	REQUIRE(up_mem_new(&m, tgt, 0) == 0);
	CHECK(up_unwind_cfi(m, &r, t, &o, false, &sa, NULL) == 0);
	CHECK(up_unwind_libunwind(m, &r, lu, &o, &sb) == 0);
	CHECK(sa.trunc == UP_TRUNC_NONE);
	CHECK(sb.trunc == UP_TRUNC_NONE);
	CHECK(sa.depth == n + 1);
	CHECK(sb.depth == sa.depth);
	if (sb.depth != sa.depth) fprintf(stderr, "depth cfi %u libunwind %u trunc %d/%d\n", sa.depth, sb.depth, sa.trunc, sb.trunc);
	for (unsigned i = 0; i < sa.depth && i < sb.depth; i++)
		CHECK_U64(b[i], a[i]);
	for (unsigned i = 1; i < sa.depth; i++)
		CHECK_U64(a[i], rets[i - 1]);
	up_mem_free(m);
	up_target_close(tgt);
	tg_release(&g);
}

static void test_cfi_matches_libunwind(void)
{
	struct up_cfi_table *t;
	struct up_libunwind *lu;
	uint64_t chain[14];
	unsigned n = 0;
	char callee[32], caller[32];

	/* libunwind unwinds its host's architecture: x86_64 guests only on
	 * an x86_64 build. */
	if (UP_ARCH_HOST != UP_ARCH_X86_64) {
		printf("# %s: libunwind here is not x86_64's: skipped\n", __func__);
		return;
	}

	REQUIRE(up_cfi_table_load(&t, elf) == 0);
	REQUIRE(up_libunwind_load(&lu, elf) == 0);

	/* tg_chain_10 <- 09 <- ... <- 01 <- tg_round <- tg_workload <- tg_main <- tg_entry64 */
	for (int k = 10; k > 1; k--) {
		snprintf(callee, sizeof(callee), "tg_chain_%02d", k);
		snprintf(caller, sizeof(caller), "tg_chain_%02d", k - 1);
		chain[n++] = ret_after_call(caller, callee);
	}
	chain[n++] = ret_after_call("tg_round", "tg_chain_01");
	chain[n++] = ret_after_call("tg_workload", "tg_round");
	chain[n++] = ret_after_call("tg_main", "tg_workload");
	chain[n++] = ret_after_call("tg_entry64", "tg_main");
	for (unsigned i = 0; i < n; i++)
		REQUIRE(chain[i] != 0);
	/* Every instruction of the leaf's first 48 bytes: prologue, loop. */
	for (unsigned off = 0; off < 48; off++) {
		uint64_t ip = sym("tg_chain_10") + off;

		if (cfi_table_find(t, ip))
			compare_at(t, lu, ip, chain, n);
	}
	/* A shallow stack: tg_hot_35 <- tg_round <- ... */
	{
		uint64_t hot[4] = { ret_after_call("tg_round", "tg_hot_35"), chain[10],
				    chain[11], chain[12] };

		compare_at(t, lu, sym("tg_hot_35"), hot, 4);
	}
	up_libunwind_free(lu);
	up_cfi_table_free(t);
}

/* fixture_cfi_far: far_leaf's frame pointer lies 40016 bytes below its
 * CFA, beyond the table; far_caller is a plain frame-pointer frame. */
static void test_fallback_to_libunwind(void)
{
	struct up_cfi_table *t;
	struct up_libunwind *lu;
	struct test_guest g;
	struct up_target *tgt;
	struct up_mem *m;
	uint64_t frames[16], body = sym("far_leaf_body"), ret = sym("far_caller_ret");
	uint64_t sp = STACK, caller_fp = STACK + 0x10000;
	struct up_stack st = { .frames = frames, .capacity = 16 };
	struct up_unwind_counts c = { 0 };
	struct up_unwind_opts o = { .max_depth = 16 };
	struct up_regs r;
	const struct cfi_row *row;

	/* libunwind unwinds its host's architecture: x86_64 guests only on
	 * an x86_64 build. */
	if (UP_ARCH_HOST != UP_ARCH_X86_64) {
		printf("# %s: libunwind here is not x86_64's: skipped\n", __func__);
		return;
	}

	REQUIRE(body && ret);
	REQUIRE(up_cfi_table_load(&t, elf) == 0);
	CHECK(up_cfi_table_info(t)->unsupported >= 1);
	row = cfi_table_find(t, body);
	REQUIRE(row != NULL);
	CHECK(row->kind == CFI_ROW_UNSUPPORTED);
	REQUIRE(up_libunwind_load(&lu, elf) == 0);

	tg_init(&g, UP_DOMAIN_HVM);
	tg_map_fresh(&g, STACK, 20);
	/* far_leaf: CFA = sp + 40016, RA at CFA-8, caller's rbp at CFA-40016. */
	tg_poke64(&g, sp, caller_fp);
	tg_poke64(&g, sp + 40008, ret);
	/* far_caller: CFA = rbp + 16, its caller's rbp 0 and RA 0: the end. */
	tg_poke64(&g, caller_fp, 0);
	tg_poke64(&g, caller_fp + 8, 0);
	r = tg_regs(&g, body, sp, 0x1234);
	up_image_add_vcpu(g.img, &r);
	tgt = tg_open(&g);
	REQUIRE(up_mem_new(&m, tgt, 0) == 0);

	/* Without the fallback, -u cfi stops at the rule it cannot express. */
	up_mem_new_sample(m);
	CHECK(up_unwind_cfi(m, &r, t, &o, false, &st, &c) == 0);
	CHECK(st.depth == 1 && st.trunc == UP_TRUNC_UNSUPPORTED);
	CHECK(c.unsupported == 1 && c.libunwind == 0);

	/* With it, libunwind takes that frame and the table the next. */
	memset(&c, 0, sizeof(c));
	o.cfi_fallback = lu;
	up_mem_new_sample(m);
	CHECK(up_unwind_cfi(m, &r, t, &o, false, &st, &c) == 0);
	CHECK(st.trunc == UP_TRUNC_NONE);
	CHECK(st.depth == 2 && frames[0] == body && frames[1] == ret);
	CHECK(c.unsupported == 1 && c.libunwind == 1 && c.cfi == 1);

	/* A row compiled from a second file (the symbol file's CFI) is not
	 * libunwind's: it reads only the image's .eh_frame. */
	{
		struct cfi_row *w = (struct cfi_row *)cfi_table_find(t, body);

		w->kind = CFI_ROW_UNSUPPORTED_ELSEWHERE;
		memset(&c, 0, sizeof(c));
		up_mem_new_sample(m);
		CHECK(up_unwind_cfi(m, &r, t, &o, false, &st, &c) == 0);
		CHECK(st.depth == 1 && st.trunc == UP_TRUNC_UNSUPPORTED);
		CHECK(c.unsupported == 1 && c.libunwind == 0);
		w->kind = CFI_ROW_UNSUPPORTED;
	}

	up_mem_free(m);
	up_target_close(tgt);
	tg_release(&g);
	up_libunwind_free(lu);
	up_cfi_table_free(t);
}

int main(void)
{
	const char *b = getenv("top_builddir");

	/* libunwind builds its own search table for the first build, and
	 * reads the image's .eh_frame_hdr for the second. */
	snprintf(elf, sizeof(elf), "%s/tests/guest/tg-nofp.elf", b ? b : ".");
	RUN(test_cfi_matches_libunwind);
	snprintf(elf, sizeof(elf), "%s/tests/guest/tg-nofp-hdr.elf", b ? b : ".");
	RUN(test_cfi_matches_libunwind);
	snprintf(elf, sizeof(elf), "%s/tests/unit/fixture_cfi_far", b ? b : ".");
	RUN(test_fallback_to_libunwind);
	TEST_MAIN_END();
}
