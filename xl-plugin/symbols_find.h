/* Finding the guest's symbols without being told: -s first, then the
 * kernel image the domain was created with. */
#ifndef XLP_SYMBOLS_FIND_H
#define XLP_SYMBOLS_FIND_H

#include "uniprof/symbols.h"

/* Returns the table (or NULL when none was found, after saying how to pass
 * one) in *out; *used names the file. Returns -1 after one error line when
 * an explicitly given file cannot be used. */
int xlp_find_symbols(const char *explicit_file, const char *kernel,
		     int verbose, struct up_symtab **out, const char **used);

#endif
