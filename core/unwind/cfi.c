/* Unwinding with the precompiled CFI table, frame by frame, falling back
 * to libunwind where a rule is beyond the table, to the hypercall page's
 * known layout inside it, and to the frame pointer where the table has
 * nothing and the kernel keeps frame pointers (-u auto). The same guards as
 * the FP walk: the stack pointer must strictly rise and stay in bounds,
 * return addresses must be in the kernel's code, the depth is limited, a
 * stop says why. A stack is whole only by the code's own word: undefined
 * return address in the CFI, a zero return address, an outermost function,
 * rbp == 0 where frame pointers are kept, or a thread trampoline's mark in
 * a frame without CFI (rbp as the CFI below recovered it, and the slot
 * above its return address, zero). An event upcall's entry code without
 * CFI is left through the frame it interrupted (the architecture finds
 * it), at most MAX_UPCALLS times in a walk. */
#include "config.h"

#include "unwind/cfi_table.h"
#include "util/error_impl.h"
#include "unwind/kernel_map.h"
#include "uniprof/sys/unwind.h"
#include "mem/memory.h"

/* Upcalls nest (an event during an event's handler) but not deeply; each
 * one moves the walk to a stack of its own, so this bounds the walk too. */
#define MAX_UPCALLS 4

struct walk {
	struct up_mem *m;
	const struct up_regs *regs;
	uint64_t lo, hi;
	uint64_t ip, sp, fp;
	/* fp is what the code held (false past an upcall that did not say:
	 * a rule that needs it cuts the walk). */
	bool fp_known;
};

/* One frame through the frame pointer: [fp] = caller's fp, [fp+8] = return
 * address, caller's sp = fp + 16. Returns 1 at the outermost frame. */
static int fp_step(struct walk *w, enum up_trunc *trunc)
{
	uint64_t next, ret;

	if (w->fp == 0)
		return 1;
	if (w->fp & 7) {
		*trunc = UP_TRUNC_ALIGN;
		return -1;
	}
	if (w->fp < w->sp || w->fp < w->lo || w->fp > w->hi - 16) {
		*trunc = UP_TRUNC_BOUNDS;
		return -1;
	}
	if (up_mem_read_u64(w->m, w->regs, w->fp, &next) < 0 ||
	    up_mem_read_u64(w->m, w->regs, w->fp + 8, &ret) < 0) {
		*trunc = UP_TRUNC_UNREADABLE;
		return -1;
	}
	w->sp = w->fp + 16;
	w->ip = ret;
	w->fp = next;
	return 0;
}

/* A frame without CFI, reached through CFI, that is a thread trampoline:
 * rbp, as the CFI below recovered it, zero (the psABI's mark of the
 * outermost frame) and the trampoline's own return address slot, just
 * above the one it called with, zero too (Mini-OS's thread_starter
 * pushes it). rbp alone is a general register in code without frame
 * pointers: an event upcall's stub passes on whatever the code it
 * interrupted held there, zero included, and its slot holds a saved
 * register or the interrupted frame, not a pushed zero. */
static bool trampoline(struct walk *w)
{
	uint64_t slot;

	return w->fp_known && w->fp == 0 &&
	       up_mem_read_u64(w->m, w->regs, w->sp, &slot) == 0 && slot == 0;
}

static int cfi_step(struct walk *w, const struct cfi_row *r, bool first,
		    enum up_trunc *trunc)
{
	uint64_t base = r->cfa_reg == CFI_CFA_SP ? w->sp : w->fp;
	uint64_t cfa = base + (uint64_t)(int64_t)r->cfa_off, ra, fp = w->fp;
	bool in_lr = r->ra_rule == CFI_RA_IN_LR;

	/* The link register holds the interrupted frame's return address;
	 * a caller's has been overwritten by the calls since. */
	if (in_lr && !first) {
		*trunc = UP_TRUNC_UNSUPPORTED;
		return -1;
	}
	/* Each caller's frame lies above its callee's: a CFA at or below sp
	 * would walk down or in place, i.e. loop. A leaf that keeps its
	 * return address in the link register may leave sp where it was:
	 * the walk still moves on, from a frame it only leaves once. */
	if (r->cfa_reg != CFI_CFA_SP && !w->fp_known) {
		*trunc = UP_TRUNC_UNSUPPORTED;
		return -1;
	}
	if (cfa < w->sp || (cfa == w->sp && !in_lr)) {
		*trunc = UP_TRUNC_BAD_CFA;
		return -1;
	}
	if (cfa < w->lo || cfa > w->hi) {
		*trunc = UP_TRUNC_BOUNDS;
		return -1;
	}
	if (in_lr)
		ra = w->regs->lr;
	if ((!in_lr &&
	     up_mem_read_u64(w->m, w->regs, cfa + (uint64_t)(int64_t)r->ra_off, &ra) < 0) ||
	    (r->fp_rule == CFI_FP_AT_CFA &&
	     up_mem_read_u64(w->m, w->regs, cfa + (uint64_t)(int64_t)r->fp_off, &fp) < 0)) {
		*trunc = UP_TRUNC_UNREADABLE;
		return -1;
	}
	w->sp = cfa;
	w->ip = ra;
	w->fp = fp;
	w->fp_known |= r->fp_rule == CFI_FP_AT_CFA;
	return 0;
}

int up_unwind_cfi(struct up_mem *m, const struct up_regs *regs,
		  const struct up_cfi_table *t, const struct up_unwind_opts *opts,
		  bool fp_fallback, struct up_stack *out,
		  struct up_unwind_counts *counts)
{
	unsigned max_depth = opts && opts->max_depth ? opts->max_depth :
			     UP_UNWIND_DEFAULT_MAX_DEPTH;
	uint64_t max_stack = opts && opts->max_stack_bytes ?
			     opts->max_stack_bytes : UP_UNWIND_DEFAULT_MAX_STACK;
	struct walk w = { m, regs, regs->sp, regs->sp + max_stack,
			  regs->ip, regs->sp, regs->fp, true };
	const struct up_kernel_map *k = opts ? opts->kernel : NULL;
	/* rbp is a chain only in code that keeps frame pointers. */
	bool fp_chain = fp_fallback &&
			up_kernel_map_frame_pointers(k) != UP_FP_OMITTED;
	struct up_unwind_counts dummy;
	/* The walk reached this frame through CFI: its registers are the
	 * caller's as the call left them, not a leaf's at any instruction. */
	bool recovered = false;
	/* w.ip is where the code stopped (the leaf, an interrupted frame),
	 * not a return address. */
	bool exact = true;
	unsigned upcalls = 0;
	/* PVH/HVM: the CPU's interrupt frames, found only where the CPU puts
	 * them, come before the trampoline's mark (an entry stub's pushed
	 * zero and a zero rbp look like it) and before an rbp chain. PV:
	 * Xen's frame is looked for where no better rule applies. */
	bool hw_frames = opts && opts->domain_type != UP_DOMAIN_PV;

	if (!counts)
		counts = &dummy;
	if (max_depth > out->capacity || max_depth > UP_UNWIND_MAX_DEPTH_LIMIT)
		return up_fail(UP_EINVAL, "depth limit %u above the stack buffer (%u)",
			       max_depth, out->capacity);
	if (w.hi < w.lo)
		w.hi = UINT64_MAX;
	out->depth = 0;
	out->trunc = UP_TRUNC_NONE;
	out->frames[out->depth++] = regs->ip;

	for (;;) {
		/* Callers are looked up by the call instruction, not the
		 * return address after it (it may start another function). */
		uint64_t pc = exact ? w.ip : w.ip - 1;
		const struct cfi_row *r;
		enum up_trunc trunc = UP_TRUNC_NONE;
		bool interrupted = false;
		int rc;

		if (up_kernel_map_is_entry(k, pc))
			return 0;               /* an outermost function */
		r = cfi_table_find(t, pc);
		if (r && r->kind == CFI_ROW_OUTERMOST)
			return 0;
		if (!r && kernel_in_hypercall(m, regs, k, w.ip)) {
			rc = kernel_hypercall_step(m, regs, k, opts->domain_type,
						   &w.ip, &w.sp, &trunc);
			counts->hypercall += rc == 0;
		} else if (r && r->kind == CFI_ROW_NORMAL) {
			rc = cfi_step(&w, r, exact, &trunc);
			counts->cfi += rc == 0;
			recovered = true;
		} else if (r && r->kind == CFI_ROW_UNSUPPORTED && opts &&
			   opts->cfi_fallback && w.fp_known) {
			/* A rule the table cannot express: libunwind reads it
			 * from .eh_frame, for this frame only. */
			uint64_t sp = w.sp;

			counts->unsupported++;
			rc = up_libunwind_step(m, regs, opts->cfi_fallback,
					       exact, &w.ip, &w.sp,
					       &w.fp, &trunc);
			if (rc == 0 && (w.sp <= sp || w.sp > w.hi)) {
				trunc = w.sp <= sp ? UP_TRUNC_BAD_CFA : UP_TRUNC_BOUNDS;
				rc = -1;
			}
			counts->libunwind += rc == 0;
			recovered = true;
		} else if (!r && opts && upcalls < MAX_UPCALLS &&
			   (hw_frames || (!fp_chain && !(recovered && trampoline(&w)))) &&
			   (rc = kernel_interrupted_step(m, regs, k, opts->domain_type,
							 &w.ip, &w.sp, &w.fp,
							 w.fp_known)) != -1) {
			if (rc < 0) {
				/* An interrupt frame the CPU did not put there
				 * as far as we can tell: cut, not whole. */
				trunc = UP_TRUNC_NO_UNWIND_INFO;
				rc = -1;
			} else {
				/* On the interrupted code's stack, at its pc: no
				 * return address, so no zero one ends the walk
				 * there. */
				upcalls++;
				w.fp_known = rc == 1;
				w.lo = w.sp;
				w.hi = w.sp + max_stack < w.sp ? UINT64_MAX :
				       w.sp + max_stack;
				recovered = false;
				interrupted = true;
				rc = 0;
			}
		} else if (!r && recovered && trampoline(&w)) {
			return 0;
		} else {
			if (r)
				counts->unsupported++;
			if (fp_chain) {
				rc = fp_step(&w, &trunc);
				counts->fp += rc == 0;
				recovered = false;
			} else {
				/* No CFI, and rbp says nothing here: an honest
				 * truncation rather than a guess. */
				trunc = r ? UP_TRUNC_UNSUPPORTED : UP_TRUNC_NO_UNWIND_INFO;
				rc = -1;
			}
		}
		exact = interrupted;
		if (rc > 0 || (rc == 0 && w.ip == 0 && !interrupted))
			return 0;
		if (rc < 0) {
			out->trunc = trunc;
			return 0;
		}
		if (!up_kernel_map_in_text(k, w.ip)) {
			out->trunc = UP_TRUNC_OUTSIDE_TEXT;
			return 0;
		}
		if (out->depth >= max_depth) {
			out->trunc = UP_TRUNC_DEPTH;
			return 0;
		}
		out->frames[out->depth++] = w.ip;
	}
}
