/* Out of a PVH or HVM guest's interrupt or exception entry code. The CPU
 * itself saved the interrupted code's place: in 64-bit mode it aligns the
 * stack to 16 bytes, pushes ss, rsp, rflags, cs, rip and, for some
 * exceptions, an error code, on the interrupted stack or on an interrupt
 * stack the TSS names (IST). The entry code (Solo5's cpu_irq_N and
 * cpu_trap_N, the test guest's tg_hvm_upcall; assembly without CFI) then
 * pushes registers of its own, in a layout of its choosing, and calls C.
 *
 * From the entry code's return address the frame is looked for a few
 * words up, field by field (rip in the kernel's code, ring 0 selectors,
 * an rflags with its fixed bits right, an aligned rsp) and then by where
 * it lies, which only the CPU decides: just below the interrupted rsp
 * (at most 15 bytes of alignment between), or at the top of one of the
 * TSS's interrupt stacks. A frame found anywhere else is not taken: the
 * walk then ends truncated rather than continue from a guess, or end
 * whole on a pushed zero that looks like a thread's first frame.
 *
 * The interrupted rbp: entry code either leaves rbp alone (Solo5's,
 * Mini-OS's: the C below restored it, so the walk holds the interrupted
 * value) or makes a frame of its own first (push %rbp; mov %rsp,%rbp:
 * the walk's rbp then points into the entry code's pushes, between its
 * return address and the CPU's frame, at the interrupted value). Without
 * an rbp from the walk, it is not known. */
#include "config.h"

#include "unwind/kernel_map.h"
#include "x86.h"
#include "mem/memory.h"

#define FRAME_BYTES 40            /* rip, cs, rflags, rsp, ss */
#define SCAN_WORDS 40             /* the entry code's pushes, at most */
#define TSS_IST1 0x24             /* IST1..IST7 in the 64-bit TSS */
#define IST_COUNT 7
/* Always clear in a 64-bit rflags: reserved bits 3, 5, 15, 22-63, and
 * VM (17); bit 1 is always set. */
#define RFLAGS_CLEAR (0x8028ULL | 1ULL << 17 | ~0x3fffffULL)
#define RFLAGS_SET 0x2ULL

static bool ring0_selector(uint64_t sel, bool may_be_null)
{
	/* 16 bits, in the GDT (TI clear), RPL 0. */
	if (sel >> 16 || (sel & 7))
		return false;
	return sel || may_be_null;
}

static bool canonical(uint64_t va)
{
	return (uint64_t)((int64_t)(va << 16) >> 16) == va;
}

/* 1: a frame's fields at at; 0: not; -1: the stack ends before it (no
 * word further up can be read either: the scan stops, as each failed
 * read may cost a hypercall while the guest stands still). */
static int frame_fields(struct up_mem *m, const struct up_regs *regs,
			const struct up_kernel_map *k, uint64_t at,
			uint64_t f[5])
{
	/* The words in order: one page boundary at most is crossed. */
	for (unsigned i = 0; i < 5; i++)
		if (up_mem_read_u64(m, regs, at + 8 * i, &f[i]) < 0)
			return -1;
	return ring0_selector(f[1], false) && ring0_selector(f[4], true) &&
	       !(f[2] & RFLAGS_CLEAR) && (f[2] & RFLAGS_SET) &&
	       !(f[3] & 7) && canonical(f[3]) &&
	       up_kernel_map_in_text(k, f[0]);
}

/* Where the CPU puts a frame: just below the rsp it saved, or at the
 * top of an interrupt stack. */
static bool frame_placed(struct up_mem *m, const struct up_regs *regs,
			 uint64_t at, uint64_t saved_rsp)
{
	uint64_t top = at + FRAME_BYTES;

	if (saved_rsp >= top && saved_rsp - top < 16)
		return true;
	if (!regs->tss)
		return false;
	for (unsigned i = 0; i < IST_COUNT; i++) {
		uint64_t ist;

		if (up_mem_read(m, regs, regs->tss + TSS_IST1 + 8 * i, &ist,
				sizeof(ist)) < 0)
			return false;
		if (ist && (ist & ~15ULL) == top)
			return true;
	}
	return false;
}

/* 1 with the interrupted rbp in *fp, 0 when it is not known. */
static int interrupted_rbp(struct up_mem *m, const struct up_regs *regs,
			   uint64_t pushes, uint64_t frame, uint64_t *fp)
{
	uint64_t saved;

	if (*fp == UP_FP_NOT_HELD)
		return 0;
	if (*fp < pushes || *fp >= frame)
		return 1;               /* left alone */
	if ((*fp & 7) || up_mem_read_u64(m, regs, *fp, &saved) < 0)
		return 0;
	*fp = saved;
	return 1;
}

int x86_hw_interrupted_step(struct up_mem *m, const struct up_regs *regs,
			    const struct up_kernel_map *k, uint64_t *ip,
			    uint64_t *sp, uint64_t *fp)
{
	uint64_t f[5];
	bool unplaced = false;
	int rc;

	if (*sp & 7)
		return -1;
	for (unsigned i = 0; i < SCAN_WORDS; i++) {
		uint64_t at = *sp + 8 * i;

		if (at < *sp)
			break;          /* wrapped */
		rc = frame_fields(m, regs, k, at, f);
		if (rc < 0)
			break;
		if (rc == 0)
			continue;
		if (frame_placed(m, regs, at, f[3])) {
			int known = interrupted_rbp(m, regs, *sp, at, fp);

			*ip = f[0];
			*sp = f[3];
			return known;
		}
		unplaced = true;
	}
	return unplaced ? -2 : -1;
}
