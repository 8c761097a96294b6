/* A stored profile being read back (stored.c), shared with the readers of
 * its two formats (folded_read.c, pprof_read.c) and the stack assembly
 * they both use (stored_stacks.c). */
#ifndef UP_STORED_IMPL_H
#define UP_STORED_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uniprof/stored.h"

#define MAX_VCPUS 4096          /* Xen's own limit is lower */
#define MAX_DEPTH 4096          /* frames kept per stack; deeper: truncated */
#define COMMENT_LINE_MAX 4096   /* bytes of one comment line; longer: cut */
#define MAPPING_STRING_MAX 4096 /* a mapping's file or build-id; longer: refused */
/* The most a run's sample times may span without a duration, and the most
 * the starts of files merged on one clock may lie apart: a hostile time
 * would make a heat map or a slice of 1e8 columns. */
#define STORED_MAX_SPAN_NS (7ULL * 86400 * 1000000000ULL)

/* What a stored profile may make us do beyond its own bytes (variables so
 * that tests can lower them): frames assembled per file (one pprof
 * location's inlined lines are a frame each, for every sample naming it),
 * comment lines kept and their bytes (every file together). */
struct stored_limits {
	size_t frames;
	size_t comment_lines;
	size_t comment_bytes;
};
extern struct stored_limits stored_limits;

/* Several files: the run's identity, each key's values as the files gave
 * them (the first line of each key per file, kept whatever the bounds on
 * comments leave out), for the merged header. */
#define STORED_MERGED_KEYS 6
extern const char *const stored_merged_keys[STORED_MERGED_KEYS];

struct up_stored {
	struct up_profile *profile;
	struct up_symtab *symtab;       /* ours, or NULL with resymbolize */
	const struct up_symtab *names;  /* what frames are named by */
	enum up_stored_format format;
	double hz;
	int64_t time_nanos, duration_nanos;
	char *kernel, *build_id;
	/* Every file's mappings, each once; their strings live in
	 * map_strings, map_keys finds an identical one; map_from: the
	 * input that brought each (index in the files read). */
	struct up_pprof_mapping *maps;
	size_t *map_from;
	size_t nr_maps, maps_cap, map_from_cap;
	struct strmap *map_strings, *map_keys;
	size_t input;            /* the file being read */
	char **comments;
	size_t nr_comments, comments_cap;
	size_t comment_bytes;    /* kept, each with its NUL */
	size_t comments_left_out, comments_cut;
	/* The file being read: its start on the merged clock (ns since
	 * 1970; 0: its samples are kept without a time), its rate (0:
	 * unknown) and the samples it gave a time. clock_set: time_nanos
	 * and duration_nanos are several files' run, set before reading. */
	int64_t file_start;
	double file_hz;
	uint64_t file_timed;
	bool clock_set;
	/* Several files: each merged key's distinct values in the order
	 * read, how many files gave none, which the file being read gave. */
	bool merging;
	struct strmap *key_values[STORED_MERGED_KEYS];
	size_t key_without[STORED_MERGED_KEYS];
	unsigned keys_seen;
	char warning[1024];      /* bounds hit while reading: one line */
	unsigned max_vcpu_seen, vcpus_said;
	bool by_name;            /* frames are name ids, not addresses */
	bool resym;              /* addresses named by the caller's table */
	struct strmap *names_by_id;     /* by_name: frame id -> name */
	struct strmap *points;   /* addresses: "L" -> name, for the symtab */
	long *point_name;
	size_t point_cap;
	struct srcinfo *src;     /* addresses: the pprof's lines and inlines */
	uint64_t *frames;        /* one stack being assembled */
	size_t frames_cap;
};

/* Fails with UP_EFORMAT: "WHAT: WHY". */
int stored_bad(const char *what, const char *why);

/* By name: the frame standing for NAME (stacks merged by name), and the
 * frame for the name already at index I of names_by_id. */
int stored_name_frame(struct up_stored *s, const char *name, uint64_t *frame);
static inline uint64_t stored_frame_of_name(long i)
{
	return ((uint64_t)i + 1) * 16 + 8;
}
/* Add to the warning line ("; "-separated). */
void stored_warn(struct up_stored *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* By address: the name the live run gave ADDR, for the symbol table;
 * 1 when ADDR is new, 0 when it was known. */
int stored_point_name(struct up_stored *s, uint64_t addr, bool is_return,
		      long name_id);
/* Count s->frames[0..depth) COUNT times (dropped: a pseudo-stack of depth
 * 0, [unseen] if unseen, else [dropped]), taken t_ns after the start
 * (UP_PROFILE_NO_TIME: not known), credited for missed periods or not. */
int stored_add_stack(struct up_stored *s, const char *what, unsigned vcpu,
		     enum up_vcpu_activity act, enum up_trunc trunc,
		     bool dropped, bool unseen, size_t depth, uint64_t count,
		     uint64_t t_ns, bool credited);
/* Keep a mapping of the file being read (identical ones once); file and
 * build_id NULL or "" for none. Past UP_STORED_MAX_MAPPINGS the file is
 * refused. */
int stored_add_mapping(struct up_stored *s, const char *what,
		       const struct up_pprof_mapping *m);
/* Keep comment line C, within stored_limits (past them it and every later
 * line are left out, counted for the warning); merging, note it first if
 * it gives one of the merged keys. */
int stored_add_comment(struct up_stored *s, const char *c);
/* By address: the source frames the live run gave ADDR (innermost first,
 * its function last), for the symbol table to give them again. */
int stored_point_source(struct up_stored *s, uint64_t addr, bool is_return,
			const struct up_src_frame *f, size_t n);

/* The two formats. */
bool stored_looks_folded(const uint8_t *d, size_t n);
int stored_load_folded(struct up_stored *s, char *text, size_t n,
		       const char *what);
/* A pprof file's time_nanos and duration_nanos (0 when it has none or
 * is not a profile) from its top-level fields, without decoding the rest:
 * several files' clock is known before their samples are read. */
void stored_pprof_clock(const uint8_t *d, size_t n, int64_t *start,
			int64_t *duration);
/* decide_mode: by name unless the addresses are consistent. Sample times
 * (time_ns labels) are kept relative to s->time_nanos when at or after
 * s->file_start, within the run; the file's rate in s->file_hz; without
 * clock_set its header gives time_nanos and duration_nanos. */
int stored_load_pprof(struct up_stored *s, const uint8_t *d, size_t n,
		      const char *what, bool decide_mode);

#endif
