/* Guest page-table walks, one table per paging mode. */
#ifndef UP_PAGING_H
#define UP_PAGING_H

#include <stdint.h>
#include "mem/frame_cache.h"
#include "private.h"

/* Translate va with the guest's live page tables; *frame is of kind
 * regs->frame_kind. */
int paging_translate(struct frame_cache *c, const struct up_regs *regs,
		     uint64_t va, uint64_t *frame);

#endif
