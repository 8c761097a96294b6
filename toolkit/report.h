/* What one profiling run produced, and the summaries made from it: the
 * JSON document for runbooks (libyajl) and the human-readable text. */
#ifndef XLP_REPORT_H
#define XLP_REPORT_H

#include <stdio.h>
#include <yajl/yajl_gen.h>

#include "domain.h"
#include "formats.h"
#include "options.h"
#include "sampler_cpu.h"
#include "summary.h"
#include "uniprof/uniprof.h"
#include "uniprof/sys/kernel.h"

struct xlp_report {
	const struct xlp_options *opt;
	const struct xlp_domain *dom;
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
	const struct xlp_sampler_cpu *sampler; /* where it ran in dom0, or NULL */
	/* Per vCPU: the most of the run that other vCPUs held every pCPU
	 * it may use, by Xen's pCPU accounting (pcpu_clock.h), in percent;
	 * -1 or NULL: not known. */
	const double *others_pct;
	unsigned nr_others;
	const char *files[8];
	unsigned nr_files;
};

/* Count, for each vCPU whose samples found it busy well below Xen's run
 * time (XLP_BUSY_SAMPLES_LOW), the CPU time no sample saw as [unseen]
 * samples in the profile (up_profile_add_unseen): the flame graph and
 * top list then show the share they cannot attribute. 0 or -1. */
int xlp_account_unseen(struct up_profile *p, const struct up_sampler_stats *s);

/* The rate the sampler reached, when it is well short of the rate asked
 * (it then ran back to back: one sample takes longer than a period here);
 * else 0. */
double xlp_rate_short(const struct xlp_report *r);

/* The samples a share's sampling error rests on (see
 * up_sampler_stats.effective_samples). */
double xlp_effective_samples(const struct up_sampler_stats *s);
/* The share (0..100) of the run the longest-stalled vCPU stood still for
 * samples, or -1. */
double xlp_stood_still_pct(const struct up_sampler_stats *s);
/* Whether the stall budget lowered the rate at any time of the run, and
 * one line saying what it did and why (no newline). */
bool xlp_budget_lowered(const struct up_sampler_stats *s);
void xlp_budget_text(const struct up_sampler_stats *s, char *buf, size_t len);

/* On-CPU share of a vCPU's samples whose state is known, or -1; the
 * share that found it woken and waiting to run (UP_VCPU_WAITING). */
double xlp_busy_pct(const struct up_profile *p, unsigned v);
double xlp_waiting_pct(const struct up_profile *p, unsigned v);
/* r->others_pct[v], or -1. */
double xlp_others_pct(const struct xlp_report *r, unsigned v);


/* A vCPU's busy share in the samples against the time it ran by Xen's
 * accounting: busy (running or runnable) cannot be less than running, so
 * samples below it beyond sampling error are low: the sampler ran late
 * while the guest ran (dom0 short of CPU, or sharing the guest's). */
enum xlp_busy_check {
	XLP_BUSY_UNKNOWN,
	XLP_BUSY_CONSISTENT,
	XLP_BUSY_SAMPLES_LOW,
};
enum xlp_busy_check xlp_busy_check(const struct xlp_report *r, unsigned vcpu);
const char *xlp_busy_check_name(enum xlp_busy_check c);
/* Points by which a vCPU's busy share exceeds its running share beyond
 * what sampling and our pauses explain (it waited for a physical CPU
 * others held), else 0. */
double xlp_busy_waiting(const struct xlp_report *r, unsigned v);

/* One warning line per vCPU whose samples read busy low. */
void xlp_busy_warnings(const struct xlp_report *r, FILE *out);
/* The same, shorter, while sampling goes on (after secs). */
void xlp_busy_warnings_early(const struct xlp_report *r, double secs, FILE *out);

/* The run's summary (summary.h), as text and as JSON (-1 after one error
 * line; the JSON lists r->files). */
void xlp_report_summary(const struct xlp_report *r, struct xlp_summary *s);
void xlp_report_text(const struct xlp_report *r, FILE *out);
int xlp_report_json(const struct xlp_report *r, FILE *out);

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
void xlp_report_source(struct xlp_report_source *rs, const struct xlp_report *r,
		       const struct up_kernel_map *kmap,
		       const struct timespec *started, unsigned formats);
void xlp_report_source_release(struct xlp_report_source *rs);

#endif
