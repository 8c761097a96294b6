#!/bin/sh
# Run every test: unit tests under AddressSanitizer and UBSan, then the
# real-Xen scenarios (Xen 4.17 booted in QEMU, our unikernel profiled from
# dom0), then the same on Xen on Arm (make check-arm64) while each
# libFuzzer target runs for FUZZ_SECONDS (default 30) in a
# clang build in build/fuzz (scripts/fuzz.sh; UNIPROF_SKIP_FUZZ=1 skips it).
# Installs its own dependencies. Prints "N passed, N failed", fuzz targets
# counted. BUILD_DIR (default build/check) keeps the build and the package cache.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build/check}
"$top/scripts/build.sh" "$build" --enable-sanitizers --enable-werror
cd "$build"
rm -f "$build/check.out" "$build/check-arm64.out"
# run_logged OUT CMD...: run CMD, its output shown and kept in OUT; its
# exit status in $rc.
run_logged() {
	out=$1
	shift
	{ "$@"; echo $? > "$out.rc"; } 2>&1 | tee "$out"
	rc=$(cat "$out.rc" 2>/dev/null || echo 1)
}
set +e
run_logged "$build/check.out" env UNIPROF_CACHE="${UNIPROF_CACHE:-$top/build/cache/xen-vm}" make check
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
# The fuzz targets run meanwhile, on the other core: the Arm scenarios
# judge the guest by its own clock and hold on a busy machine.
fuzz_build=$top/build/fuzz
if [ "${UNIPROF_SKIP_FUZZ:-0}" != 1 ]; then
	(
		BUILD_DIR=$fuzz_build FUZZ_SECONDS=${FUZZ_SECONDS:-30} "$top/scripts/fuzz.sh" \
			> "$build/fuzz.log" 2>&1
		echo $? > "$build/fuzz.rc"
	) &
	fuzz_pid=$!
fi
# Xen on Arm (make check-arm64; UNIPROF_SKIP_ARM64=1 skips it), counted
# from its own test-suite.log; a run that wrote none is one failure.
if [ "${UNIPROF_SKIP_ARM64:-0}" != 1 ]; then
	rm -f test-suite.log
	x86_rc=$rc
	set +e
	run_logged "$build/check-arm64.out" env UNIPROF_CACHE="${UNIPROF_CACHE:-$top/build/cache/xen-vm}" make check-arm64
	arm_rc=$rc
	rc=$x86_rc
	set -e
	arm_pass=$(sed -n 's/^# PASS: *//p' test-suite.log 2>/dev/null)
	arm_fail=$(sed -n 's/^# FAIL: *//p' test-suite.log 2>/dev/null)
	arm_err=$(sed -n 's/^# ERROR: *//p' test-suite.log 2>/dev/null)
	if [ $arm_rc -ne 0 ]; then
		rc=1
		grep -v '^ok' tests/xen-vm/xen-arm64.log 2>/dev/null | tail -n 60
		[ "${arm_fail:-0}" -eq 0 ] && [ "${arm_err:-0}" -eq 0 ] && arm_err=1
	fi
	pass=$(( ${pass:-0} + ${arm_pass:-0} ))
	fail=$(( ${fail:-0} + ${arm_fail:-0} ))
	err=$(( ${err:-0} + ${arm_err:-0} ))
fi
fuzz_pass=0 fuzz_fail=0
if [ "${UNIPROF_SKIP_FUZZ:-0}" != 1 ]; then
	wait $fuzz_pid || true
	cat "$build/fuzz.log"
	fuzz_rc=$(cat "$build/fuzz.rc" 2>/dev/null || echo 1)
	results=$fuzz_build/tests/fuzz/results
	fuzz_pass=$(grep -c '^PASS' "$results" 2>/dev/null) || true
	fuzz_fail=$(grep -c '^FAIL' "$results" 2>/dev/null) || true
	# A build failure is one failed test.
	[ $fuzz_rc -ne 0 ] && [ "${fuzz_fail:-0}" -eq 0 ] && fuzz_fail=1
	[ $fuzz_rc -ne 0 ] && rc=1
fi
# Every failure once more, last, where a log's tail shows it.
failed=$(grep -h -E '^(FAIL|ERROR|XPASS):' "$build/check.out" "$build/check-arm64.out" 2>/dev/null || true)
if [ "${UNIPROF_SKIP_FUZZ:-0}" != 1 ]; then
	failed=$(printf '%s\n%s' "$failed" "$(grep -h '^FAIL' "$fuzz_build/tests/fuzz/results" 2>/dev/null || true)" | sed '/^$/d')
fi
if [ -n "$failed" ]; then
	echo "=== failed:"
	echo "$failed"
fi
echo "$(( ${pass:-0} + ${fuzz_pass:-0} )) passed, $(( ${fail:-0} + ${err:-0} + ${fuzz_fail:-0} )) failed"
exit $rc
