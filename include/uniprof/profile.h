/* A profile: sampled stacks (raw addresses, leaf first) interned with
 * counts, per vCPU; symbolized only when written out. */
#ifndef UNIPROF_PROFILE_H
#define UNIPROF_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "symbols.h"
#include "unwind.h"

#ifdef __cplusplus
extern "C" {
#endif

struct up_profile;

int up_profile_new(struct up_profile **out, unsigned nr_vcpus);
void up_profile_free(struct up_profile *p);

/* Count one sampled stack of a vCPU. frames[0] is the IP. */
int up_profile_add(struct up_profile *p, unsigned vcpu,
		   const uint64_t *frames, unsigned depth, enum up_trunc trunc);

/* The same, saying whether the vCPU was busy or blocked (idle), counted
 * count times (a sample that stands for several sampling periods). */
int up_profile_add_activity(struct up_profile *p, unsigned vcpu,
			    const uint64_t *frames, unsigned depth,
			    enum up_trunc trunc, enum up_vcpu_activity activity,
			    uint64_t count);

/* The same, taken t_ns after the profile's start (UP_PROFILE_NO_TIME: no
 * time): the profile keeps when each sample was taken too, for views of a
 * time range (up_profile_slice) and over time (the heat map). */
#define UP_PROFILE_NO_TIME UINT64_MAX
int up_profile_add_at(struct up_profile *p, unsigned vcpu,
		      const uint64_t *frames, unsigned depth,
		      enum up_trunc trunc, enum up_vcpu_activity activity,
		      uint64_t count, uint64_t t_ns);

/* The same for periods the sampler missed (dom0 short of CPU), counted
 * as the stack it sampled just before: kept apart from the samples taken,
 * so that writers can say which counts were credited (pprof: the label
 * credited=missed) and how many (up_profile_credited). */
int up_profile_add_credited(struct up_profile *p, unsigned vcpu,
			    const uint64_t *frames, unsigned depth,
			    enum up_trunc trunc, enum up_vcpu_activity activity,
			    uint64_t count, uint64_t t_ns);
/* Of up_profile_samples, those credited for missed periods. */
uint64_t up_profile_credited(const struct up_profile *p);

/* Bounds on the distinct stacks a profile keeps, by count and by the
 * memory they take (entry, frames, hash slots); 0 keeps a bound as it is.
 * Once either is reached a new stack is counted in its vCPU's dropped
 * stack (written as a frame named [dropped]); known stacks still count. */
#define UP_PROFILE_DEFAULT_MAX_STACKS ((size_t)1 << 20)
#define UP_PROFILE_DEFAULT_MAX_BYTES ((size_t)64 << 20)
#define UP_PROFILE_DROPPED_NAME "[dropped]"
void up_profile_set_limits(struct up_profile *p, size_t max_stacks,
			   size_t max_bytes);
size_t up_profile_max_stacks(const struct up_profile *p);
size_t up_profile_max_bytes(const struct up_profile *p);
/* Samples counted as dropped, all vCPUs. */
uint64_t up_profile_dropped(const struct up_profile *p);

/* CPU time of a vCPU that no sample saw, in samples' worth: what Xen's
 * run clock says it ran beyond what the samples found it busy (a guest
 * whose work comes in bursts shorter than dom0 takes to wake the
 * sampler). Written as a stack of one frame named [unseen], so the flame
 * graph and top list show the share they cannot attribute; not counted in
 * the samples, busy or blocked figures. */
#define UP_PROFILE_UNSEEN_NAME "[unseen]"
int up_profile_add_unseen(struct up_profile *p, unsigned vcpu, uint64_t n);
uint64_t up_profile_vcpu_unseen(const struct up_profile *p, unsigned vcpu);

/* Sample times are kept for at most this many records (a record: one
 * stack at one instant, 16 bytes: 64 MiB); past it samples still count, their
 * times are lost (up_profile_untimed). 0 keeps no times. */
#define UP_PROFILE_DEFAULT_MAX_TIMES ((size_t)1 << 22)
void up_profile_set_max_times(struct up_profile *p, size_t max_times);
bool up_profile_has_times(const struct up_profile *p);
/* Samples added with a time that the profile kept, and lost. */
uint64_t up_profile_timed(const struct up_profile *p);
uint64_t up_profile_untimed(const struct up_profile *p);
/* The latest sample time kept (ns since the start), 0 with none. */
uint64_t up_profile_time_end(const struct up_profile *p);

uint64_t up_profile_samples(const struct up_profile *p);  /* all vCPUs */
uint64_t up_profile_vcpu_samples(const struct up_profile *p, unsigned vcpu);
uint64_t up_profile_truncated(const struct up_profile *p);
/* Samples of a vCPU that found it blocked, and busy (the rest: unknown). */
uint64_t up_profile_vcpu_blocked(const struct up_profile *p, unsigned vcpu);
uint64_t up_profile_vcpu_busy(const struct up_profile *p, unsigned vcpu);
/* Samples that found the vCPU woken but not yet run (UP_VCPU_WAITING). */
uint64_t up_profile_vcpu_waiting(const struct up_profile *p, unsigned vcpu);
/* Stacks truncated for one reason. */
uint64_t up_profile_truncated_by(const struct up_profile *p, enum up_trunc why);
size_t up_profile_unique_stacks(const struct up_profile *p);
unsigned up_profile_nr_vcpus(const struct up_profile *p);

/* A stack record's id: a distinct stack's index, or one of these with a
 * vCPU's [dropped] (vCPU * 3 + activity) or [unseen] (vCPU) record. */
#define UP_STACK_ID_DROPPED (1ULL << 62)
#define UP_STACK_ID_UNSEEN (1ULL << 63)

/* One distinct raw stack and how often it was seen. */
struct up_stack_record {
	uint64_t id;
	unsigned vcpu;                   /* the vCPU it was seen on */
	const uint64_t *frames;          /* frames[0] is the IP */
	unsigned depth;
	enum up_trunc trunc;
	enum up_vcpu_activity activity;
	uint64_t count;
	bool unseen;                     /* depth 0: [unseen], else [dropped] */
};

/* The pseudo-frame a stack of depth 0 is written as. */
static inline const char *up_stack_record_pseudo(const struct up_stack_record *s)
{
	return s->unseen ? UP_PROFILE_UNSEEN_NAME : UP_PROFILE_DROPPED_NAME;
}

/* Visit every distinct raw stack, then each vCPU's dropped samples (per
 * activity) and its unseen CPU time, if any, as stacks of depth 0; a
 * non-zero return stops the walk. */
typedef int (*up_profile_visit_fn)(const struct up_stack_record *s, void *arg);
int up_profile_foreach(const struct up_profile *p, up_profile_visit_fn fn,
		       void *arg);

/* Forget the times of samples taken before before_ns (they still count):
 * a live view that slices only its latest interval keeps its timeline
 * short, and never meets the bound on times. */
void up_profile_forget_times(struct up_profile *p, uint64_t before_ns);

/* Visit the sample times kept, in the order taken: count samples of the
 * stack record id at t_ns. [unseen] CPU time has no time. */
typedef int (*up_profile_time_fn)(uint64_t t_ns, uint64_t id, uint64_t count,
				  void *arg);
int up_profile_foreach_time(const struct up_profile *p,
			    up_profile_time_fn fn, void *arg);
/* The same, saying which counts were credited for missed periods. */
struct up_time_record {
	uint64_t t_ns, id, count;
	bool credited;
};
typedef int (*up_profile_time_record_fn)(const struct up_time_record *r,
					 void *arg);
int up_profile_foreach_time_record(const struct up_profile *p,
				   up_profile_time_record_fn fn, void *arg);

/* A new profile of the samples taken in [from_ns, to_ns) (ns since the
 * start), with their times; samples without a time and [unseen] CPU time
 * are left out. */
int up_profile_slice(const struct up_profile *p, uint64_t from_ns,
		     uint64_t to_ns, struct up_profile **out);

struct up_output_opts {
	int vcpu;             /* -1: all vCPUs merged */
	bool with_offsets;    /* name+0xoff instead of name */
	bool vcpu_root;       /* prefix each stack with "vcpuN" */
	/* Stacks of blocked vCPUs: left out (on-CPU time only, as perf's
	 * cpu-clock), or kept under an "[idle]" root frame. */
	bool with_idle;
	/* Every stack as recorded (the folded file): [unseen] kept even with
	 * idle stacks. A view with idle stacks leaves [unseen] out: it shows
	 * samples as taken, and the unseen CPU time is already in the idle
	 * ones there (the on-CPU view shows it). */
	bool raw;
	/* With DWARF in the image: calls inlined into a function are frames
	 * of their own ("name (inlined)") unless no_inline; lines adds the
	 * leaf's " file:line". */
	bool no_inline;
	bool lines;
};

/* Folded stacks, root first, "a;b;c count\n", as flamegraph.pl reads them.
 * A truncated stack starts with "[truncated]", a blocked vCPU's (with_idle)
 * with "[idle]". symtab may be NULL. */
int up_profile_write_folded(const struct up_profile *p,
			    const struct up_symtab *symtab,
			    const struct up_output_opts *opts, FILE *out);

/* How many stacks up_profile_write_folded writes with these options (its
 * lines): stacks as named, address stacks that name alike counted once.
 * 0, or an error. */
int up_profile_folded_count(const struct up_profile *p,
			    const struct up_symtab *symtab,
			    const struct up_output_opts *opts, size_t *count);

/* An interactive flame graph (SVG with its own script: click to zoom,
 * search, tooltips), readable offline in any browser. */
int up_profile_write_svg(const struct up_profile *p,
			 const struct up_symtab *symtab,
			 const struct up_output_opts *opts, const char *title,
			 FILE *out);

/* A sub-second heat map of the sample times (one column a second, rows of
 * 20 ms), as one self-contained HTML page: selecting a range shows its
 * flame graph and top list (FILE#range=FROM-TO opens one). A profile
 * without times is an error. */
int up_profile_write_heatmap(const struct up_profile *p,
			     const struct up_symtab *symtab,
			     const struct up_output_opts *opts,
			     const char *title, const char *legend, FILE *out);

struct up_top_entry {
	char *name;
	uint64_t self;     /* samples with this function as leaf */
	uint64_t total;    /* samples with this function anywhere */
};

/* The functions by self count (then total, then name). *entries is
 * allocated; free with up_top_free. */
int up_profile_top(const struct up_profile *p, const struct up_symtab *symtab,
		   const struct up_output_opts *opts,
		   struct up_top_entry **entries, size_t *count);
void up_top_free(struct up_top_entry *entries, size_t count);

/* Samples the output options keep (vCPU and idle filters). */
uint64_t up_profile_kept_samples(const struct up_profile *p,
				 const struct up_output_opts *opts);

/* A table of the first n functions with self % and total % (of the
 * samples the options keep). */
int up_profile_write_top(const struct up_profile *p,
			 const struct up_symtab *symtab,
			 const struct up_output_opts *opts, size_t n,
			 FILE *out);

#ifdef __cplusplus
}
#endif
#endif
