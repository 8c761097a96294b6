/* Start-up reads each image file once: the kernel image is wanted by the
 * symbol search (its identity, then its symbols), the CFI table and
 * libunwind, and a gzip-compressed one would otherwise be inflated each
 * time. These loaders take a path like the library's, keep the last two
 * files read (or the error reading them) and build from the buffer.
 * tk_image_cache_drop frees them before sampling locks memory. The
 * cache is the calling thread's own: drop frees that thread's files. */
#ifndef TK_IMAGE_CACHE_H
#define TK_IMAGE_CACHE_H

#include "uniprof/uniprof.h"
#include "uniprof/sys/unwind.h"

int tk_elf_identify(const char *path, struct up_elf_identity *id);
int tk_symtab_load(struct up_symtab **out, const char *path);
int tk_cfi_table_load(struct up_cfi_table **out, const char *path);
int tk_cfi_table_add(struct up_cfi_table *t, const char *path, size_t *added);
int tk_libunwind_load(struct up_libunwind **out, const char *path);
int tk_kernel_map_read(struct up_kernel_map **out, const char *path,
			const struct up_symtab *symtab);

void tk_image_cache_drop(void);

/* Files read from disk so far by this thread (for the tests). */
unsigned tk_image_cache_reads(void);

#endif
