/* The stall budget's rule and windows (core/sampler/stall_budget.c): past
 * the budget a whole factor that brings the share under 0.8 of it, back
 * only under half of it and never above the rate asked; windows that close
 * on time, on samples, or early once a whole window's share is spent; and
 * hostile values (a zero-length window, a pause longer than the window, a
 * budget of 100 or of nothing, the factor's cap). */
#include <math.h>

#include "test.h"
#include "sampler/sampler_impl.h"

TEST_GLOBALS;

#define MS 1000000ULL
#define SEC 1000000000ULL

/* Past the budget: the smallest factor expected under 0.8 of it. */
static void test_lowers_past_budget(void)
{
	/* 31.2 % at the rate asked, budget 5: 31.2 / 4 = 7.8, so 8. */
	CHECK(stall_budget_factor(1, 312 * MS, SEC, 5) == 8);
	/* Just past it: at least one step. */
	CHECK(stall_budget_factor(1, 51 * MS, SEC, 5) == 2);
	CHECK(stall_budget_factor(3, 51 * MS, SEC, 5) == 4);
	/* Already lowered: the share scales with the factor in force
	 * (6 % at k 10 is 60 % at the rate asked: k 15). */
	CHECK(stall_budget_factor(10, 60 * MS, SEC, 5) == 15);
	/* Whatever the factor, the share expected is under 0.8 of it. */
	for (uint64_t st = 51; st <= 1000; st += 7) {
		unsigned k = stall_budget_factor(1, st * MS, SEC, 5);

		CHECK(k > 1);
		CHECK((double)st / 10 / k <= 4.0 + 1e-9);
		CHECK(k == 1 || (double)st / 10 / (k - 1) > 4.0);
	}
}

/* Within the budget and at least half of it: keep the factor. Under half:
 * back towards the rate asked, to a factor still under 0.8 of it. */
static void test_keeps_and_raises(void)
{
	CHECK(stall_budget_factor(1, 50 * MS, SEC, 5) == 1);      /* at it */
	CHECK(stall_budget_factor(8, 40 * MS, SEC, 5) == 8);
	CHECK(stall_budget_factor(8, 25 * MS, SEC, 5) == 8);      /* half */
	CHECK(stall_budget_factor(1, 0, SEC, 5) == 1);
	/* 2 % at k 8 is 16 % asked: k 4 (4 % expected). */
	CHECK(stall_budget_factor(8, 20 * MS, SEC, 5) == 4);
	/* Nothing stood still: the rate asked, never above it. */
	CHECK(stall_budget_factor(8, 0, SEC, 5) == 1);
	/* 2.4 % at k 2 would be 4.8 % at k 1, above 0.8 of 5: stays. */
	CHECK(stall_budget_factor(2, 24 * MS, SEC, 5) == 2);
}

static void test_hostile_values(void)
{
	/* A zero-length window says nothing: the factor stays. */
	CHECK(stall_budget_factor(7, 5 * SEC, 0, 5) == 7);
	CHECK(stall_budget_factor(7, 0, 0, 5) == 7);
	/* A pause longer than the window, or any amount: at most the cap. */
	CHECK(stall_budget_factor(1, 3 * SEC, SEC, 5) == 75);
	CHECK(stall_budget_factor(1, UINT64_MAX, 1, 5) == UP_SAMPLER_MAX_STALL_FACTOR);
	CHECK(stall_budget_factor(UP_SAMPLER_MAX_STALL_FACTOR, SEC, SEC, 5) ==
	      UP_SAMPLER_MAX_STALL_FACTOR);
	CHECK(stall_budget_factor(UINT32_MAX, SEC, SEC, 5) == UP_SAMPLER_MAX_STALL_FACTOR);
	/* Factor 0 is the rate asked. */
	CHECK(stall_budget_factor(0, 0, SEC, 5) == 1);
	CHECK(stall_budget_factor(0, 100 * MS, SEC, 5) == 3);
	/* A budget of 100, of nothing, negative or not a number: none, the
	 * rate asked, whatever stood still. */
	CHECK(stall_budget_factor(1, SEC, SEC, 100) == 1);
	CHECK(stall_budget_factor(9, 2 * SEC, SEC, 100) == 1);
	CHECK(stall_budget_factor(4, SEC, SEC, 0) == 1);
	CHECK(stall_budget_factor(4, SEC, SEC, -5) == 1);
	CHECK(stall_budget_factor(4, SEC, SEC, NAN) == 1);
	CHECK(stall_budget_factor(4, SEC, SEC, 1e300) == 1);
	CHECK(!stall_budget_on(100) && !stall_budget_on(0) && stall_budget_on(5));
	/* A tiny budget: the cap. */
	CHECK(stall_budget_factor(1, 10 * MS, SEC, 1e-9) == UP_SAMPLER_MAX_STALL_FACTOR);
}

/* The first window closes after 20 samples and 250 ms, whichever is
 * later; the next ones after a second (and 20 samples). */
static void test_windows_close(void)
{
	struct stall_budget b;
	uint64_t t = 1000 * SEC;
	double pct = -1;

	/* 8 % of the time, a sample every 10 ms (0.8 ms each): by the
	 * 20th sample (200 ms) it has stood still 16 ms, past 5 % of the
	 * whole first window (12.5 ms): decided then. 8 % / 4 % -> k 2. */
	stall_budget_start(&b, 5, 1, t);
	for (unsigned i = 1; i < 20; i++) {
		t += 10 * MS;
		CHECK(stall_budget_add(&b, 800000, t, &pct) == 1);
	}
	t += 10 * MS;
	CHECK(stall_budget_add(&b, 800000, t, &pct) == 2);
	CHECK(fabs(pct - 8.0) < 1e-6);
	/* 2 % of the time, 20 samples in 200 ms: the window goes on to its
	 * 250 ms, then keeps the rate asked. */
	stall_budget_start(&b, 5, 1, t);
	for (unsigned i = 1; i < 25; i++) {
		t += 10 * MS;
		CHECK(stall_budget_add(&b, 200000, t, NULL) == 1);
	}
	CHECK(b.samples == 24);
	t += 10 * MS;
	CHECK(stall_budget_add(&b, 200000, t, &pct) == 1);
	CHECK(b.samples == 0 && !b.first);
	CHECK(fabs(pct - 2.0) < 1e-6);
	/* At 6 %: the next window is a second long, and is decided once
	 * it has stood still 5 % of that (50 ms): its 84th sample. */
	for (unsigned i = 1; i < 84; i++) {
		t += 10 * MS;
		CHECK(stall_budget_add(&b, 600000, t, NULL) == 1);
	}
	t += 10 * MS;
	CHECK(stall_budget_add(&b, 600000, t, &pct) == 2);
	CHECK(fabs(pct - 6.0) < 1e-6);
	/* Exactly at the budget, a whole second: kept. */
	for (unsigned i = 1; i < 100; i++) {
		t += 10 * MS;
		CHECK(stall_budget_add(&b, 500000, t, NULL) == 2);
	}
	t += 10 * MS;
	CHECK(stall_budget_add(&b, 500000, t, &pct) == 2);
	CHECK(fabs(pct - 5.0) < 1e-6);
	/* Then a second's window: at k 2, 4 % (in the band) keeps it. */
	for (unsigned i = 1; i <= 49; i++) {
		t += 20 * MS;
		CHECK(stall_budget_add(&b, 800000, t, &pct) == 2);
	}
	t += 20 * MS;
	pct = -1;
	CHECK(stall_budget_add(&b, 800000, t, &pct) == 2);
	CHECK(fabs(pct - 4.0) < 1e-6);

	/* Fewer than 20 samples: no window closes, however long. */
	stall_budget_start(&b, 5, 1, t);
	for (unsigned i = 1; i < 20; i++) {
		t += SEC;
		CHECK(stall_budget_add(&b, 500 * MS, t, NULL) == 1);
	}
	t += SEC;
	CHECK(stall_budget_add(&b, 500 * MS, t, NULL) == 13);   /* 50 % / 4 */
}

/* A window that has stood still the budget's share of a whole window
 * closes at once (after its 20 samples): at 1 kHz and 40 % still, the
 * first is decided after ~31 ms, not 250. */
static void test_window_closes_early_when_spent(void)
{
	struct stall_budget b;
	uint64_t t = 5 * SEC, t0 = t;
	unsigned k = 1, i;
	double pct = 0;

	stall_budget_start(&b, 5, 1, t);
	for (i = 0; i < 1000 && k == 1; i++) {
		t += 1 * MS;
		k = stall_budget_add(&b, 400000, t, &pct);
	}
	CHECK(k == 10);                          /* 40 % / 4 % */
	CHECK(t - t0 <= 32 * MS && t - t0 >= 31 * MS);
	CHECK(fabs(pct - 40.0) < 1e-6);
}

/* A later window, at a rate already lowered, that has spent a whole
 * window's budget closes after 4 samples, not 20: a loaded machine's
 * 20 ms pauses at 10 Hz would otherwise hold the guest 20 % of two
 * seconds before the rate moved. */
static void test_later_window_spent_early(void)
{
	struct stall_budget b;
	uint64_t t = 7 * SEC;
	double pct = 0;

	stall_budget_start(&b, 5, 10, t);
	b.first = false;
	for (unsigned i = 1; i < 4; i++) {
		t += 100 * MS;
		CHECK(stall_budget_add(&b, 20 * MS, t, NULL) == 10);   /* 60 ms > 50 */
	}
	t += 100 * MS;
	CHECK(stall_budget_add(&b, 20 * MS, t, &pct) == 40);      /* 50, capped at x4 */
	CHECK(fabs(pct - 20.0) < 1e-6);
	CHECK(b.samples == 0);
}

/* After the first window, one window multiplies k by at most 4: a single
 * long pause (a hiccup) does not divide the rate by tens. The first
 * window, at the rate asked, goes where its share says. */
static void test_step_cap(void)
{
	struct stall_budget b;
	uint64_t t = SEC;
	unsigned k = 1;

	stall_budget_start(&b, 5, 1, t);
	/* First window: 60 % -> k 15 at once. */
	for (unsigned i = 0; i < 20; i++) {
		t += 10 * MS;
		k = stall_budget_add(&b, 6 * MS, t, NULL);
	}
	CHECK(k == 15);
	/* Then 19 ordinary samples and one of 300 ms: 30 % at k 15 would
	 * say 113; 60 at most. */
	for (unsigned i = 0; i < 19; i++) {
		t += 30 * MS;
		CHECK(stall_budget_add(&b, MS / 2, t, NULL) == 15);
	}
	t += 430 * MS;
	CHECK(stall_budget_add(&b, 300 * MS, t, NULL) == 60);
	/* Started high, never past the cap. */
	stall_budget_start(&b, 5, 900, t);
	b.first = false;
	for (unsigned i = 0; i < 20; i++) {
		t += 10 * MS;
		k = stall_budget_add(&b, 5 * MS, t, NULL);
	}
	CHECK(k == UP_SAMPLER_MAX_STALL_FACTOR);
}

/* No budget: nothing is ever counted or changed. A factor to start with
 * is kept until a window says otherwise, and clamped. */
static void test_start(void)
{
	struct stall_budget b;
	uint64_t t = SEC;

	stall_budget_start(&b, 100, 50, t);
	CHECK(b.k == 1);
	for (unsigned i = 0; i < 100; i++) {
		t += MS;
		CHECK(stall_budget_add(&b, MS, t, NULL) == 1);
	}
	stall_budget_start(&b, 5, 50, t);
	CHECK(b.k == 50);
	stall_budget_start(&b, 5, 0, t);
	CHECK(b.k == 1);
	stall_budget_start(&b, 5, 5000000, t);
	CHECK(b.k == UP_SAMPLER_MAX_STALL_FACTOR);
	/* A hostile stall saturates the window's sum instead of wrapping. */
	stall_budget_start(&b, 5, 1, t);
	for (unsigned i = 0; i < 19; i++)
		CHECK(stall_budget_add(&b, UINT64_MAX / 3, t + 1, NULL) == 1);
	CHECK(b.stall == UINT64_MAX);
	CHECK(stall_budget_add(&b, UINT64_MAX, t + 1, NULL) ==
	      UP_SAMPLER_MAX_STALL_FACTOR);
}

int main(void)
{
	RUN(test_lowers_past_budget);
	RUN(test_keeps_and_raises);
	RUN(test_hostile_values);
	RUN(test_windows_close);
	RUN(test_window_closes_early_when_spent);
	RUN(test_start);
	RUN(test_step_cap);
	RUN(test_later_window_spent_early);
	TEST_MAIN_END();
}
