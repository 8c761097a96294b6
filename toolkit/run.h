/* One profiling run of a live domain, as its checks and outputs see it:
 * what it was asked for and what it produced. */
#ifndef TK_RUN_H
#define TK_RUN_H

#include <stdbool.h>

#include "domain.h"
#include "sampler_cpu.h"
#include "uniprof/uniprof.h"

/* What the run was asked for, as its outputs say it: xl profile fills it
 * from its options, uniprofd from its settings and the request. */
struct tk_run_settings {
	double hz;
	enum up_consistency consistency;
	bool no_vcpu_state;              /* Xen not asked whether vCPUs block */
	/* The flame graph's and the top list's view. */
	bool with_idle;
	bool no_inline;
	bool lines;
	unsigned top;
};

struct tk_run {
	struct tk_run_settings asked;
	const struct tk_domain *dom;
	enum up_arch arch;               /* the domain's vCPUs' architecture */
	const struct up_symtab *symtab;
	const char *symbols_used;
	const struct up_profile *profile;
	const struct up_sampler_stats *stats;
	enum up_unwinder unwinder;       /* the one actually used */
	const char *hypercalls;          /* the path actually used */
	double setup_ms;                 /* start to first sample */
	long peak_rss_kib;               /* our own peak memory */
	bool realtime;                   /* sampled SCHED_FIFO, memory locked */
	const struct tk_sampler_cpu *sampler; /* where it ran in dom0, or NULL */
	/* Per vCPU: the most of the run that other vCPUs held every pCPU
	 * it may use, by Xen's pCPU accounting (pcpu_clock.h), in percent;
	 * -1 or NULL: not known. */
	const double *others_pct;
	unsigned nr_others;
	const char *files[8];
	unsigned nr_files;
};

#endif
