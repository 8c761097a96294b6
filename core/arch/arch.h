/* What differs between guest architectures, behind one small descriptor
 * each (core/arch/<arch>/): the page walk, the DWARF register numbers the
 * CFI table is compiled with, and the frame out of a hypercall stub. The
 * walkers and unwinders above it are the same for every architecture;
 * adding one is adding a folder. */
#ifndef UP_ARCH_H
#define UP_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mem/frame_cache.h"
#include "uniprof/target.h"
#include "uniprof/sys/unwind.h"
#include "mem/memory.h"

struct up_kernel_map;

struct arch {
	const char *name;            /* "x86_64", as ELF and users say it */
	unsigned elf_machine;        /* EM_* of its kernel images */
	/* DWARF numbers: the stack and frame pointers, and the return
	 * address column of its CIEs. */
	unsigned dwarf_sp, dwarf_fp, dwarf_ra;
	/* The return address may stay in a register (a link register) until
	 * a function saves it: CFI's "same value" rule for it. */
	bool ra_in_register;
	/* Translate va through the guest's live page tables (a paging mode
	 * of this architecture); *frame is of kind regs->frame_kind. */
	int (*translate)(struct frame_cache *c, const struct up_regs *regs,
			 uint64_t va, uint64_t *frame);
	/* Whether ip is in a hypercall stub that sets up no frame, so
	 * neither a frame chain nor CFI finds its caller: x86's hypercall
	 * page, AArch64's functions that trap with hvc #0xea1. */
	bool (*in_hypercall)(struct up_mem *m, const struct up_regs *regs,
			     const struct up_kernel_map *k, uint64_t ip);
	/* Whether the page at va holds the stubs Xen writes into a
	 * hypercall page, whatever the guest calls it (NULL: the
	 * architecture has no such page). */
	bool (*hypercall_page_at)(struct up_mem *m, const struct up_regs *regs,
				  uint64_t va);
	/* One frame out of that stub (see kernel_hypercall_step). */
	int (*hypercall_step)(struct up_mem *m, const struct up_regs *regs,
			      const struct up_kernel_map *k,
			      enum up_domain_type type, uint64_t *ip,
			      uint64_t *sp, enum up_trunc *trunc);
	/* Out of the entry code of an event upcall (no CFI, no frame
	 * pointer) to the frame it interrupted: its *ip, *sp, and 1 when
	 * its *fp is known too, 0 when not (*fp holds, on entry, the rbp
	 * the walk has there, or UP_FP_NOT_HELD); -1 (or NULL): none found; -2:
	 * one is there but cannot be proven the interrupted code's (the walk
	 * ends truncated there, never whole). */
	int (*interrupted_step)(struct up_mem *m, const struct up_regs *regs,
				const struct up_kernel_map *k,
				enum up_domain_type type, uint64_t *ip,
				uint64_t *sp, uint64_t *fp);
	/* Whether the instruction before ra is a call (a return address
	 * there is one a call left, not a stale word): 1, 0, or -1 when its
	 * bytes cannot be read. */
	int (*after_call)(struct up_mem *m, const struct up_regs *regs,
			  uint64_t ra);
	/* Whether the vCPU stopped where one that blocks in Xen stops: just
	 * after the trap of SCHEDOP_block or SCHEDOP_poll. Such a vCPU ran
	 * no guest code since: blocked, or woken and not yet run. */
	bool (*at_block)(struct up_mem *m, const struct up_regs *regs,
			 const struct up_kernel_map *k, enum up_domain_type type);
	/* Where a boot header at the ELF entry point jumps (len bytes of it
	 * at va): the real entry, also an outermost function. 0: none (or
	 * NULL: this architecture has no such header). */
	uint64_t (*boot_header_target)(const uint8_t *bytes, size_t len,
				       uint64_t va);
};

extern const struct arch arch_x86_64;
extern const struct arch arch_aarch64;

/* Finding a descriptor is reading data, inline: mem/, unwind/ and target/
 * reach an architecture only through its descriptor's pointers, the way
 * a lower folder calls up without calling arch/ (docs/ARCHITECTURE.md). */

/* The descriptor of an architecture; NULL for an unknown value (a
 * register set read from an untrusted file may hold anything). */
static inline const struct arch *arch_get(enum up_arch a)
{
	switch (a) {
	case UP_ARCH_X86_64:
		return &arch_x86_64;
	case UP_ARCH_AARCH64:
		return &arch_aarch64;
	}
	return NULL;
}

/* The architecture of an ELF machine number; NULL when unsupported. */
static inline const struct arch *arch_of_elf_machine(unsigned machine)
{
	if (machine == arch_x86_64.elf_machine)
		return &arch_x86_64;
	if (machine == arch_aarch64.elf_machine)
		return &arch_aarch64;
	return NULL;
}

#endif
