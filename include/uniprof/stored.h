/* Profiles that live on: a sampled profile written as pprof (gzip'ed
 * protobuf per pprof's profile.proto, read by go tool pprof, Pyroscope,
 * Parca, Speedscope), and stored profiles (pprof, or folded stacks) read
 * back into a profile and a symbol table that every writer renders as it
 * rendered the live run, without the guest or its image. */
#ifndef UNIPROF_STORED_H
#define UNIPROF_STORED_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "profile.h"
#include "symbols.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A pprof Mapping: where an image's code was in the guest's memory, as
 * the image's program header says (a PT_LOAD: p_vaddr, p_vaddr +
 * p_memsz, p_offset). */
struct up_pprof_mapping {
	uint64_t start, limit;     /* [start, limit) */
	uint64_t file_offset;      /* where start's bytes are in the file */
	const char *file;          /* the image's path, or NULL */
	const char *build_id;      /* lowercase hex, or NULL */
};

/* The metadata's layout: a caller compiled against another layout is
 * refused (UP_EINVAL) rather than misread. Set it up with
 * up_pprof_meta_init(m, UP_PPROF_META_VERSION) or UP_PPROF_META_INIT (or
 * .version = UP_PPROF_META_VERSION in a designated initializer), then
 * fill in what is known. */
#define UP_PPROF_META_VERSION 1

/* What a pprof file says about the run beyond its stacks. */
struct up_pprof_meta {
	unsigned int version;      /* UP_PPROF_META_VERSION */
	double hz;                 /* sampling rate: period = 1 s / hz */
	int64_t time_nanos;        /* start, wall clock (0: unknown) */
	int64_t duration_nanos;
	/* The image's mappings, one pprof Mapping each in this order (its
	 * id: index + 1); each location points to the innermost one that
	 * holds its address, if any. None: no Mapping is written. */
	const struct up_pprof_mapping *mappings;
	size_t nr_mappings;
	bool names_only;           /* frames are names without addresses (read
				      from folded stacks): addresses written 0,
				      no location in a mapping */
	bool no_inline;            /* --no-inline: each location's line is its
				      function's only, inlined calls folded
				      into it (frames read by name too) */
	/* Comment lines, "key: value": uniprof reads back domain, type, vcpus
	 * (and shows the rest). */
	const char *const *comments;
	size_t nr_comments;
};

/* The defaults, as up_pprof_meta_init sets them: nothing known (no rate,
 * times, mappings or comments). */
#define UP_PPROF_META_INIT { .version = UP_PPROF_META_VERSION }

/* The defaults for metadata of this version (the caller's
 * UP_PPROF_META_VERSION); UP_EINVAL for a version this library does not
 * know. */
int up_pprof_meta_init(struct up_pprof_meta *m, unsigned int version);

/* Samples with two values, samples/count and cpu/nanoseconds (with no
 * rate, meta->hz 0: samples/count only, no period); one
 * Location per distinct address (and function), its Function named as
 * the folded and top writers name it, in the mapping that holds its
 * address (the meta's mappings); labels vcpu, state (busy, idle)
 * and truncated (the reason), a truncated stack ending in a [truncated]
 * root frame, a dropped one a [dropped] frame. meta NULL: nothing known;
 * metadata of an unknown version is refused (UP_EINVAL). */
int up_profile_write_pprof(const struct up_profile *p,
			   const struct up_symtab *symtab,
			   const struct up_pprof_meta *meta, FILE *out);

enum up_stored_format { UP_STORED_PPROF, UP_STORED_FOLDED };

struct up_stored;

/* Read stored profiles and merge them. A single pprof keeps its addresses
 * (frames named as recorded, or by resymbolize when given: a symbol table
 * for raw addresses); folded files, or several files, are merged by
 * function name. Several files are one run on one clock: sample times
 * count from the earliest file's start (time_nanos), the duration reaches
 * the latest end; a file without times keeps its samples untimed, starts
 * more than seven days apart keep none (each said in the warning). Their
 * rate is the one they share, else unknown (0: counts of samples, said in
 * the warning). Their comments: "merged: N files, by ...", the domain,
 * domain id, type, arch, vcpus and frequency with every value the files
 * gave ("domain: web1, web2 (2 files merged)"), then each file's lines
 * under "input I: PATH", as "  [I] line". Inputs are untrusted: bounded in size (128 MiB after
 * gunzip), decoding memory, stacks, depth, frames, names and comments (the
 * bounds: xl-profile(1), LIMITS); an unreadable file is one error line
 * naming it, a bound met one line in up_stored_warning(). */
#define UP_STORED_MAX_BYTES (128ULL << 20)
int up_stored_load(struct up_stored **out, const char *const *paths,
		   size_t n, const struct up_symtab *resymbolize);
void up_stored_free(struct up_stored *s);

const struct up_profile *up_stored_profile(const struct up_stored *s);
/* Frames named as recorded (or the resymbolize table). */
const struct up_symtab *up_stored_symtab(const struct up_stored *s);
enum up_stored_format up_stored_format_of(const struct up_stored *s);
/* The sampling rate (0: unknown, as in folded files, or files of
 * different rates merged) and the pprof header's times (0: unknown; of
 * several files, the merged run's). */
double up_stored_hz(const struct up_stored *s);
int64_t up_stored_time_nanos(const struct up_stored *s);
int64_t up_stored_duration_nanos(const struct up_stored *s);
/* Whether frames are names only (folded input, or merged by name). */
bool up_stored_names_only(const struct up_stored *s);
/* The first mapping's file and build-id (of those that have one), or NULL. */
const char *up_stored_kernel(const struct up_stored *s);
const char *up_stored_build_id(const struct up_stored *s);
/* Every mapping the files had, all fields as read (strings made valid
 * UTF-8, as the writer would write them), each once (identical
 * ones of several files kept once), in the order read: *n of them (at
 * most UP_STORED_MAX_MAPPINGS; a file past it is refused). Several pprof
 * files merged by address (resymbolize) whose mappings overlap but differ
 * (other builds at the same addresses) are refused, one line naming
 * them. Valid as long as s. */
#define UP_STORED_MAX_MAPPINGS 4096
const struct up_pprof_mapping *up_stored_mappings(const struct up_stored *s,
						  size_t *n);
/* The value of a "key: value" comment (the first), or NULL; and every
 * comment line in order. */
const char *up_stored_comment(const struct up_stored *s, const char *key);
size_t up_stored_nr_comments(const struct up_stored *s);
const char *up_stored_comment_line(const struct up_stored *s, size_t i);
/* Bounds the files hit, the profile read without what went past them
 * (comment lines left out, stacks past the frame bound counted as
 * [dropped]): one line, or NULL. */
const char *up_stored_warning(const struct up_stored *s);

#ifdef __cplusplus
}
#endif
#endif
