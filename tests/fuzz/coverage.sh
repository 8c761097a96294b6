#!/bin/sh
# Line coverage of the fuzz targets' own files over their corpora, with
# clang's source-based coverage. COV_BUILD_DIR is a fuzzing build made with
#   configure CC=clang --enable-fuzzing \
#     CFLAGS="-O1 -g -fprofile-instr-generate -fcoverage-mapping" \
#     LDFLAGS=-fprofile-instr-generate
# CORPUS_ROOT holds one directory per target (fuzz_symbols, ...), e.g.
# build/fuzz/tests/fuzz/run after make fuzz. Runs one target at a time.
# Usage: coverage.sh COV_BUILD_DIR CORPUS_ROOT
set -eu
build=$(cd "$1" && pwd)
corpora=$(cd "$2" && pwd)
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$build" && make tests/fuzz/fuzz_symbols tests/fuzz/fuzz_eh_frame \
	tests/fuzz/fuzz_cfi_table tests/fuzz/fuzz_image tests/fuzz/fuzz_output >/dev/null)
files_of() {
	case $1 in
	fuzz_symbols) echo core/symbols/table.c core/symbols/elf.c core/symbols/nm.c core/symbols/demangle.c ;;
	fuzz_eh_frame) echo core/unwind/eh_frame.c ;;
	fuzz_cfi_table) echo core/unwind/cfi_table.c core/unwind/eh_frame.c ;;
	fuzz_image) echo core/target/image.c core/target/target.c core/mem/memory.c core/mem/paging.c core/arch/x86/paging.c \
		core/mem/frame_cache.c core/unwind/fp.c core/unwind/cfi.c ;;
	fuzz_output) echo core/profile/profile.c core/output/frame_labels.c core/output/fold.c \
		core/output/top.c core/output/flamegraph_svg.c \
		core/util/strmap.c toolkit/run_output.c toolkit/summary.c ;;
	esac
}
for t in fuzz_symbols fuzz_eh_frame fuzz_cfi_table fuzz_image fuzz_output; do
	[ -d "$corpora/$t" ] || continue
	LLVM_PROFILE_FILE="$tmp/$t.profraw" "$build/tests/fuzz/$t" -runs=0 \
		-rss_limit_mb=2048 -timeout=10 "$corpora/$t" >"$tmp/$t.log" 2>&1 || true
	llvm-profdata-14 merge -sparse "$tmp/$t.profraw" -o "$tmp/$t.profdata"
	echo "== $t ($(ls "$corpora/$t" | wc -l) inputs)"
	llvm-cov-14 report "$build/tests/fuzz/$t" -instr-profile="$tmp/$t.profdata" |
		awk -v want=" $(files_of $t) " 'NF >= 13 {
			n = split($1, p, "/"); f = p[n - 1] "/" p[n]
			if (index(want, " " f " "))
				printf "  %-22s lines %7s  functions %7s  branches %7s\n", f, $10, $7, $13 }'
done
