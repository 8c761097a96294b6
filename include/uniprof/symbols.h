/* Symbol tables: ELF .symtab (or .dynsym) through libelf, gzip-compressed
 * images through zlib, and `nm -n` style text maps (System.map, xenctx).
 * Loaded once before sampling; lookups are a binary search. */
#ifndef UNIPROF_SYMBOLS_H
#define UNIPROF_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

struct up_symtab;

struct up_symbol {
	uint64_t addr;
	uint64_t size;      /* 0 when unknown: extends to the next symbol */
	const char *name;   /* demangled */
};

enum up_symtab_format {
	UP_SYMTAB_ELF = 0,
	UP_SYMTAB_NM = 1,
};

/* The largest symbol file loaded, in bytes (also after gunzip). */
#define UP_SYMTAB_MAX_FILE (1ULL << 31)

/* Load from a file: ELF (plain or gzip-compressed) or an nm text map. */
int up_symtab_load(struct up_symtab **out, const char *path);

/* A whole file as the loaders read it, gunzipped when gzip-compressed
 * (within the decompression cap). Read an image once with this and build
 * the symbol table, CFI table and libunwind tables from the buffer with
 * the *_mem loaders. A plain file is mapped, not copied, and the loaders
 * map it again rather than copy it: far fewer fresh pages, which cost
 * most of a load in a PV dom0. Read-only; give back with up_file_release. */
int up_file_map(const char *path, const uint8_t **out, size_t *len);
void up_file_release(const uint8_t *buf);

/* The same from a buffer already in memory (copied as needed). */
int up_symtab_load_mem(struct up_symtab **out, const void *buf, size_t len,
		       const char *what);

void up_symtab_free(struct up_symtab *s);

size_t up_symtab_count(const struct up_symtab *s);
enum up_symtab_format up_symtab_format_of(const struct up_symtab *s);

/* What was left out or cut while loading (caps on a hostile file: symbol
 * count, name length, demangling), as one line; NULL when nothing. */
const char *up_symtab_warning(const struct up_symtab *s);

/* The GNU build-id as lowercase hex, or NULL if the file has none. */
const char *up_symtab_build_id(const struct up_symtab *s);

/* The ELF machine (EM_X86_64 ...) and class (4 or 8 bytes), or 0. */
unsigned up_symtab_elf_machine(const struct up_symtab *s);
unsigned up_symtab_elf_width(const struct up_symtab *s);

/* What an ELF image says about itself, symbol table or not: used to find
 * its debug file and to check that a symbol file belongs to it. */
struct up_elf_identity {
	char build_id[129];     /* lowercase hex, "" if none */
	char debuglink[256];    /* .gnu_debuglink file name, "" if none */
	unsigned machine;       /* EM_* */
	unsigned width;         /* 4 or 8 */
	bool has_symtab;
};

int up_elf_identify_mem(const void *buf, size_t len, const char *what,
			struct up_elf_identity *id);

/* Symbol i (0 .. count-1) in address order. */
const struct up_symbol *up_symtab_symbol(const struct up_symtab *s, size_t i);

/* The symbol containing addr, or NULL. */
const struct up_symbol *up_symtab_lookup(const struct up_symtab *s,
					 uint64_t addr);

/* Source lines and inlined functions, when the file the table came from
 * has DWARF (.debug_info and .debug_line: built with -g, or its debug
 * file). Resolved after sampling, on first use, and cached per address. */
struct up_src_frame {
	const char *function;    /* DWARF's name; NULL when it has none */
	const char *file;        /* the source file, NULL when unknown */
	unsigned line;           /* 0 when unknown */
	const char *decl_file;   /* where the function is defined */
	unsigned decl_line;
	bool inlined;            /* an inlined call, not a real frame */
};

/* Frames one address may stand for: the function, and up to 16 levels of
 * inlined calls within it. */
#define UP_SRC_MAX_FRAMES 17

bool up_symtab_has_source(const struct up_symtab *s);

/* The source frames of addr (addr - 1 for a return address): innermost
 * inlined callee first, the function holding the code last. At most max;
 * returns how many, 0 when no line information covers it. The strings
 * live as long as the table. */
size_t up_symtab_source(const struct up_symtab *s, uint64_t addr,
			bool is_return, struct up_src_frame *out, size_t max);

/* Caps met while resolving source frames, as one line; NULL when none. */
const char *up_symtab_source_warning(const struct up_symtab *s);

/* A new profile from a table kept between runs (uniprofd): the caps on
 * time and addresses count again from here. */
void up_symtab_source_new_pass(const struct up_symtab *s);

#ifdef __cplusplus
}
#endif
#endif
