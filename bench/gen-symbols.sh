#!/bin/sh
# Write an ELF image with N functions (default 100000), each a distinct
# symbol with a size, for measuring start-up with a large symbol table.
# Usage: gen-symbols.sh OUT.elf [N]
set -eu
out=$1 n=${2:-100000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk -v n="$n" 'BEGIN {
	print ".text"
	for (i = 0; i < n; i++) {
		printf ".globl bench_fn_%06d\n.type bench_fn_%06d, @function\n", i, i
		printf "bench_fn_%06d:\n\tpush %%rbp\n\tmov %%rsp, %%rbp\n\tpop %%rbp\n\tret\n", i
		printf ".size bench_fn_%06d, .-bench_fn_%06d\n", i, i
	}
}' > "$tmp/big.s"
as -o "$tmp/big.o" "$tmp/big.s"
ld -o "$out" -e bench_fn_000000 --build-id "$tmp/big.o"
