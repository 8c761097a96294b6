/* Who holds the domain paused, shared between the profiler and the crash
 * guard's watchdog (a separate process: the struct lives in a memfd both
 * map). Xen counts pauses, so every pause we make must be undone exactly
 * once: the state word says who owns the unpause, and a compare-and-swap
 * on it hands that ownership to one side only. The word also carries a
 * pause sequence number, so a CAS prepared for one pause can never succeed
 * on the next one.
 *
 * Compiled into libuniprof and into uniprof-guard. */
#ifndef UP_PAUSE_STATE_H
#define UP_PAUSE_STATE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Low byte of the state word. */
enum pause_phase {
	PS_IDLE = 0,            /* not paused by us */
	PS_PAUSED = 1,          /* paused by us: the window is open */
	PS_SELF_UNPAUSING = 2,  /* the profiler owns the unpause */
	PS_GUARD_UNPAUSING = 3, /* the guard owns the unpause (deadline hit) */
	PS_GUARD_RELEASED = 4,  /* the guard unpaused it; the profiler has not
	                         * seen that yet */
	PS_PAUSING = 5,         /* the pause hypercall may not have landed:
	                         * the guard waits for it to land */
};

#define PS_DEFAULT_LIMIT_NS (50ull * 1000 * 1000)
/* How often the guard looks for an overdue pause to land. */
#define PS_LANDING_POLL_NS (1ull * 1000 * 1000)

struct pause_state {
	_Atomic uint64_t word;            /* sequence << 8 | phase */
	_Atomic uint64_t since_ns;        /* CLOCK_MONOTONIC at the pause */
	_Atomic uint64_t limit_ns;        /* 0: no deadline */
	_Atomic uint64_t guard_releases;  /* pauses the guard ended */
	/* No pause of ours begins before this instant (CLOCK_MONOTONIC)
	 * unless ps_begin says so: the guard sleeps until then rather than
	 * look every few milliseconds between a sampler's samples (one
	 * guard per domain: uniprofd runs dozens). 0: none announced, and
	 * ps_begin says so too. */
	_Atomic uint64_t quiet_until_ns;
	/* Image targets only: a stand-in for Xen's pause count, so tests see
	 * every pause and unpause, whoever makes it. */
	_Atomic int64_t image_held;
	_Atomic uint64_t image_unpauses;
	_Atomic uint64_t image_bad_unpauses;  /* unpause of a running domain */
};

static inline enum pause_phase ps_phase(uint64_t word)
{
	return (enum pause_phase)(word & 0xff);
}

void ps_init(struct pause_state *ps);
void ps_copy(struct pause_state *to, const struct pause_state *from);

/* Paused by us in any phase before the unpause is known to be done. */
bool ps_held(const struct pause_state *ps);

/* The profiler's side. ps_begin marks the pause before the hypercall (a
 * crash in between must still unpause) and starts its deadline; it
 * returns true when the pause comes before the quiet time announced, so
 * the guard may be asleep past its deadline and must be woken first
 * (also when no pause was announced at all).
 * ps_paused says it landed; ps_begin_failed says it never happened.
 * ps_quiet_until announces the next pause (UINT64_MAX: none planned).
 *
 * The guard acts only once the pause has landed, however overdue: an
 * unpause made before it would take away someone else's pause (Xen
 * counts pauses of a domain, not whose they are: uniprofd's push and pull
 * of one domain are two profilers), and ours, landing after, would then
 * never be undone. */
bool ps_begin(struct pause_state *ps);
void ps_paused(struct pause_state *ps);
void ps_quiet_until(struct pause_state *ps, uint64_t ns);
void ps_begin_failed(struct pause_state *ps);

enum ps_claim {
	PS_CLAIM_NOT_PAUSED,    /* nothing to undo */
	PS_CLAIM_OURS,          /* make the unpause, then ps_unpause_done */
	PS_CLAIM_RELEASED,      /* the guard unpaused it: do not unpause again */
	PS_CLAIM_BUSY,          /* the guard is unpausing right now: retry */
};
enum ps_claim ps_claim_unpause(struct pause_state *ps);
void ps_unpause_done(struct pause_state *ps, bool ok);

/* The guard's side. When the pause in progress has outlived its limit,
 * take the unpause (once), call unpause(arg) and record the result.
 * Returns 1 when the guard unpaused the domain, 0 when there was nothing
 * to do, -1 when its unpause failed (the pause is handed back). *wait_ns
 * gets how long until the current pause would be overdue (0 if none). */
int ps_guard_check(struct pause_state *ps, uint64_t now,
		   int (*unpause)(void *arg), void *arg, uint64_t *wait_ns);

/* How long the guard may sleep before it looks again, given now, the
 * announcement it read with ps_guard_quiet BEFORE ps_guard_check (so that
 * one taken back by a pause comes with that pause in the check), what
 * ps_guard_check left in wait_ns and its look period: until a pause in
 * progress is overdue (at most a period); one period when the pause
 * announced may begin any time now; when none may begin before the quiet
 * time announced, a period past it (at most PS_IDLE_SLEEP_NS beyond now),
 * or with an alarm clock the profiler sets (the guard's timerfd) until it
 * rings. With nothing announced: with the alarm, until a pause wakes it
 * (PS_ALARM_SLEEP_NS at most, should a wake be lost); without, a period,
 * since an announcement wakes nobody then. */
#define PS_IDLE_SLEEP_NS (1000ull * 1000 * 1000)
#define PS_ALARM_SLEEP_NS (10ull * 1000 * 1000 * 1000)
uint64_t ps_guard_quiet(const struct pause_state *ps);
uint64_t ps_guard_sleep_ns(const struct pause_state *ps, uint64_t now, uint64_t quiet,
			   uint64_t wait_ns, uint64_t period_ns, bool alarm);

/* The image target's pause count, with Xen's rule: no unpause below 0. */
void ps_image_pause(struct pause_state *ps);
int ps_image_unpause(struct pause_state *ps);

#endif
