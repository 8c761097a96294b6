/* x86 page walks. The walk is driven by a description of the paging mode,
 * so 5-level, PAE and 2-level modes are a table entry plus tests, not a new
 * walker. Only x86_64 4-level is enabled today. Entries are read afresh on
 * every walk: the guest may remap at any time between pauses. */
#include "config.h"

#include "util/error_impl.h"
#include "x86.h"
#include "private.h"

#define PTE_PRESENT (1ULL << 0)
#define PTE_PS (1ULL << 7)
#define ADDR_MASK_52 0x000ffffffffff000ULL

struct paging_mode {
	const char *name;
	unsigned levels;
	unsigned va_bits;                /* canonical width */
	unsigned shift[5];               /* top level first */
	unsigned entry_bytes;
	uint64_t addr_mask;
	unsigned large_ok;               /* bit i: PS honoured at level i
					    (0 = top) */
};

static const struct paging_mode x86_64_4level = {
	.name = "x86_64 4-level",
	.levels = 4,
	.va_bits = 48,
	.shift = { 39, 30, 21, 12 },
	.entry_bytes = 8,
	.addr_mask = ADDR_MASK_52,
	.large_ok = (1u << 1) | (1u << 2),    /* 1 GiB and 2 MiB pages */
};

static int canonical(uint64_t va, unsigned bits)
{
	int64_t s = (int64_t)(va << (64 - bits)) >> (64 - bits);

	return (uint64_t)s == va;
}

static uint64_t read_entry(const uint8_t *page, unsigned idx, unsigned bytes)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < bytes; i++)
		v |= (uint64_t)page[idx * bytes + i] << (8 * i);
	return v;
}

static int walk(struct frame_cache *c, const struct paging_mode *m,
		const struct up_regs *regs, uint64_t va, uint64_t *frame)
{
	uint64_t table = (regs->cr3 & m->addr_mask) >> UP_PAGE_SHIFT;
	const uint8_t *page;
	int rc;

	if (!canonical(va, m->va_bits))
		return up_fail(UP_EFAULT, "address %#llx is not canonical",
			       (unsigned long long)va);
	for (unsigned lvl = 0; lvl < m->levels; lvl++) {
		unsigned bits = lvl + 1 < m->levels ?
				m->shift[lvl] - m->shift[lvl + 1] : 9;
		unsigned idx = (unsigned)(va >> m->shift[lvl]) &
			       ((1u << bits) - 1);
		uint64_t pte;

		rc = frame_cache_get(c, regs->frame_kind, table, &page);
		if (rc < 0)
			return rc;
		pte = read_entry(page, idx, m->entry_bytes);
		if (!(pte & PTE_PRESENT))
			return up_fail(UP_EFAULT,
				       "address %#llx not mapped (level %u entry)",
				       (unsigned long long)va, m->levels - lvl);
		if (lvl + 1 < m->levels && (pte & PTE_PS)) {
			uint64_t span;

			if (!(m->large_ok & (1u << lvl)))
				return up_fail(UP_EFAULT,
					       "reserved large-page bit at level %u",
					       m->levels - lvl);
			span = 1ULL << (m->shift[lvl] - UP_PAGE_SHIFT);
			*frame = (((pte & m->addr_mask) >> UP_PAGE_SHIFT) &
				  ~(span - 1)) |
				 ((va >> UP_PAGE_SHIFT) & (span - 1));
			return 0;
		}
		table = (pte & m->addr_mask) >> UP_PAGE_SHIFT;
	}
	*frame = table;
	return 0;
}

int x86_translate(struct frame_cache *c, const struct up_regs *regs,
		  uint64_t va, uint64_t *frame)
{
	switch (regs->paging) {
	case UP_PAGING_X86_64:
		return walk(c, &x86_64_4level, regs, va, frame);
	case UP_PAGING_X86_64_LA57:
		return up_fail(UP_EUNSUPP,
			       "5-level paging guests are not supported yet");
	case UP_PAGING_X86_PAE:
		return up_fail(UP_EUNSUPP,
			       "32-bit PAE guests are not supported yet");
	case UP_PAGING_X86_32:
		return up_fail(UP_EUNSUPP,
			       "32-bit non-PAE guests are not supported yet");
	default:
		break;
	}
	return up_fail(UP_EUNSUPP, "unknown paging mode %d", (int)regs->paging);
}
