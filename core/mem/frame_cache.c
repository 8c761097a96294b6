/* Hash table with chaining over a fixed slot array; eviction by the clock
 * (second chance) algorithm, so a hit costs no list relinking. */
#include "config.h"

#include <stdlib.h>

#include "util/error_impl.h"
#include "mem/frame_cache.h"
#include "mem/memory.h"

#define NIL UINT32_MAX

struct slot {
	uint64_t key;          /* frame << 1 | kind */
	const uint8_t *page;   /* NULL: free */
	uint32_t next;         /* bucket chain */
	uint8_t referenced;
};

/* Frames that would not map, not asked for again for a while: each
 * asking is a hypercall while the guest stands still (about a
 * millisecond under emulation), and a walk that reads past a stack's end
 * into memory the guest does not have (Solo5's stack ends at the top of
 * its RAM) asks in every sample. Forgotten every FAILED_SAMPLES samples,
 * about a second at the default rate: memory the guest gains later
 * (ballooned in) is read again then. */
#define FAILED_REMEMBERED 8
#define FAILED_SAMPLES 128

struct frame_cache {
	struct up_target *target;
	struct slot *slots;
	uint32_t *buckets;
	size_t capacity, nbuckets, used, hand;
	struct up_mem_stats stats;
	uint64_t failed[FAILED_REMEMBERED];
	unsigned nr_failed, next_failed, samples;
};

static size_t hash_key(uint64_t key, size_t nbuckets)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return (size_t)(key & (nbuckets - 1));
}

int frame_cache_new(struct frame_cache **out, struct up_target *t,
		    size_t capacity)
{
	struct frame_cache *c = calloc(1, sizeof(*c));

	if (!capacity)
		capacity = UP_MEM_DEFAULT_CACHE_FRAMES;
	if (capacity > (1u << 24))
		return free(c), up_fail(UP_EINVAL, "frame cache too large");
	if (!c)
		return up_fail(UP_ENOMEM, "out of memory");
	c->nbuckets = 1;
	while (c->nbuckets < capacity * 2)
		c->nbuckets <<= 1;
	c->slots = calloc(capacity, sizeof(*c->slots));
	c->buckets = malloc(c->nbuckets * sizeof(*c->buckets));
	if (!c->slots || !c->buckets) {
		frame_cache_free(c);
		return up_fail(UP_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < c->nbuckets; i++)
		c->buckets[i] = NIL;
	c->capacity = capacity;
	c->target = t;
	*out = c;
	return 0;
}

void frame_cache_new_sample(struct frame_cache *c)
{
	if (++c->samples < FAILED_SAMPLES)
		return;
	c->samples = 0;
	c->nr_failed = 0;
	c->next_failed = 0;
}

void frame_cache_free(struct frame_cache *c)
{
	if (!c)
		return;
	if (c->slots)
		for (size_t i = 0; i < c->capacity; i++)
			up_target_unmap_frame(c->target, c->slots[i].page);
	free(c->slots);
	free(c->buckets);
	free(c);
}

static void unlink_slot(struct frame_cache *c, uint32_t idx)
{
	uint32_t *link = &c->buckets[hash_key(c->slots[idx].key, c->nbuckets)];

	while (*link != NIL && *link != idx)
		link = &c->slots[*link].next;
	if (*link == idx)
		*link = c->slots[idx].next;
}

static uint32_t take_slot(struct frame_cache *c)
{
	uint32_t idx;

	if (c->used < c->capacity)
		return (uint32_t)c->used++;
	for (;;) {
		idx = (uint32_t)c->hand;
		c->hand = (c->hand + 1) % c->capacity;
		if (!c->slots[idx].referenced)
			break;
		c->slots[idx].referenced = 0;
	}
	unlink_slot(c, idx);
	up_target_unmap_frame(c->target, c->slots[idx].page);
	c->slots[idx].page = NULL;
	c->stats.evictions++;
	return idx;
}

int frame_cache_get(struct frame_cache *c, enum up_frame_kind kind,
		    uint64_t frame, const uint8_t **page)
{
	uint64_t key = frame << 1 | (kind == UP_FRAME_MFN);
	size_t b = hash_key(key, c->nbuckets);
	const void *p;
	uint32_t idx;
	int rc;

	/* A frame number beyond 52 physical address bits cannot exist. */
	if (frame >> 40)
		return up_fail(UP_EFAULT, "frame number %#llx out of range",
			       (unsigned long long)frame);
	for (idx = c->buckets[b]; idx != NIL; idx = c->slots[idx].next) {
		if (c->slots[idx].key == key) {
			c->slots[idx].referenced = 1;
			c->stats.hits++;
			*page = c->slots[idx].page;
			return 0;
		}
	}
	for (unsigned i = 0; i < c->nr_failed; i++)
		if (c->failed[i] == key)
			return up_fail(UP_EFAULT, "frame %#llx cannot be mapped",
				       (unsigned long long)frame);
	rc = up_target_map_frame(c->target, kind, frame, &p);
	if (rc < 0) {
		c->stats.map_failures++;
		c->failed[c->next_failed] = key;
		c->next_failed = (c->next_failed + 1) % FAILED_REMEMBERED;
		if (c->nr_failed < FAILED_REMEMBERED)
			c->nr_failed++;
		return rc;
	}
	c->stats.maps++;
	idx = take_slot(c);
	c->slots[idx].key = key;
	c->slots[idx].page = p;
	c->slots[idx].referenced = 1;
	c->slots[idx].next = c->buckets[b];
	c->buckets[b] = idx;
	*page = p;
	return 0;
}

void frame_cache_stats(const struct frame_cache *c, struct up_mem_stats *st)
{
	*st = c->stats;
}
