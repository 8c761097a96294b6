/* One sample with the domain paused: which vCPUs were blocked just
 * before, pause, read registers and walk every vCPU's stack into
 * preallocated buffers, unpause. The guest's stall is this function. */
#include "config.h"

#include "unwind/kernel_map.h"
#include "sampler/sampler_impl.h"
#include "target/target_impl.h"

#define UNPAUSE_TRIES 5

/* The paused window: nothing here allocates or symbolizes. */
int sample_paused(struct up_target *t, struct up_mem *mem,
		  const struct up_sampler_config *c,
		  const struct up_unwind_opts *uo, unsigned first,
		  unsigned last, struct vcpu_sample *vs,
		  uint64_t *pause_ns, uint64_t *stopped, uint64_t *resumed,
		  struct up_unwind_counts *counts, bool *abandoned)
{
	uint64_t t0;
	int rc, urc = -1;

	/* Just before the window, outside it: which vCPUs are blocked (see
	 * the at_block test below). */
	for (unsigned v = first; v <= last; v++) {
		enum up_vcpu_activity a = UP_VCPU_UNKNOWN;
		uint64_t run;
		bool online;

		vs[v].blocked_before = !c->no_activity &&
				       up_target_get_activity(t, v, &a, &online, &run) == 0 &&
				       a == UP_VCPU_BLOCKED;
	}
	t0 = sampler_now_ns();
	rc = up_target_pause(t);
	if (rc < 0)
		return rc;
	*stopped = sampler_now_ns();
	up_mem_new_sample(mem);
	for (unsigned v = first; v <= last; v++) {
		struct up_regs regs;
		bool online = true;

		/* Blocked or busy: Xen keeps the state across the pause. */
		vs[v].activity = UP_VCPU_UNKNOWN;
		vs[v].activity_failed = false;
		vs[v].run_ns = UP_RUN_NS_UNKNOWN;
		if (!c->no_activity &&
		    up_target_get_activity(t, v, &vs[v].activity, &online,
					   &vs[v].run_ns) < 0)
			vs[v].activity_failed = true;
		if (!online) {
			vs[v].status = VCPU_OFFLINE;
			continue;
		}
		if (up_target_get_regs(t, v, &regs) < 0)
			vs[v].status = VCPU_NO_REGS;
		else if (!regs.online && (c->no_activity || vs[v].activity_failed))
			vs[v].status = VCPU_OFFLINE;
		else
			vs[v].status = sampler_walk(mem, &regs, c, uo,
						    &vs[v].stack, counts) < 0 ?
				       VCPU_NO_REGS : VCPU_STACK;
		/* Blocked just before the pause and stopped, after it, just
		 * after blocking's trap: it has not run since, so it was
		 * blocked at the pause's instant, whatever Xen says now of a
		 * vCPU an event woke during the pause (a backend in dom0
		 * completing a request meanwhile). One woken before the pause
		 * and not run yet was waiting for a CPU: busy, as Xen says. */
		vs[v].xen_blocked = vs[v].activity == UP_VCPU_BLOCKED;
		if (!c->no_activity && !vs[v].activity_failed &&
		    vs[v].blocked_before && vs[v].status == VCPU_STACK &&
		    kernel_at_block(mem, &regs, uo->kernel, uo->domain_type))
			vs[v].activity = UP_VCPU_BLOCKED;
	}
	for (int i = 0; i < UNPAUSE_TRIES && urc < 0; i++)
		urc = target_end_pause(t, abandoned);
	/* After the unpause, not inside the window. */
	*resumed = sampler_now_ns();
	*pause_ns = *resumed - t0;
	for (unsigned v = first; v <= last; v++)
		vs[v].stall_ns = *pause_ns;
	return urc;
}

