/* What both ways of taking a sample share: one stack
 * walk with the configured unwinder, inside the window the guest stands
 * still (nothing here allocates or symbolizes). */
#include "config.h"

#include "sampler/sampler_impl.h"
#include "mem/memory.h"

int sampler_walk(struct up_mem *mem, const struct up_regs *regs,
		 const struct up_sampler_config *c,
		 const struct up_unwind_opts *uo, struct up_stack *st,
		 struct up_unwind_counts *counts)
{
	if (c->unwinder == UP_UNWINDER_FP) {
		int rc = up_unwind_fp(mem, regs, uo, st);

		counts->fp += rc == 0 ? st->depth - 1 : 0;
		return rc;
	}
	if (c->unwinder == UP_UNWINDER_LIBUNWIND) {
		int rc = up_unwind_libunwind(mem, regs, c->libunwind, uo, st);

		counts->libunwind += rc == 0 ? st->depth - 1 : 0;
		return rc;
	}
	return up_unwind_cfi(mem, regs, c->cfi, uo,
			     c->unwinder == UP_UNWINDER_AUTO, st, counts);
}
