/* The stall budget: how often to sample so that the domain stands still
 * for samples no more than a stated share of its time. The sampler tells
 * it, after each sample, how long that sample held the guest; it closes a
 * window now and then and says by what whole factor k the period asked is
 * to be multiplied. Nothing here reads a clock or allocates: the caller
 * passes the time, and this runs between samples, never inside one.
 *
 * Why a whole factor: a sample at a k-times longer period stands for k
 * periods of the rate asked and is counted k times, so every share the
 * profile gives stays unbiased across a change (as a late sample counts
 * for the periods it missed). The stall is taken to scale with the rate:
 * a window's share s at factor k becomes s * k / k' at k'. */
#include "config.h"

#include <math.h>

#include "sampler/sampler_impl.h"

/* A window ends after this many samples and this much wall time (the
 * first one sooner, so that a run of two seconds is protected too), or
 * once it has stood still the budget's share of a whole window: no window
 * stands still much more than that. The first, at the rate asked, waits
 * for its MIN_SAMPLES even then (one hiccup among a few samples would set
 * k for the run: its step is not capped); the later ones, at a rate
 * already lowered, only for MIN_SPENT (their step is capped, and waiting
 * for twenty let a loaded machine's 20 ms pauses hold the guest 40 % of
 * a window: 7.3 % over a run against a 5 % budget). */
#define MIN_SAMPLES 20
#define MIN_SPENT 4
#define FIRST_WINDOW_NS 250000000ULL
#define WINDOW_NS 1000000000ULL
/* Past the budget: the share aimed at, as a part of the budget (room for
 * the noise of the next window). Back up only after a window under
 * RAISE_BELOW of it, to a k that still aims at TARGET. */
#define TARGET 0.8
#define RAISE_BELOW 0.5
/* After the first window, k grows at most this many times a window: one
 * pause of tens of milliseconds (an emulator's or dom0's hiccup) in an
 * otherwise ordinary window divided the rate by 10 on real Xen under
 * emulation (k 10 to 109, 9 Hz, 57 effective samples in 4 s). A share
 * that stays past the budget is lowered again a window later. */
#define STEP_MAX 4

bool stall_budget_on(double max_pct)
{
	return max_pct > 0 && max_pct < UP_SAMPLER_NO_STALL_BUDGET;
}

static unsigned clamp_k(unsigned k)
{
	if (k < 1)
		return 1;
	return k > UP_SAMPLER_MAX_STALL_FACTOR ? UP_SAMPLER_MAX_STALL_FACTOR : k;
}

/* The smallest whole k' whose expected share, s * k / k', is at most
 * TARGET of the budget; capped. */
static unsigned factor_for(double share_pct, unsigned k, double max_pct)
{
	double want = share_pct * (double)k / (TARGET * max_pct);

	if (!(want < (double)UP_SAMPLER_MAX_STALL_FACTOR))
		return UP_SAMPLER_MAX_STALL_FACTOR;
	return clamp_k((unsigned)ceil(want));
}

unsigned stall_budget_factor(unsigned k, uint64_t stall_ns, uint64_t wall_ns,
			     double max_pct)
{
	double share;
	unsigned next;

	if (!stall_budget_on(max_pct))
		return 1;
	k = clamp_k(k);
	if (wall_ns == 0)
		return k;
	share = 100.0 * (double)stall_ns / (double)wall_ns;
	if (share > max_pct) {
		next = factor_for(share, k, max_pct);
		/* Past it, always lower (unless at the cap). */
		return next > k ? next : clamp_k(k + 1);
	}
	if (share < RAISE_BELOW * max_pct) {
		next = factor_for(share, k, max_pct);
		return next < k ? next : k;
	}
	return k;
}

void stall_budget_start(struct stall_budget *b, double max_pct, unsigned k,
			uint64_t now)
{
	b->max_pct = max_pct;
	b->k = stall_budget_on(max_pct) ? clamp_k(k) : 1;
	b->from = now;
	b->stall = 0;
	b->samples = 0;
	b->first = true;
}

unsigned stall_budget_add(struct stall_budget *b, uint64_t stall_ns,
			  uint64_t now, double *window_pct)
{
	uint64_t window = b->first ? FIRST_WINDOW_NS : WINDOW_NS;
	uint64_t wall = now > b->from ? now - b->from : 0;
	unsigned next;

	if (!stall_budget_on(b->max_pct))
		return b->k;
	/* Saturating: a hostile stall cannot wrap the sum. */
	b->stall = stall_ns > UINT64_MAX - b->stall ? UINT64_MAX : b->stall + stall_ns;
	b->samples++;
	if ((double)b->stall > b->max_pct / 100 * (double)window ?
	    b->samples < (b->first ? MIN_SAMPLES : MIN_SPENT) :
	    b->samples < MIN_SAMPLES || wall < window)
		return b->k;
	if (window_pct)
		*window_pct = wall ? 100.0 * (double)b->stall / (double)wall : 100.0;
	next = stall_budget_factor(b->k, b->stall, wall, b->max_pct);
	if (!b->first && next > b->k * STEP_MAX)
		next = b->k * STEP_MAX;
	b->k = next;
	b->from = now;
	b->stall = 0;
	b->samples = 0;
	b->first = false;
	return b->k;
}
