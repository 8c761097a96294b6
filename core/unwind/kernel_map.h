/* The kernel map's layout (see include/uniprof/sys/kernel.h), and the unwind
 * steps that use it, shared by the frame-pointer, CFI and libunwind walks. */
#ifndef UP_KERNEL_MAP_H
#define UP_KERNEL_MAP_H

#include <stdint.h>
#include "uniprof/sys/kernel.h"
#include "uniprof/target.h"
#include "uniprof/sys/unwind.h"
#include "mem/memory.h"

struct kernel_range {
	uint64_t lo, hi;
};

struct up_kernel_map {
	struct kernel_range text[UP_KERNEL_MAX_TEXT];
	size_t nr_text;
	/* The image's executable PT_LOADs, for the pprof mappings. */
	struct up_kernel_segment seg[UP_KERNEL_MAX_TEXT];
	size_t nr_seg;
	char *image;            /* the path they were read from, or NULL */
	struct kernel_range entry[UP_KERNEL_MAX_ENTRIES];
	size_t nr_entry;
	uint64_t hypercall_page;
	enum up_frame_pointers frame_pointers;
	const struct up_symtab *functions;   /* borrowed; NULL: none */
};

#define HYPERCALL_STUB_SIZE 32

/* A walk's frame pointer when it holds none (past an interrupt that did
 * not say where the interrupted code's is). */
#define UP_FP_NOT_HELD UINT64_MAX

static inline bool kernel_in_hypercall_page(const struct up_kernel_map *k,
					    uint64_t ip)
{
	return k && k->hypercall_page &&
	       ip - k->hypercall_page < (uint64_t)UP_PAGE_SIZE;
}

/* Whether ip is in a hypercall stub that sets up no frame (the
 * architecture's test: a page Xen wrote, or the instruction before). */
bool kernel_in_hypercall(struct up_mem *m, const struct up_regs *regs,
			 const struct up_kernel_map *k, uint64_t ip);

/* Whether the vCPU stopped just after the trap of SCHEDOP_block or poll
 * (the architecture's test): it ran no guest code since, whatever Xen
 * says of it a moment later. */
bool kernel_at_block(struct up_mem *m, const struct up_regs *regs,
		     const struct up_kernel_map *k, enum up_domain_type type);
/* Whether the architecture has that test: if not, only the hypervisor
 * can say whether a vCPU is blocked. */
bool kernel_can_tell_block(const struct up_regs *regs);

/* Keep a return address the walk found: a zero one ends the stack whole,
 * one outside the kernel's code or past the depth limit ends it truncated
 * (not kept), one inside an outermost function is kept and ends it whole.
 * Returns 1 when the walk is over (out->trunc says how), else 0. */
static inline int kernel_keep_return(const struct up_kernel_map *k,
				     struct up_stack *out, unsigned max_depth,
				     uint64_t ra)
{
	if (ra == 0)
		return 1;
	if (!up_kernel_map_in_text(k, ra)) {
		out->trunc = UP_TRUNC_OUTSIDE_TEXT;
		return 1;
	}
	if (out->depth >= max_depth) {
		out->trunc = UP_TRUNC_DEPTH;
		return 1;
	}
	out->frames[out->depth++] = ra;
	return up_kernel_map_is_entry(k, ra - 1);
}

/* One frame out of a hypercall stub, which sets up no frame: from the pc's
 * offset in its stub, where the return address is (the stub's layout is
 * the architecture's and the domain type's; arch/x86/hypercall_stub.c).
 * Returns 0 with the caller's ip and sp, -1 with *trunc set. */
/* Out of an event upcall's or interrupt's entry code to the frame it
 * interrupted (struct arch's interrupted_step): *ip, *sp, and 1 with *fp,
 * 0 without; -1: none; -2: one the walk cannot prove (cut there). fp_held:
 * *fp is the rbp the walk holds there. */
int kernel_interrupted_step(struct up_mem *m, const struct up_regs *regs,
			    const struct up_kernel_map *k,
			    enum up_domain_type type, uint64_t *ip, uint64_t *sp,
			    uint64_t *fp, bool fp_held);

/* Whether the instruction before return address ra is a call (true
 * where the architecture cannot tell; false where the code is not mapped
 * and a kernel map is known). */
bool kernel_after_call(struct up_mem *m, const struct up_regs *regs,
		       const struct up_kernel_map *k, uint64_t ra);

int kernel_hypercall_step(struct up_mem *m, const struct up_regs *regs,
			  const struct up_kernel_map *k,
			  enum up_domain_type type, uint64_t *ip, uint64_t *sp,
			  enum up_trunc *trunc);

#endif
