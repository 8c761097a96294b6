#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/error_impl.h"
#include "util/grow.h"
#include "util/strmap.h"

/* Keys are copied into blocks that never move (strmap_key's pointers
 * stay valid): one allocation per block, not per key. */
#define BLOCK_SIZE (64u * 1024)

struct block {
	struct block *next;
	size_t used, size;
	char text[];
};

/* A slot of the open-addressing table: its key's index + 1 (0: empty)
 * and its hash's low bits, so probes and growth rarely touch the key. */
struct slot {
	uint32_t idx1, hash;
};

struct strmap {
	char **keys;         /* by index */
	size_t count, cap;
	struct slot *table;
	size_t nslots;
	struct block *blocks;   /* the newest first */
};

static uint64_t hash_str(const char *s, size_t *len)
{
	uint64_t h = 1469598103934665603ULL;
	const char *p = s;

	while (*p)
		h = (h ^ (unsigned char)*p++) * 1099511628211ULL;
	*len = (size_t)(p - s);
	return h;
}

int strmap_new(struct strmap **out)
{
	struct strmap *m = calloc(1, sizeof(*m));

	if (!m)
		return up_fail(UP_ENOMEM, "out of memory");
	m->nslots = 64;
	m->table = calloc(m->nslots, sizeof(*m->table));
	if (!m->table) {
		free(m);
		return up_fail(UP_ENOMEM, "out of memory");
	}
	*out = m;
	return 0;
}

void strmap_free(struct strmap *m)
{
	if (!m)
		return;
	while (m->blocks) {
		struct block *b = m->blocks;

		m->blocks = b->next;
		free(b);
	}
	free(m->keys);
	free(m->table);
	free(m);
}

static int grow(struct strmap *m)
{
	size_t n = m->nslots * 2;
	struct slot *t = calloc(n, sizeof(*t));

	if (!t)
		return up_fail(UP_ENOMEM, "out of memory");
	for (size_t i = 0; i < m->nslots; i++) {
		size_t s;

		if (!m->table[i].idx1)
			continue;
		s = m->table[i].hash & (n - 1);
		while (t[s].idx1)
			s = (s + 1) & (n - 1);
		t[s] = m->table[i];
	}
	free(m->table);
	m->table = t;
	m->nslots = n;
	return 0;
}

/* A copy of key (len bytes and its NUL) in the blocks. */
static char *copy_key(struct strmap *m, const char *key, size_t len)
{
	struct block *b = m->blocks;

	if (!b || b->size - b->used < len + 1) {
		/* A long key gets a block of its own, after the current
		 * one, which stays the one filled. */
		size_t size = len + 1 > BLOCK_SIZE / 4 ? len + 1 : BLOCK_SIZE;

		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->used = 0;
		b->size = size;
		if (size == BLOCK_SIZE || !m->blocks) {
			b->next = m->blocks;
			m->blocks = b;
		} else {
			b->next = m->blocks->next;
			m->blocks->next = b;
		}
	}
	memcpy(b->text + b->used, key, len + 1);
	b->used += len + 1;
	return b->text + b->used - len - 1;
}

static long lookup(const struct strmap *m, const char *key, uint32_t h,
		   size_t *slot)
{
	size_t s = h & (m->nslots - 1);

	for (; m->table[s].idx1; s = (s + 1) & (m->nslots - 1))
		if (m->table[s].hash == h &&
		    strcmp(m->keys[m->table[s].idx1 - 1], key) == 0)
			return (long)m->table[s].idx1 - 1;
	*slot = s;
	return -1;
}

long strmap_intern(struct strmap *m, const char *key)
{
	size_t len, s;
	uint32_t h = (uint32_t)hash_str(key, &len);
	long i;

	if ((m->count + 1) * 2 > m->nslots && grow(m) < 0)
		return UP_ENOMEM;
	i = lookup(m, key, h, &s);
	if (i >= 0)
		return i;
	if (m->count >= UINT32_MAX - 1)
		return up_fail(UP_ENOMEM, "out of memory");
	if (grow_array(&m->keys, &m->cap, m->count + 1, sizeof(*m->keys), 64) < 0)
		return UP_ENOMEM;
	m->keys[m->count] = copy_key(m, key, len);
	if (!m->keys[m->count])
		return up_fail(UP_ENOMEM, "out of memory");
	m->table[s] = (struct slot){ (uint32_t)m->count + 1, h };
	return (long)m->count++;
}

long strmap_find(const struct strmap *m, const char *key)
{
	size_t len, s;

	return lookup(m, key, (uint32_t)hash_str(key, &len), &s);
}

size_t strmap_count(const struct strmap *m)
{
	return m->count;
}

const char *strmap_key(const struct strmap *m, size_t index)
{
	return m->keys[index];
}
