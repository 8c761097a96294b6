/* Guest page walks: paging off is the same everywhere, the rest is the
 * architecture's (arch/<arch>/paging.c). */
#include "config.h"

#include "arch/arch.h"
#include "util/error_impl.h"
#include "mem/paging.h"
#include "private.h"

int paging_translate(struct frame_cache *c, const struct up_regs *regs,
		     uint64_t va, uint64_t *frame)
{
	const struct arch *a;

	if (regs->paging == UP_PAGING_NONE) {
		if (regs->frame_kind != UP_FRAME_GFN)
			return up_fail(UP_EUNSUPP,
				       "paging disabled on a PV vCPU");
		*frame = va >> UP_PAGE_SHIFT;
		return 0;
	}
	a = arch_get(regs->arch);
	if (!a)
		return up_fail(UP_EUNSUPP, "unknown architecture %d",
			       (int)regs->arch);
	return a->translate(c, regs, va, frame);
}
