/* Target dispatch, and the pause bookkeeping the crash guard relies on. */
#include "config.h"

#include <stdio.h>
#include <time.h>

#include "util/clock.h"
#include "util/error_impl.h"
#include "target/target_impl.h"
#include "uniprof/crash_guard.h"
#include "private.h"

void target_init(struct up_target *t, const struct up_target_ops *ops)
{
	t->ops = ops;
	ps_init(&t->ps_local);
	t->ps = &t->ps_local;
	t->guard_fd = -1;
	t->guard_alarm_fd = -1;
	t->guard_pid = -1;
	t->guard_alarm_at = 0;
	t->keep_frames = false;
	t->kept_frames = NULL;
}

void up_target_close(struct up_target *t)
{
	if (!t)
		return;
	if (ps_held(t->ps))
		up_target_unpause(t);
	/* Its mappings go before the domain's handles they were made with. */
	target_keep_frames(t, NULL, 0, NULL);
	up_crash_guard_release(t);
	t->ops->close(t);
}

const struct up_target_info *up_target_info(const struct up_target *t)
{
	return &t->info;
}

int up_target_pause(struct up_target *t)
{
	int rc;

	if (ps_held(t->ps))
		return 0;
	/* Mark first: a crash between the hypercall and the store must still
	 * unpause. */
	if (ps_begin(t->ps))
		crash_guard_wake(t);
	rc = t->ops->pause(t);
	if (rc < 0)
		ps_begin_failed(t->ps);
	else
		ps_paused(t->ps);
	return rc;
}

void up_target_keep_frames(struct up_target *t, bool keep)
{
	t->keep_frames = keep;
	if (!keep)
		target_keep_frames(t, NULL, 0, NULL);
}

void target_keep_frames(struct up_target *t, void *frames, size_t size,
			void (*free_fn)(void *frames))
{
	if (t->kept_frames && t->kept_frames != frames)
		t->kept_frames_free(t->kept_frames);
	t->kept_frames = NULL;
	if (frames && !t->keep_frames) {
		free_fn(frames);
		return;
	}
	t->kept_frames = frames;
	t->kept_frames_size = size;
	t->kept_frames_free = free_fn;
}

void *target_take_frames(struct up_target *t, size_t size)
{
	void *frames = t->kept_frames;

	if (frames && t->kept_frames_size != size) {
		t->kept_frames_free(frames);
		frames = NULL;
	}
	t->kept_frames = NULL;
	return frames;
}

void target_quiet_until(struct up_target *t, uint64_t ns)
{
	uint64_t limit = atomic_load(&t->ps->limit_ns);
	uint64_t at = ns == UINT64_MAX || !limit || ns > UINT64_MAX - limit ? 0 : ns + limit;

	ps_quiet_until(t->ps, ns);
	if (t->guard_pid <= 0)
		return;
	/* A pause that starts at ns must be looked at by its deadline: the
	 * guard's alarm rings then, unless the next sample, announced
	 * before it, sets it later again. So the guard sleeps through
	 * every sample that ends in time. An alarm already set for at
	 * most half a limit earlier is left as it is, if it has not rung
	 * yet (the time announced may be a late sampler's): it rings
	 * early, the guard looks and sleeps again, but at the highest
	 * rates that is once per half limit instead of a system call per
	 * sample. When it rings, the time announced has passed, so the
	 * guard looks every period until the pause. */
	if (at && t->guard_alarm_at <= at && t->guard_alarm_at >= at - limit / 2 &&
	    t->guard_alarm_at > mono_ns())   /* read after the announcement */
		return;
	if (!at && !t->guard_alarm_at)
		return;                 /* not set, and none wanted */
	t->guard_alarm_at = at;
	/* Should the alarm fail, nothing is announced, and every pause
	 * wakes the guard (ps_begin). */
	if (crash_guard_alarm(t, at) < 0) {
		t->guard_alarm_at = 0;
		ps_quiet_until(t->ps, 0);
		crash_guard_wake(t);
	}
}

void target_will_read(struct up_target *t, unsigned first, unsigned last,
		      uint32_t ask_state, bool clocks)
{
	if (t->ops->will_read && first <= last && last < t->info.max_vcpus)
		t->ops->will_read(t, first, last, ask_state, clocks);
}

/* The guard's unpause is one hypercall; waiting longer than this for it
 * means the guard died in the middle of it. */
#define GUARD_BUSY_WAIT_NS (2ull * 1000 * 1000 * 1000)

int target_end_pause(struct up_target *t, bool *released)
{
	uint64_t waited = 0;
	int rc;

	*released = false;
	for (;;) {
		switch (ps_claim_unpause(t->ps)) {
		case PS_CLAIM_NOT_PAUSED:
			return 0;
		case PS_CLAIM_RELEASED:
			*released = true;
			return 0;
		case PS_CLAIM_OURS:
			rc = t->ops->unpause(t);
			ps_unpause_done(t->ps, rc == 0);
			/* Handed back: the guard, asleep, is to end it. */
			if (rc != 0)
				crash_guard_wake(t);
			return rc;
		case PS_CLAIM_BUSY:
			break;
		}
		if (waited >= GUARD_BUSY_WAIT_NS)
			return up_fail(UP_EIO, "the crash guard's unpause of domain %u did not finish",
				       t->info.domid);
		nanosleep(&(struct timespec){ .tv_nsec = 100000 }, NULL);
		waited += 100000;
	}
}

int up_target_unpause(struct up_target *t)
{
	bool released;

	return target_end_pause(t, &released);
}

void up_target_set_max_pause(struct up_target *t, uint64_t ns)
{
	atomic_store(&t->ps->limit_ns, ns);
}

bool up_target_paused_by_us(const struct up_target *t)
{
	return t && ps_held(t->ps);
}

int up_target_get_regs(struct up_target *t, unsigned vcpu,
		       struct up_regs *out)
{
	if (vcpu >= t->info.max_vcpus)
		return up_fail(UP_EINVAL, "vCPU %u does not exist (domain has %u)",
			       vcpu, t->info.max_vcpus);
	return t->ops->get_regs(t, vcpu, out);
}

int up_target_map_frame(struct up_target *t, enum up_frame_kind kind,
			uint64_t frame, const void **page)
{
	return t->ops->map_frame(t, kind, frame, page);
}

void up_target_unmap_frame(struct up_target *t, const void *page)
{
	if (page)
		t->ops->unmap_frame(t, page);
}

int up_target_state(struct up_target *t, enum up_domain_state *state)
{
	return t->ops->state(t, state);
}

const char *up_vcpu_activity_name(enum up_vcpu_activity a)
{
	switch (a) {
	case UP_VCPU_BUSY: return "busy";
	case UP_VCPU_BLOCKED: return "blocked";
	case UP_VCPU_WAITING: return "waiting";
	case UP_VCPU_UNKNOWN: break;
	}
	return "unknown";
}

int up_target_get_activity(struct up_target *t, unsigned vcpu,
			   enum up_vcpu_activity *activity, bool *online,
			   uint64_t *run_ns)
{
	uint64_t ignored;

	if (!run_ns)
		run_ns = &ignored;
	*activity = UP_VCPU_UNKNOWN;
	*online = true;
	*run_ns = UP_RUN_NS_UNKNOWN;
	if (vcpu >= t->info.max_vcpus)
		return up_fail(UP_EINVAL, "vCPU %u does not exist (domain has %u)",
			       vcpu, t->info.max_vcpus);
	if (!t->ops->activity)
		return up_fail(UP_EUNSUPP, "this target cannot tell busy from blocked vCPUs");
	return t->ops->activity(t, vcpu, activity, online, run_ns);
}

bool up_target_crashed(struct up_target *t)
{
	return t->ops->crashed && t->ops->crashed(t);
}

int up_target_get_named_regs(struct up_target *t, unsigned vcpu,
			     struct up_named_regs *out)
{
	out->count = 0;
	if (vcpu >= t->info.max_vcpus)
		return up_fail(UP_EINVAL, "vCPU %u does not exist (domain has %u)",
			       vcpu, t->info.max_vcpus);
	if (!t->ops->named_regs)
		return up_fail(UP_EUNSUPP, "this target keeps no register set beyond pc, sp and fp");
	return t->ops->named_regs(t, vcpu, out);
}

void named_regs_put(struct up_named_regs *out, const char *name, uint64_t v)
{
	if (out->count >= UP_MAX_NAMED_REGS)
		return;
	snprintf(out->reg[out->count].name, sizeof(out->reg[0].name), "%s", name);
	out->reg[out->count++].value = v;
}
