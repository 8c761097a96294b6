/* AArch64 guests: stage-1 walks with a 4 KiB granule, the AAPCS64's DWARF
 * numbers (sp 31, x29 the frame pointer, x30 the return address), and
 * hypercalls made by the guest's own "hvc #0xea1" functions (Xen on Arm
 * writes no hypercall page). */
#include "config.h"

#include <elf.h>

#include "arch/arch.h"
#include "arm64.h"

#ifndef EM_AARCH64
#define EM_AARCH64 183
#endif

const struct arch arch_aarch64 = {
	.name = "aarch64",
	.elf_machine = EM_AARCH64,
	.dwarf_sp = 31,
	.dwarf_fp = 29,
	.dwarf_ra = 30,
	.ra_in_register = true,
	.translate = arm64_translate,
	.in_hypercall = arm64_in_hypercall,
	.hypercall_step = arm64_hypercall_step,
	.after_call = arm64_after_call,
	/* No at_block: Xen on Arm writes a hypercall's result into x0, its
	 * first argument, and a debug Xen clobbers x16, so the registers of
	 * a vCPU blocked in SCHEDOP_block do not say it (Xen's state does). */
	.boot_header_target = arm64_image_header_target,
};
