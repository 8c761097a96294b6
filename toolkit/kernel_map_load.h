/* The kernel map for the unwinders (uniprof/sys/kernel.h), from what
 * xl profile or uniprofd found: the kernel image, else the symbol file,
 * else only the symbols; plus the functions where stacks begin (xl
 * profile's --entry) and what the CFI table says of frame pointers. The
 * hypercall page's stubs get names in the symbol table. */
#ifndef TK_KERNEL_MAP_LOAD_H
#define TK_KERNEL_MAP_LOAD_H

#include <stdbool.h>

#include "uniprof/uniprof.h"
#include "uniprof/sys/unwind.h"

/* Prints one error line and returns -1 on failure (an entry that names
 * no function). symtab and cfi may be NULL; verbose: say what the map was
 * read from, on stderr. With a domain to read, the
 * caller then checks the hypercall page in its memory
 * (tk_kernel_map_probe). */
int tk_kernel_map_load(const char *kernel, const char *symbols_file,
			struct up_symtab *symtab, const struct up_cfi_table *cfi,
			const char *const *entries, unsigned nr_entries,
			bool verbose, struct up_kernel_map **out);

/* Where domain t's hypercall stubs are, from its memory (a PVH kernel's
 * page has no note and any name), and their names in symtab if the page
 * moved. verbose: say how it was found, on stderr, after who. true when
 * the stubs were seen in memory (the page is known for sure). */
bool tk_kernel_map_probe(struct up_kernel_map *k, struct up_symtab *symtab,
			  struct up_target *t, bool verbose, const char *who);

#endif
