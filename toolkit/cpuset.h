/* Sets of CPU numbers (Xen's pCPUs, dom0's vCPUs) of fixed size, for the
 * sampler's placement (sampler_cpu.c): no allocation, copied by value. */
#ifndef XLP_CPUSET_H
#define XLP_CPUSET_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Hosts with more pCPUs: those above are left out (none is chosen or
 * compared there). */
#define XLP_MAX_CPUS 1024

struct xlp_cpuset {
	uint64_t w[XLP_MAX_CPUS / 64];
};

static inline void xlp_cpuset_clear(struct xlp_cpuset *s)
{
	memset(s, 0, sizeof(*s));
}

static inline void xlp_cpuset_add(struct xlp_cpuset *s, unsigned cpu)
{
	if (cpu < XLP_MAX_CPUS)
		s->w[cpu / 64] |= 1ULL << (cpu % 64);
}

static inline bool xlp_cpuset_has(const struct xlp_cpuset *s, unsigned cpu)
{
	return cpu < XLP_MAX_CPUS && (s->w[cpu / 64] >> (cpu % 64)) & 1;
}

static inline bool xlp_cpuset_meets(const struct xlp_cpuset *a,
				    const struct xlp_cpuset *b)
{
	for (unsigned i = 0; i < XLP_MAX_CPUS / 64; i++)
		if (a->w[i] & b->w[i])
			return true;
	return false;
}

static inline bool xlp_cpuset_empty(const struct xlp_cpuset *s)
{
	for (unsigned i = 0; i < XLP_MAX_CPUS / 64; i++)
		if (s->w[i])
			return false;
	return true;
}

#endif
