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

# Shares are judged by their sampling error: within MARGIN points (what
# the workload itself does not pin down: now_ns, the console, a few samples
# on call instructions) plus 3.5 standard errors of a share of N distinct
# samples. Late periods counted as their neighbouring samples repeat them
# and add no information: N counts distinct samples only.
SHARE_MARGIN=1.5
# busybox's awk has no math library: a square root by Newton's method.
SQRT='function sq(x,  r, i) { if (x <= 0) return 0; r = x + 1; for (i = 0; i < 60; i++) r = (r + x / r) / 2; return r }'
# tolerance WANT N: the allowed deviation, in points
tolerance() {
	awk -v p="$1" -v n="$2" -v m=$SHARE_MARGIN "$SQRT"'
		BEGIN { if (n < 1) n = 1; printf "%.1f", m + 3.5 * 100 * sq(p / 100 * (1 - p / 100) / n) }'
}
# distinct FOLDED JSON: distinct samples behind a one-vCPU folded file (its
# stacks scaled by the share that are distinct samples).
distinct() {
	awk -v k="$(stat "$1" samples)" -v s="$(json_num "$2" samples)" \
		-v t="$(json_num "$2" stacks)" \
		'BEGIN { if (t > 0) printf "%d", k * s / t; else print 0 }'
}
# json_num FILE KEY: the first number for KEY in a JSON summary.
json_num() {
	sed -n "s/.*\"$2\": \([0-9.]*\).*/\1/p" "$1" | head -n 1
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
for t in pv:nofp pv:fp pvh:nofp pvh:fp; do
	ty=${t%:*} b=${t#*:}
	g=tg-io-$ty-$b
	label="blocking $ty $b"
	# Requests of ~3 ms (unit=20000), six to a burst: functions long
	# against the emulated machine's timing noise.
	if ! create_guest $g tg-$ty-$b 'extra="io=1 report_ms=500 unit=20000 burst=6"'; then
		not_ok "$label: guest starts"
		continue
	fi
	sleep 2
	log=/var/log/xen/console/guest-$g.log
	n0=$(grep -c "tg: io " $log)
	$PROF $g -f 499 -d 30 -o $OUT/$g > $OUT/$g.stdout 2> $OUT/$g.stderr
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
	# Distinct samples in the two request leaves: their count scaled by
	# the share of the profile's stacks that are distinct samples.
	n=$(awk -v r="$(stat $f requests)" -v s="$(json_num $OUT/$g.json samples)" \
		-v k="$(json_num $OUT/$g.json stacks)" 'BEGIN { if (k > 0) printf "%d", r * s / k; else print 0 }')
	se=$(awk -v n="${n:-0}" "$SQRT"' BEGIN { if (n > 0) printf "%.2f", 100 * sq(0.24 / n); else print 99 }')
	check "$label: $n distinct on-CPU samples in the requests: one standard error of the split ${se} points (need <= 3/3.5)" \
		awk -v e="$se" 'BEGIN { exit !(e <= 3 / 3.5) }'
	for pair in tg_req_parse:60 tg_req_crc:40; do
		fn=${pair%:*} want=${pair#*:}
		got=$(stat $f request $fn)
		check "$label: $fn ${got:-?}% of the request work on-CPU (expected $want +-3)" \
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

tap_plan_end
