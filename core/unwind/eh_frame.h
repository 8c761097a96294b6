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

/* Caps on what a listed FDE may ask of libdw, which sizes every frame
 * state by the highest register number it meets (a number near 2^28 costs
 * 4 GiB per row) and copies the state at each DW_CFA_remember_state.
 * x86_64's psABI numbers its registers up to 145 (APX r31), i386's below
 * 100; 255 covers both with room, at 4 KiB per libdw frame at most. GCC
 * nests remember_state once or twice; 64 is far beyond any compiler. */
#define EH_MAX_REGISTER 255
#define EH_MAX_REMEMBER_DEPTH 64
/* A Linux vmlinux has ~60k FDEs, a unikernel far fewer. */
#define EH_MAX_FDES (1u << 20)

/* What interpreting a CIE + FDE program involves. */
struct cfa_scan {
	uint64_t rows;          /* row boundaries (advance_loc, set_loc) */
	uint64_t bytes;         /* instruction bytes */
	uint64_t remembers;     /* DW_CFA_remember_state count */
	uint64_t max_reg;       /* highest register named */
	uint64_t depth, max_depth;      /* remember_state nesting */
	uint64_t ops;           /* instructions other than DW_CFA_nop */
	bool bad;               /* an opcode or operand we cannot decode */
};

/* 24 bytes: a 100,000-function image lists 100,000 of them, fresh pages
 * that cost ~50 us each in a PV dom0 (most of an unwind table's load
 * there). Offsets fit: files are < 2 GiB; an FDE's range must fit 32 bits
 * (one over 4 GiB is skipped: a table row could not hold it anyway). */
struct fde_ref {
	uint64_t pc_begin;
	uint32_t len;           /* pc_end - pc_begin, > 0 */
	uint32_t fde_offset;    /* of the FDE in the section */
	uint32_t cie_offset;    /* of its CIE */
	uint32_t cost;          /* FDE_PLAIN | what libdw may spend on its rows
				 * (below) */
};

/* Its own program is DW_CFA_nops only: one row, its CIE's rule, over all
 * its range. */
#define FDE_PLAIN 0x80000000u
/* The rest of cost: rows x the bytes libdw interprets to compute one row,
 * saturated here (above every cap on it). */
#define FDE_COST_MAX 0x7fffffffu

static inline uint64_t fde_end(const struct fde_ref *f)
{
	return f->pc_begin + f->len;
}

static inline uint64_t fde_cost(const struct fde_ref *f)
{
	return f->cost & FDE_COST_MAX;
}

static inline int fde_plain(const struct fde_ref *f)
{
	return (f->cost & FDE_PLAIN) != 0;
}

/* At least as many rows as the FDE has: its cost is rows x work, and its
 * work counts at least one byte per row boundary (work >= rows - 1), so
 * rows <= 1 + sqrt(cost). */
uint64_t fde_rows_bound(const struct fde_ref *f);

struct fde_list {
	struct fde_ref *fdes;   /* sorted by pc_begin, no two overlapping */
	size_t count;
	size_t skipped;         /* entries not listed: encodings we do not
				 * decode, or refused (below) */
	size_t refused;         /* FDEs whose program (or CIE's) is over the
				 * register or nesting cap */
	char refused_why[64];   /* the first refusal */
	size_t overlapping;     /* FDEs overlapping an earlier one: dropped */
	bool capped;            /* stopped at EH_MAX_FDES */
	size_t end;             /* entries before this offset were vetted */
	bool truncated;         /* the parse stopped at a malformed entry */
	bool all_listed;        /* every entry before end is a listed FDE or
				 * a CIE of one: nothing for sanitize to hide */
	char error[160];        /* why, when truncated */
};

/* sec_addr: the section's virtual address (for pc-relative pointers).
 * is_eh_frame: .eh_frame (CIE id 0, relative CIE pointers) or
 * .debug_frame (CIE id ~0, absolute offsets). Returns a negative UP_E*
 * only for allocation failure; malformed input is reported in the list. */
int eh_frame_list_fdes(const uint8_t *sec, size_t len, uint64_t sec_addr,
		       bool is_eh_frame, struct fde_list *out);

/* What a taker of eh_frame_stream_fdes says of each FDE. */
enum { FDE_TAKEN, FDE_OVERLAPS, FDE_STOP };

/* An .eh_frame's FDEs handed to take one at a time, in section order, as
 * one walk vets them, with no list: for a reader that can use them in
 * that order (the CFI table compiler, when the linker wrote them in
 * address order). Every entry not taken is hidden from libdw as the walk
 * meets it (see eh_frame_sanitize), so libdw, asked for an address of an
 * FDE taken, reads only vetted entries before it; the terminator follows
 * at the end. take says FDE_TAKEN, FDE_OVERLAPS (dropped, counted and
 * hidden) or FDE_STOP (the walk stops: 1 returned, the section partly
 * hidden). out: the list's counters (fdes NULL, count those taken).
 * 0, 1, or a negative UP_E* (allocation, or take's). */
int eh_frame_stream_fdes(uint8_t *sec, size_t len, uint64_t sec_addr,
			 struct fde_list *out,
			 int (*take)(void *arg, const struct fde_ref *f), void *arg);

void fde_list_release(struct fde_list *l);

/* Make a private copy of the section safe to hand to libdw for the FDEs
 * of l: every other entry (refused, overlapping, undecodable) becomes an
 * entry libdw skips, and a terminator follows the vetted part, so libdw's
 * own lookup can only find FDEs we checked. 0 or UP_ENOMEM. */
int eh_frame_sanitize(uint8_t *sec, size_t len, bool is_eh_frame,
		      const struct fde_list *l);

/* The FDE covering pc, or NULL. */
const struct fde_ref *fde_list_find(const struct fde_list *l, uint64_t pc);

#endif
