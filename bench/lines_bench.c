/* uniprof-lines-bench: what source lines and inlined calls cost, without
 * Xen (both are work done before and after sampling, never in the pause).
 *
 *   uniprof-lines-bench IMAGE [STACKS]
 *
 * Loads IMAGE's symbol table (the start-up), makes a profile of STACKS
 * (default 20000) stacks of 8 frames at addresses spread over its
 * functions, then writes it as folded, SVG and pprof with inlined frames
 * and lines (the post-processing). Prints one JSON line: load_ms,
 * write_ms, the peak RSS, the addresses resolved and how many had source.
 * Run it on an image with DWARF and on the same image without (objcopy
 * --strip-debug) to see what the DWARF costs. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "uniprof/uniprof.h"
#include "uniprof/stored.h"
#include "private.h"

#include "bench_time.h"

#define DEPTH 8

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double ms_since(uint64_t t0)
{
	return (double)(mono_ns() - t0) / 1e6;
}

int main(int argc, char **argv)
{
	struct up_output_opts view = { .version = UP_OUTPUT_OPTS_VERSION,
				       .vcpu = -1, .lines = true };
	struct up_pprof_meta meta = { .version = UP_PPROF_META_VERSION, .hz = 97 };
	struct up_symtab *s;
	struct up_profile *p;
	struct up_src_frame src[UP_SRC_MAX_FRAMES];
	unsigned long stacks = argc > 2 ? strtoul(argv[2], NULL, 10) : 20000;
	size_t nsym, with_source = 0;
	struct rusage ru;
	uint64_t t0;
	double load_ms, write_ms;
	FILE *null;

	if (argc < 2 || stacks == 0) {
		fprintf(stderr, "usage: uniprof-lines-bench IMAGE [STACKS]\n");
		return 2;
	}
	t0 = mono_ns();
	if (up_symtab_load(&s, argv[1]) < 0) {
		fprintf(stderr, "uniprof-lines-bench: %s\n", up_error_last());
		return 1;
	}
	load_ms = ms_since(t0);
	nsym = up_symtab_count(s);
	if (up_profile_new(&p, 1) < 0)
		return 1;
	for (unsigned long i = 0; i < stacks; i++) {
		uint64_t frames[DEPTH];

		for (unsigned d = 0; d < DEPTH; d++) {
			const struct up_symbol *sym =
				up_symtab_symbol(s, next_rand() % nsym);
			uint64_t size = sym->size ? sym->size : 1;

			frames[d] = sym->addr + next_rand() % size + (d > 0);
		}
		if (up_profile_add(p, 0, frames, DEPTH, UP_TRUNC_NONE) < 0)
			return 1;
	}
	null = fopen("/dev/null", "w");
	if (!null)
		return 1;
	t0 = mono_ns();
	if (up_profile_write_folded(p, s, &view, null) < 0 ||
	    up_profile_write_svg(p, s, &view, "bench", null) < 0 ||
	    up_profile_write_pprof(p, s, &meta, null) < 0) {
		fprintf(stderr, "uniprof-lines-bench: %s\n", up_error_last());
		return 1;
	}
	write_ms = ms_since(t0);
	fclose(null);
	/* How many functions have source: after the timing, as these are
	 * mostly fresh lookups (the stacks hit few entry addresses). */
	for (size_t i = 0; i < nsym; i++)
		with_source += up_symtab_source(s, up_symtab_symbol(s, i)->addr,
						false, src, UP_SRC_MAX_FRAMES) > 0;
	getrusage(RUSAGE_SELF, &ru);
	printf("{\"functions\": %zu, \"dwarf\": %s, "
	       "\"stacks\": %lu, \"load_ms\": %.1f, \"write_ms\": %.1f, "
	       "\"peak_rss_kib\": %ld, \"functions_with_source\": %zu%s%s%s}\n",
	       nsym, up_symtab_has_source(s) ? "true" : "false",
	       stacks, load_ms, write_ms, ru.ru_maxrss, with_source,
	       up_symtab_source_warning(s) ? ", \"warning\": \"" : "",
	       up_symtab_source_warning(s) ? up_symtab_source_warning(s) : "",
	       up_symtab_source_warning(s) ? "\"" : "");
	up_profile_free(p);
	up_symtab_free(s);
	return 0;
}
