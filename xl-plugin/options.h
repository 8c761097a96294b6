/* xl profile's command line: the option table is data, and both the parser
 * and --help are generated from it (as xl's own command table does). */
#ifndef XLP_OPTIONS_H
#define XLP_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "uniprof/sampler.h"

enum xlp_format {
	XLP_FORMAT_FOLDED = 1 << 0,
	XLP_FORMAT_SVG = 1 << 1,
	XLP_FORMAT_JSON = 1 << 2,
	XLP_FORMAT_TXT = 1 << 3,
};

#define XLP_FORMAT_ALL \
	(XLP_FORMAT_FOLDED | XLP_FORMAT_SVG | XLP_FORMAT_JSON | XLP_FORMAT_TXT)

struct xlp_options {
	const char *domain;
	double hz;
	double duration_s;        /* 0: until Ctrl-C or the domain ends */
	const char *output;       /* NULL: beside the domain's logs */
	unsigned formats;         /* XLP_FORMAT_* */
	const char *symbols;      /* -s */
	int vcpu;                 /* -1: all */
	unsigned top;
	unsigned max_depth;
	unsigned max_pause_ms;    /* 0: the library's default */
	int verbose;              /* -v count */
	bool quiet;
	bool force_symbols;       /* accept a build-id mismatch */
	bool wait;                /* --wait: for the domain to appear */
	bool paused;              /* --paused: created with xl create -p */
	bool once;                /* -1: one stack per vCPU, no files */
	bool no_realtime;         /* sample without SCHED_FIFO/mlockall */
	bool with_idle;           /* --idle: blocked stacks in SVG and top */
	bool no_vcpu_state;       /* --no-vcpu-state: do not ask busy/blocked */
	const char *entries[16];  /* --entry: outermost functions */
	unsigned nr_entries;
	enum up_unwinder unwinder;
	enum up_hypercalls hypercalls;
};

/* Parse argv. Returns 0 to run, 1 when --help/--version was printed,
 * 2 after printing one error line. */
int xlp_parse_options(int argc, char **argv, struct xlp_options *o);

void xlp_print_usage(FILE *out);

#endif
