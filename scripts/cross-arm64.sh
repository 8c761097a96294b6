#!/bin/sh
# Cross-build uniprof for an arm64 dom0 (Xen on Arm) on an x86_64 Debian 12
# machine, from Debian's packages only: the aarch64 cross compiler, the
# arm64 -dev packages through multiarch, and libxen-dev:arm64, which is not
# co-installable with the amd64 one (not Multi-Arch: same), unpacked into a
# private directory for its link names and pkg-config files (its headers are
# the same as amd64's). qemu-system-arm comes too, for make check-arm64's
# Xen/arm64. Then, with qemu-user, the unit tests can run:
#   make -C BUILD_DIR check TESTS="..." LOG_COMPILER=qemu-aarch64
# (26 of 29 pass so; the two daemon tests are libtool wrappers there, run
# their tests/daemon/.libs binaries with LD_LIBRARY_PATH=core/.libs, and
# pass; test_pause_deadline needs its crash guard, a second arm64 program,
# which qemu-user starts only where binfmt_misc knows arm64.)
# Usage: scripts/cross-arm64.sh [BUILD_DIR]   (default build/cross-arm64)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build/cross-arm64}
multi=/usr/lib/aarch64-linux-gnu

"$top/scripts/install-deps.sh"
if [ "$(id -u)" -ne 0 ]; then
	echo "cross-arm64: need root to install the arm64 packages" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
dpkg --print-foreign-architectures | grep -qx arm64 || {
	dpkg --add-architecture arm64
	apt-get update -q >/dev/null
}
apt-get install -y -q --no-install-recommends gcc-aarch64-linux-gnu \
	libstdc++-12-dev-arm64-cross libc6-dev:arm64 libyajl-dev:arm64 \
	libelf-dev:arm64 libdw-dev:arm64 libunwind-dev:arm64 zlib1g-dev:arm64 \
	libmicrohttpd-dev:arm64 libcurl4-openssl-dev:arm64 \
	libprotobuf-c-dev:arm64 libxenmisc4.17:arm64 qemu-user qemu-system-arm \
	>/dev/null

# libxen-dev:arm64's link names and .pc files, pointing at the arm64
# libraries multiarch installed.
sysroot=$build/libxen-dev-arm64
if [ ! -d "$sysroot/usr/lib/aarch64-linux-gnu" ]; then
	mkdir -p "$build/debs" "$sysroot"
	(cd "$build/debs" && apt-get download libxen-dev:arm64 >/dev/null)
	dpkg-deb -x "$build"/debs/libxen-dev_*_arm64.deb "$sysroot"
	for l in "$sysroot$multi"/*.so; do
		t=$(readlink "$l") && ln -sf "$multi/$t" "$l"
	done
	rm -f "$sysroot$multi"/*.a
fi

cd "$top"
[ -x configure ] && [ configure -nt configure.ac ] && [ configure -nt Makefile.am ] ||
	autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
mkdir -p "$build"
cd "$build"
[ -f Makefile ] ||
	PKG_CONFIG_LIBDIR="$multi/pkgconfig:/usr/share/pkgconfig:$sysroot$multi/pkgconfig" \
	LDFLAGS="-L$sysroot$multi -Wl,-rpath-link,$multi" \
	"$top/configure" --host=aarch64-linux-gnu >configure.log 2>&1 ||
	{ tail -n 20 configure.log; exit 1; }
make -j"$(nproc)" >make.log 2>&1 || { tail -n 40 make.log; exit 1; }
file xl-plugin/.libs/xl-profile daemon/.libs/uniprofd core/uniprof-guard
