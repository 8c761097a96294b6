/* Sampling without a domain pause (relaxed consistency) on an image
 * target: no pause is ever made; every stack word a walk read is read
 * again, so a stack the guest rewrote under the walk is walked once more,
 * and dropped (and counted) if it moves again; a vCPU that did not run is
 * exact. The scribble hook plays the guest writing its stack. */
#include <string.h>

#include "guest.h"
#include "test.h"
#include "target/image_hooks.h"
#include "mem/memory.h"
#include "target/image.h"

TEST_GLOBALS;

#define STACK_VA TG_STACK_VA

static struct test_guest g;

/* vCPU 0: 0xaaaa <- 0x1111 <- 0x2222; vCPU 1: 0xbbbb <- 0x3333. */
static struct up_target *two_vcpu_guest(bool second_blocked)
{
	return tg_two_vcpus(&g, true, second_blocked);
}

/* The end of every test: what it sampled and the guest it sampled. */
static void done(struct up_target *t, struct up_profile *p,
		 struct up_sampler_stats *st)
{
	up_sampler_stats_release(st);
	up_profile_free(p);
	up_target_close(t);
	tg_release(&g);
}

/* The frame holding a stack address, as the sampler would find it. */
static uint64_t frame_of(struct up_target *t, uint64_t va)
{
	struct up_mem *m;
	struct up_regs r;
	uint64_t frame = 0;

	CHECK(up_target_get_regs(t, 0, &r) == 0);
	CHECK(up_mem_new(&m, t, 0) == 0);
	CHECK(up_mem_translate(m, &r, va, &frame) == 0);
	up_mem_free(m);
	return frame;
}

static char *folded(struct up_profile *p)
{
	return tg_folded(p, NULL);
}

static void relaxed_config(struct up_sampler_config *c, uint64_t n)
{
	up_sampler_config_init(c, UP_SAMPLER_CONFIG_VERSION);
	c->hz = 2000;
	c->drop_late = true;
	c->max_samples = n;
	c->consistency = UP_CONSISTENCY_RELAXED;
}

static void test_no_pause_same_stacks(void)
{
	struct up_target *t = two_vcpu_guest(true);
	struct up_image_pause_counts pc;
	struct up_sampler_config c;
	struct up_sampler_stats st;
	struct up_profile *p;
	char *out;

	relaxed_config(&c, 30);
	REQUIRE(up_profile_new(&p, 2) == 0);
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	CHECK(st.samples == 30);
	up_target_image_pause_counts(t, &pc);
	CHECK(pc.pauses == 0 && pc.held == 0);
	/* vCPU 1 is blocked: its run clock stands, its stacks are exact;
	 * vCPU 0 runs: its stacks are checked word by word. */
	CHECK(st.relaxed_still == 30);
	CHECK(st.relaxed_stable == 30);
	CHECK(st.relaxed_retried == 0 && st.relaxed_dropped == 0);
	CHECK(up_profile_vcpu_busy(p, 0) == 30);
	CHECK(up_profile_vcpu_blocked(p, 1) == 30);
	out = folded(p);    /* on-CPU stacks: vCPU 0's */
	CHECK_STR(out, "0x2222;0x1111;0xaaaa 30\n");
	free(out);
	/* Each vCPU stood still only for its own register reads. */
	CHECK(st.nr_pause == 30);
	CHECK(st.vcpu_paused_ns[0] > 0 && st.vcpu_paused_ns[1] > 0);
	CHECK(up_sampler_pause_mean(&st) > 0);
	CHECK(up_sampler_stall_pct(&st, 0) >= 0 &&
	      up_sampler_stall_pct(&st, 0) < 100);
	CHECK(up_target_image_mapped(t) == 0);
	done(t, p, &st);
}

/* The guest returns and calls again between the walk and the check: the
 * return address slot of vCPU 0's first frame changes once. The walk is
 * made again and sees the new caller. */
static void test_changed_once_walked_again(void)
{
	struct up_target *t = two_vcpu_guest(false);
	uint64_t slot = STACK_VA + 16 + 8, frame = frame_of(t, slot);
	struct up_sampler_config c;
	struct up_sampler_stats st;
	struct up_profile *p;
	char *out;

	/* Read 1: before the registers; read 2: after the walk. */
	up_target_image_set_scribble(t, 0, UP_FRAME_MFN, frame,
				     (unsigned)(slot & 0xfff), 0x1111 ^ 0x1515,
				     2, 1);
	relaxed_config(&c, 3);
	REQUIRE(up_profile_new(&p, 2) == 0);
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	CHECK(st.samples == 3);
	CHECK(st.relaxed_retried == 1);
	CHECK(st.relaxed_dropped == 0);
	CHECK(st.relaxed_stable == 6);
	out = folded(p);
	CHECK_STR(out, "0x2222;0x1515;0xaaaa 3\n0x3333;0xbbbb 3\n");
	free(out);
	done(t, p, &st);
}

/* A stack that moves under every walk: each of its samples is walked
 * twice, then only its IP is kept, truncated (the sample still counts
 * where the vCPU was); the other vCPU's stacks are whole. */
static void test_always_moving_dropped(void)
{
	struct up_target *t = two_vcpu_guest(false);
	uint64_t slot = STACK_VA + 16 + 8, frame = frame_of(t, slot);
	struct up_sampler_config c;
	struct up_sampler_stats st;
	struct up_profile *p;
	char *out;

	up_target_image_set_scribble(t, 0, UP_FRAME_MFN, frame,
				     (unsigned)(slot & 0xfff), 0x40, 1,
				     UINT64_MAX);
	relaxed_config(&c, 10);
	REQUIRE(up_profile_new(&p, 2) == 0);
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	CHECK(st.samples == 10);
	CHECK(st.relaxed_retried == 10);
	CHECK(st.relaxed_dropped == 10);
	CHECK(up_profile_vcpu_samples(p, 0) == 10);
	CHECK(up_profile_vcpu_samples(p, 1) == 10);
	CHECK(up_profile_truncated(p) == 10);
	CHECK(up_profile_truncated_by(p, UP_TRUNC_RACED) == 10);
	out = folded(p);
	CHECK(strstr(out, "0xaaaa 10\n") != NULL);
	CHECK(strstr(out, "0x2222;0x1111;0xaaaa") == NULL);
	free(out);
	CHECK_STR(up_trunc_name(UP_TRUNC_RACED), "stack moved while walked (relaxed)");
	CHECK(up_trunc_from_name("stack moved while walked (relaxed)") == UP_TRUNC_RACED);
	done(t, p, &st);
}

/* A vCPU that ran between its register copy and the walk: the check
 * sees only what changed during the walk, so a stack that ends whole must
 * end on a return address a call left; a stale word that only looks like
 * one keeps the IP alone (raced). Here the outermost return address,
 * 0x2222, follows a call or not. */
static void test_whole_ends_after_call(void)
{
	for (int call = 0; call < 2; call++) {
		uint64_t ret0[2] = { 0x1111, 0x2222 }, fp0;
		struct up_sampler_config c;
		struct up_sampler_stats st;
		struct up_profile *p;
		struct up_target *t;
		struct up_regs r;
		char *out;

		tg_init(&g, UP_DOMAIN_PV);
		tg_map_fresh(&g, TG_STACK_VA, 2);
		tg_map_fresh(&g, 0x2000, 1);                  /* readable code */
		if (call)
			tg_poke64(&g, 0x2218, 0xe8ULL << 40); /* e8 at 0x221d */
		fp0 = tg_fp_chain(&g, TG_STACK_VA, ret0, 2);
		r = tg_regs(&g, 0xaaaa, TG_STACK_VA, fp0);
		up_image_add_vcpu(g.img, &r);
		t = tg_open(&g);
		relaxed_config(&c, 10);
		REQUIRE(up_profile_new(&p, 1) == 0);
		CHECK(up_sample(t, &c, p, NULL, &st) == 0);
		CHECK(st.samples == 10 && st.relaxed_still == 0);
		out = folded(p);
		if (call) {
			CHECK_STR(out, "0x2222;0x1111;0xaaaa 10\n");
			CHECK(st.relaxed_dropped == 0);
		} else {
			CHECK(strstr(out, "0x2222") == NULL);
			CHECK(up_profile_truncated_by(p, UP_TRUNC_RACED) == 10);
			CHECK(st.relaxed_dropped == 10);
		}
		free(out);
		done(t, p, &st);
	}
}

/* A walk cut short the way a moving stack cuts it (here a misaligned
 * frame pointer) is walked again; cut short again over unchanged words,
 * it is kept and reported truncated. One cut short by the depth limit is
 * not walked again: a second walk would end the same. */
static void test_truncated_walked_again(void)
{
	struct up_target *t = two_vcpu_guest(false);
	struct up_sampler_config c;
	struct up_sampler_stats st;
	struct up_profile *p;

	relaxed_config(&c, 4);
	c.vcpu = 0;
	c.unwind.max_depth = 2;
	REQUIRE(up_profile_new(&p, 2) == 0);
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	CHECK(st.samples == 4);
	CHECK(st.relaxed_retried == 0);
	CHECK(up_profile_truncated_by(p, UP_TRUNC_DEPTH) == 4);
	done(t, p, &st);

	/* A chain whose second link is misaligned. */
	tg_init(&g, UP_DOMAIN_PV);
	tg_map_fresh(&g, STACK_VA, 1);
	{
		uint64_t ret[2] = { 0x1111, 0x2222 };
		uint64_t fp = tg_fp_chain(&g, STACK_VA, ret, 2);
		struct up_regs r = tg_regs(&g, 0xaaaa, STACK_VA, fp);

		tg_poke64(&g, fp, fp + 33);
		up_image_add_vcpu(g.img, &r);
	}
	t = tg_open(&g);
	relaxed_config(&c, 4);
	REQUIRE(up_profile_new(&p, 1) == 0);
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	CHECK(st.samples == 4);
	CHECK(st.relaxed_retried == 4);
	CHECK(st.relaxed_dropped == 0);
	CHECK(up_profile_vcpu_samples(p, 0) == 4);
	CHECK(up_profile_truncated_by(p, UP_TRUNC_ALIGN) == 4);
	done(t, p, &st);
}

/* With the kernel's functions known, a return address that changed to
 * another one in the same function (the caller made another call from the
 * same frame) is no change at function granularity: the stack is kept as
 * walked, not walked again. Into another function, it is walked again. */
static void test_same_function_is_no_change(void)
{
	static const char map[] = "0000000000001000 T f_a\n"
				  "0000000000002000 T f_b\n"
				  "0000000000003000 T f_c\n"
				  "0000000000004000 T f_end\n";
	uint64_t ret[2] = { 0x2100, 0x3100 }, slot, frame, fp;
	struct up_kernel_map *k;
	struct up_symtab *syms;
	struct up_sampler_config c;
	struct up_sampler_stats st;
	struct up_profile *p;
	struct up_target *t;
	struct up_regs r;
	char *out;

	tg_init(&g, UP_DOMAIN_PV);
	tg_map_fresh(&g, STACK_VA, 1);
	/* The outermost return address follows a call (e8 at 0x30fb): with
	 * a kernel map, a stack of a vCPU that ran ends whole only so. */
	tg_map_fresh(&g, 0x3000, 1);
	tg_poke64(&g, 0x30f8, 0xe8ULL << 24);
	fp = tg_fp_chain(&g, STACK_VA, ret, 2);
	r = tg_regs(&g, 0x1050, STACK_VA, fp);
	up_image_add_vcpu(g.img, &r);
	t = tg_open(&g);
	REQUIRE(up_symtab_load_mem(&syms, map, sizeof(map) - 1, "map") == 0);
	REQUIRE(up_kernel_map_new(&k) == 0);
	REQUIRE(up_kernel_map_add_text(k, 0x1000, 0x4000) == 0);
	up_kernel_map_set_functions(k, syms);
	CHECK(up_kernel_map_same_function(k, 0x2100, 0x2180));
	CHECK(!up_kernel_map_same_function(k, 0x2100, 0x3100));
	CHECK(!up_kernel_map_same_function(k, 0x2100, 0x5000));
	{
		/* Without the image's code ranges, an nm map's last symbol
		 * reaches over data: no two addresses count as one function. */
		struct up_kernel_map *bare;

		REQUIRE(up_kernel_map_new(&bare) == 0);
		up_kernel_map_set_functions(bare, syms);
		CHECK(!up_kernel_map_same_function(bare, 0x2100, 0x2180));
		up_kernel_map_free(bare);
	}
	slot = fp + 8;
	frame = frame_of(t, slot);

	/* 0x2100 -> 0x2180 after the first walk: same function, kept. */
	up_target_image_set_scribble(t, 0, UP_FRAME_MFN, frame,
				     (unsigned)(slot & 0xfff), 0x2100 ^ 0x2180,
				     2, 1);
	relaxed_config(&c, 2);
	c.unwind.kernel = k;
	REQUIRE(up_profile_new(&p, 1) == 0);
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	CHECK(st.relaxed_retried == 0 && st.relaxed_stable == 2);
	out = folded(p);
	CHECK_STR(out, "0x3100;0x2100;0x1050 1\n0x3100;0x2180;0x1050 1\n");
	free(out);
	up_sampler_stats_release(&st);
	up_profile_free(p);

	/* 0x2180 -> 0x3180: another function, walked again. */
	up_target_image_set_scribble(t, 0, UP_FRAME_MFN, frame,
				     (unsigned)(slot & 0xfff), 0x2180 ^ 0x3180,
				     2, 1);
	REQUIRE(up_profile_new(&p, 1) == 0);
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	CHECK(st.relaxed_retried == 1 && st.relaxed_dropped == 0);
	up_kernel_map_free(k);
	up_symtab_free(syms);
	done(t, p, &st);
}

/* Without asking Xen for vCPU states, relaxed claims no busy share: the
 * stacks count as unknown, as paused mode counts them. */
static void test_no_vcpu_state(void)
{
	struct up_target *t = two_vcpu_guest(true);
	struct up_sampler_config c;
	struct up_sampler_stats st;
	struct up_profile *p;

	relaxed_config(&c, 5);
	c.no_activity = true;
	REQUIRE(up_profile_new(&p, 2) == 0);
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	CHECK(st.samples == 5);
	CHECK(st.relaxed_still == 0 && st.relaxed_stable == 10);
	for (unsigned v = 0; v < 2; v++) {
		CHECK(up_profile_vcpu_samples(p, v) == 5);
		CHECK(up_profile_vcpu_busy(p, v) == 0);
		CHECK(up_profile_vcpu_blocked(p, v) == 0);
	}
	done(t, p, &st);
}

/* Busy at the register read, blocked after the walk: it left the frames
 * its registers describe while a blocked stack holds still under the
 * check, so the vCPU is read again (and, blocked throughout, is exact). */
static void test_blocked_during_walk(void)
{
	struct up_target *t = two_vcpu_guest(false);
	struct up_sampler_config c;
	struct up_sampler_stats st;
	struct up_profile *p;

	up_target_image_block_on_read(t, 0, 2);
	relaxed_config(&c, 1);
	c.vcpu = 0;
	REQUIRE(up_profile_new(&p, 2) == 0);
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	CHECK(st.samples == 1);
	CHECK(st.relaxed_retried == 1);
	CHECK(st.relaxed_still == 1 && st.relaxed_stable == 0);
	CHECK(up_profile_vcpu_blocked(p, 0) == 1);
	done(t, p, &st);
}

/* Each register read takes 2 ms in which the vCPU runs on (dom0 waited
 * for a CPU it shares with it): that is no stall of the busy vCPU, whose
 * run clock moved through it; the blocked one, whose clock stands, is
 * charged the read's whole time (the bound is all that is known). */
static void test_read_while_running_is_no_stall(void)
{
	struct up_target *t = two_vcpu_guest(true);
	struct up_sampler_config c;
	struct up_sampler_stats st;
	struct up_profile *p;
	const uint64_t delay = 2000000, n = 20;

	up_target_image_set_read_delay(t, delay);
	relaxed_config(&c, n);
	c.hz = 100;
	REQUIRE(up_profile_new(&p, 2) == 0);
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	CHECK(st.samples == n);
	CHECK(st.vcpu_paused_ns[1] >= n * delay);
	/* A quarter of the reads' time: the rest ran. */
	CHECK(st.vcpu_paused_ns[0] < n * delay / 4);
	CHECK(up_sampler_stall_pct(&st, 0) < up_sampler_stall_pct(&st, 1));
	done(t, p, &st);
}

static void test_bad_consistency(void)
{
	struct up_target *t = two_vcpu_guest(false);
	struct up_sampler_config c;
	struct up_sampler_stats st;
	struct up_profile *p;

	relaxed_config(&c, 1);
	c.consistency = (enum up_consistency)7;
	REQUIRE(up_profile_new(&p, 2) == 0);
	CHECK(up_sample(t, &c, p, NULL, &st) == UP_EINVAL);
	CHECK(strstr(up_error_last(), "consistency") != NULL);
	CHECK_STR(up_consistency_name(UP_CONSISTENCY_RELAXED), "relaxed");
	CHECK_STR(up_consistency_name(UP_CONSISTENCY_PAUSED), "paused");
	up_profile_free(p);
	up_target_close(t);
	tg_release(&g);
}

int main(void)
{
	RUN(test_no_pause_same_stacks);
	RUN(test_changed_once_walked_again);
	RUN(test_always_moving_dropped);
	RUN(test_whole_ends_after_call);
	RUN(test_truncated_walked_again);
	RUN(test_same_function_is_no_change);
	RUN(test_no_vcpu_state);
	RUN(test_blocked_during_walk);
	RUN(test_read_while_running_is_no_stall);
	RUN(test_bad_consistency);
	TEST_MAIN_END();
}
