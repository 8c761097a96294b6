/* A PVH guest that will crash into a core file (crash=): give back the
 * VGA hole's pages and map grant table frames just above RAM, as Mini-OS
 * and Unikraft map theirs into the physmap, so that xl writes the core in
 * one pass over RAM.
 *
 * Why: xl dump-core counts the pages it writes against the domain's
 * tot_pages and stops trying frames once it has them all. It never writes
 * the VGA hole or the MMIO window below 4 GiB, yet the builder's pages in
 * the hole and libxl's special pages in the window (console, xenstore, ...)
 * count in tot_pages, so the count is never met and xl tries to map every
 * frame up to the window: a million of them (measured under emulation:
 * 250 s of an idle dom0, 14 to 22 minutes beside the scenarios; a few
 * seconds with this). Grant frames are Xen's own pages, outside tot_pages: as
 * many of them as the window holds back, above RAM, meet the count there.
 * The core is still xl's, of every RAM page, the frames after them. */
#include <stdint.h>

#include <xen/xen.h>
#include <xen/memory.h>
#include <xen/arch-x86/hvm/start_info.h>

#include "core_fit.h"
#include "hyp.h"
#include "lib.h"

#define WINDOW_PFN 0xf0000UL    /* xl's MMIO window: 0xf0000000 - 4 GiB */
#define FOUR_GIB_PFN 0x100000UL
#define VGA_PFN 0xa0UL          /* and the VGA hole, 0xa0000 - 0xc0000 */
#define VGA_END 0xc0UL
#define SURPLUS 4               /* a page or two counted wrong costs nothing */
#define MAX_FRAMES 64           /* at most; Xen refuses beyond the domain's limit */

/* Pages of [start, end) outside [hole, hole_end). */
static unsigned long outside(unsigned long start, unsigned long end,
			     unsigned long hole, unsigned long hole_end)
{
	unsigned long n = end - start;

	if (hole < end && hole_end > start)
		n -= (hole_end < end ? hole_end : end) - (hole > start ? hole : start);
	return n;
}

/* Give back the page at pfn, if there is one: 1 if it went. */
static unsigned long give_back(xen_pfn_t pfn)
{
	struct xen_memory_reservation r = {
		.nr_extents = 1, .extent_order = 0, .domid = DOMID_SELF,
	};

	set_xen_guest_handle(r.extent_start, &pfn);
	return hypercall(__HYPERVISOR_memory_op, XENMEM_decrease_reservation,
			 (unsigned long)&r) == 1;
}

void tg_core_fit(unsigned long boot_info)
{
	const struct hvm_start_info *si = (const struct hvm_start_info *)boot_info;
	const struct hvm_memmap_table_entry *map;
	domid_t self = DOMID_SELF;
	unsigned long ram = 0, top = 0, mapped = 0, given = 0;
	long tot, want;

	if (si->magic != XEN_HVM_START_MAGIC_VALUE || si->version < 1 ||
	    !si->memmap_entries || !si->memmap_paddr) {
		console_printf("tg: core fit: no memory map\n");
		return;
	}
	map = (const struct hvm_memmap_table_entry *)si->memmap_paddr;
	/* The RAM xl writes (all but the VGA hole and the window), and where
	 * it ends: the frames go after it, as the last pages xl counts. */
	for (uint32_t i = 0; i < si->memmap_entries && i < 128; i++) {
		unsigned long s = map[i].addr >> 12, e = (map[i].addr + map[i].size) >> 12;

		if (map[i].type != XEN_HVM_MEMMAP_TYPE_RAM || e <= s)
			continue;
		ram += outside(s, e, VGA_PFN, VGA_END) -
		       (e - s - outside(s, e, WINDOW_PFN, FOUR_GIB_PFN));
		if (e > WINDOW_PFN && e <= FOUR_GIB_PFN)
			e = WINDOW_PFN;
		if (e > top)
			top = e;
	}
	/* The VGA hole's pages, if the builder gave us any: xl never writes
	 * them, and we do not use them. */
	for (unsigned long pfn = VGA_PFN; pfn < VGA_END; pfn++)
		given += give_back(pfn);
	tot = hypercall(__HYPERVISOR_memory_op, XENMEM_current_reservation,
			(unsigned long)&self);
	want = tot - (long)ram;
	if (want > 0)
		want += SURPLUS;
	for (; (long)mapped < want && mapped < MAX_FRAMES &&
	       (top >= FOUR_GIB_PFN || top + mapped < WINDOW_PFN); mapped++) {
		struct xen_add_to_physmap xatp = {
			.domid = DOMID_SELF, .space = XENMAPSPACE_grant_table,
			.idx = mapped, .gpfn = top + mapped,
		};

		if (hypercall(__HYPERVISOR_memory_op, XENMEM_add_to_physmap,
			      (unsigned long)&xatp))
			break;
	}
	console_printf("tg: core fit: tot_pages=%lu ram_xl_writes=%lu vga_pages_given_back=%lu grant_frames=%lu at pfn 0x%lx\n",
		       (unsigned long)tot, ram, given, mapped, top);
}
