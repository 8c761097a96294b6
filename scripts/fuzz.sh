#!/bin/sh
# Build the libFuzzer targets with clang in a fresh build directory and run
# each for a bounded time (make fuzz). Used by CI through check.sh.
# FUZZ_SECONDS (default 60) per target; BUILD_DIR (default build/fuzz).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build/fuzz}
"$top/scripts/install-deps.sh"
cd "$top"
[ -x configure ] && [ configure -nt configure.ac ] && [ configure -nt Makefile.am ] ||
	autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
rm -rf "$build"
mkdir -p "$build"
cd "$build"
"$top/configure" CC=clang --enable-fuzzing >configure.log 2>&1 ||
	{ tail -n 20 configure.log; exit 1; }
make -j"$(nproc)" core/libuniprof-core.la >make.log 2>&1 || { tail -n 40 make.log; exit 1; }
exec make fuzz FUZZ_SECONDS="${FUZZ_SECONDS:-60}"
