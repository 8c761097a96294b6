/* A bounded cache of mapped guest frames. Mapping a foreign frame costs a
 * hypercall, so frames stay mapped across samples; the mapping shows live
 * guest memory, so keeping it never serves stale data. */
#ifndef UP_FRAME_CACHE_H
#define UP_FRAME_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include "mem/memory.h"
#include "uniprof/target.h"

struct frame_cache;

int frame_cache_new(struct frame_cache **out, struct up_target *t,
		    size_t capacity);
void frame_cache_free(struct frame_cache *c);

/* A new sample: frames that failed to map are tried again every 128. */
void frame_cache_new_sample(struct frame_cache *c);

/* The mapped page for (kind, frame), mapping it on a miss; one that
 * failed lately fails again without asking. */
int frame_cache_get(struct frame_cache *c, enum up_frame_kind kind,
		    uint64_t frame, const uint8_t **page);

void frame_cache_stats(const struct frame_cache *c, struct up_mem_stats *st);

#endif
