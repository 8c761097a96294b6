/* The writers' symbol lookups (core/output, core/pprof): each distinct
 * address resolved once for them all, kept by the table. Writers run
 * after sampling, one at a time per table, like its source cache. */
#ifndef UP_SYMBOLS_LOOKUP_CACHE_H
#define UP_SYMBOLS_LOOKUP_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "uniprof/symbols.h"

/* up_symtab_lookup(s, pc), answered from the cache when it has pc (and
 * kept there when it has room). */
const struct up_symbol *symtab_lookup_cached(const struct up_symtab *s,
					     uint64_t pc);

/* Whether the cache already has pc. */
bool symtab_cached(const struct up_symtab *s, uint64_t pc);

/* Resolve pcs[0..n) (rising, distinct; looked-up addresses: a return
 * address less one) in one walk of the table into the cache, and, with
 * source, the source frames of those in a symbol, in address order. */
void symtab_warm(const struct up_symtab *s, const uint64_t *pcs, size_t n,
		 bool source);

/* The writers' memo of frame labels (output/frame_labels.c), made on the
 * first call; NULL without memory, or for a table without source lines
 * (its labels cost no more to make again). Forgotten with the lookups:
 * when the table changes and on a new pass. */
#define LABEL_MEMO_MAX_BYTES (32u << 20)
struct text_memo *symtab_label_memo(const struct up_symtab *s);

/* Whether up_symtab_source's answer for addr is settled (kept by the
 * source cache, so asked again it is the same), or the table has no
 * source to give: what a label made from it may be kept for. */
bool symtab_source_settled(const struct up_symtab *s, uint64_t addr,
			   bool is_return);

#endif
