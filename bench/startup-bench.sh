#!/bin/sh
# make bench's cost of start-up (no Xen: what xl profile loads before its
# first sample): uniprof-startup-bench on the test unikernel, on the
# 100,000-function image of bench/gen-symbols.sh and on the one of
# bench/gen-lines.sh (the same count with -g DWARF, as real unikernels
# ship). Prints a table, also written as bench/startup.txt: the medians,
# then the first load alone (a fresh process, as xl profile's) with its
# minor faults: the fresh pages that cost ~140 us each in a PV dom0
# under emulation, ~3 us here.
# Usage: startup-bench.sh SRCDIR BUILDDIR [RUNS]
set -eu
src=$1 builddir=$2 runs=${3:-7}
bin=$builddir/bench/uniprof-startup-bench
work=$builddir/bench/lines
mkdir -p "$work"
# The generated images are kept between runs (the DWARF one takes a
# minute or two; bench/lines-bench.sh shares it).
syms=$work/symbols-100k.elf
lines=$work/lines-100k.elf
[ -s "$syms" ] || "$src/bench/gen-symbols.sh" "$syms" 100000
[ -s "$lines" ] || "$src/bench/gen-lines.sh" "$lines" 100000 "${TG_CC:-gcc}"
run() {     # NAME IMAGE
	out=$("$bin" "$2" "$runs")
	num() { printf '%s\n' "$out" | sed -n "s/.*\"$1\": \([0-9.]*\).*/\1/p"; }
	printf '%-18s %9s %8s %8s %8s %8s %9s %9s %8s %7s\n' "$1" "$(num functions)" \
		"$(num load_ms)" "$(num symbols_ms)" "$(num unwind_ms)" \
		"$(num kernel_map_ms)" "$(num peak_rss_kib)" "$(num cfi_rows)" \
		"$(num first_load_ms)" "$(num first_load_faults)"
}
{
	echo "Start-up without Xen: medians of $runs loads (ms, KiB)"
	printf '%-18s %9s %8s %8s %8s %8s %9s %9s %8s %7s\n' image functions load symbols \
		unwind codemap rss cfi-rows first faults
	run test-unikernel "$builddir/tests/guest/tg-nofp.elf"
	run symbols-100k "$syms"
	run lines-100k "$lines"
} | tee "$builddir/bench/startup.txt"
