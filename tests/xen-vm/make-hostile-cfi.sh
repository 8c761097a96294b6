#!/bin/sh
# Make a hostile copy of a test guest for the H1 proof (issue 11): the same
# code, but the CIE's initial CFA rule in .eh_frame becomes the DWARF
# expression "DW_OP_skip -3", which jumps back on itself forever. Every
# frame inherits it: the CFI table cannot express it, so -u auto hands each
# frame to libunwind, whose evaluator would loop inside the paused window.
# Usage: make-hostile-cfi.sh IN.elf OUT.elf
# Needs the first CIE to be "zR" with 7 bytes of initial instructions, as
# the test guest's is (checked: a different layout is refused).
set -eu
in=$1 out=$2
off=$(readelf -SW "$in" | awk '{ for (i = 1; i < NF; i++) if ($i == ".eh_frame") print $(i + 3) }')
[ -n "$off" ] || { echo "$in: no .eh_frame" >&2; exit 1; }
off=$((0x$off))
# CIE: length 4, id 4, version 1, "zR\0" 3, code align 1, data align 1,
# RA column 1, augmentation length 1, augmentation 1: instructions at 17.
hdr=$(od -An -tx1 -j "$off" -N 24 "$in" | tr -d ' \n')
case "$hdr" in
1400000000000000017a5200017810011b*) ;;
*) echo "$in: unexpected first CIE ($hdr)" >&2; exit 1 ;;
esac
cp "$in" "$out"
# DW_CFA_def_cfa_expression, 3 bytes: DW_OP_skip (0x2f) -3; two DW_CFA_nop.
printf '\017\003\057\375\377\000\000' |
	dd of="$out" bs=1 seek=$((off + 17)) conv=notrunc status=none
