/* The sampling loop: paced by absolute deadlines, only register reads and
 * stack walks happen while the domain is paused, everything else after.
 * Each sample falls at a random point of its period (the rate is kept):
 * a fixed grid can lock step with periodic work in the guest and bias the
 * profile, whatever the frequency. */
#ifndef UNIPROF_SAMPLER_H
#define UNIPROF_SAMPLER_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include "profile.h"
#include "target.h"

#ifdef __cplusplus
extern "C" {
#endif

#define UP_SAMPLER_DEFAULT_HZ 97.0
#define UP_SAMPLER_MAX_HZ 100000.0
/* The stall budget: the share of its time (%) a domain may stand still
 * for samples, measured as the run goes (see up_sampler_config). */
#define UP_SAMPLER_DEFAULT_MAX_STALL_PCT 5.0
#define UP_SAMPLER_NO_STALL_BUDGET 100.0
/* The most the rate is ever divided by for the budget. */
#define UP_SAMPLER_MAX_STALL_FACTOR 1000u

enum up_unwinder {
	UP_UNWINDER_FP = 0,       /* frame pointers */
	UP_UNWINDER_CFI,          /* precompiled CFI table only */
	UP_UNWINDER_AUTO,         /* CFI where the image has it, FP elsewhere */
	UP_UNWINDER_LIBUNWIND,    /* stock libunwind, remote */
};

const char *up_unwinder_name(enum up_unwinder u);

/* How a sample is taken. PAUSED: the whole domain is paused, every vCPU's
 * registers read and its stack walked, then unpaused: each sample is one
 * instant of the guest. RELAXED: no domain pause; one vCPU after another,
 * its registers are read (Xen pauses that vCPU alone, inside the read)
 * and its stack walked while it runs again. Every stack word the walk
 * read is read again after it: a word that changed (or a walk cut short
 * the way a moving stack cuts it) is walked once more, and if it moves
 * again only its IP is kept (truncated, UP_TRUNC_RACED). A vCPU whose run
 * clock did not move across the read and the walk (blocked, or waiting
 * for a CPU) gives an exact stack. */
enum up_consistency {
	UP_CONSISTENCY_PAUSED = 0,
	UP_CONSISTENCY_RELAXED,
};

const char *up_consistency_name(enum up_consistency c);

/* How deep and how far a walk may go, and what it checks addresses
 * against. Held by value in up_sampler_config, whose version covers it. */
#define UP_UNWIND_DEFAULT_MAX_DEPTH 128
#define UP_UNWIND_MAX_DEPTH_LIMIT 4096
#define UP_UNWIND_DEFAULT_MAX_STACK (8u << 20)

/* Built before sampling (uniprof/sys/unwind.h, uniprof/sys/kernel.h);
 * the sampler only borrows them. */
struct up_cfi_table;
struct up_libunwind;
struct up_kernel_map;

struct up_unwind_opts {
	unsigned max_depth;        /* frames incl. IP; 0: default */
	uint64_t max_stack_bytes;  /* FP must stay within [sp, sp+this) */
	/* CFI walks: a frame whose rule the table cannot express is unwound
	 * by libunwind over this image instead (NULL: the frame pointer in
	 * -u auto, a truncated stack in -u cfi). */
	const struct up_libunwind *cfi_fallback;
	/* The kernel's code (uniprof/sys/kernel.h): return addresses
	 * outside it end a walk, its outermost functions end it whole, its
	 * hypercall page is stepped through. NULL: none of that. */
	const struct up_kernel_map *kernel;
	/* Which hypercall stubs the hypercall page holds: PV or HVM/PVH. */
	enum up_domain_type domain_type;
};

struct up_sampler_stats;

/* The configuration's layout: a caller compiled against another layout is
 * refused (UP_EINVAL) rather than misread. Set it up with
 * up_sampler_config_init(c, UP_SAMPLER_CONFIG_VERSION) or
 * UP_SAMPLER_CONFIG_INIT, then change what differs from the defaults. */
#define UP_SAMPLER_CONFIG_VERSION 1

struct up_sampler_config {
	unsigned int version;    /* UP_SAMPLER_CONFIG_VERSION */
	double hz;               /* samples per second; 0: default */
	double duration_s;       /* 0: until *stop or the domain ends */
	int vcpu;                /* -1: all vCPUs */
	struct up_unwind_opts unwind;
	size_t cache_frames;     /* 0: default */
	uint64_t max_samples;    /* 0: unlimited */
	enum up_unwinder unwinder;
	const struct up_cfi_table *cfi;   /* for CFI and AUTO */
	const struct up_libunwind *libunwind;   /* for LIBUNWIND */
	bool no_jitter;          /* on the period grid (default: Poisson instants) */
	/* Do not ask Xen whether each vCPU is blocked (one hypercall less
	 * per vCPU and sample; every stack then counts as unknown, on-CPU). */
	bool no_activity;
	/* Periods the sampler was late for are dropped (counted as missed)
	 * instead of counted as the last sample again. */
	bool drop_late;
	/* Sample a domain that has shut down or crashed but is kept: its
	 * stopped vCPUs' stacks (a crash dump with --once). */
	bool stopped_ok;
	/* Longest the domain may stay paused for one sample; 0: the default
	 * (UP_SAMPLER_DEFAULT_MAX_PAUSE_NS). With the crash guard installed,
	 * the guard unpauses a pause that outlives it, even if we are stuck,
	 * and that sample is abandoned. */
	uint64_t max_pause_ns;
	enum up_consistency consistency;
	/* Called once, between two samples (never while the domain is
	 * paused), when early_ns of sampling have passed: the profile and
	 * figures so far, for a caller to warn early of what it will say at
	 * the end (a guest whose CPU time the samples cannot see). */
	void (*early)(const struct up_profile *p,
		      const struct up_sampler_stats *s, void *arg);
	void *early_arg;
	uint64_t early_ns;
	/* Called after every sample kept, between samples (never while the
	 * domain is paused): a live view (xl profile top) reads the profile
	 * so far and may set *stop. Its time is the sampler's: keep it
	 * short. */
	void (*each)(const struct up_profile *p,
		     const struct up_sampler_stats *s, void *arg);
	void *each_arg;
	/* The stall budget: the share of its time, in %, the domain may
	 * stand still for samples (paused: the domain pause; relaxed: the
	 * longest any vCPU stood still per sample). 0: the default,
	 * UP_SAMPLER_DEFAULT_MAX_STALL_PCT; UP_SAMPLER_NO_STALL_BUDGET
	 * (100): none, the rate asked whatever it costs; anything else
	 * outside (0, 100] is refused. It is measured over windows of the
	 * run (the first ends after 20 samples and 250 ms, the next each
	 * second, one sooner once it has stood still the budget's share of
	 * a whole window); past the budget the sampler lowers its rate to
	 * hz / k for a whole k (2, 3, ...; at most
	 * UP_SAMPLER_MAX_STALL_FACTOR) chosen to bring the share under
	 * 0.8 of the budget, and counts each sample k times, as it stands
	 * for k periods of the rate asked: shares stay unbiased, and the
	 * extra counts are in stats.budget_periods. It raises the rate
	 * again (k smaller, never above the rate asked) after a window
	 * under half the budget. */
	double max_stall_pct;
	/* The k to start with (0 or 1: the rate asked): uniprofd starts a
	 * domain's profile where its last one ended. */
	unsigned stall_factor_start;
	/* Called between samples (never while the domain is paused) each
	 * time the budget changed k: stats.stall_factor, hz_now and
	 * window_stall_pct say to what and why. */
	void (*rate_changed)(const struct up_sampler_stats *s, void *arg);
	void *rate_changed_arg;
};

#define UP_SAMPLER_DEFAULT_MAX_PAUSE_NS (50ull * 1000 * 1000)

/* The defaults, as up_sampler_config_init sets them. */
#define UP_SAMPLER_CONFIG_INIT { .version = UP_SAMPLER_CONFIG_VERSION, \
	.hz = UP_SAMPLER_DEFAULT_HZ, .vcpu = -1, \
	.unwind = { .max_depth = UP_UNWIND_DEFAULT_MAX_DEPTH, \
		    .max_stack_bytes = UP_UNWIND_DEFAULT_MAX_STACK } }

enum up_stop_reason {
	UP_STOP_DURATION = 0,
	UP_STOP_REQUESTED,       /* *stop became non-zero (signal) */
	UP_STOP_SHUTDOWN,        /* the guest shut down or crashed */
	UP_STOP_GONE,            /* the domain was destroyed */
	UP_STOP_MAX_SAMPLES,
	UP_STOP_ERROR,
};

const char *up_stop_reason_name(enum up_stop_reason r);

/* Guest frames the sampler mapped and found mapped already. */
struct up_mem_stats {
	uint64_t maps;        /* frames mapped (cache misses) */
	uint64_t hits;        /* cache hits */
	uint64_t evictions;
	uint64_t map_failures;
};

/* How the frames of the walks were found. */
struct up_unwind_counts {
	uint64_t cfi;           /* frames unwound with the CFI table */
	uint64_t fp;            /* frames unwound with the frame pointer */
	uint64_t unsupported;   /* frames whose CFI rule the table lacks */
	uint64_t libunwind;     /* frames unwound by libunwind */
	uint64_t hypercall;     /* frames out of a hypercall stub */
};

struct up_sampler_stats {
	uint64_t samples;          /* pauses that produced stacks */
	uint64_t missed_deadlines; /* deadlines skipped, not burst */
	/* Periods the sampler was too late for, counted as the last sample
	 * again (at most 32 in a row). */
	uint64_t covered_periods;
	uint64_t offline_vcpus;    /* vCPU samples skipped: offline */
	uint64_t reg_failures;     /* vCPU samples skipped: no registers */
	uint64_t activity_failures; /* vCPU samples whose state Xen did not give */
	/* Pauses the crash guard had to end (they outlived max_pause_ns):
	 * their stacks were dropped, not counted in samples. */
	uint64_t abandoned_samples;
	/* Relaxed consistency, per vCPU and sample: the vCPU did not run
	 * across its read and walk (exact); it ran but every stack word read
	 * was unchanged after the walk; a word changed or the walk was cut
	 * short, so it was walked again; it changed again: dropped. */
	uint64_t relaxed_still, relaxed_stable, relaxed_retried,
		 relaxed_dropped;
	/* Relaxed: stacks kept unchecked, as their walk read more words
	 * than the check keeps (a libunwind fallback on a deep stack). */
	uint64_t relaxed_unverified;
	/* Per sample, the longest any vCPU stood still for it: the domain
	 * pause (paused), or one vCPU's register reads (relaxed). */
	uint64_t *pause_ns;
	/* Per sample, how late the sampler woke (after its jittered time):
	 * a dom0 short of CPU shows here first. */
	uint64_t *wake_late_ns;
	size_t nr_pause;
	/* Per vCPU (max_vcpus entries): time it stood paused by us, in all
	 * and while blocked by Xen's state in the pause (relaxed: its register
	 * reads, less what its run clock says it ran around them; an upper
	 * bound, as Xen pauses it only inside them). Xen's run-state
	 * accounting counts a blocked vCPU's paused time as blocked, a busy
	 * one's (or one an event woke in the pause) as neither. */
	uint64_t *vcpu_paused_ns, *vcpu_paused_blocked_ns;
	/* Per vCPU, summed over consecutive samples that both read its run
	 * clock: the time it ran by the hypervisor's accounting, and the
	 * time the domain was not paused by us. Their ratio is its busy
	 * share whenever the sampler got to run (up_sampler_running_pct). */
	uint64_t *vcpu_run_ns, *vcpu_unpaused_ns;
	unsigned nr_vcpus;
	double elapsed_s;
	/* When sampling began, wall clock (ns since 1970): the profile's
	 * sample times count from it. */
	int64_t start_unix_ns;
	struct up_mem_stats mem;   /* frame mappings made and reused */
	struct up_unwind_counts frames;   /* how frames were unwound */
	/* The stall budget as applied (UP_SAMPLER_NO_STALL_BUDGET: none)
	 * and the rate asked. The sampler samples at hz_now = hz_asked /
	 * stall_factor, each sample (and each late period it stands for)
	 * counting stall_factor times; hz_lowest = hz_asked /
	 * stall_factor_max. */
	double max_stall_pct, hz_asked, hz_now, hz_lowest;
	unsigned stall_factor, stall_factor_max;
	/* When the budget first lowered the rate, in seconds from the start
	 * (-1: never); how many times it changed it; the share (%) the
	 * domain stood still in the window that changed it last. */
	double lowered_at_s;
	unsigned rate_changes;
	double window_stall_pct;
	/* Periods of the rate asked a sample at a lowered rate stood for
	 * beyond its own (the profile counts samples + covered_periods +
	 * budget_periods per vCPU): samples is what statistics rest on. */
	uint64_t budget_periods;
	/* What a share's sampling error rests on: the samples, as many as
	 * samples when all count alike; with weights k_i that changed,
	 * (sum k_i)^2 / sum k_i^2 (Kish's effective sample size). */
	double effective_samples;
	enum up_stop_reason stop;
	char error[256];           /* message when stop == UP_STOP_ERROR */
};

/* The defaults for a configuration of this version (the caller's
 * UP_SAMPLER_CONFIG_VERSION); UP_EINVAL for a version this library does
 * not know. */
int up_sampler_config_init(struct up_sampler_config *c, unsigned int version);

/* Sample t into p until the duration, *stop, the domain's end, or an
 * error. Whatever was collected stays in p and stats, whatever the reason.
 * Returns 0 unless the arguments are invalid (a configuration of an
 * unknown version among them). */
int up_sample(struct up_target *t, const struct up_sampler_config *c,
	      struct up_profile *p, volatile sig_atomic_t *stop,
	      struct up_sampler_stats *stats);

void up_sampler_stats_release(struct up_sampler_stats *s);

/* The share (0..100) of the time a vCPU ran, by the hypervisor's
 * accounting, while the domain was not paused by us; -1 if unknown. */
double up_sampler_running_pct(const struct up_sampler_stats *s, unsigned vcpu);

/* The share (0..100) of the run a vCPU stood still for our samples. */
double up_sampler_stall_pct(const struct up_sampler_stats *s, unsigned vcpu);

/* Mean of the per-sample pause times, in ns (0 if none). */
double up_sampler_pause_mean(const struct up_sampler_stats *s);

/* Percentile (0..100) of the pause times, in ns (nearest rank). */
uint64_t up_sampler_pause_percentile(const struct up_sampler_stats *s,
				     double pct);
/* Likewise, of how late the sampler woke for each sample. */
uint64_t up_sampler_wake_late_percentile(const struct up_sampler_stats *s,
					 double pct);

#ifdef __cplusplus
}
#endif
#endif
