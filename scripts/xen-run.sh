#!/bin/sh
# Boot the suite's real Xen (Xen 4.17 under QEMU, the test dom0 with
# uniprof installed) and run a script of your own in dom0: to try any
# kernel file by hand (a Mini-OS or Unikraft build, say) the way the
# scenarios try the test unikernel.
#
# Usage: scripts/xen-run.sh [-o OUTDIR] [-t SECONDS] SCRIPT [FILE...]
#   SCRIPT   run by dash in dom0, in /by-hand, after Xen, xenstored and
#            xenconsoled are up; /uniprof/jobs/lib.sh has the suite's
#            helpers (xl with a timeout, start/stop of guests)
#   FILE     copied into dom0's /by-hand (kernels, their .dbg files, xl
#            configurations, data)
#   -o DIR   what SCRIPT leaves in /by-hand/out comes back here
#            (default build/xen-run/out; it travels over the serial line as
#            base64, about 10 KB/s: send summaries, not traces)
#   -t SEC   the VM's time limit (default 1200)
# dom0 also has the modules a disk backend needs (brd for a RAM disk,
# xen-blkback), the xenstore clients, and xentrace/xenalyze, Xen's own
# record of when each vCPU ran. What SCRIPT prints shows here, live.
# Installs its own dependencies, like scripts/demo.sh.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/xen-run/out
limit=1200
while getopts o:t:h opt; do
	case $opt in
	o) out=$OPTARG ;;
	t) limit=$OPTARG ;;
	*) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "xen-run: no script: scripts/xen-run.sh [-o OUTDIR] SCRIPT [FILE...]" >&2; exit 2; }
script=$1
shift
[ -f "$script" ] || { echo "xen-run: no such script: $script" >&2; exit 2; }
for f in "$@"; do
	[ -f "$f" ] || { echo "xen-run: no such file: $f" >&2; exit 2; }
done
build=${BUILD_DIR:-$top/build/xen-run/build}
cache=${UNIPROF_CACHE:-$top/build/cache/xen-vm}
run=$top/build/xen-run/run
# One emulated machine at a time: two on two cores make both crawl, and
# they would share this run directory.
mkdir -p "$top/build/xen-run"
exec 9>"$top/build/xen-run/lock"
flock -n 9 || { echo "xen-run: another xen-run is booting or running a VM; wait for it to end" >&2; exit 1; }
"$top/scripts/build.sh" "$build"
rm -rf "$run" "$out"
mkdir -p "$run/extra/by-hand" "$out"
cp "$script" "$run/extra/by-hand/job.sh"
for f in "$@"; do cp "$f" "$run/extra/by-hand/"; done
"$top/tests/xen-vm/prepare-dom0.sh" "$top" "$build" "$cache" "$run" "$run/extra" ||
	{ echo "xen-run: cannot prepare dom0" >&2; exit 1; }
echo "xen-run: booting Xen in QEMU (software emulation; about a minute to dom0)"
"$top/tests/xen-vm/run-vm.sh" "$cache/root" "$run/dom0.cpio.gz" by-hand "$run/vm" "$limit" &
vm=$!
# The script's output, as it comes.
touch "$run/vm/console.log" 2>/dev/null || { sleep 2; touch "$run/vm/console.log"; }
tail -n +1 -f "$run/vm/console.log" 2>/dev/null |
	sed -u -n 's/\r$//; s/^UNIPROF-BY-HAND //p; s/^UNIPROF-INIT /xen-run: /p' &
tailer=$!
rc=0
wait $vm || rc=$?
sleep 1
kill $tailer 2>/dev/null || true
cp "$run"/vm/files/* "$out"/ 2>/dev/null || true
echo "xen-run: VM $( [ $rc -eq 0 ] && echo finished || echo 'did not finish (console: '"$run"'/vm/console.log)'); files in $out:"
ls -1 "$out" | sed 's/^/  /'
exit $rc
