#!/bin/sh
# Everything a VM run needs before it boots: Debian's Xen packages (cached),
# our tools installed into a stage directory, and the dom0 initramfs
# WORK/dom0.cpio.gz. Shared by the scenarios and the benchmark.
# dom0 gets a plain build: the unit tests run under ASan/UBSan on the host,
# but in a PV dom0 under emulation every sanitizer process reserves
# terabytes of shadow memory and starts slowly.
# Usage: prepare-dom0.sh SRCDIR BUILDDIR CACHE WORK [EXTRA]
# (EXTRA: a directory copied over the initramfs tree last)
# On failure the last line on stderr says what failed.
set -u
src=$(cd "$1" && pwd) builddir=$2 cache=$3 work=$4 extra=${5:-}
here=$src/tests/xen-vm
mkdir -p "$work"
work=$(cd "$work" && pwd)
stage=$work/stage

die() { echo "$*" >&2; exit 1; }

"$here/fetch-debs.sh" "$cache" "${UNIPROF_VM_ARCH:-amd64}" > "$work/fetch.log" 2>&1 ||
	die "cannot fetch Debian's Xen packages: $(tail -n 3 "$work/fetch.log")"
rm -rf "$stage"
if grep -q '^SAN_CFLAGS = -fsanitize' "$builddir/Makefile" && [ "$src" != "$(cd "$builddir" && pwd)" ]; then
	mkdir -p "$work/plain"
	(cd "$work/plain" && "$src/configure" > configure.log 2>&1 &&
		make -j"$(nproc)" > make.log 2>&1 && make install DESTDIR="$stage" > install.log 2>&1) ||
		die "plain build for dom0 failed: $(tail -n 5 "$work/plain/"*.log)"
else
	make -C "$builddir" install DESTDIR="$stage" > "$work/install.log" 2>&1 ||
		die "make install failed: $(tail -n 5 "$work/install.log")"
fi
"$here/make-initramfs.sh" "$cache/root" "$stage" "$builddir/tests/guest" \
	"$work/dom0.cpio.gz" $extra > "$work/initramfs.log" 2>&1 ||
	die "cannot build the dom0 initramfs: $(tail -n 5 "$work/initramfs.log")"
