#!/bin/sh
# Install what uniprof needs to build and to run its real-Xen tests on a
# Debian 12 machine: compilers, autotools, the Xen/ELF/yajl/unwind
# development packages, libmicrohttpd and libcurl (the host daemon),
# libdebuginfod and Debian's debuginfod server (the build-id fetch test), QEMU, Chromium (the flame-graph browser test),
# clang with libFuzzer and libxml2 (the fuzz targets, scripts/fuzz.sh), and the AArch64 cross compiler (the
# AArch64 unwind fixtures). Only Debian's own packages; nothing else
# is downloaded. Does nothing when all are present.
# debhelper and lintian build and check our Debian packages (debian/),
# which the x86 real-Xen scenarios install in dom0.
set -eu
pkgs="build-essential autoconf automake libtool pkg-config
      libxen-dev libyajl-dev libunwind-dev libelf-dev libdw-dev zlib1g-dev
      libmicrohttpd-dev libcurl4-openssl-dev libdebuginfod-dev
      libprotobuf-c-dev protobuf-c-compiler
      qemu-system-x86 cpio gzip binutils dash chromium tmux debuginfod
      clang libclang-rt-14-dev libxml2-dev
      debhelper lintian
      gcc-aarch64-linux-gnu"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: need root to install:$missing" >&2
	exit 1
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends $missing >/dev/null
