#!/bin/sh
# Assemble the dom0 initramfs: busybox, the Xen tools from the unpacked
# Debian packages, the kernel modules dom0 needs, our installed binaries
# (a DESTDIR install), the test guests and the jobs, plus every shared
# library they load (ldd, and libgcc_s which glibc loads at run time).
# EXTRA, if given, is a directory copied over the tree last (the benchmark
# adds its job and files that way).
# Usage: make-initramfs.sh CACHE_ROOT STAGE GUEST_DIR OUT.cpio.gz [EXTRA]
set -eu
root=$1 stage=$2 guests=$3 out=$4 extra=${5:-}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
kver=$(ls "$root/lib/modules" | head -n 1)

mkdir -p "$work/bin" "$work/dev" "$work/proc" "$work/sys" "$work/tmp" "$work/run" \
	"$work/var" "$work/etc/xen" "$work/uniprof/jobs" "$work/guests" \
	"$work/usr/lib/xen-4.17/bin" "$work/lib/modules/$kver/kernel/drivers/xen/xenfs" \
	"$work/lib64" "$work/lib/x86_64-linux-gnu"
cp "$root/bin/busybox" "$work/bin/busybox"
ln -s busybox "$work/bin/sh"
# The jobs run under dash: busybox's ash corrupted its heap on long job
# scripts here ("corrupted double-linked list"); its applets stay commands.
cp -L /bin/dash "$work/bin/dash"
cp "$here/dom0-init.sh" "$work/init"
chmod +x "$work/init"
for m in xen-evtchn xen-privcmd xen-gntdev xen-gntalloc xenfs/xenfs; do
	cp "$root/lib/modules/$kver/kernel/drivers/xen/$m.ko" \
		"$work/lib/modules/$kver/kernel/drivers/xen/$m.ko"
done

bins="$work/bin/dash"
for b in xl oxenstored xenconsoled xen-init-dom0 xenctx readnotes; do
	cp "$root/usr/lib/xen-4.17/bin/$b" "$work/usr/lib/xen-4.17/bin/$b"
	bins="$bins $work/usr/lib/xen-4.17/bin/$b"
done
# The distribution's xl, where Debian's wrapper puts it; our xl front in
# /usr/local/sbin comes first in PATH and hands it what it does not handle.
mkdir -p "$work/usr/sbin"
ln -s /usr/lib/xen-4.17/bin/xl "$work/usr/sbin/xl"
[ -d "$root/etc/xen" ] && cp -r "$root/etc/xen/." "$work/etc/xen/" || true

# Our own installed tree (binaries, libuniprof, man pages).
cp -a "$stage/." "$work/"
for f in $(find "$stage" -type f -perm -u+x); do
	bins="$bins $work${f#"$stage"}"
done

# Shared libraries, resolved on the host (same Debian release as dom0).
libdirs=$(find "$stage" -name 'libuniprof.so*' -exec dirname {} \; | sort -u | tr '\n' ':')
for b in $bins; do
	LD_LIBRARY_PATH="$libdirs" ldd "$b" 2>/dev/null |
		sed -n 's/.*=> \(\/[^ ]*\).*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p'
done | sort -u | while read -r lib; do
	case "$lib" in "$stage"*) continue ;; esac
	mkdir -p "$work$(dirname "$lib")"
	cp -L "$lib" "$work$lib"
done
cp -L /lib/x86_64-linux-gnu/libgcc_s.so.1 "$work/lib/x86_64-linux-gnu/"
[ -e "$work/lib64/ld-linux-x86-64.so.2" ] ||
	cp -L /lib64/ld-linux-x86-64.so.2 "$work/lib64/"

# The dynamic loader's cache, so libraries under our prefix are found.
{
	echo /lib/x86_64-linux-gnu
	echo /usr/lib/x86_64-linux-gnu
	for d in $(echo "$libdirs" | tr ':' ' '); do echo "${d#"$stage"}"; done
} > "$work/etc/ld.so.conf"
/sbin/ldconfig -r "$work"

cp "$guests"/*.elf "$work/guests/"
# Stripped kernels with their symbols elsewhere, for the symbol search.
g="$work/guests"
mkdir -p "$g/beside" "$g/bid" "$g/link/.debug" "$g/map" "$g/bad" "$g/none" "$work/debug"
for d in beside bid link map bad none; do
	objcopy --strip-all "$g/tg-fp.elf" "$g/$d/tg.elf"
done
cp "$g/tg-fp.elf" "$g/beside/tg.elf.debug"
bid=$(readelf -n "$g/tg-fp.elf" | sed -n 's/.*Build ID: *//p')
mkdir -p "$work/debug/.build-id/$(echo "$bid" | cut -c1-2)"
cp "$g/tg-fp.elf" "$work/debug/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).debug"
objcopy --only-keep-debug "$g/tg-fp.elf" "$g/link/.debug/tg-symbols.elf"
objcopy --add-gnu-debuglink="$g/link/.debug/tg-symbols.elf" "$g/link/tg.elf"
nm -n "$g/tg-fp.elf" > "$g/map/System.map"
cp "$g/tg-nofp.elf" "$g/bad/tg.elf.debug"
cp "$here"/guests/*.cfg "$work/guests/"
# A hostile image (issue 11, H1): the no-frame-pointer guest whose CFI
# loops ("DW_OP_skip -3"), for the paused-window deadline scenario.
"$here/make-hostile-cfi.sh" "$g/tg-nofp.elf" "$g/tg-nofp-hostile.elf"
cp "$here"/jobs/* "$work/uniprof/jobs/"
[ -z "$extra" ] || cp -a "$extra/." "$work/"
chmod +x "$work"/uniprof/jobs/*.sh

(cd "$work" && find . | cpio -o -H newc --quiet) | gzip -1 > "$out"
