/* A profile: sampled stacks (raw addresses, leaf first) interned with
 * counts, per vCPU; symbolized only when written out. */
#ifndef UNIPROF_PROFILE_H
#define UNIPROF_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "symbols.h"
#include "target.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Why a stack stops short (UP_TRUNC_NONE: it is whole); new reasons come
 * before UP_TRUNC_UNRECORDED. */
enum up_trunc {
	UP_TRUNC_NONE = 0,     /* complete: the chain ended on a zero link */
	UP_TRUNC_DEPTH,        /* depth limit reached */
	UP_TRUNC_LOOP,         /* frame pointer did not strictly increase */
	UP_TRUNC_BOUNDS,       /* frame pointer left the stack bounds */
	UP_TRUNC_ALIGN,        /* misaligned frame pointer */
	UP_TRUNC_UNREADABLE,   /* stack memory not mapped */
	UP_TRUNC_NO_REGS,      /* registers unavailable */
	UP_TRUNC_NO_UNWIND_INFO, /* no CFI for an address (-u cfi) */
	UP_TRUNC_UNSUPPORTED,  /* CFI rule the table cannot express */
	UP_TRUNC_BAD_CFA,      /* CFI gave a CFA that does not go up */
	UP_TRUNC_OUTSIDE_TEXT, /* a return address outside the kernel's code */
	UP_TRUNC_HYPERCALL_STUB, /* in a hypercall stub where it cannot return */
	UP_TRUNC_BUDGET,       /* the unwinder ran out of steps (hostile CFI) */
	UP_TRUNC_RACED,        /* relaxed sampling: the stack moved under two
				* walks; only the IP is kept */
	UP_TRUNC_UNRECORDED,   /* read back from a file that does not say why */
	UP_TRUNC_COUNT
};

const char *up_trunc_name(enum up_trunc t);

struct up_profile;

int up_profile_new(struct up_profile **out, unsigned nr_vcpus);
void up_profile_free(struct up_profile *p);

/* Of up_profile_samples, those credited for missed periods. */
uint64_t up_profile_credited(const struct up_profile *p);

/* A profile keeps a bounded number of distinct stacks: past the bound a
 * new stack is counted in its vCPU's dropped stack (written as a frame
 * named [dropped]); known stacks still count. */
#define UP_PROFILE_DROPPED_NAME "[dropped]"
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

/* Whether the profile keeps when its samples were taken (a bounded
 * number of them: past the bound samples still count, their times are
 * lost). */
bool up_profile_has_times(const struct up_profile *p);
/* Samples added with a time that the profile kept. */
uint64_t up_profile_timed(const struct up_profile *p);
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

/* A new profile of the samples taken in [from_ns, to_ns) (ns since the
 * start), with their times; samples without a time and [unseen] CPU time
 * are left out. */
int up_profile_slice(const struct up_profile *p, uint64_t from_ns,
		     uint64_t to_ns, struct up_profile **out);

/* The options' layout: a caller compiled against another layout is
 * refused (UP_EINVAL) rather than misread. Set them up with
 * up_output_opts_init(o, UP_OUTPUT_OPTS_VERSION) or UP_OUTPUT_OPTS_INIT
 * (or .version = UP_OUTPUT_OPTS_VERSION in a designated initializer),
 * then change what differs from the defaults. NULL options: the defaults. */
#define UP_OUTPUT_OPTS_VERSION 1

struct up_output_opts {
	unsigned int version; /* UP_OUTPUT_OPTS_VERSION */
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

/* The defaults, as up_output_opts_init sets them: every vCPU merged, on-CPU
 * stacks only, functions inlined calls and all, no offsets or lines. */
#define UP_OUTPUT_OPTS_INIT { .version = UP_OUTPUT_OPTS_VERSION, .vcpu = -1 }

/* The defaults for options of this version (the caller's
 * UP_OUTPUT_OPTS_VERSION); UP_EINVAL for a version this library does not
 * know. Every function taking options refuses one of an unknown version
 * the same way. */
int up_output_opts_init(struct up_output_opts *o, unsigned int version);

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

/* Samples the output options keep (vCPU and idle filters); 0, error set,
 * for options of an unknown version. */
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
