#!/bin/sh
# Assemble the dom0 initramfs: busybox, the Xen tools from the unpacked
# Debian packages, the kernel modules dom0 needs, our installed binaries
# (a DESTDIR install) or our Debian packages (STAGE/uniprof/debs, with the
# host's dpkg to install them: dom0-init.sh), the test guests and the
# jobs, plus every shared library they load (ldd, and libgcc_s which glibc
# loads at run time).
# EXTRA, if given, is a directory copied over the tree last (the benchmark
# adds its job and files that way).
# UNIPROF_VM_ARCH: the dom0's architecture, amd64 (default) or arm64; the
# libraries of an arm64 dom0 come from the host's multiarch tree.
# Usage: make-initramfs.sh CACHE_ROOT STAGE GUEST_DIR OUT.cpio.gz [EXTRA]
set -eu
root=$1 stage=$2 guests=$3 out=$4 extra=${5:-}
arch=${UNIPROF_VM_ARCH:-amd64}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work" "$work.debroot"' EXIT
kver=$(ls "$root/lib/modules" | head -n 1)
case $arch in
amd64) triplet=x86_64-linux-gnu ;;
arm64) triplet=aarch64-linux-gnu ;;
*) echo "make-initramfs: no dom0 for architecture $arch" >&2; exit 1 ;;
esac

mkdir -p "$work/bin" "$work/dev" "$work/proc" "$work/sys" "$work/tmp" "$work/run" \
	"$work/var" "$work/etc/xen" "$work/uniprof/jobs" "$work/guests" \
	"$work/usr/lib/xen-4.17/bin" "$work/lib/modules/$kver/kernel/drivers/xen/xenfs" \
	"$work/lib/$triplet"
cp "$root/bin/busybox" "$work/bin/busybox"
ln -s busybox "$work/bin/sh"
# The jobs run under dash: busybox's ash corrupted its heap on long job
# scripts here ("corrupted double-linked list"); its applets stay commands.
if [ "$arch" = amd64 ]; then cp -L /bin/dash "$work/bin/dash"; else cp "$root/bin/dash" "$work/bin/dash"; fi
cp "$here/dom0-init.sh" "$work/init"
chmod +x "$work/init"
for m in xen-evtchn xen-privcmd xen-gntdev xen-gntalloc xenfs/xenfs; do
	cp "$root/lib/modules/$kver/kernel/drivers/xen/$m.ko" \
		"$work/lib/modules/$kver/kernel/drivers/xen/$m.ko"
done
# A disk backend for guests tried by hand (scripts/xen-run.sh): a RAM
# disk and blkback, loaded only when a job asks.
for m in block/brd block/xen-blkback/xen-blkback; do
	[ -e "$root/lib/modules/$kver/kernel/drivers/$m.ko" ] || continue
	mkdir -p "$work/lib/modules/$kver/kernel/drivers/$(dirname $m)"
	cp "$root/lib/modules/$kver/kernel/drivers/$m.ko" "$work/lib/modules/$kver/kernel/drivers/$m.ko"
done

bins="$work/bin/dash"
for b in xl oxenstored xenconsoled xen-init-dom0 xenctx readnotes xentrace; do
	[ -e "$root/usr/lib/xen-4.17/bin/$b" ] || continue   # readnotes: x86 only
	cp "$root/usr/lib/xen-4.17/bin/$b" "$work/usr/lib/xen-4.17/bin/$b"
	bins="$bins $work/usr/lib/xen-4.17/bin/$b"
done
# Xen's own record of when each vCPU ran (xenalyze reads xentrace's
# file), and the xenstore clients a hotplug script uses.
mkdir -p "$work/usr/bin"
for b in xenalyze xenstore; do
	[ -e "$root/usr/bin/$b" ] || continue
	cp "$root/usr/bin/$b" "$work/usr/bin/$b"
	bins="$bins $work/usr/bin/$b"
done
# Debian's debuginfod server (the host's: x86 only), for the build-id
# fetch; its libraries come with it below.
if [ "$arch" = amd64 ] && [ -x /usr/bin/debuginfod ]; then
	cp /usr/bin/debuginfod "$work/usr/bin/debuginfod"
	bins="$bins $work/usr/bin/debuginfod"
fi
for l in read write ls list rm exists watch chmod; do
	[ -e "$root/usr/bin/xenstore-$l" ] || continue
	ln -sf xenstore "$work/usr/bin/xenstore-$l"
done
# The distribution's xl; our xl front (in /usr/local/sbin, first in PATH,
# from a staged install; in its place, diverting it, from our package)
# hands it what it does not handle. With our packages it is Debian's own,
# as xen-utils-common ships it: a link to xen-utils-wrapper, which runs
# /usr/lib/xen-X.Y/bin/ under the name it was run by; the package's front
# must run it under a name ending in "xl" (debian/rules).
mkdir -p "$work/usr/sbin"
if ls "$stage"/uniprof/debs/*.deb > /dev/null 2>&1; then
	mkdir -p "$work/usr/lib/xen-common/bin"
	cp "$root/usr/lib/xen-common/bin/xen-utils-wrapper" "$work/usr/lib/xen-common/bin/"
	ln -s ../lib/xen-common/bin/xen-utils-wrapper "$work/usr/sbin/xl"
else
	ln -s /usr/lib/xen-4.17/bin/xl "$work/usr/sbin/xl"
fi
[ -d "$root/etc/xen" ] && cp -r "$root/etc/xen/." "$work/etc/xen/" || true
# Xen's block hotplug script wants bash: a `phy:` one for busybox's sh.
mkdir -p "$work/etc/xen/scripts"
cp "$here/block-hotplug.sh" "$work/etc/xen/scripts/block"

# Our own installed tree (binaries, libuniprof, man pages), or our
# packages in uniprof/debs.
cp -a "$stage/." "$work/"
for f in $(find "$stage" -type f -perm -u+x); do
	bins="$bins $work${f#"$stage"}"
done
# The packages are installed in dom0 by the host's dpkg (Debian 12, as
# dom0's Xen): dpkg and the tools it runs, found in PATH (dpkg-split, which
# looks at each .deb first; GNU tar, which dpkg-deb runs with an option
# busybox's lacks, in /usr/bin ahead of busybox's; ldconfig). busybox
# gives sh, rm, diff, start-stop-daemon. The packages' files are unpacked
# here only to find the libraries they load.
debroot=$work.debroot
rm -rf "$debroot"
if ls "$stage"/uniprof/debs/*.deb > /dev/null 2>&1; then
	mkdir -p "$debroot" "$work/sbin"
	for d in "$stage"/uniprof/debs/*.deb; do
		dpkg-deb -x "$d" "$debroot"
	done
	for f in $(find "$debroot" -type f -perm -u+x); do
		bins="$bins $f"
	done
	for b in dpkg dpkg-deb dpkg-split dpkg-divert dpkg-query tar; do
		cp -L "$(command -v $b)" "$work/usr/bin/$b"
		bins="$bins $work/usr/bin/$b"
	done
	cp -L /sbin/ldconfig "$work/sbin/ldconfig"
fi

# Shared libraries: each binary's DT_NEEDED and interpreter, found in our
# stage, the unpacked packages, then the host's tree for that architecture
# (same Debian release as dom0), and theirs in turn; plus libgcc_s, which
# glibc loads at run time.
libdirs=$(find "$stage" -name 'libuniprof.so*' -exec dirname {} \; | sort -u | tr '\n' ':')
search="$(echo "$libdirs" | tr ':' ' ') $debroot/usr/lib/$triplet $root/lib/$triplet $root/usr/lib/$triplet /lib/$triplet /usr/lib/$triplet"
find_lib() {
	for d in $search; do
		[ -e "$d/$1" ] && { echo "$d/$1"; return 0; }
	done
	echo "make-initramfs: $1 (needed by $2) is nowhere in: $search" >&2
	return 1
}
todo=$bins seen=" "
while [ -n "$todo" ]; do
	next=
	for b in $todo; do
		interp=$(readelf -lW "$b" 2>/dev/null | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
		if [ -n "$interp" ] && [ ! -e "$work$interp" ]; then
			mkdir -p "$work$(dirname "$interp")"
			cp -L "$interp" "$work$interp"
		fi
		for n in $(readelf -dW "$b" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			case $seen in *" $n "*) continue ;; esac
			seen="$seen$n "
			lib=$(find_lib "$n" "$b") || exit 1
			case "$lib" in "$stage"* | "$debroot"*) ;; *) cp -L "$lib" "$work/lib/$triplet/$n" ;; esac
			next="$next $lib"
		done
	done
	todo=$next
done
cp -L "$(find_lib libgcc_s.so.1 glibc)" "$work/lib/$triplet/"

# The dynamic loader's cache, so libraries under our prefix are found.
{
	echo /lib/$triplet
	echo /usr/lib/$triplet
	for d in $(echo "$libdirs" | tr ':' ' '); do echo "${d#"$stage"}"; done
} > "$work/etc/ld.so.conf"
/sbin/ldconfig -r "$work"
# The host's ldconfig writes no cache another architecture's loader reads:
# there, our libraries go where the loader looks by default.
if [ "$arch" != amd64 ]; then
	for d in $(echo "$libdirs" | tr ':' ' '); do
		for l in "$d"/lib*.so.*; do
			ln -sf "${d#"$stage"}/${l##*/}" "$work/lib/$triplet/${l##*/}"
		done
	done
fi

cp "$here"/guests/*.cfg "$work/guests/"
if [ "$arch" = arm64 ]; then
	# The AArch64 guests: Images, each with its ELF beside it (NAME.img.dbg).
	for v in fp nofp; do
		cp "$guests/tg-a64-$v.img" "$work/guests/"
		cp "$guests/tg-a64-$v.elf" "$work/guests/tg-a64-$v.img.dbg"
	done
else
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
	# Step 5, debuginfod: Debian's server in dom0 serves the full image;
	# "other" is a stripped kernel whose build-id it does not have.
	mkdir -p "$g/other" "$work/debuginfod-served"
	objcopy --strip-all "$g/tg-nofp.elf" "$g/other/tg.elf"
	cp "$g/tg-fp.elf" "$work/debuginfod-served/tg-fp.debug"
	echo "$bid" > "$g/none/build-id"
	# A hostile image (issue 11, H1): the no-frame-pointer guest whose CFI
	# loops ("DW_OP_skip -3"), for the paused-window deadline scenario.
	"$here/make-hostile-cfi.sh" "$g/tg-nofp.elf" "$g/tg-nofp-hostile.elf"
fi
cp -R "$here"/jobs/. "$work/uniprof/jobs/"
[ -z "$extra" ] || cp -a "$extra/." "$work/"
chmod +x "$work"/uniprof/jobs/*.sh

(cd "$work" && find . | cpio -o -H newc --quiet) | gzip -1 > "$out"
