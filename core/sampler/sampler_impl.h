/* Shared by the sampling loop (sampler.c) and what it calls: its two
 * peer ways of taking one sample, the domain paused (paused.c) or one vCPU
 * at a time while the others run (relaxed.c), both walking stacks through
 * walk.c; when (pacing.c), and how often the stall budget allows
 * (stall_budget.c); its settings (config.c); what it records (stats.c).
 * Nothing here calls back into sampler.c. */
#ifndef UP_SAMPLER_IMPL_H
#define UP_SAMPLER_IMPL_H

#include "mem/memory_log.h"
#include "uniprof/sampler.h"
#include "mem/memory.h"

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
	/* Its registers were at a block point (paused samples: the next
	 * sample asks Xen before its pause whether it is blocked). */
	bool at_block;
	/* Seen blocked elsewhere than at a block point: its registers cannot
	 * say it is not blocked, so every paused sample asks Xen. */
	bool ask_xen;
	/* How often the registers it blocked with were found at a block
	 * point, and when last (check_block_point). */
	unsigned block_checks;
	uint64_t block_checked_at;
	/* Blocked by Xen's state as read in the sample (relaxed: the
	 * sample's verdict): what Xen's run-state accounting did with the
	 * time we held it paused, whatever the sample's instant was. */
	bool xen_blocked;
	/* The hypervisor's run clock of the vCPU as last read, and as read
	 * the time before (run_known_before), when (run_at_before) and how
	 * long we had held the domain paused by then (paused_before). */
	uint64_t run_ns, run_ns_before, run_at_before, paused_before;
	bool run_known_before;
	uint64_t stall_ns;     /* how long it stood still for this sample */
};

/* 0, or fails with the setting that is out of range. */
int sampler_check_config(const struct up_target *t,
			 const struct up_sampler_config *c);

struct pacing {
	uint64_t period, deadline, end, rng;
	uint64_t busy_from, busy_to;  /* the last sample's window */
	bool poisson;             /* Poisson instants */
	bool jitter;              /* else: at random in each period, or on it */
};

/* random: Poisson instants up to 1 kHz, above it one at random in each
 * period; else exactly one period apart. */
void pacing_start(struct pacing *pc, double hz, double duration_s,
		  bool random, uint64_t now);
/* The next instant; returns how many had already passed by now and are
 * missed (the sampler woke late), skipping them, and those inside the
 * last sample (pacing_sampled) uncounted. */
uint64_t pacing_advance(struct pacing *pc, uint64_t now);
/* The last sample held the guest from started to ended (its pause; a
 * relaxed one, its reads). */
void pacing_sampled(struct pacing *pc, uint64_t started, uint64_t ended);
/* The instant to sample at: never past the end. */
uint64_t pacing_instant(struct pacing *pc);
/* From the next instant on, instants period ns apart on average (the
 * stall budget's lowered rate, or the rate asked again). */
void pacing_set_period(struct pacing *pc, uint64_t period);
/* Sleep until an absolute instant; a signal that sets *stop ends it. */
void pacing_sleep_until(uint64_t deadline, volatile sig_atomic_t *stop);

/* The stall budget's windows (see up_sampler_config.max_stall_pct). */
struct stall_budget {
	double max_pct;           /* the budget, %; outside (0, 100): none */
	unsigned k;               /* the period asked is multiplied by k */
	uint64_t from;            /* the window's start */
	uint64_t stall;           /* the time the guest stood still in it */
	unsigned samples;         /* the samples taken in it */
	bool first;               /* the first window (a shorter one) */
};

/* Whether max_pct is a budget at all (0 < max_pct < 100). */
bool stall_budget_on(double max_pct);
/* The rule, on one window: the factor k' to sample at from now on,
 * given the factor k the window was sampled at, the time the guest stood
 * still in it and its wall time. Past the budget, the smallest k' > k
 * expected under 0.8 of it; under half of it, the smallest k' <= k
 * expected under 0.8 of it (never below 1); else k. A zero-length window
 * keeps k; no budget gives 1; k' is at most UP_SAMPLER_MAX_STALL_FACTOR. */
unsigned stall_budget_factor(unsigned k, uint64_t stall_ns, uint64_t wall_ns,
			     double max_pct);
/* Start the windows at now, at factor k (clamped; 1 without a budget). */
void stall_budget_start(struct stall_budget *b, double max_pct, unsigned k,
			uint64_t now);
/* One sample held the guest still for stall_ns (its pause, kept or
 * abandoned); now is after it. Returns the factor from now on (after the
 * first window, at most 4 times the last one a window); when a window
 * closed, *window_pct is the share it stood still. */
unsigned stall_budget_add(struct stall_budget *b, uint64_t stall_ns,
			  uint64_t now, double *window_pct);

/* One stack walk with the configured unwinder; frames counted by kind. */
int sampler_walk(struct up_mem *mem, const struct up_regs *regs,
		 const struct up_sampler_config *c,
		 const struct up_unwind_opts *uo, struct up_stack *st,
		 struct up_unwind_counts *counts);

/* A sample with the domain paused, vCPUs first..last. clocks: their run
 * clocks are read after it (the target may fold that into the unpause).
 * *abandoned: the crash guard ended this pause (it outlived its limit);
 * the stacks were read from a running domain and must be dropped. */
int sample_paused(struct up_target *t, struct up_mem *mem,
		  const struct up_sampler_config *c,
		  const struct up_unwind_opts *uo, unsigned first,
		  unsigned last, struct vcpu_sample *vs, bool clocks,
		  uint64_t *pause_ns, uint64_t *stopped, uint64_t *resumed,
		  struct up_unwind_counts *counts, bool *abandoned);

/* A sample without a domain pause (see UP_CONSISTENCY_RELAXED): vCPUs
 * first..last one after another, log a preallocated word log. */
void sample_relaxed(struct up_target *t, struct up_mem *mem,
		    const struct up_sampler_config *c,
		    const struct up_unwind_opts *uo, unsigned first,
		    unsigned last, struct vcpu_sample *vs, struct mem_log *log,
		    struct up_sampler_stats *s);

/* One kept sample's pause and how late the sampler woke for it, into
 * arrays grown with *cap and *late_cap. */
int stats_record_pause(struct up_sampler_stats *s, uint64_t ns,
		       uint64_t late_ns, size_t *cap, size_t *late_cap);
/* The run time Xen accounted each vCPU since its clock was last read, and
 * the time the domain was not paused by us meanwhile: clocks read at `at`,
 * when we had held it paused paused_total in all. */
void stats_account_run(struct up_sampler_stats *s, struct vcpu_sample *vs,
		       unsigned first, unsigned last, uint64_t at,
		       uint64_t paused_total);

#endif
