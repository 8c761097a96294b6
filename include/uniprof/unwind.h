/* Stack walking. A walk never trusts the guest: it has a depth limit, a
 * stack-bounds check and loop detection, and when it stops early it says
 * why, so a truncated stack is reported as truncated. */
#ifndef UNIPROF_UNWIND_H
#define UNIPROF_UNWIND_H

#include <stdint.h>
#include "memory.h"

#ifdef __cplusplus
extern "C" {
#endif

#define UP_UNWIND_DEFAULT_MAX_DEPTH 128
#define UP_UNWIND_MAX_DEPTH_LIMIT 4096
#define UP_UNWIND_DEFAULT_MAX_STACK (8u << 20)

enum up_trunc {
	UP_TRUNC_NONE = 0,     /* complete: the chain ended on a zero link */
	UP_TRUNC_DEPTH,        /* depth limit reached */
	UP_TRUNC_LOOP,         /* frame pointer did not strictly increase */
	UP_TRUNC_BOUNDS,       /* frame pointer left the stack bounds */
	UP_TRUNC_ALIGN,        /* misaligned frame pointer */
	UP_TRUNC_UNREADABLE,   /* stack memory not mapped */
	UP_TRUNC_NO_REGS,      /* registers unavailable */
};

const char *up_trunc_name(enum up_trunc t);

struct up_unwind_opts {
	unsigned max_depth;        /* frames incl. IP; 0: default */
	uint64_t max_stack_bytes;  /* FP must stay within [sp, sp+this) */
};

struct up_stack {
	uint64_t *frames;   /* frames[0] = IP, then return addresses */
	unsigned depth;
	unsigned capacity;  /* caller-provided storage, >= max_depth */
	enum up_trunc trunc;
};

/* Frame-pointer walk for x86_64: IP first, then return addresses along the
 * RBP chain. Needs out->frames with capacity >= the depth limit. */
int up_unwind_fp(struct up_mem *m, const struct up_regs *regs,
		 const struct up_unwind_opts *opts, struct up_stack *out);

#ifdef __cplusplus
}
#endif
#endif
