#!/bin/sh
# Run each libFuzzer target for FUZZ_SECONDS from its seed corpus and its
# regression inputs (tests/fuzz/corpus/T, tests/fuzz/regressions/T, except
# those listed in regressions/PENDING), in a scratch copy under WORK_DIR/T.
# Any crash, leak, timeout (> 10 s for one input) or OOM (> 2 GiB) fails.
# Prints one "PASS: T ..." or "FAIL: T ..." line per target and writes them
# to WORK_DIR/results; logs, scratch corpora and failing inputs are kept in
# WORK_DIR/run. Usage: run.sh FUZZ_SRC_DIR WORK_DIR TARGET...
set -u
src=$1
work=$2
shift 2
seconds=${FUZZ_SECONDS:-60}
runs=$work/run
mkdir -p "$runs"
: >"$work/results"
failed=0
for bin in "$@"; do
	t=$(basename "$bin")
	scratch=$runs/$t
	rm -rf "$scratch" "$runs/$t-artifacts"
	mkdir -p "$scratch" "$runs/$t-artifacts"
	for f in "$src/corpus/$t"/* "$src/regressions/$t"/*; do
		[ -f "$f" ] || continue
		case "$f" in "$src/regressions/"*)
			grep -q "^$t/$(basename "$f")\\b" "$src/regressions/PENDING" 2>/dev/null &&
				continue ;;
		esac
		cp "$f" "$scratch/"
	done
	"$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$runs/$t-artifacts/" \
		"$scratch" >"$runs/$t.log" 2>&1
	rc=$?
	stats=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' "$runs/$t.log" | tail -n 1 |
		sed -n 's/.*\(cov: [0-9]*\) \(ft: [0-9]*\).*\(exec\/s: [0-9]*\).*/\1 \2 \3/p')
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$runs/$t.log")
	if [ $rc -eq 0 ]; then
		line="PASS: $t ($execs runs in ${seconds} s, $stats)"
	else
		why=$(grep -m1 -E '^==[0-9]+== ?ERROR|^SUMMARY|ALARM|out-of-memory|runtime error' "$runs/$t.log")
		line="FAIL: $t (exit $rc: ${why:-see $runs/$t.log}; input in $runs/$t-artifacts)"
		failed=$((failed + 1))
	fi
	echo "$line"
	echo "$line" >>"$work/results"
done
[ $failed -eq 0 ]
