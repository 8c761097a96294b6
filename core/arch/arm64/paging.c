/* AArch64 stage-1 walks (EL1&0 regime), 4 KiB granule: the half of the
 * address space (TTBR0_EL1 below, TTBR1_EL1 above) and its size come from
 * TCR_EL1, the levels from the size (48-bit: levels 0-3, 39-bit: 1-3),
 * with blocks at levels 1 and 2. 16 and 64 KiB granules, 52-bit addresses
 * and tables that live outside the guest's RAM are refused by name. The
 * guest writes every value read here: each is checked before use. */
#include "config.h"

#include "arm64.h"
#include "util/error_impl.h"
#include "private.h"

#define TCR_T0SZ(t) ((unsigned)((t) & 0x3f))
#define TCR_EPD0 (1ULL << 7)
#define TCR_TG0(t) ((unsigned)(((t) >> 14) & 3))
#define TCR_T1SZ(t) ((unsigned)(((t) >> 16) & 0x3f))
#define TCR_EPD1 (1ULL << 23)
#define TCR_TG1(t) ((unsigned)(((t) >> 30) & 3))
#define TCR_TBI0 (1ULL << 37)
#define TCR_TBI1 (1ULL << 38)
#define TCR_DS (1ULL << 59)
#define TG0_4K 0
#define TG1_4K 2

#define DESC_VALID (1ULL << 0)
#define DESC_TABLE (1ULL << 1)      /* table (levels 0-2) or page (3) */
#define OA_MASK 0x0000fffffffff000ULL   /* bits 47:12 */
#define TTBR_BADDR 0x0000fffffffffffeULL  /* bits 47:1 */

/* The 4 KiB-granule sizes the architecture allows without FEAT_TTST
 * (TxSZ 16..39: 48- down to 25-bit halves). */
#define MIN_TXSZ 16
#define MAX_TXSZ 39

static uint64_t read_le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* Which half va is in, and that half's size and table; -1 with the
 * error when TCR_EL1 says something this walk does not do, or va is in
 * neither half. */
static int select_half(const struct up_regs *regs, uint64_t va,
		       unsigned *va_bits, uint64_t *table)
{
	uint64_t tcr = regs->tcr;
	bool upper = (va >> 55) & 1;
	unsigned txsz = upper ? TCR_T1SZ(tcr) : TCR_T0SZ(tcr);
	unsigned tg = upper ? TCR_TG1(tcr) : TCR_TG0(tcr);
	bool tbi = tcr & (upper ? TCR_TBI1 : TCR_TBI0);
	uint64_t top;

	if (tcr & TCR_DS)
		return up_fail(UP_EUNSUPP,
			       "52-bit addresses (TCR_EL1.DS) are not supported yet");
	if (tg != (upper ? TG1_4K : TG0_4K))
		return up_fail(UP_EUNSUPP,
			       "the guest's %s half uses a %s granule: only 4 KiB granules are supported yet",
			       upper ? "upper" : "lower",
			       (upper ? tg == 1 : tg == 2) ? "16 KiB" :
			       (upper ? tg == 3 : tg == 1) ? "64 KiB" : "reserved");
	if (tcr & (upper ? TCR_EPD1 : TCR_EPD0))
		return up_fail(UP_EFAULT,
			       "address %#llx: walks of the guest's %s half are disabled (TCR_EL1.EPD%d)",
			       (unsigned long long)va, upper ? "upper" : "lower",
			       upper ? 1 : 0);
	if (txsz < MIN_TXSZ || txsz > MAX_TXSZ)
		return up_fail(UP_EUNSUPP,
			       "TCR_EL1.T%dSZ = %u is outside 16..39 (4 KiB granule)",
			       upper ? 1 : 0, txsz);
	*va_bits = 64 - txsz;
	/* The bits above the half's size are all 0 (lower) or all 1
	 * (upper); the top byte is ignored where TBI says so. */
	top = va >> *va_bits;
	if (tbi)
		top &= (1ULL << (56 - *va_bits)) - 1;
	if (top != (upper ? (tbi ? (1ULL << (56 - *va_bits)) - 1 :
			    UINT64_MAX >> *va_bits) : 0))
		return up_fail(UP_EFAULT,
			       "address %#llx is outside the guest's %u-bit %s half",
			       (unsigned long long)va, *va_bits,
			       upper ? "upper" : "lower");
	*table = (upper ? regs->ttbr1 : regs->cr3) & TTBR_BADDR;
	return 0;
}

int arm64_translate(struct frame_cache *c, const struct up_regs *regs,
		    uint64_t va, uint64_t *frame)
{
	/* Set by select_half when it succeeds; zeroed because gcc -O2
	 * cannot see that up_fail() returns below 0. */
	unsigned va_bits = 0, levels, level;
	uint64_t table = 0;
	int rc;

	if (regs->paging != UP_PAGING_AARCH64)
		return up_fail(UP_EUNSUPP, "unknown paging mode %d",
			       (int)regs->paging);
	rc = select_half(regs, va, &va_bits, &table);
	if (rc < 0)
		return rc;
	/* 9 bits a level above the 12-bit page offset; the first level
	 * takes what is left (1 to 9 bits). */
	levels = (va_bits - 12 + 8) / 9;
	for (level = 4 - levels; level <= 3; level++) {
		unsigned shift = 12 + 9 * (3 - level);
		unsigned bits = level == 4 - levels ? va_bits - shift : 9;
		uint64_t idx = (va >> shift) & ((1ULL << bits) - 1);
		uint64_t at = table + idx * 8, desc;
		const uint8_t *page;

		/* A first-level table smaller than a page is aligned to its
		 * size, so an entry never straddles pages. */
		rc = frame_cache_get(c, regs->frame_kind, at >> UP_PAGE_SHIFT,
				     &page);
		if (rc < 0)
			return rc;
		desc = read_le64(page + (at & (UP_PAGE_SIZE - 1) & ~7ULL));
		if (!(desc & DESC_VALID))
			return up_fail(UP_EFAULT,
				       "address %#llx not mapped (level %u descriptor)",
				       (unsigned long long)va, level);
		if (level == 3) {
			if (!(desc & DESC_TABLE))
				return up_fail(UP_EFAULT,
					       "address %#llx: reserved level 3 descriptor",
					       (unsigned long long)va);
			*frame = (desc & OA_MASK) >> UP_PAGE_SHIFT;
			return 0;
		}
		if (!(desc & DESC_TABLE)) {
			uint64_t span;

			/* Blocks: 1 GiB at level 1, 2 MiB at level 2. */
			if (level == 0)
				return up_fail(UP_EFAULT,
					       "address %#llx: block descriptor at level 0",
					       (unsigned long long)va);
			span = 1ULL << (shift - UP_PAGE_SHIFT);
			*frame = (((desc & OA_MASK) >> UP_PAGE_SHIFT) & ~(span - 1)) |
				 ((va >> UP_PAGE_SHIFT) & (span - 1));
			return 0;
		}
		table = desc & OA_MASK;
	}
	return up_fail(UP_EFAULT, "address %#llx: walk past level 3",
		       (unsigned long long)va);
}
