/* The summary of a profile, as text (before the top list) and as JSON:
 * one writer for a live run and for stored profiles. Each part is written
 * from the facts the profile's source has: a live run knows its sampler
 * (pauses, Xen's run time, the unwinder), stored profiles know the files
 * read and what their header recorded; the profile's own figures
 * (stacks, truncation, busy shares per vCPU) are written alike. */
#ifndef TK_SUMMARY_H
#define TK_SUMMARY_H

#include <stddef.h>
#include <stdio.h>

#include "toolkit/formats.h"
#include "uniprof/uniprof.h"

struct tk_run;

struct tk_summary {
	const char *cmd;                  /* error lines: "CMD: ..." */
	const char *tool;                 /* JSON "tool" */
	const struct up_profile *profile;
	const struct up_symtab *names;    /* the top list's */
	struct up_output_opts view;
	unsigned top;
	/* A live run: its domain, symbols and sampler (NULL: stored). */
	const struct tk_run *run;
	/* Stored profiles: the files read, merged, and what they recorded
	 * (NULL: live). */
	const struct up_stored *stored;
	char *const *inputs;
	size_t nr_inputs;
	/* report --from/--to: the profile is the samples taken in
	 * [from_s, to_s) of the run. */
	bool ranged;
	double from_s, to_s;
	/* The files this write makes (a live run's JSON lists them). */
	const char *const *outputs;
	size_t nr_outputs;
};

void tk_summary_text(const struct tk_summary *s, FILE *out);
/* 0, or -1 after one error line. */
int tk_summary_json(const struct tk_summary *s, FILE *out);

/* As an output source's summaries (formats.h): src->ctx is the summary;
 * the JSON lists the files of src's write. */
void tk_summary_source_text(const struct tk_source *src, FILE *out);
int tk_summary_source_json(const struct tk_source *src, FILE *out);

#endif
