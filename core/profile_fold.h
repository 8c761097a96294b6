/* Symbolized, merged stacks ("root;...;leaf" -> count), shared by the
 * folded and flame-graph writers. */
#ifndef UP_PROFILE_FOLD_H
#define UP_PROFILE_FOLD_H

#include <stdint.h>
#include "strmap.h"
#include "uniprof/profile.h"

/* *keys holds each distinct stack string, (*counts)[i] its samples; the
 * caller frees both (strmap_free, free). */
int profile_fold(const struct up_profile *p, const struct up_symtab *symtab,
		 const struct up_output_opts *opts, struct strmap **keys,
		 uint64_t **counts);

#endif
