/* Evolving: the tables the CFI and libunwind unwinders walk with, built
 * once before sampling from a kernel image and handed to the sampler
 * (up_sampler_config's cfi, libunwind and unwind.cfi_fallback). They follow
 * the unwinders: a change bumps the soname. The walks themselves are the
 * sampler's (up_sample). */
#ifndef UNIPROF_SYS_UNWIND_H
#define UNIPROF_SYS_UNWIND_H

#include <stddef.h>
#include <stdint.h>
#include "kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/* From an ELF image in memory (gzip-compressed too; up_file_map reads
 * one). UP_ENOENT when it has no unwind information at all. */
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
struct up_libunwind;

int up_libunwind_load_mem(struct up_libunwind **out, const void *image,
			  size_t len, const char *what);
void up_libunwind_free(struct up_libunwind *lu);

#ifdef __cplusplus
}
#endif
#endif
