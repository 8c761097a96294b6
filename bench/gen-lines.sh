#!/bin/sh
# Write an ELF image with N functions (default 100000) and their DWARF: each
# function a distinct symbol with a call inlined into it and its own lines,
# compiled with -O1 -g in files of 10000, for measuring what source lines
# and inlined calls cost. Usage: gen-lines.sh OUT.elf [N] [CC]
set -eu
out=$1 n=${2:-100000} cc=${3:-gcc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
per=10000
files=
i=0
while [ "$i" -lt "$n" ]; do
	m=$((n - i < per ? n - i : per))
	awk -v b="$i" -v m="$m" 'BEGIN {
		print "static inline __attribute__((always_inline)) int bench_inl(int x)"
		print "{\n\treturn x * 3 + (x >> 2);\n}"
		for (k = b; k < b + m; k++) {
			printf "__attribute__((noinline)) int bench_fn_%06d(int x)\n{\n", k
			printf "\tint y = bench_inl(x);\n\n\treturn y + %d;\n}\n", k
		}
	}' > "$tmp/f$i.c"
	files="$files $tmp/f$i.o"
	i=$((i + m))
done
# Two compilers at a time: a minute or two for 100000 functions.
ls "$tmp"/*.c | xargs -P 2 -I{} sh -c '"$0" -O1 -g -ffreestanding -fno-pie -c "$1" -o "${1%.c}.o"' "$cc" {}
"$cc" -nostdlib -static -no-pie -Wl,--build-id -Wl,-e,bench_fn_000000 -o "$out" $files
