/* The monotonic clock in nanoseconds, the one way every layer reads it:
 * core, toolkit, xl-plugin and daemon all include "util/clock.h" (core/
 * is on everyone's include path). Inline, because the sampler reads it
 * inside the paused window. */
#ifndef UP_CLOCK_H
#define UP_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

#endif
