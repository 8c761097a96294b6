#!/bin/sh
# The real-Xen scenarios, run in dom0. Each result is a TAP line on the
# console; the host turns them into `make check` results.
. /uniprof/jobs/lib.sh
PROF=xl-profile
OUT=/tmp/out
mkdir -p $OUT

# within VALUE EXPECTED TOLERANCE
within() {
	awk -v v="$1" -v e="$2" -v t="$3" 'BEGIN { exit !(v != "" && v >= e - t && v <= e + t) }'
}

# stat FILE KEY [NAME]: a value from profile-check.awk's report
stat() {
	awk -f /uniprof/jobs/profile-check.awk "$1" |
		awk -v k="$2" -v n="${3:-}" '$1 == k && (n == "" || $2 == n) { print $NF }'
}

# The known split, within 5 points, and whole stacks in >= 99% of samples.
check_split() {
	label=$1 folded=$2
	if [ ! -s "$folded" ]; then
		not_ok "$label: profile written" "no folded profile at $folded"
		return
	fi
	ok "$label: profile written ($(stat "$folded" samples) samples)"
	for pair in tg_chain_10:50 tg_hot_35:35 tg_hot_15:15; do
		fn=${pair%:*} want=${pair#*:}
		got=$(stat "$folded" leaf "$fn")
		if within "$got" "$want" 5; then
			ok "$label: $fn share ${got}% (expected ${want}% +-5)"
		else
			not_ok "$label: $fn share ${got:-0}% (expected ${want}% +-5)" \
				"$(sort -t' ' -k2 -nr "$folded" | head -n 5)"
		fi
	done
	c=$(stat "$folded" complete)
	if within "$c" 100 1; then
		ok "$label: ${c}% of samples have the whole chain from tg_entry64"
	else
		not_ok "$label: ${c:-0}% of samples have the whole chain (need >= 99%)" \
			"$(head -n 8 "$folded")"
	fi
}

# --- PV and PVH guests with frame pointers, symbols from the domain config.
for t in pv pvh; do
	g=tg-$t-fp
	if ! start_guest $g; then
		not_ok "$t: guest starts" "$(cat /tmp/create-$g.log)"
		diagnose
		continue
	fi
	if [ $t = pv ]; then
		# Default output location: beside the domain's logs.
		$PROF $g -f 97 -d 10 > $OUT/$g.stdout 2> $OUT/$g.stderr
		rc=$?
		folded=$(ls -t /var/log/xen/profile/$g-*.folded 2>/dev/null | head -n 1)
	else
		$PROF $g -f 97 -d 10 -o $OUT/$g > $OUT/$g.stdout 2> $OUT/$g.stderr
		rc=$?
		folded=$OUT/$g.folded
	fi
	check "$t: xl-profile exits 0" [ $rc -eq 0 ]
	[ $rc -eq 0 ] || tap "# $(cat $OUT/$g.stderr)"
	check_split "$t" "$folded"
	stem=${folded%.folded}
	check "$t: flame graph written" grep -q '<g class="f"' "$stem.svg"
	check "$t: JSON summary names the domain and its symbols" \
		grep -q "\"file\": \"/guests/tg-fp.elf\"" "$stem.json"
	check "$t: domain type from its configuration is $t" \
		grep -q "\"type\": \"$t\"" "$stem.json"
	for ext in folded svg txt json; do send_file "$stem.$ext" "$g.$ext"; done
	check "$t: domain running after the profiler exits" not_paused $g
	check "$t: guest keeps working after the profiler exits" guest_progresses $g
	grep -q "pause per sample" $OUT/$g.stdout &&
		tap "# $t $(grep 'pause per sample' $OUT/$g.stdout)"
	stop_guest $g
done

# --- Signals: SIGINT and SIGTERM end the run with a complete profile and
# the domain unpaused.
g=tg-pv-fp
start_guest $g || not_ok "signals: guest starts"
for sig in INT TERM; do
	$PROF $g -f 200 -o $OUT/sig-$sig > $OUT/sig.stdout 2> $OUT/sig.stderr &
	pid=$!
	sleep 4
	kill -$sig $pid
	wait $pid
	rc=$?
	check "SIG$sig: xl-profile exits 0" [ $rc -eq 0 ]
	n=$(stat $OUT/sig-$sig.folded samples)
	check "SIG$sig: profile written with samples (${n:-0})" [ "${n:-0}" -gt 50 ]
	check "SIG$sig: stop reason reported" grep -q "stopped: stopped by signal" $OUT/sig-$sig.txt
	check "SIG$sig: domain running afterwards" not_paused $g
done

# --- SIGKILL cannot be caught: the crash guard's watchdog must unpause.
paused_after_kill=0
for i in 1 2 3 4 5 6; do
	$PROF $g -f 1000 -q -o $OUT/kill > /dev/null 2>&1 &
	pid=$!
	sleep 2
	kill -KILL $pid
	wait $pid 2>/dev/null
	sleep 1
	not_paused $g || paused_after_kill=$((paused_after_kill + 1))
	xl unpause $g 2>/dev/null
done
check "SIGKILL x6 at 1000 Hz: domain never left paused ($paused_after_kill times)" [ $paused_after_kill -eq 0 ]
stop_guest $g

# --- The guest shuts itself down mid-profile.
g=tg-pvh-fp
if start_guest $g 'extra="run=5 report_ms=1000"'; then
	start=$(date +%s)
	$PROF $g -f 97 -d 60 -o $OUT/shutdown > $OUT/shutdown.stdout 2> $OUT/shutdown.stderr
	rc=$?
	took=$(( $(date +%s) - start ))
	check "shutdown: xl-profile exits 0" [ $rc -eq 0 ]
	check "shutdown: stops when the guest ends (${took}s, not 60)" [ $took -lt 30 ]
	n=$(stat $OUT/shutdown.folded samples)
	check "shutdown: keeps what it sampled (${n:-0} samples)" [ "${n:-0}" -gt 50 ]
	check "shutdown: says the domain ended" grep -Eq "stopped: domain (shut down|destroyed)" $OUT/shutdown.txt
else
	not_ok "shutdown: guest starts"
fi
stop_guest $g

# --- Bad input: one clear line, non-zero exit.
one_line_error() {
	expect=$1
	shift
	$PROF "$@" > $OUT/bad.stdout 2> $OUT/bad.stderr
	rc=$?
	lines=$(wc -l < $OUT/bad.stderr)
	if [ $rc -ne 0 ] && [ "$lines" -eq 1 ] && grep -q "$expect" $OUT/bad.stderr; then
		ok "bad input '$*': exit $rc, '$(cat $OUT/bad.stderr)'"
	else
		not_ok "bad input '$*': exit $rc, $lines lines" "$(cat $OUT/bad.stderr)"
	fi
}
one_line_error "does not exist" no-such-domain -d 1
one_line_error "does not exist" 4242 -d 1
one_line_error "dom0" Domain-0 -d 1
one_line_error "dom0" 0 -d 1
one_line_error "invalid frequency" -f 0 Domain-0
one_line_error "invalid duration" -d -3 Domain-0

[ $TAP_FAILED -eq 0 ] || diagnose
tap_plan_end
