#!/bin/sh
# make bench's cost of source lines and inlined calls (no Xen: both are
# done before and after sampling): uniprof-lines-bench on the test
# unikernel and on a generated image of 100,000 functions with their
# DWARF, each against the same image without DWARF (objcopy
# --strip-debug). Prints a table, also written as bench/lines.txt.
# Usage: lines-bench.sh SRCDIR BUILDDIR
set -eu
src=$1 builddir=$2
bin=$builddir/bench/uniprof-lines-bench
work=$builddir/bench/lines
mkdir -p "$work"
# The generated image takes a minute or two: kept between runs.
big=$work/lines-100k.elf
[ -s "$big" ] || "$src/bench/gen-lines.sh" "$big" 100000 "${TG_CC:-gcc}"
run() {     # NAME IMAGE STACKS
	objcopy --strip-debug "$2" "$work/$1-nodebug.elf"
	with=$("$bin" "$2" "$3")
	without=$("$bin" "$work/$1-nodebug.elf" "$3")
	num() { printf '%s\n' "$1" | sed -n "s/.*\"$2\": \([0-9.]*\).*/\1/p"; }
	printf '%-16s %9s %7s %8s %8s %9s %9s %9s %9s %11s\n' "$1" \
		"$(num "$with" functions)" "$3" "$(num "$with" load_ms)" \
		"$(num "$without" load_ms)" "$(num "$with" write_ms)" \
		"$(num "$without" write_ms)" "$(num "$with" peak_rss_kib)" \
		"$(num "$without" peak_rss_kib)" "$(num "$with" functions_with_source)"
}
{
	echo "Source lines and inlined calls: with DWARF / without (ms, KiB)"
	printf '%-16s %9s %7s %8s %8s %9s %9s %9s %9s %11s\n' image functions stacks \
		load nodwarf write nodwarf rss nodwarf with-source
	run test-unikernel "$builddir/tests/guest/tg-nofp.elf" 20000
	run generated-100k "$big" 20000
} | tee "$builddir/bench/lines.txt"
