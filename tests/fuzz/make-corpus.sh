#!/bin/sh
# Regenerate the seed corpora in tests/fuzz/corpus from the unit fixtures
# and the test guest (small copies: debug info stripped, only the sections a
# target reads). Not part of the build: run it by hand after changing the
# fixtures, from a build tree made by scripts/build.sh (it needs the guest
# ELFs and, for the image seeds, tests/fuzz/gen_image_seeds from a fuzzing
# build). Usage: make-corpus.sh UNIT_BUILD_DIR FUZZ_BUILD_DIR
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
unit=$(cd "$1" && pwd)
fuzz=$(cd "$2" && pwd)
out=$top/tests/fuzz/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
guest=$unit/tests/guest
small="-O1 -g0 -no-pie -Wl,--build-id=sha1 -Wl,-z,max-page-size=16 -Wl,-z,noseparate-code"

# Small linked copies of the unit fixtures.
gcc $small "$top/tests/unit/fixture_symbols.c" -o symbols.full
gcc $small "$top/tests/unit/fixture_cfi_far.c" -o cfi_far.full
gcc $small -g -fno-asynchronous-unwind-tables -fno-unwind-tables \
	"$top/tests/unit/fixture_symbols.c" -o debug_frame.full
strip --strip-debug -R .comment symbols.full -o symbols.elf
objcopy --add-gnu-debuglink=symbols.full symbols.elf symbols-debuglink.elf

rm -rf "$out"
mkdir -p "$out/fuzz_symbols" "$out/fuzz_eh_frame" "$out/fuzz_cfi_table" \
	"$out/fuzz_image" "$out/fuzz_output"

# Symbols: ELF (with build-id, with a debuglink), gzip, nm maps.
cp symbols.elf "$out/fuzz_symbols/fixture-symbols.elf"
cp symbols-debuglink.elf "$out/fuzz_symbols/fixture-debuglink.elf"
gzip -9n <symbols.elf >"$out/fuzz_symbols/fixture-symbols.elf.gz"
nm -n "$guest/tg-fp.elf" | head -n 40 >"$out/fuzz_symbols/tg-fp.map"
printf '%s\n' 'ffffffff81000000 T _stext' 'ffffffff81000100 t _ZN3net4Conn4readEPcm' \
	'ffffffff81000200 W _ZNSt6vectorIiSaIiEE9push_backERKi' \
	'ffffffff81000300 T _ZN1A1BIiE1fIJcEEEvDpT_' 'ffffffff81000400 D data' \
	'FFFFFFFF81000500 t	tabbed' 'ffffffff81000600 T _etext' >"$out/fuzz_symbols/cxx.map"

# Raw sections: u8 kind (1: .eh_frame), u64 address, the bytes.
section() {     # ELF SECTION KIND OUT
	objcopy --dump-section "$2=sec.bin" "$1" sec.out.elf 2>/dev/null
	addr=$(readelf -SW "$1" | awk -v s="$2" '{ for (i = 1; i < NF; i++) if ($i == s) print $(i + 2) }')
	python3 -c 'import sys, struct
sys.stdout.buffer.write(bytes([int(sys.argv[1])]) + struct.pack("<Q", int(sys.argv[2], 16)) + open("sec.bin", "rb").read())' "$3" "$addr" >"$4"
}
section "$guest/tg-nofp.elf" .eh_frame 1 "$out/fuzz_eh_frame/tg-nofp.eh_frame"
section cfi_far.full .eh_frame 1 "$out/fuzz_eh_frame/cfi-far.eh_frame"
section debug_frame.full .debug_frame 0 "$out/fuzz_eh_frame/fixture.debug_frame"

# CFI table: ELF images with only their unwind sections (and code).
objcopy -j .eh_frame "$guest/tg-nofp.elf" "$out/fuzz_cfi_table/tg-nofp.elf" 2>/dev/null
objcopy -j .eh_frame -j .eh_frame_hdr "$guest/tg-nofp-hdr.elf" "$out/fuzz_cfi_table/tg-nofp-hdr.elf" 2>/dev/null
objcopy -j .eh_frame -j .text cfi_far.full "$out/fuzz_cfi_table/cfi-far.elf" 2>/dev/null
objcopy -j .debug_frame -j .text debug_frame.full "$out/fuzz_cfi_table/debug-frame.elf" 2>/dev/null
# AArch64 (its DWARF numbers, a return address left in x30): the unit
# tests' fixture as the build made it with the cross compiler.
cp "$unit/tests/unit/fixture_arm64.elf" "$out/fuzz_cfi_table/arm64.elf"

# Source lines: the inlining fixture with its DWARF (5, GCC's default,
# and 4), nothing else stripped but .comment.
mkdir -p "$out/fuzz_srcinfo"
gcc $small -O2 -g "$top/tests/unit/fixture_lines.c" -o lines.full
gcc $small -O2 -gdwarf-4 "$top/tests/unit/fixture_lines.c" -o lines4.full
objcopy -R .comment lines.full "$out/fuzz_srcinfo/fixture-lines.elf"
objcopy -R .comment lines4.full "$out/fuzz_srcinfo/fixture-lines-dwarf4.elf"

# Guests and output inputs are made by a program (tests/fuzz/gen_seeds.c).
(cd "$fuzz" && make tests/fuzz/gen_seeds >/dev/null)
mkdir -p "$out/fuzz_dump_core"
"$fuzz/tests/fuzz/gen_seeds" "$out/fuzz_image" "$out/fuzz_output" "$out/fuzz_dump_core" \
	"$out/fuzz_srcinfo"
du -sh "$out"
