/* What a run's figures say, checked against Xen's accounting: each
 * vCPU's busy share in the samples against the time it ran, the CPU time
 * no sample saw, the rate the sampler reached and what the stall budget
 * did; and the warnings that say so. Shared by the summaries
 * (summary.c) and the run's users (xl profile, uniprofd). */
#ifndef XLP_RUN_CHECKS_H
#define XLP_RUN_CHECKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "run.h"

/* Count, for each vCPU whose samples found it busy well below Xen's run
 * time (XLP_BUSY_SAMPLES_LOW), the CPU time no sample saw as [unseen]
 * samples in the profile (up_profile_add_unseen): the flame graph and
 * top list then show the share they cannot attribute. 0 or -1. */
int xlp_account_unseen(struct up_profile *p, const struct up_sampler_stats *s);

/* The rate the sampler reached, when it is well short of the rate asked
 * (it then ran back to back: one sample takes longer than a period here);
 * else 0. */
double xlp_rate_short(const struct xlp_run *r);

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
double xlp_others_pct(const struct xlp_run *r, unsigned v);

/* A vCPU's busy share in the samples against the time it ran by Xen's
 * accounting: busy (running or runnable) cannot be less than running, so
 * samples below it beyond sampling error are low: the sampler ran late
 * while the guest ran (dom0 short of CPU, or sharing the guest's). */
enum xlp_busy_check {
	XLP_BUSY_UNKNOWN,
	XLP_BUSY_CONSISTENT,
	XLP_BUSY_SAMPLES_LOW,
};
enum xlp_busy_check xlp_busy_check(const struct xlp_run *r, unsigned vcpu);
const char *xlp_busy_check_name(enum xlp_busy_check c);
/* Points by which a vCPU's busy share exceeds its running share beyond
 * what sampling and our pauses explain (it waited for a physical CPU
 * others held), else 0. */
double xlp_busy_waiting(const struct xlp_run *r, unsigned v);

/* One warning line per vCPU whose samples read busy low. */
void xlp_busy_warnings(const struct xlp_run *r, FILE *out);
/* The same, shorter, while sampling goes on (after secs). */
void xlp_busy_warnings_early(const struct xlp_run *r, double secs, FILE *out);

#endif
