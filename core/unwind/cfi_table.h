/* The precompiled CFI table: before sampling, an ELF's .eh_frame (and
 * .debug_frame) become a sorted array of address ranges, each with the rule
 * to find the caller: CFA = SP or FP + offset, return address and saved FP
 * at fixed offsets from the CFA (in the spirit of Linux's ORC). While the
 * domain is paused a frame costs one short binary search and two reads. */
#ifndef UP_CFI_TABLE_H
#define UP_CFI_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include "uniprof/sys/unwind.h"
#include "private.h"

struct arch;

enum cfi_row_kind {
	CFI_ROW_NORMAL = 0,
	CFI_ROW_OUTERMOST = 1,     /* return address undefined: stack ends */
	CFI_ROW_UNSUPPORTED = 2,   /* a rule the table cannot express */
	/* The same, compiled from a second file (the symbol file's CFI):
	 * libunwind reads only the image's .eh_frame and would guess there
	 * through rbp, so the walk does not hand it these. */
	CFI_ROW_UNSUPPORTED_ELSEWHERE = 3,
};

/* Where the return address is: saved at CFA + ra_off, or still in the
 * link register (AArch64 leaves and prologues: only the interrupted
 * frame can use it). */
enum cfi_ra_rule {
	CFI_RA_AT_CFA = 0,
	CFI_RA_IN_LR = 1,
};

enum cfi_fp_rule {
	CFI_FP_SAME = 0,           /* caller's FP is this frame's FP */
	CFI_FP_AT_CFA = 1,         /* caller's FP saved at CFA + fp_off */
};

/* The CFA's base register, by role: the architecture's DWARF numbers are
 * the compiler's business (arch/arch.h), the walk's is only which one. */
enum cfi_cfa_reg {
	CFI_CFA_SP = 0,
	CFI_CFA_FP = 1,
};

struct cfi_row {
	uint64_t start;
	uint32_t len;
	uint8_t kind;
	uint8_t cfa_reg;
	uint8_t fp_rule;
	uint8_t ra_rule;
	int32_t cfa_off;
	int16_t ra_off;
	int16_t fp_off;
};

/* Lookup index, as ORC's: for each 256-byte block of the covered range,
 * the first row ending after the block's start, so a lookup binary-searches
 * the few rows of one block instead of the whole table. */
#define CFI_BLOCK_SHIFT 8
#define CFI_MAX_BLOCKS (1u << 22)  /* 1 GiB of code; wider: no index */

struct up_cfi_table {
	struct cfi_row *rows;
	size_t count;
	struct up_cfi_info info;
	uint32_t *index;           /* blocks + 1 entries, or NULL */
	uint64_t index_base;
	size_t blocks;
	/* For compiling more files into it: */
	size_t cap;                /* rows allocated */
	size_t present;            /* rows made present (grow_array_populated) */
	uint64_t work_left;        /* libdw's budget, for all files */
	const struct arch *arch;   /* the files': their DWARF numbers */
};

/* Build the lookup index (rows sorted); without memory, lookups still
 * work, by binary search over the whole table. */
void cfi_table_index(struct up_cfi_table *t);

/* Whether a plain FDE (eh_frame.h) takes the rule libdw gave the first
 * plain FDE of its CIE (true), or is evaluated by libdw itself: a
 * variable so that the fuzzer and tests can compare the two. */
extern bool cfi_table_share_plain_rules;
/* Whether an .eh_frame in address order is compiled as its one walk vets
 * it (else listed first, as any other): for the tests and fuzzers to
 * compare the two. */
extern bool cfi_table_stream;

/* The row holding pc, or NULL. Inline: the walk calls it once a frame
 * inside the paused window, and the table's fields then stay in registers. */
static inline const struct cfi_row *cfi_table_find(const struct up_cfi_table *t,
						   uint64_t pc)
{
	size_t lo = 0, hi = t->count;

	if (t->index) {
		uint64_t b = (pc - t->index_base) >> CFI_BLOCK_SHIFT;

		if (pc < t->index_base || b >= t->blocks)
			return NULL;
		/* A row holding pc ends after its block's start and is at
		 * most the first row ending after the next block's start. */
		lo = t->index[b];
		hi = t->index[b + 1] < t->count ? t->index[b + 1] + 1 : t->count;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct cfi_row *r = &t->rows[mid];

		if (pc < r->start)
			hi = mid;
		else if (pc - r->start >= r->len)
			lo = mid + 1;
		else
			return r;
	}
	return NULL;
}

#endif
