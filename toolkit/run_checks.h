/* What a run's figures say, checked against Xen's accounting: each
 * vCPU's busy share in the samples against the time it ran, the CPU time
 * no sample saw, the rate the sampler reached and what the stall budget
 * did; and the warnings that say so. Shared by the summaries
 * (summary.c) and the run's users (xl profile, uniprofd). */
#ifndef TK_RUN_CHECKS_H
#define TK_RUN_CHECKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "run.h"

/* Count, for each vCPU whose samples found it busy well below Xen's run
 * time (TK_BUSY_SAMPLES_LOW), the CPU time no sample saw as [unseen]
 * samples in the profile (up_profile_add_unseen): the flame graph and
 * top list then show the share they cannot attribute. 0 or -1. */
int tk_account_unseen(struct up_profile *p, const struct up_sampler_stats *s);

/* The rate the sampler reached, when it is well short of the rate asked
 * (it then ran back to back: one sample takes longer than a period here);
 * else 0. */
double tk_rate_short(const struct tk_run *r);

/* The samples a share's sampling error rests on (see
 * up_sampler_stats.effective_samples). */
double tk_effective_samples(const struct up_sampler_stats *s);
/* The share (0..100) of the run the longest-stalled vCPU stood still for
 * samples, or -1. */
double tk_stood_still_pct(const struct up_sampler_stats *s);
/* Whether the stall budget lowered the rate at any time of the run, and
 * one line saying what it did and why (no newline). */
bool tk_budget_lowered(const struct up_sampler_stats *s);
void tk_budget_text(const struct up_sampler_stats *s, char *buf, size_t len);

/* On-CPU share of a vCPU's samples whose state is known, or -1; the
 * share that found it woken and waiting to run (UP_VCPU_WAITING). */
double tk_busy_pct(const struct up_profile *p, unsigned v);
double tk_waiting_pct(const struct up_profile *p, unsigned v);
/* r->others_pct[v], or -1. */
double tk_others_pct(const struct tk_run *r, unsigned v);

/* A vCPU's busy share in the samples against the time it ran by Xen's
 * accounting: busy (running or runnable) cannot be less than running, so
 * samples below it beyond sampling error are low: the sampler ran late
 * while the guest ran (dom0 short of CPU, or sharing the guest's). */
enum tk_busy_check {
	TK_BUSY_UNKNOWN,
	TK_BUSY_CONSISTENT,
	TK_BUSY_SAMPLES_LOW,
};
enum tk_busy_check tk_busy_check(const struct tk_run *r, unsigned vcpu);
const char *tk_busy_check_name(enum tk_busy_check c);
/* Points by which a vCPU's busy share exceeds its running share beyond
 * what sampling and our pauses explain (it waited for a physical CPU
 * others held), else 0. */
double tk_busy_waiting(const struct tk_run *r, unsigned v);

/* One warning line per vCPU whose samples read busy low. */
void tk_busy_warnings(const struct tk_run *r, FILE *out);
/* The same, shorter, while sampling goes on (after secs). */
void tk_busy_warnings_early(const struct tk_run *r, double secs, FILE *out);

#endif
