/* Listing the FDEs of an .eh_frame (or .debug_frame) section: which code
 * range each one covers and where it is. Both the CFI table compiler and
 * the search table for libunwind (static links often have no
 * .eh_frame_hdr) start from this list. The section is untrusted: every
 * length, offset and encoding is checked; a malformed entry stops the
 * parse with a message, an entry we cannot decode is skipped and counted. */
#ifndef UP_EH_FRAME_H
#define UP_EH_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fde_ref {
	uint64_t pc_begin;
	uint64_t pc_end;
	uint64_t fde_offset;    /* of the FDE in the section */
};

struct fde_list {
	struct fde_ref *fdes;   /* sorted by pc_begin */
	size_t count;
	size_t skipped;         /* entries with encodings we do not decode */
	bool truncated;         /* the parse stopped at a malformed entry */
	char error[160];        /* why, when truncated */
};

/* sec_addr: the section's virtual address (for pc-relative pointers).
 * is_eh_frame: .eh_frame (CIE id 0, relative CIE pointers) or
 * .debug_frame (CIE id ~0, absolute offsets). Returns a negative UP_E*
 * only for allocation failure; malformed input is reported in the list. */
int eh_frame_list_fdes(const uint8_t *sec, size_t len, uint64_t sec_addr,
		       bool is_eh_frame, struct fde_list *out);

void fde_list_release(struct fde_list *l);

/* The FDE covering pc, or NULL. */
const struct fde_ref *fde_list_find(const struct fde_list *l, uint64_t pc);

#endif
