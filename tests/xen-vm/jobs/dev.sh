#!/bin/sh
# The real-Xen scenarios, run in dom0. Each result is a TAP line on the
# console; the host turns them into `make check` results.
. /uniprof/jobs/lib.sh
# Through our xl front, as an admin types it; a hang fails the check
# instead of stalling the suite.
PROF="timeout -s KILL 150 xl profile"
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

# --- Real unikernels block: a workload like an I/O-bound unikernel's, bursts
# of requests (tg_req_parse 60 / tg_req_crc 40 of the request work), then
# SCHEDOP_block through the hypercall page until a timer, ~30 % busy. Every
# stack, idle ones too, must be whole from the entry, idle ones through the
# hypercall stub to the function that blocked; the busy share must match
# the guest's own figure (Xen's run-state accounting of its vCPU, read by the
# guest, over the same window); the request split within 3 points (the
# count makes 3 points at least 3 standard errors).
# guest_busy LOG N: busy % between the guest's N-th io report and its last.
guest_busy() {
	awk -v from="$2" '/tg: io / {
		n++
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		if (n == from) { b0 = v["busy_ms"]; i0 = v["idle_ms"] }
		b = v["busy_ms"]; id = v["idle_ms"]
	}
	END { db = b - b0; di = id - i0; if (db + di > 0) printf "%.2f\n", 100 * db / (db + di) }' "$1"
}
# json_num FILE KEY: the first number for KEY in a JSON summary.
json_num() {
	sed -n "s/.*\"$2\": \([0-9.]*\).*/\1/p" "$1" | head -n 1
}
for t in pv:nofp pvh:fp; do
	ty=${t%:*} b=${t#*:}
	g=tg-io-$ty-$b
	label="blocking $ty $b"
	if ! create_guest $g tg-$ty-$b 'extra="io=1 report_ms=500"'; then
		not_ok "$label: guest starts"
		continue
	fi
	sleep 2
	log=/var/log/xen/console/guest-$g.log
	n0=$(grep -c "tg: io " $log)
	$PROF $g -f 499 -d 20 -o $OUT/$g > $OUT/$g.stdout 2> $OUT/$g.stderr
	rc=$?
	sleep 1.5
	check "$label: xl-profile exits 0" [ $rc -eq 0 ]
	[ $rc -eq 0 ] || tap "# $(cat $OUT/$g.stderr)"
	f=$OUT/$g.folded
	c=$(stat $f complete)
	check "$label: ${c:-0}% of $(stat $f samples) stacks whole from tg_entry64, idle ones too (need >= 99.5)" \
		awk -v c="${c:-0}" 'BEGIN { exit !(c >= 99.5) }'
	ic=$(stat $f idle_caller_ok)
	check "$label: ${ic:-0}% of idle stacks end in hypercall_page [sched_op] called from tg_block" \
		awk -v c="${ic:-0}" 'BEGIN { exit !(c >= 99.5) }'
	mine=$(json_num $OUT/$g.json busy_pct)
	theirs=$(guest_busy $log $((n0 + 1)))
	check "$label: busy ${mine:-?}% per the profile, ${theirs:-?}% per the guest (within 3 points)" \
		within "${mine:-}" "${theirs:--100}" 3
	n=$(stat $f requests)
	for pair in tg_req_parse:60 tg_req_crc:40; do
		fn=${pair%:*} want=${pair#*:}
		got=$(stat $f request $fn)
		se=$(awk -v p="$want" -v n="${n:-0}" 'BEGIN { if (n > 0) printf "%.2f", 100 * sqrt(p / 100 * (1 - p / 100) / n); else print 99 }')
		check "$label: $fn ${got:-?}% of the request work on-CPU (expected $want +-3; $n samples, one standard error $se)" \
			within "${got:-}" $want 3
	done
	check "$label: the flame graph shows on-CPU time only by default" \
		sh -c "! grep -q '\[idle\]' $OUT/$g.svg && grep -q 'tg_req_parse' $OUT/$g.svg"
	check "$label: the folded file keeps the idle stacks under [idle]" grep -q '^\[idle\];tg_entry64;' $f
	check "$label: JSON gives busy and blocked samples per vCPU" \
		grep -q '"blocked": [1-9]' $OUT/$g.json
	tap "# $label: $(grep '^vcpu0' $OUT/$g.txt); $(grep 'pause per sample' $OUT/$g.txt); $(grep 'missed deadlines' $OUT/$g.txt)"
	if [ $t = pv:nofp ]; then
		# What asking Xen for each vCPU's state adds to the paused window,
		# in this boot, on this guest: alternate runs with and without.
		for i in 1 2; do
			$PROF $g -f 97 -d 8 --no-vcpu-state -o $OUT/$g-nostate$i > /dev/null 2>&1
			$PROF $g -f 97 -d 8 -o $OUT/$g-state$i > /dev/null 2>&1
			tap "# vcpu state cost $i: p50 without $(json_num $OUT/$g-nostate$i.json p50) us, with $(json_num $OUT/$g-state$i.json p50) us"
		done
		check "--no-vcpu-state: no busy share claimed" grep -q '"busy_pct": null' $OUT/$g-nostate1.json
		$PROF $g --once > $OUT/$g.once 2>&1
		check "blocking --once: says the vCPU is blocked, stack complete" \
			grep -q "vcpu0 (blocked, complete)" $OUT/$g.once
		send_file $f $g.folded
		send_file $OUT/$g.svg $g.svg
	fi
	check "$label: domain running afterwards" not_paused $g
	stop_guest $g
done

for g in tg-pvh-nofp tg-pv-fp; do
	start_guest $g || continue
	for i in 1 2; do
		$PROF $g -f 97 -d 20 -o $OUT/$g-$i > /dev/null 2>&1
		tap "# spin $g run $i: $(stat $OUT/$g-$i.folded leaf tg_chain_10 | tr '\n' ' ') chain10=$(stat $OUT/$g-$i.folded leaf tg_chain_10) hot35=$(stat $OUT/$g-$i.folded leaf tg_hot_35) hot15=$(stat $OUT/$g-$i.folded leaf tg_hot_15) samples=$(stat $OUT/$g-$i.folded samples) $(grep 'missed deadlines' $OUT/$g-$i.txt) $(grep 'pause per' $OUT/$g-$i.txt)"
	done
	stop_guest $g
done
[ $TAP_FAILED -eq 0 ] || diagnose
tap_plan_end
