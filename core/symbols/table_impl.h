/* Building a symbol table (loaders fill it, then symtab_finish sorts it). */
#ifndef UP_SYMTAB_IMPL_H
#define UP_SYMTAB_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "uniprof/symbols.h"
#include "private.h"

/* 24 bytes: a large table's entries are most of its load's fresh pages.
 * addr first: the radix sort's key (util/radix_order.h). */
struct sym_entry {
	uint64_t addr;
	uint64_t size;
	uint32_t name;     /* offset into the name arena (or, BORROWED,
			    * into the loader's strings): both < 4 GiB */
	uint16_t name_size;        /* the name's bytes with its NUL, as added
				    * (0: not known, strlen it); | BORROWED */
	int16_t rank;      /* which alias wins at one address: higher */
};

/* The name is the loader's (symtab_lend_names), not yet in the arena. */
#define SYM_NAME_BORROWED 0x8000u

struct up_symtab {
	struct sym_entry *entries;
	size_t count, cap;
	size_t populated;          /* entries made present (populate_ahead) */
	char *names;
	size_t names_len, names_cap;
	/* A loader's own strings its names are read from until symtab_finish
	 * copies the kept ones into the arena (symtab_lend_names): no copy
	 * of every name first. */
	const char *lent;
	size_t lent_len, lent_used;
	struct up_symbol *syms;    /* final, sorted, names resolved */
	uint64_t end;              /* unsized last symbol extends to here */
	enum up_symtab_format format;
	char *build_id;
	unsigned elf_machine, elf_width;
	char warning[256];         /* caps hit while loading: one line */
	bool capped;               /* symbols left out (SYMTAB_MAX_*) */
	size_t long_names;         /* names cut to SYMTAB_MAX_NAME */
	struct name_block *added;  /* names of symbols_insert's symbols */
	struct srcinfo *src;       /* DWARF lines and inlines, or NULL */
	struct lookup_cache *lookups;  /* the writers' (lookup_cache.h) */
	struct text_memo *labels;      /* the writers' frame labels (same) */
};

/* Add to the table's warning line ("; "-separated). */
void symtab_warn(struct up_symtab *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* What one table may hold: 4M symbols, 256 MiB of names (a Linux vmlinux
 * has ~150k symbols and 5 MiB of names; a unikernel far fewer). Past a cap
 * the rest is left out, said in the warning: its addresses then count for
 * the symbol before. Variables so that tests can lower them. */
struct symtab_limits {
	size_t symbols;
	size_t name_bytes;
};
extern struct symtab_limits symtab_limits;

/* A longer name is kept cut here (on a UTF-8 character boundary). */
#define SYMTAB_MAX_NAME 4096

struct up_symtab *symtab_alloc(enum up_symtab_format format);

/* Room for what a loader is about to add (each cut to its cap), so that
 * a large table is not copied as it grows: 0 or UP_ENOMEM. */
int symtab_reserve(struct up_symtab *s, size_t symbols, size_t name_bytes);

/* Names passed to symtab_add from within strings[0..len) (a loader's
 * string table, alive until symtab_finish) are read there, not copied. */
void symtab_lend_names(struct up_symtab *s, const char *strings, size_t len);

/* Add a symbol (symtab_finish demangles C++ names). */
int symtab_add(struct up_symtab *s, uint64_t addr, uint64_t size,
	       const char *name, int rank);

/* Into a finished table: add[0..n) (sorted by address, distinct, all in
 * [lo, hi)), each replacing any symbol at its address, the others in
 * [lo, hi) kept. Only the symbols from lo on move: no rebuild of a large
 * table. The table takes names (one malloc'ed block, NUL-separated, that
 * add's names point into). 0 or UP_ENOMEM (table unchanged, names freed). */
struct name_block;
int symtab_insert(struct up_symtab *s, uint64_t lo, uint64_t hi,
		  const struct up_symbol *add, size_t n, char *names);

/* Sort, merge aliases and resolve names; the table is then read-only. */
int symtab_finish(struct up_symtab *s);

int symtab_load_elf(struct up_symtab **out, const void *buf, size_t len,
		    const char *what);
int symtab_load_nm(struct up_symtab **out, const char *buf, size_t len,
		   const char *what);

/* A C++ name we would demangle ("_Z..." of at most 4 KiB). */
bool symbol_is_mangled(const char *name);

/* Demangle names[0..n) (each symbol_is_mangled), bounded in time and
 * size: out[i] is the malloc'ed result or NULL (keep the name); results
 * take at most `budget` bytes (with their NULs) in all. Returns how many
 * were refused (too slow, demangled longer than 4 KiB, over the budget). */
size_t symbol_demangle_batch(const char *const *names, size_t n, char **out,
			     size_t budget);

#endif
