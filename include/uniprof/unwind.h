/* Stack walking. A walk never trusts the guest: it has a depth limit, a
 * stack-bounds check and loop detection, and when it stops early it says
 * why, so a truncated stack is reported as truncated. */
#ifndef UNIPROF_UNWIND_H
#define UNIPROF_UNWIND_H

#include <stddef.h>
#include <stdint.h>
#include "kernel.h"
#include "memory.h"

#ifdef __cplusplus
extern "C" {
#endif

#define UP_UNWIND_DEFAULT_MAX_DEPTH 128
#define UP_UNWIND_MAX_DEPTH_LIMIT 4096
#define UP_UNWIND_DEFAULT_MAX_STACK (8u << 20)

enum up_trunc {
	UP_TRUNC_NONE = 0,     /* complete: the chain ended on a zero link */
	UP_TRUNC_DEPTH,        /* depth limit reached */
	UP_TRUNC_LOOP,         /* frame pointer did not strictly increase */
	UP_TRUNC_BOUNDS,       /* frame pointer left the stack bounds */
	UP_TRUNC_ALIGN,        /* misaligned frame pointer */
	UP_TRUNC_UNREADABLE,   /* stack memory not mapped */
	UP_TRUNC_NO_REGS,      /* registers unavailable */
	UP_TRUNC_NO_UNWIND_INFO, /* no CFI for an address (-u cfi) */
	UP_TRUNC_UNSUPPORTED,  /* CFI rule the table cannot express */
	UP_TRUNC_BAD_CFA,      /* CFI gave a CFA that does not go up */
	UP_TRUNC_OUTSIDE_TEXT, /* a return address outside the kernel's code */
	UP_TRUNC_HYPERCALL_STUB, /* in a hypercall stub where it cannot return */
	UP_TRUNC_BUDGET,       /* the unwinder ran out of steps (hostile CFI) */
	UP_TRUNC_RACED,        /* relaxed sampling: the stack moved under two
				* walks; only the IP is kept */
	UP_TRUNC_UNRECORDED,   /* read back from a file that does not say why */
	UP_TRUNC_COUNT
};

const char *up_trunc_name(enum up_trunc t);
/* The reason up_trunc_name gives this name, else UP_TRUNC_UNRECORDED. */
enum up_trunc up_trunc_from_name(const char *name);

struct up_libunwind;
struct up_kernel_map;

struct up_unwind_opts {
	unsigned max_depth;        /* frames incl. IP; 0: default */
	uint64_t max_stack_bytes;  /* FP must stay within [sp, sp+this) */
	/* CFI walks: a frame whose rule the table cannot express is unwound
	 * by libunwind over this image instead (NULL: the frame pointer in
	 * -u auto, a truncated stack in -u cfi). */
	const struct up_libunwind *cfi_fallback;
	/* The kernel's code (include/uniprof/kernel.h): return addresses
	 * outside it end a walk, its outermost functions end it whole, its
	 * hypercall page is stepped through. NULL: none of that. */
	const struct up_kernel_map *kernel;
	/* Which hypercall stubs the hypercall page holds: PV or HVM/PVH. */
	enum up_domain_type domain_type;
};

struct up_stack {
	uint64_t *frames;   /* frames[0] = IP, then return addresses */
	unsigned depth;
	unsigned capacity;  /* caller-provided storage, >= max_depth */
	enum up_trunc trunc;
};

/* Frame-pointer walk for x86_64: IP first, then return addresses along the
 * RBP chain (after stepping out of the hypercall page). rbp == 0 ends it
 * whole: frame pointers are assumed kept. Needs out->frames with capacity
 * >= the depth limit. */
int up_unwind_fp(struct up_mem *m, const struct up_regs *regs,
		 const struct up_unwind_opts *opts, struct up_stack *out);

/* A precompiled CFI table (see core/unwind/cfi_table.h): built once, before
 * sampling, from an ELF image's .eh_frame and .debug_frame. */
struct up_cfi_table;

struct up_cfi_info {
	size_t fdes;            /* FDEs turned into rows */
	size_t rows;
	size_t unsupported;     /* rows the table cannot express */
	size_t skipped_fdes;    /* FDEs not compiled: encodings we do not
				 * decode, or refused_fdes */
	size_t refused_fdes;    /* over the register or nesting caps */
	size_t overlapping_fdes;        /* overlapping an earlier FDE */
	size_t costly_fdes;     /* too costly to compile: unsupported rows */
	size_t fp_fdes;         /* FDEs whose CFA is rbp-based somewhere:
				 * code built with frame pointers */
	char warning[320];      /* a malformed section, caps hit: one line */
};

/* From an ELF file (gzip-compressed images too). UP_ENOENT when it has no
 * unwind information at all. */
int up_cfi_table_load(struct up_cfi_table **out, const char *path);
int up_cfi_table_load_mem(struct up_cfi_table **out, const void *buf,
			  size_t len, const char *what);
/* Compile a second ELF file's CFI into the table, for the code the table
 * does not cover yet: a stripped image's debug file often holds the
 * unwind tables (.debug_frame) its build left out of .eh_frame. The file
 * must be of the image's architecture; *fdes_added says what it gave. */
int up_cfi_table_add_mem(struct up_cfi_table *t, const void *buf, size_t len,
			 const char *what, size_t *fdes_added);
void up_cfi_table_free(struct up_cfi_table *t);
const struct up_cfi_info *up_cfi_table_info(const struct up_cfi_table *t);

/* What the CFI says of frame pointers: kept when most functions address
 * their frame through rbp (every non-leaf function does in such a build),
 * omitted when almost none does. */
enum up_frame_pointers up_cfi_frame_pointers(const struct up_cfi_table *t);

/* libunwind (stock, remote) over an ELF image's .eh_frame: slower than
 * the CFI table, and the reference it is checked against. */

int up_libunwind_load(struct up_libunwind **out, const char *path);
int up_libunwind_load_mem(struct up_libunwind **out, const void *image,
			  size_t len, const char *what);
void up_libunwind_free(struct up_libunwind *lu);
int up_unwind_libunwind(struct up_mem *m, const struct up_regs *regs,
			const struct up_libunwind *lu,
			const struct up_unwind_opts *opts, struct up_stack *out);

/* One frame: from the ip, sp and fp given (ip a return address unless
 * first) to the caller's. 0, 1 at the outermost frame, or -1 with *trunc
 * set. */
int up_libunwind_step(struct up_mem *m, const struct up_regs *regs,
		      const struct up_libunwind *lu, bool first,
		      uint64_t *ip, uint64_t *sp, uint64_t *fp,
		      enum up_trunc *trunc);

/* How the frames of one walk were found (added to, not reset). */
struct up_unwind_counts {
	uint64_t cfi;           /* frames unwound with the CFI table */
	uint64_t fp;            /* frames unwound with the frame pointer */
	uint64_t unsupported;   /* frames whose CFI rule the table lacks */
	uint64_t libunwind;     /* frames unwound by libunwind */
	uint64_t hypercall;     /* frames out of a hypercall stub */
};

/* CFI walk. A stack is whole only where the CFI says the return address
 * is undefined, a return address is 0, or an outermost function of the
 * kernel map is reached. With fp_fallback (-u auto), an address without
 * CFI is unwound through the frame pointer when the kernel keeps frame
 * pointers (then rbp == 0 also ends it whole); otherwise the walk stops
 * there, truncated. */
int up_unwind_cfi(struct up_mem *m, const struct up_regs *regs,
		  const struct up_cfi_table *t, const struct up_unwind_opts *opts,
		  bool fp_fallback, struct up_stack *out,
		  struct up_unwind_counts *counts);

#ifdef __cplusplus
}
#endif
#endif
