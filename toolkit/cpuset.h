/* Sets of CPU numbers (Xen's pCPUs, dom0's vCPUs) of fixed size, for the
 * sampler's placement (sampler_cpu.c): no allocation, copied by value. */
#ifndef TK_CPUSET_H
#define TK_CPUSET_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Hosts with more pCPUs: those above are left out (none is chosen or
 * compared there). */
#define TK_MAX_CPUS 1024

struct tk_cpuset {
	uint64_t w[TK_MAX_CPUS / 64];
};

static inline void tk_cpuset_clear(struct tk_cpuset *s)
{
	memset(s, 0, sizeof(*s));
}

static inline void tk_cpuset_add(struct tk_cpuset *s, unsigned cpu)
{
	if (cpu < TK_MAX_CPUS)
		s->w[cpu / 64] |= 1ULL << (cpu % 64);
}

static inline bool tk_cpuset_has(const struct tk_cpuset *s, unsigned cpu)
{
	return cpu < TK_MAX_CPUS && (s->w[cpu / 64] >> (cpu % 64)) & 1;
}

static inline bool tk_cpuset_meets(const struct tk_cpuset *a,
				    const struct tk_cpuset *b)
{
	for (unsigned i = 0; i < TK_MAX_CPUS / 64; i++)
		if (a->w[i] & b->w[i])
			return true;
	return false;
}

static inline bool tk_cpuset_empty(const struct tk_cpuset *s)
{
	for (unsigned i = 0; i < TK_MAX_CPUS / 64; i++)
		if (s->w[i])
			return false;
	return true;
}

#endif
