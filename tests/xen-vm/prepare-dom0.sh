#!/bin/sh
# Everything a VM run needs before it boots: Debian's Xen packages (cached),
# our tools (x86: our Debian packages, in the stage's uniprof/debs, for
# dom0 to install; Arm: installed into the stage directory), and the dom0
# initramfs WORK/dom0.cpio.gz. Shared by the scenarios and the benchmark.
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

# The test tools (the walk and floor benchmarks, the ingest receiver) are
# built, never installed nor packaged: dom0 gets them in /uniprof/tools,
# from the build that made its packages or its install (dom0-init.sh sets
# UNIPROF_TOOLS). The receiver is built only with the daemon.
copy_tools() {
	mkdir -p "$stage/uniprof/tools"
	for t in bench/uniprof-walk-bench bench/uniprof-floor tests/daemon/uniprof-ingest-receiver; do
		[ ! -f "$1/$t" ] || cp "$1/$t" "$stage/uniprof/tools/" || die "cannot copy $1/$t"
	done
}

"$here/fetch-debs.sh" "$cache" "${UNIPROF_VM_ARCH:-amd64}" > "$work/fetch.log" 2>&1 ||
	die "cannot fetch Debian's Xen packages: $(tail -n 3 "$work/fetch.log")"
rm -rf "$stage"
if [ "${UNIPROF_VM_ARCH:-amd64}" = amd64 ]; then
	# The x86 dom0 installs our Debian packages with dpkg (dom0-init.sh),
	# as an admin would: built by dpkg-buildpackage from a copy of the
	# source, never in the source tree, without build trees, caches and
	# this run's own directory.
	deb=$work/deb
	rm -rf "$deb"
	mkdir -p "$deb/uniprof" "$stage/uniprof/debs"
	skip=
	case $work in "$src"/*) skip="--exclude=./${work#"$src"/}" ;; esac
	tar -C "$src" --exclude=./.git --exclude='./build*' --exclude='./_build*' \
		--exclude=./.cache --exclude=./demo-output --exclude=./autom4te.cache $skip -cf - . |
		tar -C "$deb/uniprof" -xf - ||
		die "cannot copy the source to $deb/uniprof"
	(cd "$deb/uniprof" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" \
		dpkg-buildpackage -us -uc -b) > "$deb/build.log" 2>&1 ||
		die "dpkg-buildpackage failed: $(tail -n 5 "$deb/build.log")"
	for p in uniprof uniprofd libuniprof0 libuniprof-dev; do
		cp "$deb/${p}_"*.deb "$stage/uniprof/debs/" || die "dpkg-buildpackage made no $p package"
	done
	copy_tools "$deb/uniprof"
elif grep -q '^SAN_CFLAGS = -fsanitize' "$builddir/Makefile" && [ "$src" != "$(cd "$builddir" && pwd)" ]; then
	mkdir -p "$work/plain"
	(cd "$work/plain" && "$src/configure" > configure.log 2>&1 &&
		make -j"$(nproc)" > make.log 2>&1 && make install DESTDIR="$stage" > install.log 2>&1) ||
		die "plain build for dom0 failed: $(tail -n 5 "$work/plain/"*.log)"
	copy_tools "$work/plain"
else
	make -C "$builddir" install DESTDIR="$stage" > "$work/install.log" 2>&1 ||
		die "make install failed: $(tail -n 5 "$work/install.log")"
	copy_tools "$builddir"
fi
"$here/make-initramfs.sh" "$cache/root" "$stage" "$builddir/tests/guest" \
	"$work/dom0.cpio.gz" $extra > "$work/initramfs.log" 2>&1 ||
	die "cannot build the dom0 initramfs: $(tail -n 5 "$work/initramfs.log")"
