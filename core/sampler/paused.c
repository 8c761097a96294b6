/* One sample with the domain paused: which vCPUs were blocked just
 * before, pause, read registers and walk every vCPU's stack into
 * preallocated buffers, unpause. The guest's stall is this function. */
#include "config.h"

#include "util/clock.h"
#include "unwind/kernel_map.h"
#include "sampler/sampler_impl.h"
#include "target/target_impl.h"
#include "mem/memory.h"

#define UNPAUSE_TRIES 5

/* Whether this vCPU's registers can say if Xen must be asked about it:
 * a vCPU blocks only at a block point (x86: just after sched_op's trap,
 * or an HVM `hlt`), which needs the architecture's test and the kernel's
 * hypercall page. Without either (Arm, no kernel map), Xen is asked. */
static bool regs_tell_block(const struct up_unwind_opts *uo,
			    const struct up_regs *regs)
{
	return uo->kernel && kernel_can_tell_block(regs);
}

/* The paused window: nothing here allocates or symbolizes, and Xen is
 * asked about a vCPU only when its registers cannot rule out that it was
 * blocked; its run clock is read outside (sampler.c). */
int sample_paused(struct up_target *t, struct up_mem *mem,
		  const struct up_sampler_config *c,
		  const struct up_unwind_opts *uo, unsigned first,
		  unsigned last, struct vcpu_sample *vs, bool clocks,
		  uint64_t *pause_ns, uint64_t *stopped, uint64_t *resumed,
		  struct up_unwind_counts *counts, bool *abandoned)
{
	uint32_t ask_state = 0;
	uint64_t t0;
	int rc, urc = -1;

	/* Whether Xen has a vCPU blocked is asked in the pausing trap itself
	 * for those the last sample found at a block point (the ones likely
	 * there now): of the pause's instant. Asked just before the pause,
	 * as it once was, it dated the sample from a moment earlier: a vCPU
	 * woken since and resumed by the pause's time was counted blocked,
	 * and an I/O guest on the production-shaped host read 36 % waiting
	 * against 48 % by its own clock. */
	for (unsigned v = first; v <= last && v - first < 32; v++)
		if (!c->no_activity && vs[v].at_block)
			ask_state |= 1u << (v - first);
	target_will_read(t, first, last, ask_state, clocks);
	t0 = mono_ns();
	rc = up_target_pause(t);
	if (rc < 0)
		return rc;
	*stopped = t0;
	up_mem_new_sample(mem);
	for (unsigned v = first; v <= last; v++) {
		struct up_regs regs;
		bool online = true, ask;
		uint64_t run;   /* the run clock is read outside the window */

		vs[v].activity = UP_VCPU_UNKNOWN;
		vs[v].activity_failed = false;
		vs[v].at_block = false;
		vs[v].xen_blocked = false;
		if (up_target_get_regs(t, v, &regs) < 0) {
			/* Xen has no registers of a vCPU that is down (never
			 * started, or taken down): only then is it asked. */
			vs[v].status = VCPU_NO_REGS;
			if (!c->no_activity &&
			    up_target_get_activity(t, v, &vs[v].activity,
						   &online, &run) == 0 && !online)
				vs[v].status = VCPU_OFFLINE;
			vs[v].activity = UP_VCPU_UNKNOWN;
			continue;
		}
		ask = !c->no_activity &&
		      (vs[v].ask_xen || !regs_tell_block(uo, &regs));
		/* Without a block test, Xen says whether it is up, too. */
		if (ask && up_target_get_activity(t, v, &vs[v].activity,
						  &online, &run) < 0)
			vs[v].activity_failed = true;
		if (!online || (!regs.online && (!ask || vs[v].activity_failed))) {
			vs[v].status = VCPU_OFFLINE;
			continue;
		}
		vs[v].status = sampler_walk(mem, &regs, c, uo, &vs[v].stack,
					    counts) < 0 ? VCPU_NO_REGS : VCPU_STACK;
		vs[v].at_block = !c->no_activity &&
				 kernel_at_block(mem, &regs, uo->kernel,
						 uo->domain_type);
		if (c->no_activity || ask) {
			vs[v].xen_blocked = vs[v].activity == UP_VCPU_BLOCKED;
			if (vs[v].activity == UP_VCPU_BUSY && vs[v].at_block)
				vs[v].activity = UP_VCPU_WAITING;
			continue;
		}
		if (!vs[v].at_block) {
			/* Not at a block point: running or runnable. */
			vs[v].activity = UP_VCPU_BUSY;
		} else {
			/* Blocked, or woken and not back in its code since
			 * (runnable where it blocked, or being resumed: not
			 * CPU time of its own): only Xen knows, and it was
			 * asked in the pausing trap when the last sample found
			 * it here. */
			if (up_target_get_activity(t, v, &vs[v].activity,
						   &online, &run) < 0)
				vs[v].activity_failed = true;
			vs[v].xen_blocked = vs[v].activity == UP_VCPU_BLOCKED;
			if (vs[v].activity == UP_VCPU_BUSY)
				vs[v].activity = UP_VCPU_WAITING;
		}
	}
	for (int i = 0; i < UNPAUSE_TRIES && urc < 0; i++)
		urc = target_end_pause(t, abandoned);
	/* After the unpause, not inside the window. */
	*resumed = mono_ns();
	*pause_ns = *resumed - t0;
	for (unsigned v = first; v <= last; v++)
		vs[v].stall_ns = *pause_ns;
	return urc;
}
