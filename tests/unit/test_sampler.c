/* The sampling loop on an image target: stacks counted per vCPU, pacing,
 * offline vCPUs, and clean stops on shutdown, destruction and signals,
 * never leaving the domain paused, keeping what was collected. */
#include <math.h>
#include <signal.h>
#include <unistd.h>
#include <time.h>

#include "guest.h"
#include "test.h"
#include "target/image_hooks.h"
#include "sampler/sampler_impl.h"
#include "target/image.h"

TEST_GLOBALS;

static struct up_target *two_vcpu_guest(bool second_online)
{
	struct test_guest g;
	struct up_target *t = tg_two_vcpus(&g, second_online, false);

	tg_release(&g);
	return t;
}

static uint64_t count_of(struct up_profile *p, unsigned vcpu)
{
	return up_profile_vcpu_samples(p, vcpu);
}

static void test_samples_all_vcpus(void)
{
	struct up_target *t = two_vcpu_guest(true);
	struct up_sampler_config c;
	struct up_sampler_stats st;
	struct up_profile *p;
	char *buf;

	up_sampler_config_init(&c, UP_SAMPLER_CONFIG_VERSION);
	c.hz = 2000;
	c.drop_late = true;     /* exact counts: one stack per sample */
	c.max_samples = 40;
	REQUIRE(up_profile_new(&p, 2) == 0);
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	CHECK(st.stop == UP_STOP_MAX_SAMPLES);
	CHECK(st.samples == 40);
	CHECK(st.nr_pause == 40);
	CHECK(count_of(p, 0) == 40 && count_of(p, 1) == 40);
	CHECK(up_profile_unique_stacks(p) == 2);
	CHECK(up_profile_truncated(p) == 0);
	CHECK(!up_target_paused_by_us(t));
	CHECK(up_target_image_mapped(t) == 0);
	CHECK(up_sampler_pause_percentile(&st, 50) > 0);
	CHECK(up_sampler_pause_percentile(&st, 100) >=
	      up_sampler_pause_percentile(&st, 99));
	buf = tg_folded(p, NULL);
	CHECK_STR(buf, "0x2222;0x1111;0xaaaa 40\n0x3333;0xbbbb 40\n");
	free(buf);
	up_sampler_stats_release(&st);
	up_profile_free(p);
	up_target_close(t);
}

struct early_seen {
	struct up_target *t;
	unsigned calls;
	uint64_t samples;
	bool paused;
};

static void early_cb(const struct up_profile *p,
		     const struct up_sampler_stats *s, void *arg)
{
	struct early_seen *e = arg;

	e->calls++;
	e->samples = s->samples;
	e->paused |= up_target_paused_by_us(e->t);
	(void)p;
}

/* Asked to, a target keeps the frames a run mapped for the next run (the
 * daemon profiles a domain every period): the second run maps nothing,
 * counts only its own use of them, and close unmaps them all. Not asked,
 * every run unmaps what it mapped (test_samples_all_vcpus). */
static void test_frames_kept_across_runs(void)
{
	struct up_target *t = two_vcpu_guest(true);
	struct up_sampler_config c;
	struct up_sampler_stats st;
	struct up_profile *p;
	long mapped;

	up_target_keep_frames(t, true);
	up_sampler_config_init(&c, UP_SAMPLER_CONFIG_VERSION);
	c.hz = 2000;
	c.drop_late = true;
	c.max_samples = 10;
	REQUIRE(up_profile_new(&p, 2) == 0);
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	CHECK(st.samples == 10);
	CHECK(st.mem.maps > 0);
	mapped = up_target_image_mapped(t);
	CHECK(mapped > 0 && (uint64_t)mapped == st.mem.maps);
	up_sampler_stats_release(&st);
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	CHECK(st.samples == 10);
	CHECK_U64(st.mem.maps, 0);
	CHECK(st.mem.hits > 0);
	CHECK(up_target_image_mapped(t) == mapped);
	CHECK(count_of(p, 0) == 20 && count_of(p, 1) == 20);
	up_sampler_stats_release(&st);
	/* A run that asks another cache size starts afresh, the old
	 * cache unmapped. */
	c.cache_frames = 64;
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	CHECK_U64(st.mem.maps, (uint64_t)mapped);
	CHECK(up_target_image_mapped(t) == mapped);
	up_sampler_stats_release(&st);
	/* Given up: unmapped at once. */
	up_target_keep_frames(t, false);
	CHECK(up_target_image_mapped(t) == 0);
	up_target_keep_frames(t, true);
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	CHECK(up_target_image_mapped(t) > 0);
	up_sampler_stats_release(&st);
	up_profile_free(p);
	/* Closing frees them (a lost cache would be a leak LeakSanitizer reports). */
	up_target_close(t);
}

/* The early callback: once, between samples (the domain running), with
 * the figures so far; never without its time having come. */
static void test_early_callback(void)
{
	struct up_target *t = two_vcpu_guest(true);
	struct up_sampler_config c;
	struct up_sampler_stats st;
	struct up_profile *p;
	struct early_seen e = { .t = t };

	up_sampler_config_init(&c, UP_SAMPLER_CONFIG_VERSION);
	c.hz = 2000;
	c.drop_late = true;
	c.max_samples = 40;
	c.early = early_cb;
	c.early_arg = &e;
	c.early_ns = 5 * 1000 * 1000;          /* 5 ms: ~10 samples */
	REQUIRE(up_profile_new(&p, 2) == 0);
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	CHECK(e.calls == 1);
	CHECK(e.samples >= 1 && e.samples < 40);
	CHECK(!e.paused);
	up_sampler_stats_release(&st);
	up_profile_free(p);
	e.calls = 0;
	c.early_ns = 3600ull * 1000000000;     /* an hour: never */
	REQUIRE(up_profile_new(&p, 2) == 0);
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	CHECK(e.calls == 0);
	up_sampler_stats_release(&st);
	up_profile_free(p);
	up_target_close(t);
}

static void test_one_vcpu_and_offline(void)
{
	struct up_target *t = two_vcpu_guest(false);
	struct up_sampler_config c;
	struct up_sampler_stats st;
	struct up_profile *p;

	up_sampler_config_init(&c, UP_SAMPLER_CONFIG_VERSION);
	c.hz = 2000;
	c.drop_late = true;     /* exact counts: one stack per sample */
	c.max_samples = 10;
	REQUIRE(up_profile_new(&p, 2) == 0);
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	CHECK(count_of(p, 0) == 10 && count_of(p, 1) == 0);
	CHECK(st.offline_vcpus == 10);
	up_sampler_stats_release(&st);
	c.vcpu = 0;
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	CHECK(count_of(p, 0) == 20 && st.offline_vcpus == 0);
	up_sampler_stats_release(&st);
	c.vcpu = 2;
	CHECK(up_sample(t, &c, p, NULL, &st) == UP_EINVAL);
	CHECK(strstr(up_error_last(), "vCPU 2") != NULL);
	up_profile_free(p);
	up_target_close(t);
}

static void test_bad_config(void)
{
	struct up_target *t = two_vcpu_guest(true);
	struct up_sampler_config c;
	struct up_sampler_stats st;
	struct up_profile *p;

	REQUIRE(up_profile_new(&p, 2) == 0);
	up_sampler_config_init(&c, UP_SAMPLER_CONFIG_VERSION);
	c.hz = 0;
	CHECK(up_sample(t, &c, p, NULL, &st) == UP_EINVAL);
	c.hz = -5;
	CHECK(up_sample(t, &c, p, NULL, &st) == UP_EINVAL);
	c.hz = 1e9;
	CHECK(up_sample(t, &c, p, NULL, &st) == UP_EINVAL);
	c.hz = 97;
	c.duration_s = -1;
	CHECK(up_sample(t, &c, p, NULL, &st) == UP_EINVAL);
	c.duration_s = 0;
	c.unwind.max_depth = 100000;
	CHECK(up_sample(t, &c, p, NULL, &st) == UP_EINVAL);
	c.unwind.max_depth = 0;
	/* A stall budget is a share in (0, 100]; 0 the default. */
	c.max_stall_pct = -1;
	CHECK(up_sample(t, &c, p, NULL, &st) == UP_EINVAL);
	c.max_stall_pct = 100.5;
	CHECK(up_sample(t, &c, p, NULL, &st) == UP_EINVAL);
	c.max_stall_pct = NAN;
	CHECK(up_sample(t, &c, p, NULL, &st) == UP_EINVAL);
	up_profile_free(p);
	up_target_close(t);
}

/* A configuration says its layout by its version: the init macro and
 * function agree, and a version this library does not know is refused,
 * by both, with one line saying so. */
static void test_config_version(void)
{
	const struct up_sampler_config lit = UP_SAMPLER_CONFIG_INIT;
	struct up_target *t = two_vcpu_guest(true);
	struct up_sampler_config c;
	struct up_sampler_stats st;
	struct up_profile *p;

	CHECK(up_sampler_config_init(&c, UP_SAMPLER_CONFIG_VERSION) == 0);
	CHECK(c.version == UP_SAMPLER_CONFIG_VERSION && lit.version == c.version);
	CHECK(lit.hz == c.hz && lit.vcpu == c.vcpu && c.vcpu == -1);
	CHECK(lit.unwind.max_depth == c.unwind.max_depth &&
	      lit.unwind.max_stack_bytes == c.unwind.max_stack_bytes);
	CHECK(up_sampler_config_init(&c, UP_SAMPLER_CONFIG_VERSION + 1) == UP_EINVAL);
	CHECK(strstr(up_error_last(), "sampler configuration version 2 unknown") != NULL);
	REQUIRE(up_profile_new(&p, 2) == 0);
	c = lit;
	c.version = 0;
	CHECK(up_sample(t, &c, p, NULL, &st) == UP_EINVAL);
	CHECK(strstr(up_error_last(), "version 0 unknown") != NULL);
	up_profile_free(p);
	up_target_close(t);
}

/* The guest shuts down after 15 pauses: the sample taken while it went
 * down is dropped, the 14 before are kept. */
static void test_stops_on_shutdown_and_gone(void)
{
	struct up_target *t = two_vcpu_guest(true);
	struct up_sampler_config c;
	struct up_sampler_stats st;
	struct up_profile *p;

	up_sampler_config_init(&c, UP_SAMPLER_CONFIG_VERSION);
	c.hz = 2000;
	c.drop_late = true;     /* exact counts: one stack per sample */
	REQUIRE(up_profile_new(&p, 2) == 0);
	up_target_image_set_lifetime(t, 15, 0);
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	CHECK(st.stop == UP_STOP_SHUTDOWN);
	CHECK(st.samples == 14);
	CHECK(count_of(p, 0) == 14);
	CHECK(!up_target_paused_by_us(t));
	up_sampler_stats_release(&st);
	up_target_close(t);

	t = two_vcpu_guest(true);
	up_target_image_set_lifetime(t, 0, 5);
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	CHECK(st.stop == UP_STOP_GONE);
	CHECK(count_of(p, 0) == 14 + 4);
	CHECK(!up_target_paused_by_us(t));
	up_sampler_stats_release(&st);
	up_profile_free(p);
	up_target_close(t);
}

static volatile sig_atomic_t stop_flag;

static void on_alarm(int sig)
{
	(void)sig;
	stop_flag = 1;
}

/* A signal during a run ends it promptly with the samples kept; pacing
 * follows the requested rate and a duration ends the run on time. */
static void test_signal_duration_and_rate(void)
{
	struct up_target *t = two_vcpu_guest(true);
	struct up_sampler_config c;
	struct up_sampler_stats st;
	struct up_profile *p;
	struct sigaction sa = { .sa_handler = on_alarm };
	struct timespec a, b;
	double secs;

	up_sampler_config_init(&c, UP_SAMPLER_CONFIG_VERSION);
	c.hz = 200;
	REQUIRE(up_profile_new(&p, 2) == 0);
	sigaction(SIGALRM, &sa, NULL);
	stop_flag = 0;
	alarm(1);
	clock_gettime(CLOCK_MONOTONIC, &a);
	CHECK(up_sample(t, &c, p, &stop_flag, &st) == 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	CHECK(st.stop == UP_STOP_REQUESTED);
	CHECK(secs < 1.5);
	/* 200 Hz for ~1 s, Poisson instants: 200 on average, a standard
	 * deviation of 14; within 4.5 of them. */
	CHECK(st.samples <= 264);
	CHECK(st.samples + st.missed_deadlines + st.covered_periods >= 136);
	CHECK(up_profile_samples(p) == 2 * (st.samples + st.covered_periods));
	CHECK(!up_target_paused_by_us(t));
	up_sampler_stats_release(&st);

	c.duration_s = 0.3;
	clock_gettime(CLOCK_MONOTONIC, &a);
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	CHECK(st.stop == UP_STOP_DURATION);
	CHECK(secs >= 0.29 && secs < 0.6);
	CHECK(st.samples <= 95);        /* 60 +- 4.5 standard deviations */
	up_sampler_stats_release(&st);
	/* On the grid, exactly: never more than the rate allows. */
	c.no_jitter = true;
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	CHECK(st.samples <= 61);
	up_sampler_stats_release(&st);
	up_profile_free(p);
	up_target_close(t);
}

/* A sampler that cannot keep up (100 kHz here) never bursts, and counts
 * the periods it missed as its last sample again rather than dropping
 * them: the profile then covers the whole time. */
static void test_late_periods_counted(void)
{
	struct test_guest g;
	struct up_target *t;
	struct up_profile *p;
	struct up_sampler_config c;
	struct up_sampler_stats st;
	struct up_regs r;

	tg_init(&g, UP_DOMAIN_HVM);
	tg_map_fresh(&g, 0xffff880000200000ULL, 1);
	r = tg_regs(&g, 0x1000, 0xffff880000200000ULL, 0);
	up_image_add_vcpu(g.img, &r);
	t = tg_open(&g);
	up_sampler_config_init(&c, UP_SAMPLER_CONFIG_VERSION);
	c.unwinder = UP_UNWINDER_FP;
	c.hz = 100000;
	c.duration_s = 0.2;
	/* Back to back on purpose: past any stall budget. */
	c.max_stall_pct = UP_SAMPLER_NO_STALL_BUDGET;
	REQUIRE(up_profile_new(&p, 1) == 0);
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	CHECK(st.covered_periods > 0);
	CHECK_U64(up_profile_samples(p), st.samples + st.covered_periods);
	/* No period is both counted and missed, and together they account
	 * for the time (within a few periods of the ends). */
	CHECK(st.samples + st.covered_periods + st.missed_deadlines >= 19000);
	CHECK(st.samples + st.covered_periods + st.missed_deadlines <=
	      (uint64_t)(st.elapsed_s * 100000) + 10);
	up_sampler_stats_release(&st);
	up_profile_free(p);
	/* Dropped instead, when asked. */
	c.drop_late = true;
	REQUIRE(up_profile_new(&p, 1) == 0);
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	CHECK(st.covered_periods == 0 && st.missed_deadlines > 0);
	CHECK_U64(up_profile_samples(p), st.samples);
	up_sampler_stats_release(&st);
	up_profile_free(p);
	up_target_close(t);
	tg_release(&g);
}

/* The instants: Poisson up to 1 kHz (gaps of mean one period, short ones
 * as often as an exponential has them, which instants one period apart
 * never have), those inside our own sample dropped, those the sampler slept
 * through missed; above 1 kHz one at random in each period. */
static void test_pacing(void)
{
	struct pacing pc;
	const uint64_t ms = 1000000, t0 = 1000 * ms;
	uint64_t now = t0, sum = 0, short_gaps = 0, missed;
	const unsigned n = 20000;

	pacing_start(&pc, 100, 0, true, t0);
	CHECK(pc.poisson);
	for (unsigned i = 0; i < n; i++) {
		uint64_t before = pc.deadline;

		CHECK(pacing_advance(&pc, now) == 0);
		sum += pc.deadline - before;
		short_gaps += pc.deadline - before < ms;
		now = pacing_instant(&pc);
	}
	/* Mean 10 ms: its standard error 0.07 ms, 4.5 of them. */
	CHECK(sum / n > 9700 * 1000 && sum / n < 10300 * 1000);
	/* Under 1 ms: 1 - e^-0.1 = 9.5 %, +- 4.5 standard errors (0.2). */
	CHECK(short_gaps > n * 85 / 1000 && short_gaps < n * 105 / 1000);

	/* A sample held the guest from now to now + 30 ms, and the
	 * sampler came back 20 ms after that: instants in the first 30 ms
	 * are dropped, those after all but the last missed. */
	pacing_sampled(&pc, now, now + 30 * ms);
	missed = pacing_advance(&pc, now + 50 * ms);
	CHECK(pacing_instant(&pc) < now + 50 * ms || missed == 0);
	CHECK(pacing_instant(&pc) >= now + 30 * ms);
	CHECK(missed <= 20);     /* 2 expected in 20 ms; 20 is 4.5 sigma off */

	/* Above 1 kHz: one in each period, no gap beyond two periods. */
	pacing_start(&pc, 20000, 0, true, t0);
	CHECK(!pc.poisson && pc.jitter);
	now = t0;
	for (unsigned i = 0; i < 1000; i++) {
		uint64_t at;

		CHECK(pacing_advance(&pc, now) == 0);
		at = pacing_instant(&pc);
		CHECK(at + pc.period / 2 >= pc.deadline && at < pc.deadline + pc.period / 2);
		now = pc.deadline - pc.period / 2;
	}
}

struct rate_seen {
	struct up_target *t;
	unsigned calls;
	unsigned first_k;
	double first_pct, first_at;
	bool paused;
};

static void rate_cb(const struct up_sampler_stats *s, void *arg)
{
	struct rate_seen *r = arg;

	if (!r->calls++) {
		r->first_k = s->stall_factor;
		r->first_pct = s->window_stall_pct;
		r->first_at = s->lowered_at_s;
	}
	r->paused |= up_target_paused_by_us(r->t);
}

/* The stall budget in the loop: every pause here stands ~1 ms, 20 % of
 * the time at 200 Hz. The rate is lowered after the first window, said
 * between samples, each sample then counts k times (shares unbiased:
 * the profile holds about the periods asked), and the run stands still
 * under the budget plus what its first window cost. */
static void test_stall_budget_lowers(void)
{
	struct up_target *t = two_vcpu_guest(true);
	struct up_sampler_config c;
	struct up_sampler_stats st;
	struct up_profile *p;
	struct rate_seen r = { .t = t };
	double periods, want, stall;

	up_sampler_config_init(&c, UP_SAMPLER_CONFIG_VERSION);
	c.hz = 200;
	c.duration_s = 2;
	c.rate_changed = rate_cb;
	c.rate_changed_arg = &r;
	up_target_image_set_stall(t, UP_IMAGE_STALL_EVERY, 1000000);
	REQUIRE(up_profile_new(&p, 2) == 0);
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	CHECK(st.stop == UP_STOP_DURATION);
	CHECK(st.max_stall_pct == UP_SAMPLER_DEFAULT_MAX_STALL_PCT);
	CHECK(st.hz_asked == 200);
	CHECK(r.calls >= 1 && !r.paused);
	/* ~20 % (1 ms and its sleep's slack, per 5 ms; over 20 Poisson
	 * gaps, 12 to 30 % in runs here): k 3 or more. */
	CHECK(r.first_k >= 3 && r.first_k <= 15);
	CHECK(r.first_pct > 10);
	/* The first window: 20 samples (~0.1 s), decided once 12.5 ms of
	 * the guest's time is spent, as it is by then. */
	CHECK(r.first_at > 0.05 && r.first_at < 0.3);
	CHECK(st.stall_factor >= 2 && st.stall_factor_max >= st.stall_factor);
	CHECK(st.hz_now == 200.0 / st.stall_factor);
	CHECK(st.hz_lowest == 200.0 / st.stall_factor_max);
	CHECK(st.budget_periods > 0);
	/* Mixed weights: fewer effective samples than samples. */
	CHECK(st.effective_samples > 0 && st.effective_samples < (double)st.samples);
	/* Every period counted is a sample, a late one, or one a sample at
	 * the lowered rate stood for. */
	CHECK_U64(up_profile_samples(p),
		  2 * (st.samples + st.covered_periods + st.budget_periods));
	/* About the periods asked over the time the guest was not held
	 * (instants inside our pauses are dropped): Poisson at 200/k,
	 * weighted k, has a standard deviation of sqrt(k * n). */
	stall = (double)st.vcpu_paused_ns[0] / 1e9;
	want = 200 * (st.elapsed_s - stall);
	periods = (double)(st.samples + st.covered_periods + st.budget_periods +
			   st.missed_deadlines * st.stall_factor);
	CHECK(fabs(periods - want) <= 4.5 * sqrt(st.stall_factor_max * want) + 10);
	/* Under the budget, but for the first window (20 % of ~0.1 s of a
	 * 2 s run: 1 point) and the noise of the later ones. */
	CHECK(up_sampler_stall_pct(&st, 0) < 5 + 3);
	CHECK(!up_target_paused_by_us(t));
	up_sampler_stats_release(&st);
	up_profile_free(p);

	/* No budget (100): the rate asked, whatever it costs. */
	c.max_stall_pct = UP_SAMPLER_NO_STALL_BUDGET;
	c.duration_s = 0.6;
	r.calls = 0;
	REQUIRE(up_profile_new(&p, 2) == 0);
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	CHECK(r.calls == 0);
	CHECK(st.stall_factor == 1 && st.stall_factor_max == 1);
	CHECK(st.lowered_at_s < 0 && st.budget_periods == 0);
	CHECK(st.effective_samples == (double)st.samples);
	CHECK(st.max_stall_pct == UP_SAMPLER_NO_STALL_BUDGET);
	CHECK(up_sampler_stall_pct(&st, 0) > 10);
	CHECK_U64(up_profile_samples(p), 2 * (st.samples + st.covered_periods));
	up_sampler_stats_release(&st);
	up_profile_free(p);

	/* Started lowered (uniprofd: where the domain's last profile ended). */
	c.max_stall_pct = 0;
	c.stall_factor_start = 10;
	c.duration_s = 0.3;
	REQUIRE(up_profile_new(&p, 2) == 0);
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	CHECK(st.stall_factor_max >= 10 && st.lowered_at_s == 0);
	CHECK(st.samples <= 20);     /* 20 Hz for 0.3 s: 6 on average */
	CHECK_U64(up_profile_samples(p),
		  2 * (st.samples + st.covered_periods + st.budget_periods));
	up_sampler_stats_release(&st);
	up_profile_free(p);
	up_target_close(t);
}

int main(void)
{
	RUN(test_samples_all_vcpus);
	RUN(test_frames_kept_across_runs);
	RUN(test_early_callback);
	RUN(test_one_vcpu_and_offline);
	RUN(test_bad_config);
	RUN(test_config_version);
	RUN(test_stops_on_shutdown_and_gone);
	RUN(test_signal_duration_and_rate);
	RUN(test_late_periods_counted);
	RUN(test_pacing);
	RUN(test_stall_budget_lowers);
	TEST_MAIN_END();
}
