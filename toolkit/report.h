/* What one profiling run produced, and the summaries made from it: the
 * JSON document for runbooks (libyajl) and the human-readable text. */
#ifndef XLP_REPORT_H
#define XLP_REPORT_H

#include <stdio.h>

#include "formats.h"
#include "run.h"
#include "summary.h"
#include "uniprof/uniprof.h"

/* The run's summary (summary.h), as text and as JSON (-1 after one error
 * line; the JSON lists r->files). */
void xlp_report_summary(const struct xlp_run *r, struct xlp_summary *s);
void xlp_report_text(const struct xlp_run *r, FILE *out);
int xlp_report_json(const struct xlp_run *r, FILE *out);

/* The run as the output formats' source (formats.h): the flame graph's
 * title, the summaries above, and when formats has pprof the pprof
 * header (the run's summary in its comments). r and rs must outlive the
 * writing; release rs after. */
struct xlp_report_source {
	struct xlp_source src;
	struct xlp_summary summary;
	char title[256];
	struct up_pprof_meta meta;
	/* The kernel's executable PT_LOADs, the pprof mappings. */
	struct up_pprof_mapping maps[UP_KERNEL_MAX_TEXT];
	char **lines;
	size_t nr_lines;
};
struct timespec;
void xlp_report_source(struct xlp_report_source *rs, const struct xlp_run *r,
		       const struct up_kernel_map *kmap,
		       const struct timespec *started, unsigned formats);
void xlp_report_source_release(struct xlp_report_source *rs);

#endif
