/* Shared by the sampling loop (sampler.c) and its two ways of taking one
 * sample: the domain paused (sampler.c) or one vCPU at a time while the
 * others run (sampler/relaxed.c). */
#ifndef UP_SAMPLER_IMPL_H
#define UP_SAMPLER_IMPL_H

#include "mem/memory_log.h"
#include "uniprof/sampler.h"

enum vcpu_status {
	VCPU_STACK = 0,        /* a stack to count */
	VCPU_OFFLINE,
	VCPU_NO_REGS,          /* registers or walk failed */
};

struct vcpu_sample {
	struct up_stack stack;
	enum vcpu_status status;
	enum up_vcpu_activity activity;
	bool activity_failed;
	bool blocked_before;   /* blocked just before the pause began */
	/* Blocked by Xen's state as read in the sample (relaxed: the
	 * sample's verdict): what Xen's run-state accounting did with the
	 * time we held it paused, whatever the sample's instant was. */
	bool xen_blocked;
	/* The hypervisor's run clock of the vCPU at this sample, and at the
	 * previous one if that sample read it too (run_known_before). */
	uint64_t run_ns, run_ns_before;
	bool run_known_before;
	uint64_t stall_ns;     /* how long it stood still for this sample */
};

uint64_t sampler_now_ns(void);

/* One stack walk with the configured unwinder; frames counted by kind. */
int sampler_walk(struct up_mem *mem, const struct up_regs *regs,
		 const struct up_sampler_config *c,
		 const struct up_unwind_opts *uo, struct up_stack *st,
		 struct up_unwind_counts *counts);

/* A sample without a domain pause (see UP_CONSISTENCY_RELAXED): vCPUs
 * first..last one after another, log a preallocated word log. */
void sample_relaxed(struct up_target *t, struct up_mem *mem,
		    const struct up_sampler_config *c,
		    const struct up_unwind_opts *uo, unsigned first,
		    unsigned last, struct vcpu_sample *vs, struct mem_log *log,
		    struct up_sampler_stats *s);

#endif
