/* A run whose rate the stall budget lowered (997 Hz asked, 99.7 Hz at
 * the end, 83 Hz at the lowest, 5 % budget, 31.2 % stood still in the
 * window): what test_run_checks.c's text and test_summary.c's JSON
 * both describe. */
#ifndef TESTS_TOOLKIT_BUDGET_RUN_H
#define TESTS_TOOLKIT_BUDGET_RUN_H

#include <stdint.h>

#include "toolkit/run.h"
#include "uniprof/uniprof.h"

struct budget_run {
	struct tk_domain dom;
	uint64_t paused[1], blocked[1];
	struct up_sampler_stats stats;
	struct tk_run r;               /* points into the above: not copied */
};

static inline void budget_run_init(struct budget_run *b)
{
	const struct tk_run_settings asked = { .hz = 997, .top = 20 };

	*b = (struct budget_run){
		.dom = { .domid = 7, .name = "web1", .type = "pv" },
		.paused = { 40000000 }, .blocked = { 0 },
		.stats = {
			.samples = 100, .budget_periods = 900, .missed_deadlines = 3,
			.elapsed_s = 1.0, .max_stall_pct = 5, .hz_asked = 997,
			.hz_now = 99.7, .hz_lowest = 997.0 / 12, .stall_factor = 10,
			.stall_factor_max = 12, .lowered_at_s = 0.25, .rate_changes = 2,
			.window_stall_pct = 31.2, .effective_samples = 80,
			.nr_vcpus = 1,
		},
	};
	b->stats.vcpu_paused_ns = b->paused;
	b->stats.vcpu_paused_blocked_ns = b->blocked;
	b->r = (struct tk_run){ .asked = asked, .dom = &b->dom, .stats = &b->stats };
}

#endif
