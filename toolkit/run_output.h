/* A live run's outputs: its summaries (summary.h) as text and JSON, and
 * the run as the source the output formats write from (formats.h): the
 * flame graph's title and the pprof header. */
#ifndef TK_RUN_OUTPUT_H
#define TK_RUN_OUTPUT_H

#include <stdio.h>

#include "formats.h"
#include "run.h"
#include "summary.h"
#include "uniprof/uniprof.h"
#include "uniprof/sys/kernel.h"

/* The run's summary (summary.h), as text and as JSON (-1 after one error
 * line; the JSON lists r->files). */
void tk_run_summary(const struct tk_run *r, struct tk_summary *s);
void tk_run_text(const struct tk_run *r, FILE *out);
int tk_run_json(const struct tk_run *r, FILE *out);

/* The run as the output formats' source (formats.h): the flame graph's
 * title, the summaries above, and when formats has pprof the pprof
 * header (the run's summary in its comments). r and rs must outlive the
 * writing; release rs after. */
struct tk_run_source {
	struct tk_source src;
	struct tk_summary summary;
	char title[256];
	struct up_pprof_meta meta;
	/* The kernel's executable PT_LOADs, the pprof mappings. */
	struct up_pprof_mapping maps[UP_KERNEL_MAX_TEXT];
	char **lines;
	size_t nr_lines;
};
struct timespec;
void tk_run_source(struct tk_run_source *rs, const struct tk_run *r,
		       const struct up_kernel_map *kmap,
		       const struct timespec *started, unsigned formats);
void tk_run_source_release(struct tk_run_source *rs);

#endif
