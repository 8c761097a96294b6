# The benchmarks (included by the top Makefile.am: one non-recursive make).
# Built, never installed: no user runs them; the real-Xen harness carries
# them into dom0 beside its jobs (tests/xen-vm/prepare-dom0.sh).
noinst_PROGRAMS = bench/uniprof-walk-bench
bench_uniprof_walk_bench_SOURCES = bench/walk_bench.c bench/bench_time.h
bench_uniprof_walk_bench_LDADD = core/libuniprof-core.la
# The floor uniprof's pause is measured against, and the 2017 uniprof's
# loop, with Xen's interfaces only (bench/floor.c).
noinst_PROGRAMS += bench/uniprof-floor
bench_uniprof_floor_SOURCES = bench/floor.c bench/bench_time.h
bench_uniprof_floor_CFLAGS = $(AM_CFLAGS) $(XENCTRL_CFLAGS) $(XENCALL_CFLAGS) $(XENFMEM_CFLAGS)
bench_uniprof_floor_LDADD = $(XENCALL_LIBS) $(XENFMEM_LIBS)

# What source lines and inlined calls cost (no Xen: before and after
# sampling), run by make bench on generated images (bench/lines-bench.sh).
noinst_PROGRAMS += bench/uniprof-lines-bench
bench_uniprof_lines_bench_SOURCES = bench/lines_bench.c bench/bench_time.h
bench_uniprof_lines_bench_LDADD = core/libuniprof-core.la

# What start-up costs (no Xen: the symbols, the unwind tables and the code
# map xl profile loads before its first sample), by bench/startup-bench.sh.
noinst_PROGRAMS += bench/uniprof-startup-bench
bench_uniprof_startup_bench_SOURCES = bench/startup_bench.c bench/bench_time.h
bench_uniprof_startup_bench_CFLAGS = $(toolkit_libtoolkit_la_CFLAGS)
bench_uniprof_startup_bench_LDADD = $(TOOLKIT_LIBS)

# make check-arm64: the same proof on Xen on Arm (tests/xen-vm/xen-arm64.test:
# an arm64 cross build of uniprof for dom0, Debian's Xen/arm64 in
# qemu-system-aarch64, the AArch64 test unikernel). Apart from make check,
# which stays x86-only, as it cross-builds and boots a second hypervisor;
# scripts/check.sh runs both.
check-arm64: all
	$(MAKE) $(AM_MAKEFLAGS) check TESTS=tests/xen-vm/xen-arm64.test
.PHONY: check-arm64

# make bench: the overhead benchmark on real Xen in QEMU (not part of make
# check's verdict). Table in bench/overhead.txt, JSON in bench/overhead.json.
bench: all $(GUEST_ELFS)
	top_srcdir='$(top_srcdir)' top_builddir='$(top_builddir)' \
		$(SHELL) $(top_srcdir)/bench/run-overhead.sh
.PHONY: bench
