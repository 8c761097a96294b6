/* What every writer shows of a profile's stacks: which stack records the
 * output options keep, and each frame's labels (folded, flame graph, top,
 * heat map, pprof, diff). */
#ifndef UP_OUTPUT_FRAME_LABELS_H
#define UP_OUTPUT_FRAME_LABELS_H

#include <stdbool.h>
#include <stdint.h>
#include "uniprof/profile.h"

/* The options a writer uses when given none (every vCPU). */
extern const struct up_output_opts profile_default_opts;

/* 0 for options of our layout (or NULL: the defaults), else one error line
 * (UP_EINVAL): what every public function taking options checks first. */
int profile_check_opts(const struct up_output_opts *o);

/* Whether the output options keep a stack: its vCPU, and idle or not. */
bool profile_kept(const struct up_output_opts *o,
		  const struct up_stack_record *s);

/* A frame's name as every writer shows it: the symbol containing addr
 * (addr - 1 for a return address) cut to PROFILE_NAME_MAX bytes of valid
 * UTF-8, "+0xOFF" with with_offset, or "0xADDR" when no symbol has it.
 * buf holds PROFILE_NAME_MAX bytes. Returns whether a symbol had it. */
#define PROFILE_NAME_MAX 512
bool profile_frame_label(const struct up_symtab *s, uint64_t addr,
			 bool is_return, bool with_offset, char *buf);

/* The labels one raw frame stands for, outermost first: the function
 * (profile_frame_label's name, ';' and line ends replaced), then each call
 * inlined in it, innermost last, as "name (inlined)" (unless opts say
 * no_inline); with opts->lines and leaf, the innermost gets " file:line".
 * Returns how many (1 .. UP_SRC_MAX_FRAMES; 0 for a stored profile's
 * inlined frame, read by name, when opts say no_inline). */
#define PROFILE_INLINED_MARK " (inlined)"
/* Whether a label is an inlined call's (ours, or a stored profile's read
 * by name): it ends in PROFILE_INLINED_MARK. */
bool profile_inlined_label(const char *label);
unsigned profile_frame_labels(const struct up_symtab *s, uint64_t addr,
			      bool is_return, bool leaf,
			      const struct up_output_opts *opts,
			      char (*names)[PROFILE_NAME_MAX]);

/* The same labels joined by ';' (no label holds one), *len bytes long
 * (not NUL-terminated), *n of them: made once per frame and kind for all
 * the writers (the table keeps them), names the room to make them in.
 * Valid until the next call. */
const char *profile_frame_labels_text(const struct up_symtab *s, uint64_t addr,
				      bool is_return, bool leaf,
				      const struct up_output_opts *opts,
				      char (*names)[PROFILE_NAME_MAX],
				      size_t *len, unsigned *n);

/* Room for one frame's labels (UP_SRC_MAX_FRAMES of them); NULL, error
 * set, when out of memory. */
char (*profile_labels_alloc(void))[PROFILE_NAME_MAX];

/* Resolve the symbols of every frame of p not resolved yet in one walk
 * of the table, in address order (the writers' lookups then find them
 * cached), and with source, their source frames: done first by each
 * writer, as only the first finds any left to do. */
void profile_warm(const struct up_profile *p, const struct up_symtab *s,
		  bool source);

/* Make the labels of every frame of p that the options keep and the
 * table's memo lacks, in address order (each table read in order, not
 * at random per frame), after profile_warm: what a writer of labels does
 * first. names: room to make them in. */
void profile_warm_labels(const struct up_profile *p, const struct up_symtab *s,
			 const struct up_output_opts *opts,
			 char (*names)[PROFILE_NAME_MAX]);

#endif
