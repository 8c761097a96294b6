/* Building a symbol table (loaders fill it, then symtab_finish sorts it). */
#ifndef UP_SYMTAB_IMPL_H
#define UP_SYMTAB_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include "uniprof/symbols.h"

struct sym_entry {
	uint64_t addr;
	uint64_t size;
	size_t name;       /* offset into the name arena */
	int rank;          /* which alias wins at one address: higher */
};

struct up_symtab {
	struct sym_entry *entries;
	size_t count, cap;
	char *names;
	size_t names_len, names_cap;
	struct up_symbol *syms;    /* final, sorted, names resolved */
	uint64_t end;              /* unsized last symbol extends to here */
	enum up_symtab_format format;
	char *build_id;
	unsigned elf_machine, elf_width;
};

struct up_symtab *symtab_alloc(enum up_symtab_format format);

/* Add a symbol; the name is demangled if it is a C++ name. */
int symtab_add(struct up_symtab *s, uint64_t addr, uint64_t size,
	       const char *name, int rank);

/* Sort, merge aliases and resolve names; the table is then read-only. */
int symtab_finish(struct up_symtab *s);

int symtab_load_elf(struct up_symtab **out, const void *buf, size_t len,
		    const char *what);
int symtab_load_nm(struct up_symtab **out, const char *buf, size_t len,
		   const char *what);

/* A whole file, gunzipped if it is gzip-compressed; *out is malloc'ed. */
int symtab_read_file(const char *path, uint8_t **out, size_t *len);

/* Demangled copy of name (malloc'ed), or NULL if not a mangled name. */
char *symbol_demangle(const char *name);

#endif
