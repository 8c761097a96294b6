#!/bin/sh
# The overhead benchmark, run in dom0 (see run-overhead.sh). Prints one
# "UNIPROF-BENCH key value" line per measurement; the host makes the table.
# Guests run on pCPU 1, dom0 (one pinned vCPU) on pCPU 0, as a production
# host keeps dom0 apart: the guest's slowdown is then the time it spends
# paused, not time the profiler's own CPU use takes from it.
. /uniprof/jobs/lib.sh
OUT=/tmp/bench
mkdir -p $OUT
PIN='cpus="1"'
PHASE_S=${BENCH_PHASE_S:-20}

put() { echo "UNIPROF-BENCH $*"; }
uptime_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }

# The guest's own work counter: "tg: work t_ms=T rounds=R ..." lines.
# rounds_at NAME: the newest "T R" pair.
rounds_at() {
	grep "tg: work" /var/log/xen/console/guest-$1.log | tail -n 1 |
		sed -n 's/.*t_ms=\([0-9]*\) rounds=\([0-9]*\).*/\1 \2/p'
}
# rate NAME SECONDS [command...]: the guest's rounds per second of guest
# time while the command (if any) runs for SECONDS in the background; the
# window leaves out its first 3 s (set-up) and last 2 s.
rate() {
	name=$1 secs=$2
	shift 2
	pid=
	# The command's own lines go to the console (stderr), not into $(...).
	if [ $# -gt 0 ]; then "$@" >&2 & pid=$!; fi
	sleep 3
	a=$(rounds_at $name)
	sleep $((secs - 5))
	b=$(rounds_at $name)
	[ -n "$pid" ] && wait $pid
	echo "$a $b" | awk '{ if ($3 > $1) printf "%.1f\n", ($4 - $2) * 1000 / ($3 - $1); else print 0 }'
}

# pause STEM: "p50 p99 max" from a profile's JSON summary.
pause_of() {
	awk '/"pause_us"/ { on = 1 } on && /"p50"/ { p50 = $2 } on && /"p99"/ { p99 = $2 }
	     on && /"max"/ { max = $2; on = 0 } END { gsub(/,/, "", p50); gsub(/,/, "", p99);
	     gsub(/,/, "", max); print p50, p99, max }' "$1.json"
}
json_num() { sed -n "s/.*\"$2\": \([0-9.]*\).*/\1/p" "$1.json" | head -n 1; }

# profile LABEL GUEST SECONDS [xl profile options...]: one profiled run,
# its pause times and sample count.
profile() {
	label=$1 g=$2 secs=$3
	shift 3
	xl profile "$g" -d "$secs" -F json,folded -o $OUT/$label -q "$@" > $OUT/$label.err 2>&1
	rc=$?
	if [ $rc -ne 0 ] || [ ! -s $OUT/$label.json ]; then
		put "error $label: xl profile exit $rc: $(head -n 2 $OUT/$label.err)"
		return 1
	fi
	set -- $(pause_of $OUT/$label)
	put "pause $label p50=$1 p99=$2 max=$3 samples=$(json_num $OUT/$label samples) path=$(sed -n 's/.*"hypercalls": "\([^"]*\)".*/\1/p' $OUT/$label.json | tr ' ' _)"
}

put "xen $(xl info | sed -n 's/^xen_version *: //p')"
put "phase_s $PHASE_S"

# --- Pause time: FP and CFI, direct and libxenctrl, 1 and 2 vCPUs.
start_guest tg-pv-fp "$PIN" || put "error tg-pv-fp did not start"
profile fp-direct tg-pv-fp 10 -f 97 -u fp --hypercalls direct
profile fp-libxenctrl tg-pv-fp 10 -f 97 -u fp --hypercalls libxenctrl
put "depth $(awk '{ print split($1, f, ";") }' $OUT/fp-direct.folded 2>/dev/null | sort -n | tail -n 1)"

# --- Guest slowdown: the work rate with no profiler, at 97 and at 997 Hz.
b1=$(rate tg-pv-fp $PHASE_S)
r97=$(rate tg-pv-fp $PHASE_S profile slow-97 tg-pv-fp $PHASE_S -f 97 -u fp)
b2=$(rate tg-pv-fp $PHASE_S)
r997=$(rate tg-pv-fp $PHASE_S profile slow-997 tg-pv-fp $PHASE_S -f 997 -u fp)
b3=$(rate tg-pv-fp $PHASE_S)
r97n=$(rate tg-pv-fp $PHASE_S profile slow-97-normal tg-pv-fp $PHASE_S -f 97 -u fp --no-realtime)
b4=$(rate tg-pv-fp $PHASE_S)
put "rate base=$b1 p97=$r97 base=$b2 p997=$r997 base=$b3 p97normal=$r97n base=$b4"

# --- xenctx on the same guest: per-trace time of `xenctx -f` with symbols.
id=$(xl domid tg-pv-fp)
nm -n /guests/tg-fp.elf > $OUT/tg.map 2>/dev/null || cp /guests/map/System.map $OUT/tg.map
n=20
xenctx -f -s $OUT/tg.map "$id" > $OUT/xenctx.txt 2>&1
put "xenctx_frames $(grep -c 'tg_' $OUT/xenctx.txt)"
t0=$(uptime_ms)
i=0
while [ $i -lt $n ]; do
	xenctx -f -s $OUT/tg.map "$id" > /dev/null 2>&1
	i=$((i + 1))
done
put "xenctx traces=$n ms=$(( $(uptime_ms) - t0 ))"
stop_guest tg-pv-fp

start_guest tg-pv-nofp "$PIN" || put "error tg-pv-nofp did not start"
profile cfi-direct tg-pv-nofp 10 -f 97 -u cfi --hypercalls direct
profile cfi-libxenctrl tg-pv-nofp 10 -f 97 -u cfi --hypercalls libxenctrl
stop_guest tg-pv-nofp

if create_guest tg-2 tg-pv-fp 'vcpus=2' "$PIN"; then
	profile fp-2vcpu tg-2 10 -f 97 -u fp --hypercalls direct
	put "vcpu1_share $(awk -f /uniprof/jobs/profile-check.awk $OUT/fp-2vcpu.folded | awk '$1 == "vcpu1" { print $2 }')"
	put "note 2 vCPUs: $(grep -o 'vcpus=[0-9]' /var/log/xen/console/guest-tg-2.log | head -n 1); $(xl vcpu-list tg-2 | tr -s ' ' | tail -n +2 | tr '\n' '/')"
	stop_guest tg-2
fi

start_guest tg-pvh-fp "$PIN" || put "error tg-pvh-fp did not start"
profile pvh-fp-direct tg-pvh-fp 10 -f 97 -u fp --hypercalls direct
profile pvh-fp-libxenctrl tg-pvh-fp 10 -f 97 -u fp --hypercalls libxenctrl

# --- Start-up with a 100k-function symbol table.
if [ -f /bench/big-symbols.elf ]; then
	t0=$(uptime_ms)
	xl profile tg-pvh-fp -s /bench/big-symbols.elf --force-symbols -1 \
		> $OUT/big.txt 2>$OUT/big.err
	rc=$?
	put "big_once ms=$(( $(uptime_ms) - t0 )) rc=$rc"
	profile big tg-pvh-fp 2 -f 97 -s /bench/big-symbols.elf --force-symbols
	put "big setup_ms=$(json_num $OUT/big setup_ms) rss_kib=$(json_num $OUT/big peak_rss_kib) functions=$(json_num $OUT/big functions)"
fi
profile small tg-pvh-fp 2 -f 97
put "small setup_ms=$(json_num $OUT/small setup_ms) rss_kib=$(json_num $OUT/small peak_rss_kib) functions=$(json_num $OUT/small functions)"
stop_guest tg-pvh-fp
put "done"
