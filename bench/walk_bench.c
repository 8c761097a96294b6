/* uniprof-walk-bench: the cost of one stack walk with frame pointers, the
 * CFI table and libunwind, on the same samples of a live domain, and
 * whether the walks agree frame by frame (CFI against FP, and CFI against
 * libunwind). A benchmark, not a test: it reports numbers.
 *
 *   uniprof-walk-bench DOMID KERNEL.elf [SAMPLES]
 *
 * Per sample: pause, read vCPU 0's registers, walk once with each unwinder
 * to warm the frame cache, then time R walks of each, compare the frames,
 * unpause. Prints a table and one JSON line. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "uniprof/uniprof.h"
#include "mem/memory.h"

#include "bench_time.h"

#define REPEATS 50
#define MAX_DEPTH 128

static uint64_t median(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return n ? v[n / 2] : 0;
}

int main(int argc, char **argv)
{
	struct up_target *t;
	struct up_cfi_table *cfi;
	struct up_libunwind *lu;
	struct up_mem *m;
	uint64_t fpf[MAX_DEPTH], cff[MAX_DEPTH], luf[MAX_DEPTH], *fp_ns, *cfi_ns, *lu_ns;
	struct up_stack fs = { .frames = fpf, .capacity = MAX_DEPTH };
	struct up_stack cs = { .frames = cff, .capacity = MAX_DEPTH };
	struct up_stack ls = { .frames = luf, .capacity = MAX_DEPTH };
	struct up_unwind_opts o = { .max_depth = MAX_DEPTH };
	unsigned n, same = 0, same_lu = 0, done = 0, fp_whole = 0, cfi_whole = 0, lu_whole = 0;
	uint64_t depth_sum = 0;
	const struct timespec gap = { 0, 10 * 1000 * 1000 };

	if (argc < 3) {
		fprintf(stderr, "usage: uniprof-walk-bench DOMID KERNEL.elf [SAMPLES]\n");
		return 2;
	}
	n = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 200;
	if (n == 0 || n > 100000) {
		fprintf(stderr, "uniprof-walk-bench: samples must be 1..100000\n");
		return 2;
	}
	if (up_target_open_xen(&t, (uint32_t)strtoul(argv[1], NULL, 10)) < 0 ||
	    up_crash_guard_install(t) < 0 || up_cfi_table_load(&cfi, argv[2]) < 0 ||
	    up_libunwind_load(&lu, argv[2]) < 0 || up_mem_new(&m, t, 0) < 0) {
		fprintf(stderr, "uniprof-walk-bench: %s\n", up_error_last());
		return 1;
	}
	/* Each pause walks REPEATS times with every unwinder on purpose
	 * (libunwind alone is ~35 ms under emulation): let the crash guard
	 * end a pause only if the bench is stuck. */
	up_target_set_max_pause(t, 5ull * 1000 * 1000 * 1000);
	fp_ns = calloc(n, sizeof(*fp_ns));
	cfi_ns = calloc(n, sizeof(*cfi_ns));
	lu_ns = calloc(n, sizeof(*lu_ns));
	if (!fp_ns || !cfi_ns || !lu_ns)
		return 1;
	for (unsigned i = 0; i < n; i++) {
		struct up_regs r;
		uint64_t a, b, c, d;

		nanosleep(&gap, NULL);
		if (up_target_pause(t) < 0)
			break;
		up_mem_new_sample(m);
		if (up_target_get_regs(t, 0, &r) == 0 && r.online) {
			up_unwind_fp(m, &r, &o, &fs);
			up_unwind_cfi(m, &r, cfi, &o, false, &cs, NULL);
			up_unwind_libunwind(m, &r, lu, &o, &ls);
			a = mono_ns();
			for (int k = 0; k < REPEATS; k++) {
				up_mem_new_sample(m);
				up_unwind_fp(m, &r, &o, &fs);
			}
			b = mono_ns();
			for (int k = 0; k < REPEATS; k++) {
				up_mem_new_sample(m);
				up_unwind_cfi(m, &r, cfi, &o, false, &cs, NULL);
			}
			c = mono_ns();
			for (int k = 0; k < REPEATS; k++) {
				up_mem_new_sample(m);
				up_unwind_libunwind(m, &r, lu, &o, &ls);
			}
			d = mono_ns();
			fp_ns[done] = (b - a) / REPEATS;
			cfi_ns[done] = (c - b) / REPEATS;
			lu_ns[done] = (d - c) / REPEATS;
			same_lu += ls.depth == cs.depth && ls.trunc == cs.trunc &&
				   memcmp(luf, cff, cs.depth * sizeof(*luf)) == 0;
			lu_whole += ls.trunc == UP_TRUNC_NONE;
			same += fs.depth == cs.depth && fs.trunc == cs.trunc &&
				memcmp(fpf, cff, fs.depth * sizeof(*fpf)) == 0;
			fp_whole += fs.trunc == UP_TRUNC_NONE;
			cfi_whole += cs.trunc == UP_TRUNC_NONE;
			depth_sum += cs.depth;
			done++;
		}
		up_target_unpause(t);
	}
	up_mem_free(m);          /* its mappings belong to the target */
	up_target_close(t);
	if (!done) {
		fprintf(stderr, "uniprof-walk-bench: no samples taken\n");
		return 1;
	}
	{
		uint64_t f = median(fp_ns, done), cf = median(cfi_ns, done), l = median(lu_ns, done);

		printf("%-10s %12s %12s\n", "unwinder", "walk p50 ns", "whole stacks");
		printf("%-10s %12" PRIu64 " %11.1f%%\n", "fp", f, 100.0 * fp_whole / done);
		printf("%-10s %12" PRIu64 " %11.1f%%\n", "cfi", cf, 100.0 * cfi_whole / done);
		printf("%-10s %12" PRIu64 " %11.1f%%\n", "libunwind", l, 100.0 * lu_whole / done);
		printf("samples %u, mean depth %.1f, cfi/fp %.2f, libunwind/fp %.2f\n",
		       done, (double)depth_sum / done, f ? (double)cf / (double)f : 0.0,
		       f ? (double)l / (double)f : 0.0);
		printf("frame-by-frame: cfi = fp on %.1f%%, cfi = libunwind on %.1f%% of samples\n",
		       100.0 * same / done, 100.0 * same_lu / done);
		printf("{\"samples\": %u, \"mean_depth\": %.1f, \"fp_walk_ns_p50\": %" PRIu64
		       ", \"cfi_walk_ns_p50\": %" PRIu64 ", \"libunwind_walk_ns_p50\": %" PRIu64
		       ", \"cfi_over_fp\": %.2f, \"identical_pct\": %.1f"
		       ", \"cfi_libunwind_identical_pct\": %.1f, \"fp_whole_pct\": %.1f"
		       ", \"cfi_whole_pct\": %.1f, \"libunwind_whole_pct\": %.1f}\n",
		       done, (double)depth_sum / done, f, cf, l, f ? (double)cf / (double)f : 0.0,
		       100.0 * same / done, 100.0 * same_lu / done, 100.0 * fp_whole / done,
		       100.0 * cfi_whole / done, 100.0 * lu_whole / done);
	}
	up_cfi_table_free(cfi);
	up_libunwind_free(lu);
	free(fp_ns);
	free(cfi_ns);
	free(lu_ns);
	return 0;
}
