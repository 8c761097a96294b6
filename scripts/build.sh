#!/bin/sh
# Build uniprof in a build directory: dependencies, autotools, configure
# (once), make. Shared by check.sh and demo.sh.
# Usage: scripts/build.sh BUILD_DIR [configure options...]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$1
shift
"$top/scripts/install-deps.sh"
cd "$top"
[ -x configure ] && [ configure -nt configure.ac ] && [ configure -nt Makefile.am ] ||
	autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
mkdir -p "$build"
cd "$build"
[ -f Makefile ] || "$top/configure" "$@" >configure.log 2>&1 || { tail -n 20 configure.log; exit 1; }
make -j"$(nproc)" >make.log 2>&1 || { tail -n 40 make.log; exit 1; }
