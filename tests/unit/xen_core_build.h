/* Xen dump-core files from synthetic guests, laid out as libxenguest
 * writes them (xg_core.c), so the core reader is tested on the format
 * without a Xen host. Offsets are returned so tests can corrupt fields. */
#ifndef UP_TEST_XEN_CORE_BUILD_H
#define UP_TEST_XEN_CORE_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "guest.h"

struct xen_core_layout {
	size_t shdr_off;        /* section headers: null, shstrtab, note, prstatus, pages, table */
	size_t note_off, note_size;
	size_t header_desc_off; /* the dump-core header note's descriptor */
	size_t prstatus_off, vcpu_size;
	size_t pages_off, nr_pages;
	size_t table_off, table_entry;
	size_t strtab_off;
};

/* The guest's frames and vCPUs (added with up_image_add_vcpu) as a core;
 * *buf is malloc'ed. PV guests get a .xen_p2m table (machine frames, pfns
 * counting from 0), HVM ones a .xen_pfn table. */
void xen_core_build(struct test_guest *g, void **buf, size_t *len,
		    struct xen_core_layout *layout);

#endif
