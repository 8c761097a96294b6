#!/bin/sh
# The overhead benchmark (issue: "Overhead you can quote"): boots Xen 4.17 in
# QEMU and measures, in one boot, uniprof's pause per sample (frame pointers
# and CFI, direct domctls and libxenctrl, 1 and 2 vCPUs, PV and PVH), the
# guest's slowdown at 97 and 997 Hz, xenctx's time per trace, and start-up
# with a 100k-function symbol table. Prints the table; bench/overhead.txt
# and bench/overhead.json stay in the build tree. Installs its own
# dependencies.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build/bench}
"$top/scripts/build.sh" "$build"
cd "$build"
UNIPROF_CACHE=${UNIPROF_CACHE:-$top/build/cache/xen-vm} make bench
