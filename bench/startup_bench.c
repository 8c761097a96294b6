/* uniprof-startup-bench: what xl profile (and uniprofd per domain) does
 * before its first sample, without Xen.
 *
 *   uniprof-startup-bench IMAGE [RUNS]
 *
 * Runs the start-up's loads RUNS times (default 5) on IMAGE, given as
 * both the kernel and the symbol file: the symbol search (identity, then
 * the symbol table), the unwind tables (the CFI table, libunwind for the
 * rows it cannot express) and the kernel's code map, each file read once
 * as in xl profile. What is left out needs a domain: opening it and
 * looking for the hypercall page in its memory. Prints one JSON line:
 * the median of each phase and of the whole in ms, the peak RSS, the
 * functions and the CFI rows; and the first run alone, as xl profile
 * does it in a fresh process: its time and its minor page faults (the
 * fresh pages it touched, which cost ~140 us each in a PV dom0 under
 * emulation against ~3 us on the host: the figure to watch there), and
 * of those the ones taken as traps one page at a time (the kernel's
 * software page-fault event: pages populated in one call are not in it),
 * or -1 where perf events are not allowed. */
#include "config.h"

#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "toolkit/image_cache.h"
#include "toolkit/kernel_map_load.h"
#include "toolkit/symbols_find.h"
#include "toolkit/unwind_load.h"
#include "uniprof/uniprof.h"
#include "private.h"

#include "bench_time.h"

#define MAX_RUNS 101

enum { SYMBOLS, UNWIND, KMAP, TOTAL, PHASES };

static double median_ms(uint64_t *ns, unsigned n)
{
	qsort(ns, n, sizeof(*ns), cmp_u64);
	return (double)ns[n / 2] / 1e6;
}

static long minor_faults(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_minflt : 0;
}

/* The page faults taken as traps by this process from now on. */
static int trap_counter(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	a.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

static long long trap_count(int fd)
{
	long long n;

	return fd >= 0 && read(fd, &n, sizeof(n)) == (ssize_t)sizeof(n) ? n : -1;
}

int main(int argc, char **argv)
{
	static uint64_t took[PHASES][MAX_RUNS];
	unsigned long runs = argc > 2 ? strtoul(argv[2], NULL, 10) : 5;
	size_t functions = 0, rows = 0;
	struct rusage ru;
	long first_faults[PHASES] = { 0 };
	long long first_traps = -1;
	double first_ms;
	int traps = trap_counter();

	if (argc < 2 || runs == 0 || runs > MAX_RUNS) {
		fprintf(stderr, "usage: uniprof-startup-bench IMAGE [RUNS <= %d]\n", MAX_RUNS);
		return 2;
	}
	for (unsigned long r = 0; r < runs; r++) {
		struct tk_symbol_query q = {
			.explicit_file = argv[1], .kernel = argv[1], .force = true,
		};
		struct up_symtab *symtab = NULL;
		struct up_kernel_map *kmap = NULL;
		struct tk_unwind uw;
		char *used = NULL;
		uint64_t t0, t1, t2, t3;
		long f[4];
		long long tr0, tr1;

		tr0 = trap_count(traps);
		f[0] = minor_faults();
		t0 = mono_ns();

		if (tk_find_symbols(&q, &symtab, &used) < 0)
			return 1;
		t1 = mono_ns();
		f[1] = minor_faults();
		if (tk_unwind_load(UP_UNWINDER_AUTO, argv[1], used, 0, &uw) < 0)
			return 1;
		t2 = mono_ns();
		f[2] = minor_faults();
		if (tk_kernel_map_load(argv[1], used, symtab, uw.cfi, NULL, 0, false, &kmap) < 0)
			return 1;
		tk_image_cache_drop();
		t3 = mono_ns();
		f[3] = minor_faults();
		tr1 = trap_count(traps);
		if (r == 0) {
			for (int p = SYMBOLS; p < TOTAL; p++)
				first_faults[p] = f[p + 1] - f[p];
			first_faults[TOTAL] = f[3] - f[0];
			if (tr0 >= 0 && tr1 >= 0)
				first_traps = tr1 - tr0;
		}
		took[SYMBOLS][r] = t1 - t0;
		took[UNWIND][r] = t2 - t1;
		took[KMAP][r] = t3 - t2;
		took[TOTAL][r] = t3 - t0;
		functions = up_symtab_count(symtab);
		rows = uw.cfi ? up_cfi_table_info(uw.cfi)->rows : 0;
		up_kernel_map_free(kmap);
		tk_unwind_release(&uw);
		up_symtab_free(symtab);
		free(used);
	}
	getrusage(RUSAGE_SELF, &ru);
	first_ms = (double)took[TOTAL][0] / 1e6;
	printf("{\"image\": \"%s\", \"runs\": %lu, \"load_ms\": %.1f, \"symbols_ms\": %.1f, "
	       "\"unwind_ms\": %.1f, \"kernel_map_ms\": %.1f, \"peak_rss_kib\": %ld, "
	       "\"functions\": %zu, \"cfi_rows\": %zu, \"first_load_ms\": %.1f, "
	       "\"first_load_faults\": %ld, \"first_symbols_faults\": %ld, "
	       "\"first_unwind_faults\": %ld, \"first_kernel_map_faults\": %ld, "
	       "\"first_load_traps\": %lld}\n",
	       argv[1], runs, median_ms(took[TOTAL], runs), median_ms(took[SYMBOLS], runs),
	       median_ms(took[UNWIND], runs), median_ms(took[KMAP], runs), ru.ru_maxrss,
	       functions, rows, first_ms, first_faults[TOTAL], first_faults[SYMBOLS],
	       first_faults[UNWIND], first_faults[KMAP], first_traps);
	if (traps >= 0)
		close(traps);
	return 0;
}
