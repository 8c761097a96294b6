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
# its pause times and sample count. At the rate asked whatever it costs
# the guest (--max-stall 100: no stall budget): this measures that cost,
# 997 Hz included, which the default budget would lower under emulation.
profile() {
	label=$1 g=$2 secs=$3
	shift 3
	xl profile "$g" -d "$secs" -F json,folded -o $OUT/$label -q --max-stall 100 "$@" > $OUT/$label.err 2>&1
	rc=$?
	if [ $rc -ne 0 ] || [ ! -s $OUT/$label.json ]; then
		put "error $label: xl profile exit $rc: $(head -n 2 $OUT/$label.err)"
		return 1
	fi
	set -- $(pause_of $OUT/$label)
	put "pause $label p50=$1 p99=$2 max=$3 samples=$(json_num $OUT/$label samples) path=$(sed -n 's/.*"hypercalls": "\([^"]*\)".*/\1/p' $OUT/$label.json | tr ' ' _)"
}

# split_of LABEL: the leaf shares, whole stacks and relaxed counts of a
# profile (profile-check.awk over its folded stacks).
split_of() {
	[ -s $OUT/$1.folded ] || return 0
	awk -f /uniprof/jobs/profile-check.awk $OUT/$1.folded > $OUT/$1.check
	leaf() { awk -v n="$1" '$1 == "leaf" && $2 == n { print $3 }' $OUT/$2.check; }
	put "split $1 chain=$(leaf tg_chain_10 $1) hot35=$(leaf tg_hot_35 $1) hot15=$(leaf tg_hot_15 $1) ap80=$(leaf tg_ap_leaf_80 $1) complete=$(awk '$1 == "complete" { print $2 }' $OUT/$1.check) stacks=$(json_num $OUT/$1 stacks) exact=$(json_num $OUT/$1 exact) verified=$(json_num $OUT/$1 verified) again=$(json_num $OUT/$1 walked_again) dropped=$(json_num $OUT/$1 dropped)"
}

# The stall meter's counters (tests/guest/stall.c): "T LOOPS GAPS GAP_US".
stall_at() {
	grep "tg: stall t_ms" /var/log/xen/console/guest-$1.log | tail -n 1 |
		sed -n 's/.*t_ms=\([0-9]*\) loops=\([0-9]*\) gaps=\([0-9]*\) gap_us=\([0-9]*\).*/\1 \2 \3 \4/p'
}
# stall_phase GUEST LABEL [consistency]: the stall meter's clock gaps over
# a phase, with a profile at the given rate and consistency or (no
# consistency) none; the window leaves out the phase's first 3 s and last 2.
stall_phase() {
	name=$1 label=$2 hz=${3:-} mode=${4:-}
	pid=
	if [ -n "$mode" ]; then
		profile $label $name $PHASE_S -f $hz -u fp --consistency $mode >&2 & pid=$!
	fi
	sleep 3
	a=$(stall_at $name)
	sleep $((PHASE_S - 5))
	b=$(stall_at $name)
	[ -n "$pid" ] && wait $pid
	set -- $a $b
	hz_got=0
	if [ -n "$mode" ] && [ -s $OUT/$label.json ]; then
		hz_got=$(awk -v n="$(json_num $OUT/$label samples)" -v d="$(json_num $OUT/$label duration_s)" \
			'BEGIN { if (d > 0) printf "%.2f", n / d; else print 0 }')
	fi
	put "stall $label ms=$(($5 - $1)) loops=$(($6 - $2)) gaps=$(($7 - $3)) gap_us=$(($8 - $4)) hz=$hz_got mode=${mode:-none}"
}

put "xen $(xl info | sed -n 's/^xen_version *: //p')"
put "phase_s $PHASE_S"

# --- Measurements (run-overhead.sh's BENCH_ONLY=fleet or floor keeps the
# lines above and that part only).
# --- Against the floor (bench/floor-job.sh).
. /uniprof/jobs/floor.sh
floor_bench
# --- Pause time: FP and CFI, direct and libxenctrl, 1 and 2 vCPUs.
start_guest tg-pv-fp "$PIN" || put "error tg-pv-fp did not start"
profile fp-direct tg-pv-fp 10 -f 97 -u fp --hypercalls direct
profile fp-libxenctrl tg-pv-fp 10 -f 97 -u fp --hypercalls libxenctrl
put "depth $(awk '{ print split($1, f, ";") }' $OUT/fp-direct.folded 2>/dev/null | sort -n | tail -n 1)"

# --- Guest slowdown: the work rate with no profiler, at 97 and at 997 Hz,
# both consistencies, each phase between two unprofiled ones.
b1=$(rate tg-pv-fp $PHASE_S)
r97=$(rate tg-pv-fp $PHASE_S profile slow-97 tg-pv-fp $PHASE_S -f 97 -u fp)
b2=$(rate tg-pv-fp $PHASE_S)
q97=$(rate tg-pv-fp $PHASE_S profile relaxed-97 tg-pv-fp $PHASE_S -f 97 -u fp --consistency relaxed)
b3=$(rate tg-pv-fp $PHASE_S)
r997=$(rate tg-pv-fp $PHASE_S profile slow-997 tg-pv-fp $PHASE_S -f 997 -u fp)
b4=$(rate tg-pv-fp $PHASE_S)
q997=$(rate tg-pv-fp $PHASE_S profile relaxed-997 tg-pv-fp $PHASE_S -f 997 -u fp --consistency relaxed)
b5=$(rate tg-pv-fp $PHASE_S)
r97n=$(rate tg-pv-fp $PHASE_S profile slow-97-normal tg-pv-fp $PHASE_S -f 97 -u fp --no-realtime)
b6=$(rate tg-pv-fp $PHASE_S)
put "rate base=$b1 p97=$r97 base=$b2 q97=$q97 base=$b3 p997=$r997 base=$b4 q997=$q997 base=$b5 p97normal=$r97n base=$b6"
split_of slow-97
split_of relaxed-97
split_of slow-997
split_of relaxed-997

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
profile cfi-relaxed tg-pv-nofp 10 -f 97 -u cfi --consistency relaxed
split_of cfi-direct
split_of cfi-relaxed
stop_guest tg-pv-nofp

# Two vCPUs on two pCPUs (one shared with dom0): on one pCPU they would
# take turns in scheduler slices and be sampled mostly while waiting.
if create_guest tg-2 tg-pv-fp 'vcpus=2' 'cpus="all"'; then
	profile fp-2vcpu tg-2 10 -f 97 -u fp --hypercalls direct
	profile fp-2vcpu-relaxed tg-2 10 -f 97 -u fp --consistency relaxed
	split_of fp-2vcpu
	split_of fp-2vcpu-relaxed
	# What each vCPU stood still, by the profiler's own count (relaxed:
	# its register reads, an upper bound).
	for l in fp-2vcpu fp-2vcpu-relaxed; do
		put "vcpu_stall $l $(awk '$1 == "\"stall_pct\":" { x = $2; sub(/,/, "", x); printf "v%d=%s ", n++, x }' $OUT/$l.json)"
	done
	put "vcpu1_share $(awk -f /uniprof/jobs/profile-check.awk $OUT/fp-2vcpu.folded | awk '$1 == "vcpu1" { print $2 }')"
	put "note 2 vCPUs: $(grep -o 'vcpus=[0-9]' /var/log/xen/console/guest-tg-2.log | head -n 1); $(xl vcpu-list tg-2 | tr -s ' ' | tail -n +2 | tr '\n' '/')"
	stop_guest tg-2
fi

start_guest tg-pvh-fp "$PIN" || put "error tg-pvh-fp did not start"
profile pvh-fp-direct tg-pvh-fp 10 -f 97 -u fp --hypercalls direct
profile pvh-fp-libxenctrl tg-pvh-fp 10 -f 97 -u fp --hypercalls libxenctrl
profile pvh-fp-relaxed tg-pvh-fp 10 -f 97 -u fp --consistency relaxed
split_of pvh-fp-direct
split_of pvh-fp-relaxed

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

# --- The stall the guest feels: the stall meter (a clock read in a tight
# loop, gaps of 5 us or more summed) alone on its vCPU, profiled paused and
# relaxed between unprofiled phases; PV at 97 and 997 Hz, PVH at 97 Hz.
stall_guest() {
	_name=$1 _cfg=$2
	shift 2
	create_guest $_name $_cfg 'extra="stall=1 report_ms=1000"' "$PIN" "$@" ||
		{ put "error $_name did not start"; return 1; }
	sleep 3
}
if stall_guest st-pv tg-pv-fp; then
	for round in 1 2; do
		stall_phase st-pv pv-base-$round
		stall_phase st-pv pv-paused-97-$round 97 paused
		stall_phase st-pv pv-relaxed-97-$round 97 relaxed
	done
	stall_phase st-pv pv-base-3
	stall_phase st-pv pv-paused-997 997 paused
	stall_phase st-pv pv-relaxed-997 997 relaxed
	stall_phase st-pv pv-base-4
	stop_guest st-pv
fi
if stall_guest st-pvh tg-pvh-fp; then
	stall_phase st-pvh pvh-base-1
	stall_phase st-pvh pvh-paused-97 97 paused
	stall_phase st-pvh pvh-relaxed-97 97 relaxed
	stall_phase st-pvh pvh-base-2
	stop_guest st-pvh
fi
# --- uniprofd over a fleet of 1, 4 and 16 domains (bench/fleet-job.sh).
. /uniprof/jobs/fleet.sh
fleet_bench
put "done"
