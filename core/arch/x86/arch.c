/* x86_64 guests: 4-level paging (PAE, 2-level and 5-level are modes still
 * to come), the System V psABI's DWARF numbers, Xen's hypercall page. */
#include "config.h"

#include <elf.h>

#include "arch/arch.h"
#include "x86.h"

const struct arch arch_x86_64 = {
	.name = "x86_64",
	.elf_machine = EM_X86_64,
	.dwarf_sp = 7,       /* rsp */
	.dwarf_fp = 6,       /* rbp */
	.dwarf_ra = 16,      /* the return address column */
	.translate = x86_translate,
	.in_hypercall = x86_in_hypercall,
	.hypercall_page_at = x86_hypercall_page_at,
	.hypercall_step = x86_hypercall_step,
	.at_block = x86_at_block,
	.interrupted_step = x86_interrupted_step,
	.after_call = x86_after_call,
};
