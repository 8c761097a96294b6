# time: when each sample was taken; the heat map and report --from/--to.
section "Time"
# --- Time: the test unikernel switches its split 8 s after it starts
# (switch_s=8: tg_chain_10 50 -> 15 units, tg_hot_15 15 -> 50). Its
# profile keeps each sample's time, so: report --from/--to renders each
# side of the switch with that side's split, within sampling error of the
# guest's own clock; each second's share of tg_chain_10 (report, one
# range a second) is on the side of the switch the second is; and the
# heat map (-F heatmap) holds the same figures, which the host reads in
# headless Chromium (tests/xl-plugin/heatmap-chromium.test). When the
# switch happened, in the profile's time: dom0 watches xl profile's
# "sampling" line and the guest's "tg: switch" line (50 ms polls, 10 ms
# clock; the half second left out on each side covers them).

# phase_split LOG N0: "CHAIN1 CHAIN2": tg_chain_10's % of the spin time by
# the guest's clock, from its N0-th work report to its switch, and from
# the switch to its last report.
phase_split() {
	awk -v n0="$2" '
	/tg: (work|switch) / {
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		c = v["chain_t"]; t = v["chain_t"] + v["hot35_t"] + v["hot15_t"]
		if (/tg: switch /) { sc = c; st = t; sw = 1; next }
		n++
		if (n == n0) { c0 = c; t0 = t }
		if (sw) { c1 = c; t1 = t }
	}
	END { if (sw && t1 > st && st > t0)
		printf "%.2f %.2f\n", 100 * (sc - c0) / (st - t0), 100 * (c1 - sc) / (t1 - st) }' "$1"
}
# heat_samples PAGE: the samples in a heat map page's data, and the time
# of its last
heat_samples() {
	awk '/^"samples": \[/ { on = 1; next }
		on { end = /\]\}/; gsub(/[][}]/, " ")
			for (i = 1; i <= NF; i++) { k = split($i, x, ","); m = 0
				for (j = 1; j <= k; j++) if (x[j] != "") y[++m] = x[j]
				if (m == 3) { sum += y[3]; t = y[1] } }
			if (end) on = 0 }
		END { printf "%d@%d\n", sum, t }' "$1"
}
# leaf_count FOLDED NAME: samples whose leaf is NAME, and all samples
leaf_count() {
	awk -v n="$2" '{ c = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";")
		all += c; if (f[k] == n) hit += c } END { printf "%d %d\n", hit, all }' "$1"
}

g=tg-time
# A split far from its switched self (tg_chain_10 80 % of the work, then
# 10 %): each second's side is told apart however few samples a loaded
# host leaves it (below).
if create_guest $g tg-pv-fp 'extra="switch_s=8 report_ms=500 chain=80 hot35=10 hot15=10 then_chain=10 then_hot35=10 then_hot15=80"'; then
	log=/var/log/xen/console/guest-$g.log
	n0=$(reports $log work)
	rm -f $OUT/time.*
	$PROF $g -f 97 -d 14 $KEEP_RATE -F folded,json,pprof,heatmap -o $OUT/time > $OUT/time.stdout 2> $OUT/time.stderr &
	pid=$!
	# dom0's busybox date has no %N: both instants by /proc/uptime
	# (10 ms), the profile's as it said it began sampling.
	up0= up1=
	for i in $(seq 1 600); do
		[ -z "$up0" ] && grep -q "sampling" $OUT/time.stderr && up0=$(cut -d' ' -f1 /proc/uptime)
		[ -z "$up1" ] && grep -q "tg: switch" $log && up1=$(cut -d' ' -f1 /proc/uptime)
		[ -n "$up0" ] && [ -n "$up1" ] && break
		sleep 0.05
	done
	wait $pid
	rc=$?
	next_report $log work
	check "time: xl-profile exits 0 and writes the heat map" \
		sh -c "[ $rc -eq 0 ] && grep -q '\"end_ms\"' $OUT/time.heatmap.html"
	sw=$(awk -v a="${up1:-0}" -v b="${up0:-0}" 'BEGIN { if (a > 0 && b > 0) printf "%.3f", a - b }')
	split=$(phase_split $log $n0)
	want1=${split% *} want2=${split#* }
	check "time: the guest switched its split ${sw:-?} s into the profile (chain ${want1:-?}% then ${want2:-?}% of its time)" \
		awk -v s="${sw:-0}" 'BEGIN { exit !(s > 2 && s < 12) }'
	end=$(awk -v s="${sw:-0}" 'BEGIN { printf "%.3f", s - 0.5 }')
	from=$(awk -v s="${sw:-0}" 'BEGIN { printf "%.3f", s + 0.5 }')
	xl profile report --from 0 --to $end -F folded $OUT/time.pb.gz > $OUT/time-a.folded 2> $OUT/time.err
	xl profile report --from $from -F folded $OUT/time.pb.gz > $OUT/time-b.folded 2>> $OUT/time.err
	for side in a b; do
		f=$OUT/time-$side.folded
		want=$want1 range="0-$end s"
		[ $side = b ] && want=$want2 range="$from s-end"
		got=$(stat $f leaf tg_chain_10) n=$(stat $f samples)
		tol=$(tolerance "${want:-50}" "$n")
		check "time: report --from/--to $range: tg_chain_10 ${got:-?}% of $n samples, ${want:-?}% by the guest's clock (+-${tol:-?})" \
			within "${got:-}" "${want:--100}" "$tol"
	done
	[ -s $OUT/time.err ] && tap "# $(head -n 3 $OUT/time.err)"
	# Each second's share, on its side of the switch: nearer its side's
	# split than the other's (the splits are ~70 points apart: 35 each
	# way is 3.1 standard errors of a second's share at its fewest judged,
	# 20 samples, 6 at 97); the second the switch fell in is mixed, a
	# second with fewer samples not judged. (At 35 points apart a loaded
	# host's ~50 samples a second were 2.5 standard errors: 2 seconds of
	# 14 fell on the wrong side in one run.)
	rm -f $OUT/time.seconds
	last=$(awk -v s="$(json_num $OUT/time.json duration_s)" 'BEGIN { printf "%d", s }')
	bad= judged=0
	for s in $(seq 0 $((last - 1))); do
		xl profile report --from $s --to $((s + 1)) -F folded $OUT/time.pb.gz > $OUT/time-s.folded 2>> $OUT/time.err
		set -- $(leaf_count $OUT/time-s.folded tg_chain_10)
		echo "$s $2 $1" >> $OUT/time.seconds
		side=$(awk -v s=$s -v sw="${sw:-0}" -v h="$1" -v n="$2" -v a="${want1:-0}" -v b="${want2:-0}" '
			BEGIN { if (n < 20) { print "few"; exit }
				p = 100 * h / n; mid = (a + b) / 2
				if (s + 1 <= sw) print (p > mid ? "ok" : "bad")
				else if (s >= sw) print (p < mid ? "ok" : "bad")
				else print "mixed" }')
		[ "$side" = bad ] && bad="$bad $s"
		[ "$side" = ok ] && judged=$((judged + 1))
	done
	check "time: each second's share of tg_chain_10 is on its side of the switch ($judged of $last seconds judged; off:${bad:- none})" \
		sh -c "[ -z '$bad' ] && [ $judged -ge $((last - 2)) ]"
	tap "# time: seconds (second samples tg_chain_10): $(tr '\n' ',' < $OUT/time.seconds)"
	xl profile report -F heatmap $OUT/time.pb.gz > $OUT/time-r.heatmap.html 2>> $OUT/time.err
	live=$(heat_samples $OUT/time.heatmap.html) stored=$(heat_samples $OUT/time-r.heatmap.html)
	check "time: report -F heatmap draws the stored profile's times, as the live run's (samples@last ms: ${stored:-?} and ${live:-?})" \
		sh -c "[ '${live%@*}' -gt 0 ] && [ '$live' = '$stored' ]"
	xl profile report --from 1 --to 2 $OUT/time.folded > /dev/null 2> $OUT/time-nt.err
	rc=$?
	check "time: --from on folded stacks (no times): one line saying so, exit 1 ($(cat $OUT/time-nt.err))" \
		sh -c "[ $rc -eq 1 ] && [ \$(wc -l < $OUT/time-nt.err) -eq 1 ] && grep -q 'no sample times' $OUT/time-nt.err"
	xl profile report --from 99 $OUT/time.pb.gz > /dev/null 2> $OUT/time-past.err
	rc=$?
	check "time: --from past the last sample: one line, exit 2 ($(cat $OUT/time-past.err))" \
		sh -c "[ $rc -eq 2 ] && [ \$(wc -l < $OUT/time-past.err) -eq 1 ]"
	{
		echo "switch_s $sw"
		echo "range_a 0 $end $(leaf_count $OUT/time-a.folded tg_chain_10)"
		echo "range_b $from $(awk -v s="$(json_num $OUT/time.json duration_s)" 'BEGIN { printf "%.3f", s + 1 }') $(leaf_count $OUT/time-b.folded tg_chain_10)"
		sed 's/^/second /' $OUT/time.seconds
	} > $OUT/time.expect
	send_file $OUT/time.heatmap.html time.heatmap.html
	send_file $OUT/time.expect time.expect
	send_file $OUT/time.pb.gz time.pb.gz      # replayed by top-tmux.test
	check "time: domain running afterwards" not_paused $g
	stop_guest $g
else
	not_ok "time: guest starts"
fi
