/* xl profile top's screen (xl-plugin/top_view.c) of a live run: drawn at
 * the sampler's SCHED_FIFO with memory locked, it must not send the
 * image's DWARF to libdw (issue 38, F4). The same profile of an address
 * inside inlined calls (fixture_lines) drawn as a replay shows them. */
#include <unistd.h>

#include "test.h"
#include "symbols/srcinfo.h"
#include "top_view.h"
#include "private.h"

TEST_GLOBALS;

static char fixture[4096];

/* An address of fx_outer inside an inlined call, or 0 (a symtab of its
 * own: the one drawn from has resolved nothing yet). */
static uint64_t inlined_addr(void)
{
	struct up_src_frame f[UP_SRC_MAX_FRAMES];
	struct up_symtab *s;
	uint64_t found = 0;

	if (up_symtab_load(&s, fixture) < 0)
		return 0;
	for (size_t i = 0; i < up_symtab_count(s) && !found; i++) {
		const struct up_symbol *fn = up_symtab_symbol(s, i);

		if (strcmp(fn->name, "fx_outer") != 0)
			continue;
		for (uint64_t a = fn->addr; a < fn->addr + fn->size && !found; a++)
			if (up_symtab_source(s, a, false, f, UP_SRC_MAX_FRAMES) > 1)
				found = a;
	}
	up_symtab_free(s);
	return found;
}

static void render(const struct up_symtab *s, const struct up_profile *p,
		   bool live, char *buf, size_t len)
{
	struct xlp_top_input in = { .name = "d", .source = "test", .t_s = 1,
				    .interval_s = 1, .total = p, .interval = p,
				    .names = s, .live = live };
	struct xlp_top_view v = { .vcpu = -1, .rows = 10 };
	FILE *f = fmemopen(buf, len, "w");

	if (!f || xlp_top_render(&in, &v, f) < 0)
		buf[0] = '\0';
	if (f)
		fclose(f);
}

static void test_live_no_libdw(void)
{
	static char buf[16384];
	struct up_symtab *s;
	struct up_profile *p;
	uint64_t a = inlined_addr();
	unsigned long before;

	REQUIRE(a != 0);
	REQUIRE(up_symtab_load(&s, fixture) == 0);
	REQUIRE(up_symtab_has_source(s));
	REQUIRE(up_profile_new(&p, 1) == 0);
	REQUIRE(up_profile_add(p, 0, &a, 1, UP_TRUNC_NONE) == 0);
	before = srcinfo_libdw_lookups;
	render(s, p, true, buf, sizeof(buf));
	CHECK(strstr(buf, "fx_outer") != NULL);
	CHECK(strstr(buf, "(inlined)") == NULL);
	CHECK(srcinfo_libdw_lookups == before);
	/* A replay (normal priority) shows the inlined calls. */
	render(s, p, false, buf, sizeof(buf));
	CHECK(strstr(buf, "(inlined)") != NULL);
	CHECK(srcinfo_libdw_lookups > before);
	up_profile_free(p);
	up_symtab_free(s);
}

/* The stall budget on the screen: the sampler's line says the rate is
 * lowered and how many times each sample counts, and a busy share short
 * of Xen's is judged by the samples taken, not the periods they count
 * for: 40 % of 100 periods against 60 % ran is flagged; 40 % of the 10
 * samples behind them is within their error. */
static void test_stall_budget(void)
{
	static char buf[16384];
	struct up_profile *p;
	uint64_t a = 0x1000, b = 0x2000;
	double ran[1] = { 60 };
	struct xlp_top_input in = { .name = "d", .source = "test", .t_s = 1,
				    .interval_s = 1, .have_cost = true,
				    .pause_p50_us = 500, .pause_p99_us = 900,
				    .still_pct = 4.2, .ran_pct = ran, .nr_ran = 1,
				    .hz_now = 99.7, .hz_asked = 997,
				    .max_stall_pct = 5, .live = true };
	struct xlp_top_view v = { .vcpu = -1, .rows = 10 };
	struct up_symtab *s;
	FILE *f;

	REQUIRE(up_symtab_load(&s, fixture) == 0);
	in.names = s;
	REQUIRE(up_profile_new(&p, 1) == 0);
	REQUIRE(up_profile_add_at(p, 0, &a, 1, UP_TRUNC_NONE, UP_VCPU_BUSY, 40, 0) == 0);
	REQUIRE(up_profile_add_at(p, 0, &b, 1, UP_TRUNC_NONE, UP_VCPU_BLOCKED, 60, 0) == 0);
	in.total = in.interval = p;
	in.sample_share = 1;          /* as if each period were a sample */
	REQUIRE((f = fmemopen(buf, sizeof(buf), "w")) != NULL);
	CHECK(xlp_top_render(&in, &v, f) == 0);
	fclose(f);
	CHECK(strstr(buf, "; rate 99.7 Hz of the 997 asked (stall budget 5%: each sample counts 10 times)") != NULL);
	CHECK(strstr(buf, "! the samples saw it busy far less") != NULL);
	in.sample_share = 0.1;        /* 10 samples behind the 100 periods */
	REQUIRE((f = fmemopen(buf, sizeof(buf), "w")) != NULL);
	CHECK(xlp_top_render(&in, &v, f) == 0);
	fclose(f);
	CHECK(strstr(buf, "! the samples saw it busy far less") == NULL);
	/* At the rate asked: nothing said of the budget. */
	in.hz_now = 997;
	REQUIRE((f = fmemopen(buf, sizeof(buf), "w")) != NULL);
	CHECK(xlp_top_render(&in, &v, f) == 0);
	fclose(f);
	CHECK(strstr(buf, "stall budget") == NULL);
	up_profile_free(p);
	up_symtab_free(s);
}

int main(void)
{
	if (!test_fixture(fixture, sizeof(fixture), "fixture_lines"))
		return 1;
	RUN(test_live_no_libdw);
	RUN(test_stall_budget);
	TEST_MAIN_END();
}
