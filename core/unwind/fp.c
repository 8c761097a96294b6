/* Frame-pointer unwinding (x86_64's rbp chain, AArch64's x29 frame
 * records). Each frame: [fp] = caller's fp, [fp+8] = return address. The
 * chain must stay inside [sp, sp+max_stack), be 8-byte aligned and
 * strictly increase, so a hostile or corrupt stack ends the walk (marked
 * truncated) instead of looping or wandering. */
#include "config.h"

#include <string.h>

#include "util/error_impl.h"
#include "unwind/kernel_map.h"
#include "uniprof/sys/unwind.h"
#include "mem/memory.h"

const char *up_trunc_name(enum up_trunc t)
{
	switch (t) {
	case UP_TRUNC_NONE: return "complete";
	case UP_TRUNC_DEPTH: return "depth limit";
	case UP_TRUNC_LOOP: return "frame pointer loop";
	case UP_TRUNC_BOUNDS: return "frame pointer out of stack bounds";
	case UP_TRUNC_ALIGN: return "misaligned frame pointer";
	case UP_TRUNC_UNREADABLE: return "stack not readable";
	case UP_TRUNC_NO_REGS: return "registers unavailable";
	case UP_TRUNC_NO_UNWIND_INFO: return "no unwind information";
	case UP_TRUNC_UNSUPPORTED: return "unsupported unwind rule";
	case UP_TRUNC_BAD_CFA: return "unwind rule points down the stack";
	case UP_TRUNC_OUTSIDE_TEXT: return "return address outside the kernel's code";
	case UP_TRUNC_HYPERCALL_STUB: return "inside a hypercall stub it cannot return from";
	case UP_TRUNC_BUDGET: return "unwinder step budget spent";
	case UP_TRUNC_RACED: return "stack moved while walked (relaxed)";
	case UP_TRUNC_UNRECORDED: return "not recorded";
	case UP_TRUNC_COUNT: break;
	}
	return "unknown";
}

enum up_trunc up_trunc_from_name(const char *name)
{
	for (int t = UP_TRUNC_NONE; t < UP_TRUNC_UNRECORDED; t++)
		if (strcmp(name, up_trunc_name((enum up_trunc)t)) == 0)
			return (enum up_trunc)t;
	return UP_TRUNC_UNRECORDED;
}

int up_unwind_fp(struct up_mem *m, const struct up_regs *regs,
		 const struct up_unwind_opts *opts, struct up_stack *out)
{
	unsigned max_depth = opts && opts->max_depth ? opts->max_depth :
			     UP_UNWIND_DEFAULT_MAX_DEPTH;
	uint64_t max_stack = opts && opts->max_stack_bytes ?
			     opts->max_stack_bytes : UP_UNWIND_DEFAULT_MAX_STACK;
	const struct up_kernel_map *k = opts ? opts->kernel : NULL;
	uint64_t lo = regs->sp, hi = regs->sp + max_stack;
	uint64_t fp = regs->fp, prev = 0;

	if (max_depth > out->capacity)
		return up_fail(UP_EINVAL, "stack buffer smaller than depth limit");
	if (max_depth > UP_UNWIND_MAX_DEPTH_LIMIT)
		return up_fail(UP_EINVAL, "depth limit %u above %u", max_depth,
			       UP_UNWIND_MAX_DEPTH_LIMIT);
	if (hi < lo)               /* sp near the top of the address space */
		hi = UINT64_MAX;
	out->depth = 0;
	out->trunc = UP_TRUNC_NONE;
	out->frames[out->depth++] = regs->ip;
	if (up_kernel_map_is_entry(k, regs->ip))
		return 0;
	/* A stub of the hypercall page sets up no frame: its caller is found
	 * by the stub's layout, then the rbp chain (untouched) goes on. */
	if (kernel_in_hypercall(m, regs, k, regs->ip)) {
		uint64_t ip = regs->ip, sp = regs->sp;

		if (kernel_hypercall_step(m, regs, k, opts->domain_type, &ip,
					  &sp, &out->trunc) < 0 ||
		    kernel_keep_return(k, out, max_depth, ip))
			return 0;
	}

	for (;;) {
		uint64_t next, ret;

		/* The outermost frame; but where the code keeps no frame
		 * pointers, a zero there says nothing about the stack. */
		if (fp == 0) {
			if (up_kernel_map_frame_pointers(k) == UP_FP_OMITTED)
				out->trunc = UP_TRUNC_NO_UNWIND_INFO;
			return 0;
		}
		if (fp & 7) {
			out->trunc = UP_TRUNC_ALIGN;
			return 0;
		}
		if (fp < lo || fp > hi - 16) {
			out->trunc = UP_TRUNC_BOUNDS;
			return 0;
		}
		if (prev && fp <= prev) {
			out->trunc = UP_TRUNC_LOOP;
			return 0;
		}
		if (up_mem_read_u64(m, regs, fp, &next) < 0 ||
		    up_mem_read_u64(m, regs, fp + 8, &ret) < 0) {
			out->trunc = UP_TRUNC_UNREADABLE;
			return 0;
		}
		/* Entry code pushed a zero, or an outermost function. */
		if (kernel_keep_return(k, out, max_depth, ret))
			return 0;
		prev = fp;
		fp = next;
	}
}
