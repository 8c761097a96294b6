/* Out of a Xen PV event upcall's entry code. Xen delivers an event to a
 * 64-bit PV guest by pushing, on the stack it interrupted, the frame an
 * iret takes back (rip, cs, rflags, rsp, ss, below them rcx and r11). The
 * guest's entry code (Mini-OS's and Unikraft's hypervisor_callback, in
 * assembly without CFI) saves its registers beside that frame in Linux's
 * pt_regs layout (the frame 128 bytes up; Unikraft's has a word of
 * padding first, 136; rbp 12 words below rip in both) and may move to an
 * IRQ stack,
 * leaving there a pointer to the saved registers before it calls C. Found
 * by Xen's flat 64-bit selectors and checked word by word, the frame
 * gives the interrupted pc and sp: the walk goes on from there, and a
 * whole stack is written whole. Its rbp is known only through pt_regs
 * (the pointer's way); found on the stack itself, the frame says nothing
 * of the registers the entry code saved beside it. */
#include "config.h"

#include "unwind/kernel_map.h"
#include "x86.h"
#include "mem/memory.h"

#define FLAT_RING3_CS64 0xe033   /* Xen's public arch-x86/xen-x86_64.h */
#define FLAT_RING3_SS64 0xe02b
#define PT_REGS_RIP 128          /* the frame's offset in pt_regs */
#define PT_REGS_PAD 4            /* words of padding before it, at most */
#define RIP_TO_RBP 96            /* rbp's slot, below the frame */
#define POINTER_WORDS 4          /* where a pointer to pt_regs may be */
#define SCAN_WORDS 24            /* where the frame may be, on this stack */
#define RFLAGS_FIXED 0x2         /* bit 1 of rflags is always set */
#define RFLAGS_TOP 22            /* bits 22-63 are always clear */

/* The iret frame at at: rip in the kernel's code, Xen's selectors (their
 * privilege bits as the guest may have set them), a possible rflags. */
static bool iret_frame(struct up_mem *m, const struct up_regs *regs,
		       const struct up_kernel_map *k, uint64_t at,
		       uint64_t *ip, uint64_t *sp)
{
	uint64_t f[5];

	if (at & 7)
		return false;
	/* The selectors first: most places fail there, after one read. */
	if (up_mem_read_u64(m, regs, at + 8, &f[1]) < 0 ||
	    (f[1] | 3) != FLAT_RING3_CS64 ||
	    up_mem_read_u64(m, regs, at + 32, &f[4]) < 0 ||
	    (f[4] | 3) != FLAT_RING3_SS64)
		return false;
	if (up_mem_read_u64(m, regs, at, &f[0]) < 0 ||
	    up_mem_read_u64(m, regs, at + 16, &f[2]) < 0 ||
	    up_mem_read_u64(m, regs, at + 24, &f[3]) < 0 ||
	    !(f[2] & RFLAGS_FIXED) || (f[2] >> RFLAGS_TOP) ||
	    !up_kernel_map_in_text(k, f[0]))
		return false;
	*ip = f[0];
	*sp = f[3];
	return true;
}

int x86_interrupted_step(struct up_mem *m, const struct up_regs *regs,
			 const struct up_kernel_map *k,
			 enum up_domain_type type, uint64_t *ip, uint64_t *sp,
			 uint64_t *fp)
{
	uint64_t p, rbp;

	if (type != UP_DOMAIN_PV)
		return regs->guest_width == 8 ?
		       x86_hw_interrupted_step(m, regs, k, ip, sp, fp) : -1;
	if (regs->guest_width == 4)
		return -1;
	/* Moved to an IRQ stack: a pointer to the saved registers. */
	for (unsigned i = 0; i < POINTER_WORDS; i++) {
		if (up_mem_read_u64(m, regs, *sp + 8 * i, &p) < 0 ||
		    p > UINT64_MAX - PT_REGS_RIP - 8 * PT_REGS_PAD)
			continue;
		for (unsigned pad = 0; pad <= PT_REGS_PAD; pad++) {
			uint64_t at = p + PT_REGS_RIP + 8 * pad;

			uint64_t nip, nsp;

			if (iret_frame(m, regs, k, at, &nip, &nsp) &&
			    up_mem_read_u64(m, regs, at - RIP_TO_RBP, &rbp) == 0) {
				*ip = nip;
				*sp = nsp;
				*fp = rbp;
				return 1;
			}
		}
	}
	/* Still on the interrupted stack: the frame itself, a little up. */
	for (unsigned i = 0; i < SCAN_WORDS; i++)
		if (iret_frame(m, regs, k, *sp + 8 * i, ip, sp))
			return 0;
	return -1;
}
