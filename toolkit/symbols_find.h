/* Finding the guest's symbols without being told, in this order:
 *   1. -s FILE
 *   2. the kernel image from the domain's configuration, if it has a
 *      symbol table (gzip-compressed images included)
 *   3. its debug file: by build-id under the debug directory
 *      (.build-id/xx/rest.debug), then by .gnu_debuglink (beside it, in
 *      .debug/ beside it, under the debug directory)
 *   4. KERNEL.debug, KERNEL.dbg, KERNEL.syms, System.map beside it
 *   5. when nothing was found and debuginfod is on: the debug file of the
 *      kernel's build-id (or a core's, without a kernel file) from the
 *      servers, checked to carry that build-id
 * A file whose build-id differs from the kernel's is refused unless forced.
 * Each step is reported with -v. */
#ifndef TK_SYMBOLS_FIND_H
#define TK_SYMBOLS_FIND_H

#include <signal.h>
#include <stdbool.h>

#include "uniprof/symbols.h"
#include "uniprof/target.h"

struct tk_symbol_query {
	const char *explicit_file;   /* -s, or NULL */
	const char *kernel;          /* from the domain config, or NULL */
	const char *debug_dir;       /* default /usr/lib/debug */
	bool force;                  /* accept a build-id mismatch */
	int verbose;
	unsigned guest_width;        /* 4 or 8 from the hypervisor; 0: unknown */
	enum up_arch arch;           /* the domain's; zero: x86_64 */
	const char *debuginfod;      /* servers (tk_debuginfod_setup); NULL: off */
	const char *build_id;        /* known without a kernel file (a core's) */
	volatile sig_atomic_t *stop; /* cancels a download (Ctrl-C); may be NULL */
};

/* On success *out is the table, or NULL when nothing was found (after one
 * line saying how to pass symbols); *used is the file (malloc'ed). Returns
 * -1 after one error line when -s cannot be used or does not fit. */
int tk_find_symbols(const struct tk_symbol_query *q, struct up_symtab **out,
		     char **used);

#endif
