/* The checks of a run's figures: busy shares against Xen's run time,
 * waiting vCPUs, the CPU time no sample saw, the rate reached and the
 * stall budget, and the warnings that say so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/test.h"
#include "budget_run.h"
#include "toolkit/run_checks.h"
#include "uniprof/uniprof.h"
#include "private.h"

TEST_GLOBALS;

/* The busy share in the samples against Xen's run time: within sampling
 * error, or above (the vCPU waited for a CPU), consistent; well below,
 * the sampler ran late while the guest ran (warned). */
static void test_busy_check(void)
{
	struct up_profile *p;
	const struct tk_run_settings asked = { .hz = 100, .top = 20 };
	struct tk_domain dom = { .domid = 7, .name = "d", .type = "pv" };
	uint64_t run[1], unpaused[1] = { 10000 };
	struct up_sampler_stats stats = {
		.samples = 1000, .nr_vcpus = 1,
		.vcpu_run_ns = run, .vcpu_unpaused_ns = unpaused,
	};
	struct tk_run r = { .asked = asked, .dom = &dom, .stats = &stats };
	uint64_t st[] = { 0x1001 };
	char buf[1024] = "";
	FILE *f;

	REQUIRE(up_profile_new(&p, 1) == 0);
	/* 300 busy, 700 blocked samples: 30 %; one standard error 1.45 points,
	 * so the tolerance is 1.5 + 3.5 * 1.45 = 6.6 points. */
	REQUIRE(up_profile_add_activity(p, 0, st, 1, UP_TRUNC_NONE, UP_VCPU_BUSY, 300) == 0);
	REQUIRE(up_profile_add_activity(p, 0, st, 1, UP_TRUNC_NONE, UP_VCPU_BLOCKED, 700) == 0);
	r.profile = p;
	run[0] = 3500;                  /* ran 35 % */
	CHECK(tk_busy_check(&r, 0) == TK_BUSY_CONSISTENT);
	run[0] = 3700;                  /* 37 %: 7 points above the samples */
	CHECK(tk_busy_check(&r, 0) == TK_BUSY_SAMPLES_LOW);
	REQUIRE((f = fmemopen(buf, sizeof(buf), "w")) != NULL);
	tk_busy_warnings(&r, f);
	fclose(f);
	CHECK(strstr(buf, "vCPU 0 was busy in 30.0% of the samples but ran 37.0%") != NULL);
	CHECK(strstr(buf, "[unseen]") != NULL && strstr(buf, "taskset") != NULL);
	CHECK(strchr(buf, '\n') == buf + strlen(buf) - 1);   /* one line */
	/* What no sample saw: 37 % of the 1000 samples is 370, 300 seen. */
	CHECK(tk_account_unseen(p, &stats) == 0);
	CHECK_U64(up_profile_vcpu_unseen(p, 0), 70);
	CHECK_U64(up_profile_vcpu_busy(p, 0), 300);       /* not a sample */
	CHECK_U64(up_profile_samples(p), 1000);
	run[0] = 2300;                  /* 23 %: waited for a CPU */
	CHECK(tk_busy_check(&r, 0) == TK_BUSY_CONSISTENT);
	CHECK(tk_account_unseen(p, &stats) == 0);        /* nothing more */
	CHECK_U64(up_profile_vcpu_unseen(p, 0), 70);
	/* 7 points above running: within error and our pauses' wait; 20
	 * above, beyond them (6.6 + 5): it waited for a CPU others held,
	 * and a warning says so, in one line. */
	CHECK(tk_busy_waiting(&r, 0) == 0);
	run[0] = 1000;
	CHECK(tk_busy_check(&r, 0) == TK_BUSY_CONSISTENT);
	CHECK(tk_busy_waiting(&r, 0) > 19.9 && tk_busy_waiting(&r, 0) < 20.1);
	memset(buf, 0, sizeof(buf));
	REQUIRE((f = fmemopen(buf, sizeof(buf), "w")) != NULL);
	tk_busy_warnings(&r, f);
	fclose(f);
	CHECK(strstr(buf, "on-CPU in 30.0% of the samples but ran 10.0%") != NULL);
	CHECK(strstr(buf, "Xen did not say") != NULL);
	CHECK(strchr(buf, '\n') == buf + strlen(buf) - 1);
	/* Xen's pCPU accounting: others held its pCPU 25 % of the time,
	 * which explains 20 points; 2 %, which does not. */
	{
		double others[1] = { 25 };

		r.others_pct = others;
		r.nr_others = 1;
		memset(buf, 0, sizeof(buf));
		REQUIRE((f = fmemopen(buf, sizeof(buf), "w")) != NULL);
		tk_busy_warnings(&r, f);
		fclose(f);
		CHECK(strstr(buf, "waiting for a pCPU other vCPUs held (Xen's pCPU accounting: up to 25.0%") != NULL);
		others[0] = 2;
		memset(buf, 0, sizeof(buf));
		REQUIRE((f = fmemopen(buf, sizeof(buf), "w")) != NULL);
		tk_busy_warnings(&r, f);
		fclose(f);
		CHECK(strstr(buf, "20 points that waiting for other vCPUs does not explain") != NULL);
		CHECK(strstr(buf, "waiting for a pCPU") == NULL);
		CHECK(strchr(buf, '\n') == buf + strlen(buf) - 1);
		r.others_pct = NULL;
		r.nr_others = 0;
	}
	unpaused[0] = 0;                /* no run clock */
	CHECK(tk_busy_check(&r, 0) == TK_BUSY_UNKNOWN);
	up_profile_free(p);
}

/* Samples that found the vCPU woken and not yet run: neither on-CPU nor
 * blocked; said with what Xen's pCPU accounting allows of the cause. */
static void test_waiting(void)
{
	struct up_profile *p;
	const struct tk_run_settings asked = { .hz = 100, .top = 20 };
	struct tk_domain dom = { .domid = 7, .name = "d", .type = "pv" };
	uint64_t run[1] = { 3000 }, unpaused[1] = { 10000 };
	struct up_sampler_stats stats = {
		.samples = 1000, .nr_vcpus = 1,
		.vcpu_run_ns = run, .vcpu_unpaused_ns = unpaused,
	};
	double others[1] = { 0.5 };
	struct tk_run r = { .asked = asked, .dom = &dom, .stats = &stats,
				.others_pct = others, .nr_others = 1 };
	uint64_t st[] = { 0x1001 };
	char buf[2048] = "";
	FILE *f;

	REQUIRE(up_profile_new(&p, 1) == 0);
	REQUIRE(up_profile_add_activity(p, 0, st, 1, UP_TRUNC_NONE, UP_VCPU_BUSY, 300) == 0);
	REQUIRE(up_profile_add_activity(p, 0, st, 1, UP_TRUNC_NONE, UP_VCPU_BLOCKED, 300) == 0);
	REQUIRE(up_profile_add_activity(p, 0, st, 1, UP_TRUNC_NONE, UP_VCPU_WAITING, 400) == 0);
	r.profile = p;
	CHECK(tk_busy_pct(p, 0) > 29.9 && tk_busy_pct(p, 0) < 30.1);
	CHECK(tk_waiting_pct(p, 0) > 39.9 && tk_waiting_pct(p, 0) < 40.1);
	CHECK(tk_busy_check(&r, 0) == TK_BUSY_CONSISTENT);
	CHECK(tk_busy_waiting(&r, 0) == 0);
	REQUIRE((f = fmemopen(buf, sizeof(buf), "w")) != NULL);
	tk_busy_warnings(&r, f);
	fclose(f);
	CHECK(strstr(buf, "woken and waiting to run in 40.0% of the samples") != NULL);
	CHECK(strstr(buf, "no other vCPU held its pCPUs that long (at most 0.5%") != NULL);
	CHECK(strchr(buf, '\n') == buf + strlen(buf) - 1);
	others[0] = 45;
	memset(buf, 0, sizeof(buf));
	REQUIRE((f = fmemopen(buf, sizeof(buf), "w")) != NULL);
	tk_busy_warnings(&r, f);
	fclose(f);
	CHECK(strstr(buf, "other vCPUs held the pCPUs it may use up to 45.0%") != NULL);
	/* The folded file keeps them, under [waiting]; the on-CPU view not. */
	{
		const struct up_output_opts all = { .version = UP_OUTPUT_OPTS_VERSION,
						    .vcpu = -1, .with_idle = true };
		const struct up_output_opts oncpu = UP_OUTPUT_OPTS_INIT;
		char *out = NULL;
		size_t len = 0;

		REQUIRE((f = open_memstream(&out, &len)) != NULL);
		CHECK(up_profile_write_folded(p, NULL, &all, f) == 0);
		fclose(f);
		CHECK(out && strstr(out, "[waiting];0x1001 400") != NULL);
		free(out);
		out = NULL;
		REQUIRE((f = open_memstream(&out, &len)) != NULL);
		CHECK(up_profile_write_folded(p, NULL, &oncpu, f) == 0);
		fclose(f);
		CHECK(out && strstr(out, "[waiting]") == NULL && strstr(out, "0x1001 300") != NULL);
		free(out);
	}
	up_profile_free(p);
}

/* What the stall budget did, in one line; a rate lowered by it is no
 * shortfall of the sampler's (the samples stand for the periods asked),
 * and a run without one says so. */
static void test_stall_budget(void)
{
	struct budget_run b;
	char line[640];

	budget_run_init(&b);
	tk_budget_text(&b.stats, line, sizeof(line));
	CHECK(strstr(line, "stall budget 5% of the domain's time: rate lowered from the 997 Hz asked at 0.25 s, 99.7 Hz at the end, 83.083 Hz at the lowest") != NULL);
	CHECK(strstr(line, "stood still 31.2% of its time for samples in the window") != NULL);
	CHECK(strstr(line, "stood still 4.00% of the run") != NULL);
	CHECK(strstr(line, "900 periods") && strstr(line, "80 effective samples"));
	CHECK(tk_budget_lowered(&b.stats));
	CHECK(tk_stood_still_pct(&b.stats) == 4);
	CHECK(tk_effective_samples(&b.stats) == 80);
	/* 100 samples in 1 s, standing for 1000 periods: not short of 997. */
	CHECK(tk_rate_short(&b.r) == 0);

	/* Never lowered; no budget at all. Old stats (no effective count):
	 * the samples. */
	b.stats.stall_factor = b.stats.stall_factor_max = 1;
	b.stats.effective_samples = 0;
	tk_budget_text(&b.stats, line, sizeof(line));
	CHECK(strstr(line, "never reached, the 997 Hz asked kept") != NULL);
	CHECK(tk_effective_samples(&b.stats) == 100);
	b.stats.max_stall_pct = UP_SAMPLER_NO_STALL_BUDGET;
	tk_budget_text(&b.stats, line, sizeof(line));
	CHECK(strstr(line, "stall budget: none") != NULL);
}

int main(void)
{
	RUN(test_busy_check);
	RUN(test_waiting);
	RUN(test_stall_budget);
	TEST_MAIN_END();
}
