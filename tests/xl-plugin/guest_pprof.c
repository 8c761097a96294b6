/* A pprof profile of the test unikernel's image, written without Xen the
 * way xl profile writes one (toolkit/run_output.c's header, the code map read
 * from the image, the pprof writer), for checks by tools nobody here
 * wrote (pprof-mappings-go.test): the stacks of a stored profile of the
 * same guest (tests/fuzz/corpus/fuzz_stored/tg-times.pb, another build),
 * by name, each frame at an address of this build's image: the leaf at
 * its function's first instruction, each caller just past its call to
 * the callee (the call found in the image's bytes; where there is none,
 * one byte into the caller).
 *
 *   guest-pprof [--addresses] IMAGE STORED OUT.pb.gz
 *
 * --addresses: without names (no symbol table given to the writer), as a
 * profile of a stripped kernel: a tool must name the addresses itself.
 * Exit 0, or 1 after one line on stderr. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "toolkit/formats.h"
#include "toolkit/image_cache.h"
#include "toolkit/kernel_map_load.h"
#include "toolkit/run_output.h"
#include "uniprof/uniprof.h"
#include "private.h"

#define MAX_FRAMES 256

struct image {
	const struct up_symtab *s;
	const struct up_kernel_map *k;
	const uint8_t *bytes;
	size_t len;
};

static const struct up_symbol *by_name(const struct image *im, const char *name)
{
	for (size_t i = 0; i < up_symtab_count(im->s); i++)
		if (strcmp(up_symtab_symbol(im->s, i)->name, name) == 0)
			return up_symtab_symbol(im->s, i);
	return NULL;
}

/* The image's byte at guest address va, through its code segments. */
static int byte_at(const struct image *im, uint64_t va)
{
	for (size_t i = 0; i < up_kernel_map_segments(im->k); i++) {
		const struct up_kernel_segment *g = up_kernel_map_segment(im->k, i);
		uint64_t off = g->file_offset + (va - g->start);

		if (va >= g->start && va < g->limit && off < im->len)
			return im->bytes[off];
	}
	return -1;
}

/* A function's end: its size, else the next symbol. */
static uint64_t end_of(const struct image *im, const struct up_symbol *f)
{
	if (f->size)
		return f->addr + f->size;
	for (size_t i = 0; i + 1 < up_symtab_count(im->s); i++)
		if (up_symtab_symbol(im->s, i) == f)
			return up_symtab_symbol(im->s, i + 1)->addr;
	return f->addr + 1;
}

/* The return address of caller's call (E8 rel32) to callee, else one byte
 * into the caller. */
static uint64_t return_address(const struct image *im, const struct up_symbol *caller,
			       const struct up_symbol *callee)
{
	uint64_t end = end_of(im, caller);

	for (uint64_t a = caller->addr; a + 5 <= end; a++) {
		uint32_t rel = 0;
		int b;

		if (byte_at(im, a) != 0xe8)
			continue;
		for (int i = 0; i < 4; i++) {
			if ((b = byte_at(im, a + 1 + (uint64_t)i)) < 0)
				break;
			rel |= (uint32_t)b << (8 * i);
		}
		if (b >= 0 && a + 5 + (uint64_t)(int64_t)(int32_t)rel == callee->addr)
			return a + 5;
	}
	return caller->addr + 1;
}

/* One folded line ("root;...;leaf count"), its frames added to p at this
 * image's addresses; a line naming a function the image lacks, or a
 * pseudo-frame ([unseen], [dropped], [truncated]), is left out. */
static int add_line(const struct image *im, struct up_profile *p, char *line)
{
	const struct up_symbol *fn[MAX_FRAMES];
	uint64_t frames[MAX_FRAMES];
	char *sp = strrchr(line, ' '), *name, *save = NULL;
	unsigned long long count;
	unsigned n = 0;

	if (!sp)
		return 0;
	*sp = '\0';
	count = strtoull(sp + 1, NULL, 10);
	for (name = strtok_r(line, ";", &save); name; name = strtok_r(NULL, ";", &save)) {
		if (name[0] == '[' || n == MAX_FRAMES || !(fn[n] = by_name(im, name)))
			return 0;
		n++;
	}
	if (n == 0 || count == 0)
		return 0;
	/* Leaf first: its entry, then each caller past its call. */
	frames[0] = fn[n - 1]->addr;
	for (unsigned i = 1; i < n; i++)
		frames[i] = return_address(im, fn[n - 1 - i], fn[n - i]);
	return up_profile_add_activity(p, 0, frames, n, UP_TRUNC_NONE, UP_VCPU_BUSY,
				       count);
}

int main(int argc, char **argv)
{
	static const struct up_output_opts no_inline = { .version = UP_OUTPUT_OPTS_VERSION,
							 .vcpu = -1, .no_inline = true };
	struct up_sampler_stats stats = { .start_unix_ns = 1700000000000000000LL,
					  .elapsed_s = 14 };
	struct timespec started = { 0, 0 };
	struct tk_run_source out;
	struct up_symtab *s = NULL;
	struct up_kernel_map *k = NULL;
	struct up_stored *st = NULL;
	struct up_profile *p = NULL;
	struct image im = { 0 };
	char name[] = "tg-host";
	struct tk_domain dom = { .domid = 1, .name = name, .type = "pv",
				  .max_vcpus = 1 };
	uint8_t *bytes = NULL;
	char *folded = NULL, *line, *save = NULL;
	size_t flen = 0;
	bool addresses_only = false;
	FILE *f;
	int rc = 1;

	if (argc == 5 && strcmp(argv[1], "--addresses") == 0) {
		addresses_only = true;
		argv++;
		argc--;
	}
	if (argc != 4) {
		fprintf(stderr, "usage: guest-pprof [--addresses] IMAGE STORED OUT.pb.gz\n");
		return 1;
	}
	dom.kernel = argv[1];
	if (tk_symtab_load(&s, argv[1]) < 0 ||
	    tk_kernel_map_load(argv[1], NULL, s, NULL, NULL, 0, false, &k) < 0 ||
	    up_file_read(argv[1], &bytes, &im.len) < 0 ||
	    up_stored_load(&st, (const char *const *)&argv[2], 1, NULL) < 0 ||
	    up_profile_new(&p, 1) < 0) {
		fprintf(stderr, "guest-pprof: %s\n", up_error_last());
		goto out;
	}
	im = (struct image){ s, k, bytes, im.len };
	f = open_memstream(&folded, &flen);
	if (!f || up_profile_write_folded(up_stored_profile(st), up_stored_symtab(st),
					  &no_inline, f) < 0 || fclose(f) != 0) {
		fprintf(stderr, "guest-pprof: cannot fold %s\n", argv[2]);
		goto out;
	}
	for (line = strtok_r(folded, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (add_line(&im, p, line) < 0) {
			fprintf(stderr, "guest-pprof: %s\n", up_error_last());
			goto out;
		}
	if (up_profile_samples(p) == 0) {
		fprintf(stderr, "guest-pprof: no stack of %s names functions of %s\n",
			argv[2], argv[1]);
		goto out;
	}
	stats.samples = up_profile_samples(p);
	{
		struct tk_run rep = {
			.asked = { .hz = 97, .top = 20 }, .dom = &dom, .symtab = addresses_only ? NULL : s,
			.symbols_used = addresses_only ? NULL : argv[1],
			.profile = p, .stats = &stats, .unwinder = UP_UNWINDER_FP,
			.hypercalls = "none (no Xen: tests/xl-plugin/guest_pprof.c)",
		};

		tk_run_source(&out, &rep, k, &started, TK_FORMAT_PPROF);
		f = fopen(argv[3], "wb");
		rc = f ? tk_format_write(TK_FORMAT_PPROF, &out.src, f) : -1;
		if ((f && fclose(f) != 0) || rc < 0) {
			fprintf(stderr, "guest-pprof: cannot write %s\n", argv[3]);
			rc = 1;
		}
		tk_run_source_release(&out);
	}
out:
	free(folded);
	free(bytes);
	up_profile_free(p);
	up_stored_free(st);
	up_kernel_map_free(k);
	up_symtab_free(s);
	return rc;
}
