#!/bin/sh
# Run every test: unit tests under AddressSanitizer and UBSan, then the
# real-Xen scenarios (Xen 4.17 booted in QEMU, our unikernel profiled from
# dom0). Installs its own dependencies. Prints "N passed, N failed".
# BUILD_DIR (default build/check) keeps the build and the package cache.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build/check}
"$top/scripts/build.sh" "$build" --enable-sanitizers --enable-werror
cd "$build"
set +e
UNIPROF_CACHE=${UNIPROF_CACHE:-$top/build/cache/xen-vm} make check
rc=$?
set -e
if [ $rc -ne 0 ]; then
	# Show what failed: each failing test's log.
	for log in $(grep -l -E '^(FAIL|ERROR|not ok|Bail out)' tests/*/*.log 2>/dev/null); do
		case "$log" in *test-suite.log) continue ;; esac
		echo "=== $log"
		grep -v '^ok' "$log" | tail -n 60
	done
fi
pass=$(sed -n 's/^# PASS: *//p' test-suite.log)
fail=$(sed -n 's/^# FAIL: *//p' test-suite.log)
err=$(sed -n 's/^# ERROR: *//p' test-suite.log)
echo "${pass:-0} passed, $(( ${fail:-0} + ${err:-0} )) failed"
exit $rc
