/* One sample without pausing the domain. Per vCPU: its run clock, its
 * registers (Xen pauses that vCPU alone for the copy), the stack walk over
 * cached mappings while it runs again, its run clock once more, and the
 * words the walk read, read again. The registers are of one instant and
 * the stack words of a slightly later one: what that can and cannot do is
 * in the man page (CONSISTENCY). Nothing here allocates. */
#include "config.h"

#include "util/clock.h"
#include "unwind/kernel_map.h"
#include "sampler/sampler_impl.h"
#include "target/target_impl.h"
#include "mem/memory.h"

/* Read every logged word again: MEM_LOG_SAME if all are unchanged,
 * MEM_LOG_CHANGED if one changed or could no longer be read,
 * MEM_LOG_UNKNOWN if the walk read more words than the log holds. A word
 * that went from one return address to another in the same function of
 * kernel (when given) is unchanged at function granularity: the function
 * returned into, or the caller made another call, from the same frame.
 * Relaxed consistency's rule, over mem/'s log: here, so that mem/ need
 * not ask unwind/'s kernel map. */
enum { MEM_LOG_SAME = 0, MEM_LOG_CHANGED, MEM_LOG_UNKNOWN };
static int mem_log_changed(struct up_mem *m, const struct up_regs *regs,
			   const struct mem_log *log,
			   const struct up_kernel_map *kernel)
{
	if (log->overflow)
		return MEM_LOG_UNKNOWN;
	for (size_t i = 0; i < log->n; i++) {
		uint64_t v;

		if (up_mem_read_u64(m, regs, log->e[i].va, &v) < 0)
			return MEM_LOG_CHANGED;
		if (v != log->e[i].val &&
		    !up_kernel_map_same_function(kernel, v, log->e[i].val))
			return MEM_LOG_CHANGED;
	}
	return MEM_LOG_SAME;
}

/* Read one vCPU's registers and walk its stack, timing the read (*read_ns):
 * the only time the vCPU stands still. */
static int read_and_walk(struct up_target *t, struct up_mem *mem,
			 const struct up_sampler_config *c,
			 const struct up_unwind_opts *uo, unsigned v,
			 struct vcpu_sample *vs, struct up_regs *regs,
			 struct mem_log *log, struct up_unwind_counts *counts,
			 uint64_t *read_ns)
{
	uint64_t t0 = mono_ns();
	int rc = up_target_get_regs(t, v, regs);

	*read_ns = mono_ns() - t0;
	if (rc < 0)
		return VCPU_NO_REGS;
	if (!regs->online && (c->no_activity || vs->activity_failed))
		return VCPU_OFFLINE;
	/* The guest may remap while it runs: no translation is kept from
	 * one walk to the next. */
	up_mem_new_sample(mem);
	*counts = (struct up_unwind_counts){ 0 };
	mem_log_start(mem, log);
	rc = sampler_walk(mem, regs, c, uo, &vs->stack, counts);
	mem_log_stop(mem);
	return rc < 0 ? VCPU_NO_REGS : VCPU_STACK;
}

/* How long one attempt stood the vCPU still: the register read's wall
 * time, an upper bound as Xen pauses the vCPU only inside it; less, when
 * its run clock was read on both sides, whatever it ran in the window
 * between those reads. On a CPU it shares with dom0 the read's wall time
 * can hold a time slice in which the vCPU ran and dom0 waited; counting
 * that as a stall is what made relaxed look worse than paused. */
static uint64_t attempt_stall(uint64_t read_ns, uint64_t window_ns,
			      uint64_t run_before, uint64_t run_after)
{
	uint64_t ran, bound;

	if (run_before == UP_RUN_NS_UNKNOWN ||
	    run_after == UP_RUN_NS_UNKNOWN || run_after < run_before)
		return read_ns;
	ran = run_after - run_before;
	bound = window_ns > ran ? window_ns - ran : 0;
	return bound < read_ns ? bound : read_ns;
}

static void add_counts(struct up_unwind_counts *to,
		       const struct up_unwind_counts *c)
{
	to->cfi += c->cfi;
	to->fp += c->fp;
	to->unsupported += c->unsupported;
	to->libunwind += c->libunwind;
	to->hypercall += c->hypercall;
}

/* Truncations a stack moving under the walk can cause; the others (depth,
 * missing unwind information, a hypercall stub) come out the same on a
 * second walk, which would only cost the vCPU another stall. */
static bool racy_trunc(enum up_trunc t)
{
	switch (t) {
	case UP_TRUNC_LOOP: case UP_TRUNC_BOUNDS: case UP_TRUNC_ALIGN:
	case UP_TRUNC_UNREADABLE: case UP_TRUNC_BAD_CFA:
	case UP_TRUNC_OUTSIDE_TEXT:
		return true;
	default:
		return false;
	}
}

/* Registers read at a block point: whether the vCPU has left it since
 * (its registers read again, that read's stall counted). */
static bool left_block(struct up_target *t, struct up_mem *mem,
		       const struct up_unwind_opts *uo, unsigned v,
		       const struct up_regs *regs, struct vcpu_sample *vs)
{
	struct up_regs again;
	uint64_t t0;
	int rc;

	if (!kernel_at_block(mem, regs, uo->kernel, uo->domain_type))
		return false;
	t0 = mono_ns();
	rc = up_target_get_regs(t, v, &again);
	vs->stall_ns += mono_ns() - t0;
	return rc < 0 || again.ip != regs->ip || again.sp != regs->sp;
}

static void one_vcpu(struct up_target *t, struct up_mem *mem,
		     const struct up_sampler_config *c,
		     const struct up_unwind_opts *uo, unsigned v,
		     struct vcpu_sample *vs, struct mem_log *log,
		     struct up_sampler_stats *s)
{
	enum up_vcpu_activity before = UP_VCPU_UNKNOWN, after;
	struct up_unwind_counts counts;
	struct up_regs regs;
	bool online = true, online_after, still = false, after_ok = false;
	bool ask = !c->no_activity;

	vs->stall_ns = 0;
	for (int attempt = 0;; attempt++) {
		uint64_t run_after = UP_RUN_NS_UNKNOWN, read_ns, t0;
		int moved;

		vs->activity_failed = false;
		vs->run_ns = UP_RUN_NS_UNKNOWN;
		t0 = mono_ns();
		if (ask && up_target_get_activity(t, v, &before, &online,
						  &vs->run_ns) < 0)
			vs->activity_failed = true;
		if (!online) {
			vs->status = VCPU_OFFLINE;
			return;
		}
		vs->status = read_and_walk(t, mem, c, uo, v, vs, &regs, log,
					   &counts, &read_ns);
		if (vs->status != VCPU_STACK) {
			vs->stall_ns += read_ns;
			return;
		}
		/* Its run clock did not move: it ran no instruction between
		 * the two reads, so registers and stack are of one instant. */
		after = UP_VCPU_UNKNOWN;
		after_ok = ask && !vs->activity_failed &&
			   up_target_get_activity(t, v, &after, &online_after,
						  &run_after) == 0;
		vs->stall_ns += attempt_stall(read_ns, mono_ns() - t0,
					      vs->run_ns,
					      after_ok ? run_after :
							 UP_RUN_NS_UNKNOWN);
		still = after_ok && vs->run_ns != UP_RUN_NS_UNKNOWN &&
			run_after == vs->run_ns;
		if (still) {
			s->relaxed_still++;
			break;
		}
		moved = mem_log_changed(mem, &regs, log, uo->kernel);
		/* Busy at the register read, blocked after the walk (or the
		 * other way): it left the frames the registers describe, and
		 * a blocked stack holds still under the check, so a walk that
		 * mixed the two would pass for verified. Not so of registers
		 * at the block point: they describe the blocked stack, which
		 * the check covers if it resumed; walked again, the sample
		 * would date from later, and a short burst ending in a block
		 * would be counted blocked (on the production-shaped host,
		 * 19 % waiting against the guest's own 54 %). */
		if (after_ok && before != after &&
		    !kernel_at_block(mem, &regs, uo->kernel, uo->domain_type))
			moved = MEM_LOG_CHANGED;
		if (moved == MEM_LOG_UNKNOWN) {
			s->relaxed_unverified++;
			break;
		}
		/* A word that changed, or a walk cut short the way a moving
		 * stack cuts it: walk once more. */
		if (moved == MEM_LOG_SAME && !racy_trunc(vs->stack.trunc)) {
			s->relaxed_stable++;
			break;
		}
		if (attempt == 0) {
			s->relaxed_retried++;
			continue;
		}
		if (moved == MEM_LOG_CHANGED) {
			/* Moved twice: the callers are not known, the IP
			 * is (it is of the instant of the register copy). */
			vs->stack.depth = 1;
			vs->stack.trunc = UP_TRUNC_RACED;
			s->relaxed_dropped++;
			counts = (struct up_unwind_counts){ 0 };
			break;
		}
		/* Cut short twice over unchanged words: truly truncated. */
		s->relaxed_stable++;
		break;
	}
	/* It ran between its register copy and the walk: the check sees
	 * what changed during the walk, not before it, so a stale word can
	 * pass for a caller. A stack that ends whole ends on a return
	 * address a call left, or only its IP is kept. Registers at a block
	 * point are kept whole only if the vCPU is still there, at the same
	 * stack pointer: one that woke, ran and left its block before the
	 * walk had its blocked frames overwritten by the calls it made, and
	 * the walk read those (the I/O guest's "tg_req_handle;tg_block;
	 * running_now" under a sched_op stub, 0.1 % of its relaxed stacks,
	 * written whole). */
	if (!still && vs->stack.trunc == UP_TRUNC_NONE && vs->stack.depth >= 2 &&
	    (!kernel_after_call(mem, &regs, uo->kernel,
				vs->stack.frames[vs->stack.depth - 1]) ||
	     left_block(t, mem, uo, v, &regs, vs))) {
		vs->stack.depth = 1;
		vs->stack.trunc = UP_TRUNC_RACED;
		s->relaxed_dropped++;
		counts = (struct up_unwind_counts){ 0 };
	}
	add_counts(&s->frames, &counts);
	if (!ask || vs->activity_failed || !after_ok)
		vs->activity = UP_VCPU_UNKNOWN;
	else if (before == UP_VCPU_BLOCKED &&
		 (still || after == UP_VCPU_BLOCKED ||
		  kernel_at_block(mem, &regs, uo->kernel, uo->domain_type)))
		vs->activity = UP_VCPU_BLOCKED;   /* as of the first read */
	else if (kernel_at_block(mem, &regs, uo->kernel, uo->domain_type))
		/* Not blocked, its registers where it blocked: woken and
		 * not back in its own code (waiting for its pCPU, or Xen
		 * resuming it), as sample_paused says. */
		vs->activity = UP_VCPU_WAITING;
	else
		vs->activity = UP_VCPU_BUSY;
	vs->xen_blocked = vs->activity == UP_VCPU_BLOCKED;
}

void sample_relaxed(struct up_target *t, struct up_mem *mem,
		    const struct up_sampler_config *c,
		    const struct up_unwind_opts *uo, unsigned first,
		    unsigned last, struct vcpu_sample *vs, struct mem_log *log,
		    struct up_sampler_stats *s)
{
	for (unsigned v = first; v <= last; v++)
		one_vcpu(t, mem, c, uo, v, &vs[v], log, s);
}
