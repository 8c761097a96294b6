/* The unwind information for the chosen unwinder, read before sampling:
 * the CFI table (-u cfi/auto) from the kernel image (stripping keeps
 * .eh_frame), else from the symbol file, with libunwind for the rows the
 * table cannot express; libunwind alone for -u libunwind. auto without any
 * CFI falls back to frame pointers; cfi or libunwind without it is an
 * error (one line, -1). */
#ifndef TK_UNWIND_LOAD_H
#define TK_UNWIND_LOAD_H

#include "uniprof/uniprof.h"
#include "uniprof/sys/unwind.h"

struct tk_unwind {
	enum up_unwinder unwinder;   /* what will run */
	struct up_cfi_table *cfi;
	struct up_libunwind *libunwind;
};

int tk_unwind_load(enum up_unwinder want, const char *kernel,
		    const char *symbols_file, int verbose, struct tk_unwind *out);
void tk_unwind_release(struct tk_unwind *u);

/* The sampler's unwinding settings from what was loaded and the kernel
 * map (may be NULL). */
void tk_unwind_configure(const struct tk_unwind *u, struct up_kernel_map *kmap,
			  struct up_sampler_config *cfg);

#endif
