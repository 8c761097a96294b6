/* What one profiling run produced, and the summaries made from it: the
 * JSON document for runbooks (libyajl) and the human-readable text. */
#ifndef XLP_REPORT_H
#define XLP_REPORT_H

#include <stdio.h>

#include "domain.h"
#include "options.h"
#include "uniprof/uniprof.h"

struct xlp_report {
	const struct xlp_options *opt;
	const struct xlp_domain *dom;
	const struct up_symtab *symtab;
	const char *symbols_used;
	const struct up_profile *profile;
	const struct up_sampler_stats *stats;
	enum up_unwinder unwinder;       /* the one actually used */
	const char *hypercalls;          /* the path actually used */
	double setup_ms;                 /* start to first sample */
	long peak_rss_kib;               /* our own peak memory */
	bool realtime;                   /* sampled SCHED_FIFO, memory locked */
	const char *files[8];
	unsigned nr_files;
};

/* Plain text: domain, symbols, samples, pause times, per-vCPU counts. */
void xlp_report_text(const struct xlp_report *r, FILE *out);

/* The JSON summary. Returns -1 after one error line. */
int xlp_report_json(const struct xlp_report *r, FILE *out);

#endif
