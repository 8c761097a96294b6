/* Symbols and unwind tables per kernel build, loaded once and reused by
 * every profile of a domain running that build (a fleet runs the same
 * image many times). An entry serves one profile at a time: libunwind's
 * address space keeps caches, so two domains of one build running at once
 * get two entries. A load (maybe a debuginfod fetch) runs without the
 * cache's lock: other builds load and other domains find theirs
 * meanwhile; a second requester of the same build waits for it. The
 * least recently used idle entries are freed beyond the limit. */
#ifndef UPD_SYMBOL_CACHE_H
#define UPD_SYMBOL_CACHE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "toolkit/unwind_load.h"
#include "uniprof/uniprof.h"

struct upd_symbols {
	struct up_symtab *symtab;       /* NULL: none found (addresses) */
	char *symbols_used;
	struct tk_unwind uw;
	struct up_kernel_map *kmap;
	char build_id[129];             /* the kernel's, "" if none */
	/* The hypercall page's stubs were seen in a domain of this build (a
	 * PVH kernel's page is known only from its memory). */
	bool hypercall_probed;
};

struct upd_symbol_cache;

/* STOP (may be NULL), once set, cancels loads and waits in progress
 * within about a second. */
int upd_symbol_cache_new(struct upd_symbol_cache **out, size_t max_entries,
			 enum up_unwinder unwinder, const char *debug_dir,
			 const char *debuginfod, volatile sig_atomic_t *stop);
void upd_symbol_cache_free(struct upd_symbol_cache *c);

/* An entry for kernel (may be NULL) and a PV guest's width (0: not PV),
 * loaded if need be. Returns 0, or -1 with one line in err. */
int upd_symbols_get(struct upd_symbol_cache *c, const char *kernel,
		    unsigned guest_width, struct upd_symbols **out,
		    char *err, size_t errlen);
void upd_symbols_put(struct upd_symbol_cache *c, struct upd_symbols *s);

/* Loads made so far (each a cache miss). */
unsigned long upd_symbol_cache_loads(struct upd_symbol_cache *c);

#endif
