/* Symbolized, merged stacks ("root;...;leaf" -> count), shared by the
 * folded, flame-graph and heat-map writers. */
#ifndef UP_PROFILE_FOLD_H
#define UP_PROFILE_FOLD_H

#include <stdbool.h>
#include <stdint.h>
#include "util/strmap.h"
#include "uniprof/profile.h"

/* *keys holds each distinct stack string, (*counts)[i] its samples; the
 * caller frees both (strmap_free, free). */
int profile_fold(const struct up_profile *p, const struct up_symtab *symtab,
		 const struct up_output_opts *opts, struct strmap **keys,
		 uint64_t **counts);

/* profile_fold, and the key of each stack record kept (ids rising, as
 * up_profile_foreach visits them): *ids is allocated, free it. */
struct profile_fold_id {
	uint64_t id;
	size_t key;
};
int profile_fold_ids(const struct up_profile *p,
		     const struct up_symtab *symtab,
		     const struct up_output_opts *opts, struct strmap **keys,
		     uint64_t **counts, struct profile_fold_id **ids,
		     size_t *nr_ids);

#endif
