/* Where Xen wrote a domain's hypercall stubs, from the domain itself. A
 * PV kernel names its page in an ELF note Xen's builder fills; a PVH or
 * HVM kernel asks for it at boot by writing the page's address to an
 * MSR, which leaves no record dom0 can read, and calls the page what it
 * likes (Solo5: HYPERCALL_PAGE). The stubs Xen writes have one shape, so
 * the image's word is checked against the guest's memory and, where it is
 * missing or wrong, the kernel's code pages are searched for that shape:
 * once, before sampling, at most PROBE_PAGES pages. */
#include "config.h"

#include "arch/arch.h"
#include "util/error_impl.h"
#include "unwind/kernel_map.h"
#include "mem/memory.h"

/* 16 MiB of code; a page read costs a foreign map (~0.1 ms under
 * emulation, ~10 us on hardware). */
#define PROBE_PAGES 4096
#define PROBE_CACHE_FRAMES 8

/* A vCPU whose registers describe the kernel's address space. */
static int kernel_regs(struct up_target *t, struct up_regs *regs)
{
	unsigned n = up_target_info(t)->max_vcpus;

	for (unsigned v = 0; v < n; v++)
		if (up_target_get_regs(t, v, regs) == 0 && regs->online &&
		    regs->kernel_mode)
			return 0;
	return up_fail(UP_ENOENT, "no online vCPU in kernel mode to read the hypercall page with");
}

static int search(struct up_kernel_map *k, struct up_mem *m,
		  const struct up_regs *regs, const struct arch *a,
		  uint64_t skip)
{
	unsigned left = PROBE_PAGES;

	for (size_t i = 0; i < k->nr_text; i++) {
		uint64_t va = k->text[i].lo & ~(uint64_t)(UP_PAGE_SIZE - 1);

		for (; va < k->text[i].hi; va += UP_PAGE_SIZE) {
			if (va != skip) {
				if (!left--)
					return 0;
				if (a->hypercall_page_at(m, regs, va)) {
					k->hypercall_page = va;
					return 1;
				}
			}
			if (va + UP_PAGE_SIZE < va)
				break;          /* the top page */
		}
	}
	return 0;
}

int up_kernel_map_probe_hypercall_page(struct up_kernel_map *k,
				       struct up_target *t, const char **how)
{
	const struct arch *a;
	struct up_regs regs;
	struct up_mem *m = NULL;
	uint64_t said;
	int rc;

	*how = k && k->hypercall_page ? "from the image, not checked" :
	       "none found";
	if (!k || !t)
		return up_fail(UP_EINVAL, "no kernel map or domain");
	a = arch_get(up_target_info(t)->arch);
	if (!a || !a->hypercall_page_at)
		return 0;
	if ((rc = kernel_regs(t, &regs)) < 0 ||
	    (rc = up_mem_new(&m, t, PROBE_CACHE_FRAMES)) < 0)
		return rc;
	said = k->hypercall_page;
	if (said && a->hypercall_page_at(m, &regs, said)) {
		*how = "from the image, checked in memory";
		rc = 2;
	} else if (search(k, m, &regs, a, said)) {
		*how = said ? "found in memory (the image's page holds no stubs)" :
		       "found in memory by the stubs' shape";
		rc = 1;
	} else if (said) {
		/* Unread, or not filled yet: the image's word stands. */
		*how = "from the image; no stubs found in memory";
		rc = 0;
	} else {
		rc = 0;
	}
	up_mem_free(m);
	return rc;
}
