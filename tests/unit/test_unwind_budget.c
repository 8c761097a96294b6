/* Hostile unwind information cannot hold a walk: fixture_cfi_loop's CFA
 * rule is the DWARF expression "DW_OP_skip -3", which libunwind would
 * evaluate forever. Its accessor calls are counted and the walk ends,
 * truncated with UP_TRUNC_BUDGET: alone, as the per-frame fallback of the
 * CFI table (-u auto), and in the sampler, whose run ends normally. The
 * alarm turns a hang into a failure. */
#include <time.h>
#include <unistd.h>

#include "unwind/cfi_table.h"
#include "guest.h"
#include "test.h"
#include "mem/memory.h"
#include "target/image.h"

TEST_GLOBALS;

#define STACK 0xffff880000400000ULL

static char elf[4096];

static double seconds_since(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (double)(b.tv_sec - a->tv_sec) + (double)(b.tv_nsec - a->tv_nsec) / 1e9;
}

static struct up_target *guest_at(uint64_t ip)
{
	struct test_guest g;
	struct up_target *t;
	struct up_regs r;

	tg_init(&g, UP_DOMAIN_HVM);
	tg_map_fresh(&g, STACK, 4);
	r = tg_regs(&g, ip, STACK, 0x1234);
	up_image_add_vcpu(g.img, &r);
	t = tg_open(&g);
	tg_release(&g);
	return t;
}

static void test_libunwind_walk_ends(void)
{
	uint64_t body = tg_elf_symbol(elf, "loop_leaf_body");
	uint64_t frames[16], ip, sp = STACK, fp = 0x1234;
	struct up_stack st = { .frames = frames, .capacity = 16 };
	struct up_unwind_opts o = { .max_depth = 16 };
	enum up_trunc trunc = UP_TRUNC_NONE;
	struct up_libunwind *lu;
	struct up_target *t;
	struct up_mem *m;
	struct up_regs r;
	struct timespec a;

	/* libunwind unwinds its host's architecture: x86_64 guests only on
	 * an x86_64 build. */
	if (UP_ARCH_HOST != UP_ARCH_X86_64) {
		printf("# %s: libunwind here is not x86_64's: skipped\n", __func__);
		return;
	}

	REQUIRE(body != 0);
	REQUIRE(up_libunwind_load(&lu, elf) == 0);
	t = guest_at(body);
	REQUIRE(t != NULL);
	REQUIRE(up_target_get_regs(t, 0, &r) == 0);
	REQUIRE(up_mem_new(&m, t, 0) == 0);

	up_mem_new_sample(m);
	clock_gettime(CLOCK_MONOTONIC, &a);
	CHECK(up_unwind_libunwind(m, &r, lu, &o, &st) == 0);
	fprintf(stderr, "  walk: %.2f ms to spend the budget\n", seconds_since(&a) * 1e3);
	CHECK(st.depth == 1 && frames[0] == body);
	CHECK(st.trunc == UP_TRUNC_BUDGET);
	CHECK_STR(up_trunc_name(st.trunc), "unwinder step budget spent");

	ip = body;
	CHECK(up_libunwind_step(m, &r, lu, true, &ip, &sp, &fp, &trunc) == -1);
	CHECK(trunc == UP_TRUNC_BUDGET);

	up_mem_free(m);
	up_target_close(t);
	up_libunwind_free(lu);
}

/* -u auto: the table cannot express the rule, libunwind takes the frame
 * and gives up on its budget; three samples, each one frame, truncated. */
static void test_sampler_run_ends(void)
{
	uint64_t body = tg_elf_symbol(elf, "loop_leaf_body");
	struct up_cfi_table *cfi;
	struct up_libunwind *lu;
	struct up_sampler_config c;
	struct up_sampler_stats st;
	struct up_profile *p;
	struct up_target *t;
	const struct cfi_row *row;

	/* libunwind unwinds its host's architecture: x86_64 guests only on
	 * an x86_64 build. */
	if (UP_ARCH_HOST != UP_ARCH_X86_64) {
		printf("# %s: libunwind here is not x86_64's: skipped\n", __func__);
		return;
	}

	REQUIRE(body != 0);
	REQUIRE(up_cfi_table_load(&cfi, elf) == 0);
	row = cfi_table_find(cfi, body);
	REQUIRE(row != NULL);
	CHECK(row->kind == CFI_ROW_UNSUPPORTED);
	REQUIRE(up_libunwind_load(&lu, elf) == 0);
	t = guest_at(body);
	REQUIRE(t != NULL);
	up_sampler_config_init(&c, UP_SAMPLER_CONFIG_VERSION);
	c.hz = 1000;
	c.max_samples = 3;
	c.drop_late = true;     /* exact counts: one stack per sample */
	c.unwinder = UP_UNWINDER_AUTO;
	c.cfi = cfi;
	c.unwind.cfi_fallback = lu;
	REQUIRE(up_profile_new(&p, 1) == 0);
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	CHECK(st.stop == UP_STOP_MAX_SAMPLES);
	CHECK_U64(st.samples, 3);
	CHECK_U64(st.frames.unsupported, 3);
	CHECK_U64(up_profile_truncated(p), 3);
	CHECK(!up_target_paused_by_us(t));
	fprintf(stderr, "  sampler: pause max %.2f ms\n",
		(double)up_sampler_pause_percentile(&st, 100) / 1e6);
	up_sampler_stats_release(&st);
	up_profile_free(p);
	up_target_close(t);
	up_libunwind_free(lu);
	up_cfi_table_free(cfi);
}

int main(void)
{
	const char *b = getenv("top_builddir");

	snprintf(elf, sizeof(elf), "%s/tests/unit/fixture_cfi_loop", b ? b : ".");
	alarm(60);
	RUN(test_libunwind_walk_ends);
	RUN(test_sampler_run_ends);
	TEST_MAIN_END();
}
