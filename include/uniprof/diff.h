/* Comparing two profiles of one program (perhaps of two builds): by
 * function name, each function's share of all samples before and after. */
#ifndef UNIPROF_DIFF_H
#define UNIPROF_DIFF_H

#include <stdint.h>
#include <stdio.h>
#include "profile.h"
#include "symbols.h"

#ifdef __cplusplus
extern "C" {
#endif

struct up_diff_entry {
	char *name;
	uint64_t self_before, self_after;    /* samples as the leaf */
	uint64_t total_before, total_after;  /* samples anywhere in the stack */
	double self_before_pct, self_after_pct;   /* of each profile's kept samples */
	double total_before_pct, total_after_pct;
	double delta;                        /* self, after - before, points */
};

/* Whether one profile has inlined calls (frames "NAME (inlined)", from
 * DWARF or read by name) and the other none, as a build with debug
 * information and one without: the comparisons below then fold inlined
 * calls into their callers on both sides (as --no-inline), since a frame
 * one side cannot have is no change of path. With opts->no_inline, or
 * both alike: UP_DIFF_INLINE_ALIKE. Negative on error. */
enum up_diff_inline {
	UP_DIFF_INLINE_ALIKE,
	UP_DIFF_INLINE_ONLY_BEFORE,
	UP_DIFF_INLINE_ONLY_AFTER,
};
int up_profile_diff_inline(const struct up_profile *before,
			   const struct up_symtab *before_symtab,
			   const struct up_profile *after,
			   const struct up_symtab *after_symtab,
			   const struct up_output_opts *opts);

/* Every function of either profile, by |delta| (largest first), then name.
 * *kept_before / *kept_after: the samples the options keep in each.
 * Inlined calls only one side has are folded (up_profile_diff_inline). */
int up_profile_diff(const struct up_profile *before,
		    const struct up_symtab *before_symtab,
		    const struct up_profile *after,
		    const struct up_symtab *after_symtab,
		    const struct up_output_opts *opts,
		    struct up_diff_entry **entries, size_t *count,
		    uint64_t *kept_before, uint64_t *kept_after);
void up_diff_free(struct up_diff_entry *entries, size_t count);

/* The first n rows as a table: self % before -> after, change, total %. */
int up_diff_write_table(const struct up_diff_entry *entries, size_t count,
			size_t n, uint64_t kept_before, uint64_t kept_after,
			FILE *out);

/* A differential flame graph: frame widths from AFTER, each frame coloured
 * by the change of its share of all samples since BEFORE (red grew, blue
 * shrank; a legend says so). Frames found only in BEFORE are not drawn.
 * Inlined calls only one side has are folded, as up_profile_diff folds
 * them, and the legend says so. */
int up_profile_write_diff_svg(const struct up_profile *before,
			      const struct up_symtab *before_symtab,
			      const struct up_profile *after,
			      const struct up_symtab *after_symtab,
			      const struct up_output_opts *opts, const char *title,
			      FILE *out);

#ifdef __cplusplus
}
#endif
#endif
