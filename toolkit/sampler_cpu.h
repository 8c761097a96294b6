/* Which dom0 vCPU the sampling thread runs on.
 *
 * A guest that dom0's backends drive (blkback, netback, xenstored,
 * xenconsoled) runs in short bursts right after a backend has served it.
 * A sampler waking on the dom0 vCPU those backends use takes that vCPU
 * from them for its wake-up; meanwhile the guest ends its burst and
 * blocks, waiting for them, so the pause finds it blocked nearly every
 * time (Xen's own trace shows it: docs/IO-GUESTS.md). The sampler belongs
 * on a dom0 vCPU that takes none of the backends' event-channel
 * interrupts, runs none of their threads, and whose pCPUs the guest
 * cannot use. This file chooses one
 * from what libxl and /proc/interrupts say, or says before the first
 * sample that there is none, with the remedy. xl profile, top and
 * uniprofd all place their sampling thread through it. */
#ifndef TK_SAMPLER_CPU_H
#define TK_SAMPLER_CPU_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend_load.h"
#include "cpuset.h"

/* What the choice is made from. */
struct tk_cpu_view {
	unsigned nr_dom0;                      /* dom0's vCPUs, Linux's CPUs */
	bool pcpus_known;                      /* the affinities below were read */
	struct tk_cpuset dom0_pcpus[TK_MAX_DOM0_CPUS]; /* each one's hard affinity */
	struct tk_cpuset guest_pcpus;         /* where the guest's vCPUs may run */
	struct tk_cpuset allowed;             /* dom0 CPUs we may run on (taskset) */
	/* What the backends did on each in the window: interrupts, and
	 * their threads' clock ticks. */
	bool irqs_known, ticks_known;
	uint64_t irqs[TK_MAX_DOM0_CPUS];
	uint64_t ticks[TK_MAX_DOM0_CPUS];
	unsigned ticks_hz;                     /* clock ticks a second */
	double window_s;
};

struct tk_sampler_cpu {
	int cpu;         /* the dom0 CPU to sample on; -1: left as it is */
	bool fit;        /* serves no backend, shares no pCPU with the guest */
	bool forced;     /* --sampler-cpu */
	/* -v: which and why; when !fit, what is wrong and the remedy. */
	char why[512];
};

/* The view of domid's placement: what the backends did between before
 * and now (at least TK_BACKEND_WINDOW_NS: the rest is waited for). */
#define TK_BACKEND_WINDOW_NS 200000000ULL
void tk_cpu_view_probe(uint32_t domid, const struct tk_backend_load *before,
			struct tk_cpu_view *v);

/* --sampler-cpu's value: a dom0 CPU number this dom0 has. 0, or -1 with
 * why it is not one (for "invalid ...: WHY"). */
int tk_sampler_cpu_parse(const char *s, int *cpu, char *why, size_t len);

/* Choose: forced >= 0 is --sampler-cpu (checked against dom0's CPUs: -1
 * with one error line in out->why when it is not one). 0, or -1. */
int tk_sampler_cpu_choose(const struct tk_cpu_view *v, int forced,
			   struct tk_sampler_cpu *out);

/* Run the calling thread on out->cpu (nothing when it is -1), keeping its
 * former CPUs in *saved for tk_sampler_cpu_restore. 0, or -1 (errno). */
int tk_sampler_cpu_apply(const struct tk_sampler_cpu *c, cpu_set_t *saved);
void tk_sampler_cpu_restore(const struct tk_sampler_cpu *c,
			     const cpu_set_t *saved);

/* All of it for one domain, as xl profile and top do: probe, choose,
 * print (prefix: "xl profile"; the choice with -v, a missing fit unless
 * quiet), apply. -1 after one error line (a bad --sampler-cpu). */
int tk_sampler_cpu_place(uint32_t domid, const struct tk_backend_load *before,
			  int forced, const char *prefix, int verbose,
			  bool quiet, struct tk_sampler_cpu *out,
			  cpu_set_t *saved);

#endif
