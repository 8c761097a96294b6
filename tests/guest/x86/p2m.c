/* A PV guest publishes its pfn-to-mfn table as every real PV kernel does
 * (Mini-OS's arch_init_p2m, Linux's xen_setup_mfn_list_list): the domain
 * builder's table (start_info.mfn_list, one machine frame per page) is
 * indexed by a frame list of its pages' machine frames, itself listed in a
 * frame list list, whose machine frame goes into the shared info beside
 * max_pfn. xl dump-core walks it to write a PV guest's pages; without it
 * the dump fails ("p2m_size < nr_pages"). */
#include <stdint.h>

#include <xen/xen.h>

#include "p2m.h"

#define FPP 512    /* frame numbers per page */

/* Up to FPP * FPP pages (4 GiB); our guests have tens of MiB. */
static uint64_t frame_list[FPP] __attribute__((aligned(4096)));
static uint64_t frame_list_list[FPP] __attribute__((aligned(4096)));

/* VIRT_BASE is 0: a page's pseudo-physical frame is its address >> 12. */
static uint64_t mfn_of(const unsigned long *p2m, const void *va)
{
	return p2m[(unsigned long)va >> 12];
}

void tg_p2m_publish(const start_info_t *si, volatile struct shared_info *shared)
{
	const unsigned long *p2m = (const unsigned long *)si->mfn_list;
	unsigned long pages = (si->nr_pages + FPP - 1) / FPP;

	if (pages > FPP)
		pages = FPP;
	for (unsigned long i = 0; i < pages; i++)
		frame_list[i] = mfn_of(p2m, (const char *)p2m + i * 4096);
	frame_list_list[0] = mfn_of(p2m, frame_list);
	shared->arch.max_pfn = pages * FPP < si->nr_pages ? pages * FPP : si->nr_pages;
	shared->arch.pfn_to_mfn_frame_list_list = mfn_of(p2m, frame_list_list);
}
