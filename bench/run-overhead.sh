#!/bin/sh
# make bench: boot Xen 4.17 in QEMU, run overhead-job.sh in dom0 against the
# test unikernel, and print the overhead table (also written as
# bench/overhead.txt and bench/overhead.json in the build tree). Everything
# is measured in one boot; under emulation only the ratios mean much.
# Environment: top_srcdir, top_builddir, UNIPROF_CACHE (as make check),
# BENCH_PHASE_S (seconds per slowdown phase, default 20), BENCH_ONLY=fleet
# (only uniprofd over 1, 4 and 16 domains, a few minutes), BENCH_ONLY=floor
# (only uniprof against the hypercall floor and the 2017 uniprof, about ten
# minutes; FLOOR_ROUNDS rounds, default 5), BENCH_ONLY=lines (only what
# source lines cost, no Xen: bench/lines-bench.sh), BENCH_ONLY=startup (only
# what start-up costs, no Xen: bench/startup-bench.sh), UNIPROF2017_BIN (a build of the
# 2017 uniprof to measure beside its equivalent loop), FLEET_BEFORE_BUILD (a
# build tree whose uniprofd the fleet part measures beside this one).
set -u
src=$(cd "${top_srcdir:-.}" && pwd)
builddir=$(cd "${top_builddir:-.}" && pwd)
cache=${UNIPROF_CACHE:-$builddir/.cache/xen-vm}
work=$builddir/bench/run
rm -rf "$work"
mkdir -p "$work/extra/uniprof/jobs" "$work/extra/bench"

cp "$src/bench/fleet-job.sh" "$work/extra/uniprof/jobs/fleet.sh"
cp "$src/bench/floor-job.sh" "$work/extra/uniprof/jobs/floor.sh"
# Source lines cost no Xen time: measured here, before the boot.
case ${BENCH_ONLY:-} in
lines) exec "$src/bench/lines-bench.sh" "$src" "$builddir" ;;
startup) exec "$src/bench/startup-bench.sh" "$src" "$builddir" ;;
'' | all) "$src/bench/lines-bench.sh" "$src" "$builddir" ||
	echo "bench: the source-lines measurement failed (above)" >&2
	"$src/bench/startup-bench.sh" "$src" "$builddir" ||
	echo "bench: the start-up measurement failed (above)" >&2 ;;
esac
case ${BENCH_ONLY:-} in
fleet|floor)
	# One part alone: the job's helpers, then that part.
	{ sed '/^# --- Measurements/,$d' "$src/bench/overhead-job.sh"
	  printf '. /uniprof/jobs/%s.sh\n%s_bench\nput "done"\n' "$BENCH_ONLY" "$BENCH_ONLY"; } \
		> "$work/extra/uniprof/jobs/bench.sh" ;;
'' | all) ;;
*) echo "bench: BENCH_ONLY is fleet, floor, lines or startup, not '$BENCH_ONLY'" >&2; exit 2 ;;
esac
if [ -z "${BENCH_ONLY:-}" ] || [ "$BENCH_ONLY" = all ]; then
	cp "$src/bench/overhead-job.sh" "$work/extra/uniprof/jobs/bench.sh"
fi
sed -i -e "s/^PHASE_S=.*/PHASE_S=${BENCH_PHASE_S:-20}/" \
	-e "/^PHASE_S=/a FLOOR_ROUNDS=${FLOOR_ROUNDS:-5}" "$work/extra/uniprof/jobs/bench.sh"
# The 2017 uniprof itself, if you built it (cnplab/uniprof: ./configure
# --without-libunwind && make uniprof): measured beside its equivalent loop.
if [ -n "${UNIPROF2017_BIN:-}" ]; then
	cp "$UNIPROF2017_BIN" "$work/extra/bench/uniprof2017" ||
		{ echo "bench: cannot copy UNIPROF2017_BIN=$UNIPROF2017_BIN" >&2; exit 1; }
fi
# Another build's daemon (FLEET_BEFORE_BUILD, a build tree), measured
# beside this one on the same fleet in the same boot: its uniprofd, its
# library and its crash guard.
if [ -n "${FLEET_BEFORE_BUILD:-}" ]; then
	mkdir -p "$work/extra/bench/before"
	for f in daemon/.libs/uniprofd core/uniprof-guard core/.libs/libuniprof.so.0; do
		cp -L "$FLEET_BEFORE_BUILD/$f" "$work/extra/bench/before/" ||
			{ echo "bench: cannot copy $f from FLEET_BEFORE_BUILD=$FLEET_BEFORE_BUILD" >&2; exit 1; }
	done
fi
"$src/bench/gen-symbols.sh" "$work/extra/bench/big-symbols.elf" 100000 ||
	{ echo "bench: cannot generate the 100k-function image" >&2; exit 1; }
# The same with its DWARF (the lines bench's, kept between runs): the
# fleet part measures start-up in dom0 with both.
if [ "${BENCH_ONLY:-}" = fleet ]; then
	big=$builddir/bench/lines/lines-100k.elf
	[ -s "$big" ] || { mkdir -p "$builddir/bench/lines" &&
		"$src/bench/gen-lines.sh" "$big" 100000 "${TG_CC:-gcc}"; } ||
		echo "bench: cannot generate the 100k-function image with DWARF" >&2
	[ -s "$big" ] && cp "$big" "$work/extra/bench/big-lines.elf"
fi
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
