#!/bin/sh
# Issue 11, H1 on real Xen, by hand (not part of make check): boot Xen 4.17
# in QEMU and run jobs/hostile-cfi.sh against a copy of the no-frame-pointer
# test guest whose .eh_frame loops ("DW_OP_skip -3"). Prints its TAP lines.
# Usage: run-hostile-cfi.sh BUILDDIR [CACHE]   (BUILDDIR: a configured,
# built tree with tests/guest/tg-nofp.elf; CACHE as for xen-scenarios.test)
# Only one VM may run at a time on a small host: wrap it in flock.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
builddir=$(cd "$1" && pwd)
cache=${2:-$builddir/.cache/xen-vm}
work=$builddir/tests/xen-vm/hostile
rm -rf "$work"
mkdir -p "$work/extra/guests"
"$src/tests/xen-vm/make-hostile-cfi.sh" "$builddir/tests/guest/tg-nofp.elf" \
	"$work/extra/guests/tg-nofp-hostile.elf" || exit 1
"$src/tests/xen-vm/prepare-dom0.sh" "$src" "$builddir" "$cache" "$work" "$work/extra" ||
	exit 1
"$src/tests/xen-vm/run-vm.sh" "$cache/root" "$work/dom0.cpio.gz" hostile-cfi \
	"$work/vm" "${UNIPROF_VM_TIMEOUT:-900}"
tr -d '\r' < "$work/vm/console.log" | sed -n 's/.*UNIPROF-TAP //p'
grep -q '^not ok' "$work/vm/console.log" 2>/dev/null && exit 1
tr -d '\r' < "$work/vm/console.log" | grep -q 'UNIPROF-TAP not ok' && exit 1
exit 0
