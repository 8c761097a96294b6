/* xl profile top's screen, as text: the hottest functions over the last
 * interval and since the start, each vCPU's busy and blocked share, the
 * sampler's own cost. The same text in the terminal and in batch mode;
 * what it is computed from is the caller's (a live run, or a stored
 * profile replayed). */
#ifndef XLP_TOP_VIEW_H
#define XLP_TOP_VIEW_H

#include <stdbool.h>
#include <stdio.h>

#include "uniprof/uniprof.h"

/* The figures of one screen. */
struct xlp_top_input {
	const char *name;                 /* the domain, or the stored file */
	const char *source;               /* "pv at 97 Hz", "replay x1", ... */
	double t_s;                       /* time since the start */
	double interval_s;                /* the interval's length */
	const struct up_profile *total;   /* since the start */
	const struct up_profile *interval;
	const struct up_symtab *names;
	/* The sampler's own cost over the interval (a live run). */
	bool have_cost;
	double pause_p50_us, pause_p99_us, still_pct;
	/* The stall budget (a live run): the rate now and the rate asked
	 * (equal, or 0: nothing to say), the budget; the samples taken in
	 * the interval per period of the rate asked they count for (1, or
	 * 0: unknown): shares' sampling error rests on the samples. */
	double hz_now, hz_asked, max_stall_pct, sample_share;
	const char *state;                /* NULL, or "frozen", "domain destroyed" */
	/* Each vCPU's share of the interval it ran by Xen's accounting
	 * (a live run; < 0: not known): the busy share the samples show is
	 * judged against it, and a shortfall flagged. */
	const double *ran_pct;
	unsigned nr_ran;
	/* A live run: drawn between samples at SCHED_FIFO with memory
	 * locked, where nothing an image controls may run: functions from
	 * the symbol table only, no source lookups (libdw), so no inlined
	 * calls. */
	bool live;
};

/* What the keys change. */
struct xlp_top_view {
	int vcpu;             /* -1: all */
	bool with_idle;       /* blocked stacks count too (under [idle]) */
	bool by_total;        /* sort by total % instead of self % */
	bool keys;            /* show the key help line (interactive) */
	unsigned rows;        /* functions listed */
	unsigned width;       /* columns to fit; 0: no limit */
};

/* Write one screen. 0, or -1 (out of memory, said on the screen). */
int xlp_top_render(const struct xlp_top_input *in, const struct xlp_top_view *v,
		   FILE *out);

#endif
