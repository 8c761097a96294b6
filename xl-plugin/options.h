/* xl profile's command line: the option table is data, and both the parser
 * and --help are generated from it (as xl's own command table does). */
#ifndef XLP_OPTIONS_H
#define XLP_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "toolkit/formats.h"
#include "option_docs.h"
#include "toolkit/value_parse.h"
#include "uniprof/sampler.h"

struct xlp_options {
	const char *domain;
	double hz;
	double duration_s;        /* 0: until Ctrl-C or the domain ends */
	const char *output;       /* NULL: beside the domain's logs */
	unsigned formats;         /* TK_FORMAT_* (formats.h) */
	const char *symbols;      /* -s */
	const char *debuginfod;   /* --debuginfod servers; NULL: $DEBUGINFOD_URLS */
	int vcpu;                 /* -1: all */
	unsigned top;
	unsigned max_depth;
	unsigned max_pause_ms;    /* 0: the library's default */
	double max_stall_pct;     /* --max-stall; 0: the library's default, 100: none */
	int sampler_cpu;          /* --sampler-cpu; -1: chosen (sampler_cpu.h) */
	int verbose;              /* -v count */
	bool quiet;
	bool force_symbols;       /* accept a build-id mismatch */
	bool wait;                /* --wait: for the domain to appear */
	bool paused;              /* --paused: created with xl create -p */
	bool once;                /* -1: one stack per vCPU, no files */
	bool no_realtime;         /* sample without SCHED_FIFO/mlockall */
	bool with_idle;           /* --idle: blocked stacks in SVG and top */
	bool no_inline;           /* --no-inline: inlined calls folded back */
	bool lines;               /* --lines: file:line on leaf frames */
	bool no_vcpu_state;       /* --no-vcpu-state: do not ask busy/blocked */
	const char *entries[16];  /* --entry: outermost functions */
	unsigned nr_entries;
	enum up_unwinder unwinder;
	enum up_hypercalls hypercalls;
	enum up_consistency consistency;
};

/* Parse argv. Returns 0 to run, 1 when --help/--version was printed,
 * 2 after printing one error line. */
int xlp_parse_options(int argc, char **argv, struct xlp_options *o);

void xlp_print_usage(FILE *out);

/* --entry's comma-separated names (arg is split in place) into
 * o->entries: 0, or -1 past 16. */
int xlp_parse_entries(char *arg, struct xlp_options *o);
/* --max-stall's help, shared by xl profile and xl profile top. */
#define XLP_MAX_STALL_HELP \
	"the most of its time, in %, the domain may stand still for samples, measured as the run goes; past it the rate is lowered (each sample then counts for the periods it stands for) and raised again when it can; 100: no budget (default 5)"

#endif
