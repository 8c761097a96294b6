#!/bin/sh
# make bench: boot Xen 4.17 in QEMU, run overhead-job.sh in dom0 against the
# test unikernel, and print the overhead table (also written as
# bench/overhead.txt and bench/overhead.json in the build tree). Everything
# is measured in one boot; under emulation only the ratios mean much.
# Environment: top_srcdir, top_builddir, UNIPROF_CACHE (as make check),
# BENCH_PHASE_S (seconds per slowdown phase, default 20), BENCH_ONLY=fleet
# (only uniprofd over 1, 4 and 16 domains, a few minutes).
set -u
src=$(cd "${top_srcdir:-.}" && pwd)
builddir=$(cd "${top_builddir:-.}" && pwd)
cache=${UNIPROF_CACHE:-$builddir/.cache/xen-vm}
work=$builddir/bench/run
rm -rf "$work"
mkdir -p "$work/extra/uniprof/jobs" "$work/extra/bench"

cp "$src/bench/fleet-job.sh" "$work/extra/uniprof/jobs/fleet.sh"
if [ "${BENCH_ONLY:-}" = fleet ]; then
	# The fleet alone: the job's helpers, then its last part.
	{ sed '/^# --- Measurements/,$d' "$src/bench/overhead-job.sh"
	  sed -n '/^# --- uniprofd over a fleet/,$p' "$src/bench/overhead-job.sh"; } \
		> "$work/extra/uniprof/jobs/bench.sh"
else
	cp "$src/bench/overhead-job.sh" "$work/extra/uniprof/jobs/bench.sh"
fi
sed -i "s/^PHASE_S=.*/PHASE_S=${BENCH_PHASE_S:-20}/" "$work/extra/uniprof/jobs/bench.sh"
"$src/bench/gen-symbols.sh" "$work/extra/bench/big-symbols.elf" 100000 ||
	{ echo "bench: cannot generate the 100k-function image" >&2; exit 1; }
"$src/tests/xen-vm/prepare-dom0.sh" "$src" "$builddir" "$cache" "$work" "$work/extra" \
	2> "$work/prepare.err" || { echo "bench: $(tail -n 1 "$work/prepare.err")" >&2; exit 1; }
echo "bench: booting Xen in QEMU (about 5 minutes)" >&2
"$src/tests/xen-vm/run-vm.sh" "$cache/root" "$work/dom0.cpio.gz" bench "$work/vm" 1500
tr -d '\r' < "$work/vm/console.log" | tr -c '[:print:]\n\t' '?' |
	sed -n 's/.*UNIPROF-BENCH //p' > "$work/results"
grep -q '^done' "$work/results" || {
	echo "bench: the benchmark job did not finish; console tail:" >&2
	tail -n 30 "$work/vm/console.log" >&2
	exit 1
}
if grep '^error' "$work/results" >&2; then
	echo "bench: some measurements failed (above)" >&2
fi
awk -f "$src/bench/overhead-table.awk" -v json="$builddir/bench/overhead.json" \
	"$work/results" | tee "$builddir/bench/overhead.txt"
