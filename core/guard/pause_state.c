/* The pause handshake between the profiler and the crash guard (see
 * guard/pause_state.h). Everything here is lock-free: the two sides are separate
 * processes, and either may die at any instruction. */
#include "config.h"

#include "guard/pause_state.h"
#include "util/clock.h"

#define SEQ(w) ((w) & ~(uint64_t)0xff)

void ps_init(struct pause_state *ps)
{
	atomic_init(&ps->word, PS_IDLE);
	atomic_init(&ps->since_ns, 0);
	atomic_init(&ps->limit_ns, PS_DEFAULT_LIMIT_NS);
	atomic_init(&ps->guard_releases, 0);
	atomic_init(&ps->quiet_until_ns, 0);
	atomic_init(&ps->image_held, 0);
	atomic_init(&ps->image_unpauses, 0);
	atomic_init(&ps->image_bad_unpauses, 0);
}

void ps_copy(struct pause_state *to, const struct pause_state *from)
{
	atomic_store(&to->since_ns, atomic_load(&from->since_ns));
	atomic_store(&to->limit_ns, atomic_load(&from->limit_ns));
	atomic_store(&to->guard_releases, atomic_load(&from->guard_releases));
	atomic_store(&to->quiet_until_ns, atomic_load(&from->quiet_until_ns));
	atomic_store(&to->image_held, atomic_load(&from->image_held));
	atomic_store(&to->image_unpauses, atomic_load(&from->image_unpauses));
	atomic_store(&to->image_bad_unpauses,
		     atomic_load(&from->image_bad_unpauses));
	atomic_store(&to->word, atomic_load(&from->word));
}

bool ps_held(const struct pause_state *ps)
{
	enum pause_phase p = ps_phase(atomic_load(&ps->word));

	return p == PS_PAUSING || p == PS_PAUSED || p == PS_SELF_UNPAUSING ||
	       p == PS_GUARD_UNPAUSING;
}

bool ps_begin(struct pause_state *ps)
{
	uint64_t w = atomic_load(&ps->word), now = mono_ns(), quiet;

	/* The stamp first: the guard reads the word, then the stamp, so it
	 * never pairs this pause with an older pause's stamp. The deadline
	 * runs from here, so a slow pause hypercall counts against it. */
	atomic_store(&ps->since_ns, now);
	atomic_store(&ps->word, (SEQ(w) + 0x100) | PS_PAUSING);
	/* The announcement is taken back after the pause shows: a guard
	 * that reads it as taken (0) then sees this pause in the word it
	 * reads next (ps_guard_quiet comes before ps_guard_check). The
	 * guard sleeps on an announcement (until it, or its alarm), and
	 * with its alarm on none at all: a pause that was not announced,
	 * or comes before its time, must wake it. */
	quiet = atomic_exchange(&ps->quiet_until_ns, 0);
	return quiet == 0 || quiet > now;
}

uint64_t ps_guard_quiet(const struct pause_state *ps)
{
	return atomic_load(&ps->quiet_until_ns);
}

void ps_quiet_until(struct pause_state *ps, uint64_t ns)
{
	atomic_store(&ps->quiet_until_ns, ns);
}

uint64_t ps_guard_sleep_ns(const struct pause_state *ps, uint64_t now, uint64_t quiet,
			   uint64_t wait_ns, uint64_t period_ns, bool alarm)
{
	if (atomic_load(&ps->limit_ns) == 0)
		return PS_IDLE_SLEEP_NS;
	if (wait_ns)
		return wait_ns < period_ns ? wait_ns : period_ns;
	/* Nothing announced: with the alarm, a pause wakes us (ps_begin);
	 * without it, announcements wake nobody, so look every period. */
	if (quiet == 0)
		return alarm ? PS_ALARM_SLEEP_NS : period_ns;
	/* Announced, and its time has come: its alarm may have rung
	 * already, so look every period until it starts. */
	if (quiet <= now)
		return period_ns;
	/* A pause that begins at the quiet time or later is seen within a
	 * period of its start, as one seen by looking every period. */
	if (alarm)
		return PS_ALARM_SLEEP_NS;
	return (quiet - now < PS_IDLE_SLEEP_NS ? quiet - now : PS_IDLE_SLEEP_NS) + period_ns;
}

void ps_paused(struct pause_state *ps)
{
	uint64_t w = atomic_load(&ps->word);

	/* Only we leave PS_PAUSING; from here the guard may act. */
	atomic_store(&ps->word, SEQ(w) | PS_PAUSED);
}

void ps_begin_failed(struct pause_state *ps)
{
	uint64_t w = atomic_load(&ps->word);

	/* The pause never happened; the guard leaves a pause that has not
	 * landed alone. */
	atomic_store(&ps->word, SEQ(w) | PS_IDLE);
}

enum ps_claim ps_claim_unpause(struct pause_state *ps)
{
	uint64_t w = atomic_load(&ps->word);

	for (;;) {
		switch (ps_phase(w)) {
		case PS_PAUSING:
		case PS_PAUSED:
		case PS_SELF_UNPAUSING:
			if (atomic_compare_exchange_weak(&ps->word, &w,
							 SEQ(w) | PS_SELF_UNPAUSING))
				return PS_CLAIM_OURS;
			continue;
		case PS_GUARD_UNPAUSING:
			return PS_CLAIM_BUSY;
		case PS_GUARD_RELEASED:
			if (atomic_compare_exchange_weak(&ps->word, &w,
							 SEQ(w) | PS_IDLE))
				return PS_CLAIM_RELEASED;
			continue;
		default:
			return PS_CLAIM_NOT_PAUSED;
		}
	}
}

void ps_unpause_done(struct pause_state *ps, bool ok)
{
	uint64_t w = atomic_load(&ps->word);

	/* A failed unpause hands the pause back: the guard, seeing it
	 * overdue, tries too. */
	atomic_store(&ps->word, SEQ(w) | (ok ? PS_IDLE : PS_PAUSED));
}

int ps_guard_check(struct pause_state *ps, uint64_t now,
		   int (*unpause)(void *arg), void *arg, uint64_t *wait_ns)
{
	uint64_t w = atomic_load(&ps->word), limit, since;

	*wait_ns = 0;
	if (ps_phase(w) != PS_PAUSED && ps_phase(w) != PS_PAUSING)
		return 0;
	limit = atomic_load(&ps->limit_ns);
	since = atomic_load(&ps->since_ns);
	if (limit == 0)
		return 0;
	if (now < since + limit) {
		*wait_ns = since + limit - now;
		return 0;
	}
	/* Overdue but not landed: an unpause now could take another
	 * profiler's pause. Look again soon, to end ours as it lands. */
	if (ps_phase(w) == PS_PAUSING) {
		*wait_ns = PS_LANDING_POLL_NS;
		return 0;
	}
	/* Only one side ever wins this exchange for this pause. */
	if (!atomic_compare_exchange_strong(&ps->word, &w,
					    SEQ(w) | PS_GUARD_UNPAUSING))
		return 0;
	w = SEQ(w) | PS_GUARD_UNPAUSING;
	if (unpause(arg) != 0) {
		atomic_compare_exchange_strong(&ps->word, &w, SEQ(w) | PS_PAUSED);
		return -1;
	}
	atomic_fetch_add(&ps->guard_releases, 1);
	atomic_compare_exchange_strong(&ps->word, &w, SEQ(w) | PS_GUARD_RELEASED);
	return 1;
}

void ps_image_pause(struct pause_state *ps)
{
	atomic_fetch_add(&ps->image_held, 1);
}

int ps_image_unpause(struct pause_state *ps)
{
	int64_t held = atomic_load(&ps->image_held);

	while (held > 0)
		if (atomic_compare_exchange_weak(&ps->image_held, &held, held - 1)) {
			atomic_fetch_add(&ps->image_unpauses, 1);
			return 0;
		}
	atomic_fetch_add(&ps->image_bad_unpauses, 1);
	return -1;
}
