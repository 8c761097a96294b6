/* A profile: sampled stacks (raw addresses, leaf first) interned with
 * counts, per vCPU; symbolized only when written out. */
#ifndef UNIPROF_PROFILE_H
#define UNIPROF_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "symbols.h"
#include "unwind.h"

#ifdef __cplusplus
extern "C" {
#endif

struct up_profile;

int up_profile_new(struct up_profile **out, unsigned nr_vcpus);
void up_profile_free(struct up_profile *p);

/* Count one sampled stack of a vCPU. frames[0] is the IP. */
int up_profile_add(struct up_profile *p, unsigned vcpu,
		   const uint64_t *frames, unsigned depth, enum up_trunc trunc);

uint64_t up_profile_samples(const struct up_profile *p);  /* all vCPUs */
uint64_t up_profile_vcpu_samples(const struct up_profile *p, unsigned vcpu);
uint64_t up_profile_truncated(const struct up_profile *p);
size_t up_profile_unique_stacks(const struct up_profile *p);
unsigned up_profile_nr_vcpus(const struct up_profile *p);

/* Visit every distinct raw stack. vcpu is the vCPU it was seen on. */
typedef int (*up_profile_visit_fn)(unsigned vcpu, const uint64_t *frames,
				   unsigned depth, enum up_trunc trunc,
				   uint64_t count, void *arg);
int up_profile_foreach(const struct up_profile *p, up_profile_visit_fn fn,
		       void *arg);

struct up_output_opts {
	int vcpu;             /* -1: all vCPUs merged */
	bool with_offsets;    /* name+0xoff instead of name */
	bool vcpu_root;       /* prefix each stack with "vcpuN" */
};

/* Folded stacks, root first, "a;b;c count\n", as flamegraph.pl reads them.
 * A truncated stack starts with "[truncated]". symtab may be NULL. */
int up_profile_write_folded(const struct up_profile *p,
			    const struct up_symtab *symtab,
			    const struct up_output_opts *opts, FILE *out);

/* An interactive flame graph (SVG with its own script: click to zoom,
 * search, tooltips), readable offline in any browser. */
int up_profile_write_svg(const struct up_profile *p,
			 const struct up_symtab *symtab,
			 const struct up_output_opts *opts, const char *title,
			 FILE *out);

struct up_top_entry {
	char *name;
	uint64_t self;     /* samples with this function as leaf */
	uint64_t total;    /* samples with this function anywhere */
};

/* The functions by self count (then total, then name). *entries is
 * allocated; free with up_top_free. */
int up_profile_top(const struct up_profile *p, const struct up_symtab *symtab,
		   const struct up_output_opts *opts,
		   struct up_top_entry **entries, size_t *count);
void up_top_free(struct up_top_entry *entries, size_t count);

/* A table of the first n functions with self % and total %. */
int up_profile_write_top(const struct up_profile *p,
			 const struct up_symtab *symtab,
			 const struct up_output_opts *opts, size_t n,
			 FILE *out);

#ifdef __cplusplus
}
#endif
#endif
