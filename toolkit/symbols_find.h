/* Finding the guest's symbols without being told, in this order:
 *   1. -s FILE
 *   2. the kernel image from the domain's configuration, if it has a
 *      symbol table (gzip-compressed images included)
 *   3. its debug file: by build-id under the debug directory
 *      (.build-id/xx/rest.debug), then by .gnu_debuglink (beside it, in
 *      .debug/ beside it, under the debug directory)
 *   4. KERNEL.debug, KERNEL.dbg, KERNEL.syms, System.map beside it
 * A file whose build-id differs from the kernel's is refused unless forced.
 * Each step is reported with -v. */
#ifndef XLP_SYMBOLS_FIND_H
#define XLP_SYMBOLS_FIND_H

#include <stdbool.h>

#include "uniprof/symbols.h"
#include "uniprof/target.h"

struct xlp_symbol_query {
	const char *explicit_file;   /* -s, or NULL */
	const char *kernel;          /* from the domain config, or NULL */
	const char *debug_dir;       /* default /usr/lib/debug */
	bool force;                  /* accept a build-id mismatch */
	int verbose;
	unsigned guest_width;        /* 4 or 8 from the hypervisor; 0: unknown */
	enum up_arch arch;           /* the domain's; zero: x86_64 */
};

/* On success *out is the table, or NULL when nothing was found (after one
 * line saying how to pass symbols); *used is the file (malloc'ed). Returns
 * -1 after one error line when -s cannot be used or does not fit. */
int xlp_find_symbols(const struct xlp_symbol_query *q, struct up_symtab **out,
		     char **used);

#endif
