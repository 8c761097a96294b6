/* An open-addressing table of (key, kind) -> text, 16 bytes a slot, at
 * most 3/4 full; the texts side by side in blocks that never move (no
 * copy as they grow, at most one block's slack). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "util/text_memo.h"

#define BLOCK_BITS 20                   /* 1 MiB: a text never spans two */
#define BLOCK_SIZE ((size_t)1 << BLOCK_BITS)

struct memo_slot {
	uint64_t key;
	uint32_t at;            /* block << BLOCK_BITS | offset in it */
	uint16_t len;
	uint8_t kind1;          /* kind + 1; 0: empty */
	uint8_t tag;
};

struct text_memo {
	struct memo_slot *slots;
	size_t nslots, used, max_entries;
	char **blocks;
	size_t nblocks, block_used, bytes, max_bytes;
};

struct text_memo *text_memo_new(size_t max_entries, size_t max_bytes)
{
	struct text_memo *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->max_entries = max_entries;
	/* Offsets are 32 bits: 2 GiB of texts fill fewer than 4096 blocks
	 * (each at least BLOCK_SIZE - TEXT_MEMO_MAX_LEN full). */
	m->max_bytes = max_bytes < ((size_t)1 << 31) ? max_bytes : (size_t)1 << 31;
	return m;
}

void text_memo_free(struct text_memo *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nblocks; i++)
		free(m->blocks[i]);
	free(m->blocks);
	free(m->slots);
	free(m);
}

static struct memo_slot *slot_of(const struct text_memo *m, uint64_t key,
				 unsigned kind)
{
	uint64_t h = (key ^ (uint64_t)kind << 56) * 0x9e3779b97f4a7c15ULL;
	size_t i = (size_t)(h >> 20) & (m->nslots - 1);

	while (m->slots[i].kind1 &&
	       (m->slots[i].key != key || m->slots[i].kind1 != kind + 1))
		i = (i + 1) & (m->nslots - 1);
	return &m->slots[i];
}

const char *text_memo_get(const struct text_memo *m, uint64_t key,
			  unsigned kind, size_t *len, unsigned *tag)
{
	const struct memo_slot *s;

	if (!m || !m->nslots || kind > TEXT_MEMO_MAX_KIND)
		return NULL;
	s = slot_of(m, key, kind);
	if (!s->kind1)
		return NULL;
	*len = s->len;
	*tag = s->tag;
	return m->blocks[s->at >> BLOCK_BITS] + (s->at & (BLOCK_SIZE - 1));
}

/* Room for one more slot: doubled (rehashed) at 3/4. */
static bool slots_room(struct text_memo *m)
{
	struct memo_slot *old = m->slots;
	size_t n = m->nslots;

	if (n && (m->used + 1) * 4 < n * 3)
		return true;
	m->slots = calloc(n ? n * 2 : 1024, sizeof(*m->slots));
	if (!m->slots) {
		m->slots = old;
		return false;
	}
	m->nslots = n ? n * 2 : 1024;
	for (size_t i = 0; i < n; i++)
		if (old[i].kind1)
			*slot_of(m, old[i].key, old[i].kind1 - 1u) = old[i];
	free(old);
	return true;
}

/* Where len more bytes go (a new block when the last is full), or NULL:
 * a memo that cannot grow only keeps less, so no error is set. */
static char *text_room(struct text_memo *m, size_t len, uint32_t *at)
{
	if (!m->nblocks || m->block_used + len > BLOCK_SIZE) {
		char **b = realloc(m->blocks, (m->nblocks + 1) * sizeof(*b));

		if (!b)
			return NULL;
		m->blocks = b;
		b[m->nblocks] = malloc(BLOCK_SIZE);
		if (!b[m->nblocks])
			return NULL;
		m->nblocks++;
		m->block_used = 0;
	}
	*at = (uint32_t)((m->nblocks - 1) << BLOCK_BITS | m->block_used);
	return m->blocks[m->nblocks - 1] + m->block_used;
}

bool text_memo_put(struct text_memo *m, uint64_t key, unsigned kind,
		   const char *text, size_t len, unsigned tag)
{
	struct memo_slot *s;
	uint32_t at;
	char *to;

	if (!m || kind > TEXT_MEMO_MAX_KIND || len > TEXT_MEMO_MAX_LEN ||
	    tag > TEXT_MEMO_MAX_TAG || m->used >= m->max_entries ||
	    len > m->max_bytes - m->bytes || !slots_room(m))
		return false;
	s = slot_of(m, key, kind);
	if (s->kind1 || !(to = text_room(m, len, &at)))
		return false;
	memcpy(to, text, len);
	*s = (struct memo_slot){ key, at, (uint16_t)len, (uint8_t)(kind + 1),
				 (uint8_t)tag };
	m->block_used += len;
	m->bytes += len;
	m->used++;
	return true;
}
