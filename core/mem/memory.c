/* Guest virtual memory reads: page walk + frame cache, with a tiny TLB that
 * lives only for one pause (the guest cannot remap while paused). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "util/error_impl.h"
#include "mem/frame_cache.h"
#include "mem/memory_log.h"
#include "mem/paging.h"
#include "mem/memory.h"

#define TLB_SIZE 16

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "guest words are read as host words: a little-endian host is required"
#endif

struct tlb_entry {
	uint64_t vpage;    /* va >> 12, plus 1 so 0 means empty */
	uint64_t root;     /* cr3 | kind | paging, to tell vCPUs apart */
	uint64_t ttbr1, tcr;   /* AArch64's other two (0 on x86) */
	uint64_t frame;    /* a frame, not a pointer: the cache may evict */
};

struct up_mem {
	struct frame_cache *cache;
	struct tlb_entry tlb[TLB_SIZE];
	struct mem_log *log;   /* relaxed sampling: words read, to check */
};

int up_mem_new(struct up_mem **out, struct up_target *t, size_t cache_frames)
{
	struct up_mem *m = calloc(1, sizeof(*m));
	int rc;

	if (!m)
		return up_fail(UP_ENOMEM, "out of memory");
	rc = frame_cache_new(&m->cache, t, cache_frames);
	if (rc < 0) {
		free(m);
		return rc;
	}
	*out = m;
	return 0;
}

void up_mem_free(struct up_mem *m)
{
	if (!m)
		return;
	frame_cache_free(m->cache);
	free(m);
}

void up_mem_new_sample(struct up_mem *m)
{
	memset(m->tlb, 0, sizeof(m->tlb));
	frame_cache_new_sample(m->cache);
}

int up_mem_translate(struct up_mem *m, const struct up_regs *regs,
		     uint64_t va, uint64_t *frame)
{
	return paging_translate(m->cache, regs, va, frame);
}

static uint64_t root_tag(const struct up_regs *regs)
{
	return regs->cr3 ^ ((uint64_t)regs->paging << 1) ^ regs->frame_kind;
}

/* The mapped page holding va. */
static int page_for(struct up_mem *m, const struct up_regs *regs,
		    uint64_t va, const uint8_t **page)
{
	uint64_t vpage = (va >> UP_PAGE_SHIFT) + 1, root = root_tag(regs);
	struct tlb_entry *e = &m->tlb[vpage % TLB_SIZE];
	uint64_t frame;
	int rc;

	if (e->vpage == vpage && e->root == root && e->ttbr1 == regs->ttbr1 &&
	    e->tcr == regs->tcr)
		return frame_cache_get(m->cache, regs->frame_kind, e->frame,
				       page);
	rc = paging_translate(m->cache, regs, va, &frame);
	if (rc < 0)
		return rc;
	rc = frame_cache_get(m->cache, regs->frame_kind, frame, page);
	if (rc < 0)
		return rc;
	e->vpage = vpage;
	e->root = root;
	e->ttbr1 = regs->ttbr1;
	e->tcr = regs->tcr;
	e->frame = frame;
	return 0;
}

int up_mem_read(struct up_mem *m, const struct up_regs *regs, uint64_t va,
		void *buf, size_t len)
{
	uint8_t *out = buf;

	while (len > 0) {
		size_t off = va & (UP_PAGE_SIZE - 1);
		size_t n = UP_PAGE_SIZE - off;
		const uint8_t *page;
		int rc;

		if (n > len)
			n = len;
		rc = page_for(m, regs, va, &page);
		if (rc < 0)
			return rc;
		memcpy(out, page + off, n);
		out += n;
		va += n;
		len -= n;
	}
	return 0;
}

/* The unwinders' one read, twice a frame in the paused window: a word
 * within one page (the common case) is a single lookup and load. Guest and
 * host are both little-endian x86_64. */
int up_mem_read_u64(struct up_mem *m, const struct up_regs *regs,
		    uint64_t va, uint64_t *val)
{
	const uint8_t *page;
	int rc;

	if ((va & (UP_PAGE_SIZE - 1)) > UP_PAGE_SIZE - sizeof(*val)) {
		rc = up_mem_read(m, regs, va, val, sizeof(*val));
	} else {
		rc = page_for(m, regs, va, &page);
		if (rc == 0)
			memcpy(val, page + (va & (UP_PAGE_SIZE - 1)),
			       sizeof(*val));
	}
	if (rc < 0)
		return rc;
	if (m->log) {
		if (m->log->n < m->log->cap)
			m->log->e[m->log->n++] =
				(struct mem_log_entry){ va, *val };
		else
			m->log->overflow = true;
	}
	return 0;
}

void mem_log_start(struct up_mem *m, struct mem_log *log)
{
	log->n = 0;
	log->overflow = false;
	m->log = log;
}

void mem_log_stop(struct up_mem *m)
{
	m->log = NULL;
}

void up_mem_get_stats(const struct up_mem *m, struct up_mem_stats *st)
{
	frame_cache_stats(m->cache, st);
}
