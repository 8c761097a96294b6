/* Names for the hypercall page's stubs, so a blocked vCPU's leaf frame
 * reads "hypercall_page [sched_op]" instead of "hypercall_page". */
#include "config.h"

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

/* The table is read-only once finished: take its symbols back as entries,
 * add the stubs (ranked above any alias at the same address, such as
 * hypercall_page itself), and finish it again. */
int up_symtab_name_hypercalls(struct up_symtab *s, uint64_t page)
{
	char name[64];
	int rc = 0;

	if (!s || !page || page % UP_PAGE_SIZE)
		return up_fail(UP_EINVAL, "no symbol table or hypercall page");
	s->entries = calloc(s->count ? s->count : 1, sizeof(*s->entries));
	if (!s->entries)
		return up_fail(UP_ENOMEM, "out of memory");
	for (size_t i = 0; i < s->count; i++) {
		s->entries[i].addr = s->syms[i].addr;
		s->entries[i].size = s->syms[i].size;
		s->entries[i].name = (uint32_t)(s->syms[i].name - s->names);
	}
	s->cap = s->count;
	free(s->syms);
	s->syms = NULL;
	for (unsigned nr = 0; rc == 0 && nr < UP_PAGE_SIZE / HYPERCALL_STUB_SIZE; nr++) {
		const char *hc = up_hypercall_name(nr);

		if (hc)
			snprintf(name, sizeof(name), "hypercall_page [%s]", hc);
		else
			snprintf(name, sizeof(name), "hypercall_page [#%u]", nr);
		rc = symtab_add(s, page + (uint64_t)nr * HYPERCALL_STUB_SIZE,
				HYPERCALL_STUB_SIZE, name, 100);
	}
	/* Even after a failed add the entries are whole: finish anyway so
	 * the table stays usable. */
	if (symtab_finish(s) < 0 && rc == 0)
		rc = UP_ENOMEM;
	return rc;
}
