/* Names for the hypercall page's stubs, so a blocked vCPU's leaf frame
 * reads "hypercall_page [sched_op]" instead of "hypercall_page". */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error_impl.h"
#include "unwind/kernel_map.h"
#include "symbols/table_impl.h"
#include "private.h"

/* Xen's public ABI (xen/include/public/xen.h); numbers never change. */
static const char *const hypercalls[] = {
	[0] = "set_trap_table", [1] = "mmu_update", [2] = "set_gdt",
	[3] = "stack_switch", [4] = "set_callbacks", [5] = "fpu_taskswitch",
	[6] = "sched_op_compat", [7] = "platform_op", [8] = "set_debugreg",
	[9] = "get_debugreg", [10] = "update_descriptor", [12] = "memory_op",
	[13] = "multicall", [14] = "update_va_mapping", [15] = "set_timer_op",
	[16] = "event_channel_op_compat", [17] = "xen_version",
	[18] = "console_io", [19] = "physdev_op_compat",
	[20] = "grant_table_op", [21] = "vm_assist",
	[22] = "update_va_mapping_otherdomain", [23] = "iret",
	[24] = "vcpu_op", [25] = "set_segment_base", [26] = "mmuext_op",
	[27] = "xsm_op", [28] = "nmi_op", [29] = "sched_op",
	[30] = "callback_op", [31] = "xenoprof_op", [32] = "event_channel_op",
	[33] = "physdev_op", [34] = "hvm_op", [35] = "sysctl", [36] = "domctl",
	[37] = "kexec_op", [38] = "tmem_op", [39] = "argo_op",
	[40] = "xenpmu_op", [41] = "dm_op", [42] = "hypfs_op",
};

const char *up_hypercall_name(unsigned nr)
{
	return nr < sizeof(hypercalls) / sizeof(hypercalls[0]) ?
	       hypercalls[nr] : NULL;
}

/* Whether the stubs of this page are in the table: named once at load
 * and again by each probe that finds the page, the table keeps one set. */
static bool named_already(const struct up_symtab *s, uint64_t page)
{
	for (unsigned nr = 0; nr < UP_PAGE_SIZE / HYPERCALL_STUB_SIZE; nr += 29) {
		const struct up_symbol *sym = up_symtab_lookup(s, page + (uint64_t)nr *
								 HYPERCALL_STUB_SIZE);
		char want[64];
		const char *hc = up_hypercall_name(nr);

		if (hc)
			snprintf(want, sizeof(want), "hypercall_page [%s]", hc);
		else
			snprintf(want, sizeof(want), "hypercall_page [#%u]", nr);
		if (!sym || sym->addr != page + (uint64_t)nr * HYPERCALL_STUB_SIZE ||
		    sym->size != HYPERCALL_STUB_SIZE || strcmp(sym->name, want) != 0)
			return false;
	}
	return true;
}

/* Into the finished table, each stub ranked above any alias at its
 * address (hypercall_page itself): symtab_insert moves only what follows
 * the page, where taking the whole table back and sorting it again cost
 * a large table's load twice (seconds in a PV dom0). */
int up_symtab_name_hypercalls(struct up_symtab *s, uint64_t page)
{
	enum { STUBS = UP_PAGE_SIZE / HYPERCALL_STUB_SIZE, NAME_MAX_LEN = 64 };
	struct up_symbol stubs[STUBS];
	char *names;
	size_t used = 0;

	if (!s || !page || page % UP_PAGE_SIZE || page > UINT64_MAX - UP_PAGE_SIZE)
		return up_fail(UP_EINVAL, "no symbol table or hypercall page");
	if (named_already(s, page))
		return 0;
	names = malloc(STUBS * NAME_MAX_LEN);
	if (!names)
		return up_fail(UP_ENOMEM, "out of memory");
	for (unsigned nr = 0; nr < STUBS; nr++) {
		const char *hc = up_hypercall_name(nr);
		int w = hc ? snprintf(names + used, NAME_MAX_LEN, "hypercall_page [%s]", hc) :
			     snprintf(names + used, NAME_MAX_LEN, "hypercall_page [#%u]", nr);

		stubs[nr] = (struct up_symbol){ page + (uint64_t)nr * HYPERCALL_STUB_SIZE,
						HYPERCALL_STUB_SIZE, names + used };
		used += (size_t)(w < NAME_MAX_LEN ? w : NAME_MAX_LEN - 1) + 1;
	}
	return symtab_insert(s, page, page + UP_PAGE_SIZE, stubs, STUBS, names);
}
