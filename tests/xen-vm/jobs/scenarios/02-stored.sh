# stored: xl profile report and diff on stored pprof profiles.
section "Stored profiles"
# --- Stored profiles: the pprof file re-renders what the live run wrote
# (xl profile report, no guest needed), and two runs of the guest with
# different splits compare (xl profile diff). The host reads the pprof
# with go tool pprof (tests/xl-plugin/pprof-go.test).
# The live run is fp's PV one ($FP_PV_STEM); without fp, one made as fp
# makes it.
if ! selected fp && start_guest tg-pv-fp; then
	$PROF tg-pv-fp -f 149 -d 13 $KEEP_RATE > $OUT/stored-pv.stdout 2> $OUT/stored-pv.stderr
	FP_PV_STEM=$(ls -t /var/log/xen/profile/tg-pv-fp-*.folded 2>/dev/null | head -n 1)
	FP_PV_STEM=${FP_PV_STEM%.folded}
	stop_guest tg-pv-fp
fi
if [ -s "${FP_PV_STEM:-}.pb.gz" ]; then
	xl profile report -F folded "$FP_PV_STEM.pb.gz" > $OUT/r.folded 2> $OUT/r.err
	check "report: the stored pprof gives the live run's folded stacks byte for byte" \
		cmp -s $OUT/r.folded "$FP_PV_STEM.folded"
	[ -s $OUT/r.err ] && tap "# $(cat $OUT/r.err)"
	xl profile report -F svg "$FP_PV_STEM.pb.gz" > $OUT/r.svg 2>> $OUT/r.err
	check "report: and the live run's flame graph byte for byte" cmp -s $OUT/r.svg "$FP_PV_STEM.svg"
	xl profile report -q -o $OUT/r "$FP_PV_STEM.pb.gz" 2>> $OUT/r.err
	check "report -o: folded, svg, txt, json and pprof written, the JSON with the build-id" \
		sh -c "[ -s $OUT/r.folded ] && [ -s $OUT/r.svg ] && [ -s $OUT/r.txt ] && [ -s $OUT/r.pb.gz ] &&
			grep -q '\"build_id\": \"[0-9a-f]\{40\}\"' $OUT/r.json"
	xl profile report -F folded $OUT/r.pb.gz > $OUT/r2.folded 2>> $OUT/r.err
	check "report: a pprof written by report reads back the same" cmp -s $OUT/r2.folded "$FP_PV_STEM.folded"
	# Inlined calls and lines come with the file (the image has DWARF).
	xl profile report --no-inline -F folded "$FP_PV_STEM.pb.gz" > $OUT/r-noinl.folded 2>> $OUT/r.err
	sed 's/;[^;]* (inlined)//g' "$FP_PV_STEM.folded" |
		awk '{ s = $0; sub(/ [0-9]+$/, "", s); n[s] += $NF } END { for (s in n) print s, n[s] }' |
		sort > $OUT/r-noinl.want
	check "report --no-inline: the live stacks with their inlined calls folded back" \
		sh -c "grep -q '(inlined)' '$FP_PV_STEM.folded' && sort $OUT/r-noinl.folded | cmp -s - $OUT/r-noinl.want"
	xl profile report --lines -F txt "$FP_PV_STEM.pb.gz" > $OUT/r-lines.txt 2>> $OUT/r.err
	check "report --lines: the top list by source line, without the image" \
		grep -q "tg_chain_10 workload.c:[0-9]" $OUT/r-lines.txt
else
	not_ok "report: the PV run left a pprof profile" "$(ls /var/log/xen/profile/)"
fi
# diff: the guest at its 50/35/15 split, then at 20/30/50, each profiled at
# 199 Hz for 25 s (why that rate and length: docs/TESTING.md).
diff_run() {
	name=$1 extra=$2
	if ! create_guest $name tg-pv-fp "extra=\"report_ms=1000 $extra\""; then
		not_ok "diff: guest $name starts"
		return 1
	fi
	glog=/var/log/xen/console/guest-$name.log
	n0=$(reports $glog work)
	$PROF $name -f 199 -d 25 $KEEP_RATE -q -F pprof,json,folded,txt -o $OUT/$name 2> $OUT/$name.err
	next_report $glog work
	for key in chain_t hot35_t hot15_t; do
		st=$(guest_split_stats $glog work $((n0 + 1)) $key chain_t hot35_t hot15_t)
		eval "${name#tg-}_$key=\${st% *} ${name#tg-}_${key}_se=\${st#* }"
	done
	tap "# diff: $name: $(grep 'missed deadlines' $OUT/$name.txt)"
	stop_guest $name
	[ -s $OUT/$name.pb.gz ]
}
# self_share FOLDED FN: FN's self share of the on-CPU samples, in percent
self_share() {
	awk -v fn="$2" '$1 !~ /^\[idle\]/ { c = $NF; t += c; s = $0; sub(/ [0-9]+$/, "", s)
		if (s ~ ("(^|;)" fn "$")) x += c }
		END { if (t) printf "%.4f\n", 100 * x / t }' "$1"
}
# diff_num FN KEY: KEY of FN's entry in the diff's JSON
diff_num() {
	awk -v fn="$1" -v k="\"$2\":" 'index($0, "\"function\": \"" fn "\"") { f = 1 }
		f && $1 == k { x = $2; sub(/,/, "", x); print x; exit }' $OUT/diff.json
}
if diff_run tg-before "" && diff_run tg-after "chain=20 hot35=30 hot15=50"; then
	xl profile diff -q -o $OUT/diff $OUT/tg-before.pb.gz $OUT/tg-after.pb.gz 2> $OUT/diff.err
	check "diff: svg, txt and json written" sh -c "[ -s $OUT/diff.svg ] && [ -s $OUT/diff.txt ] && [ -s $OUT/diff.json ]"
	[ -s $OUT/diff.err ] && tap "# $(cat $OUT/diff.err)"
	nb=$(distinct $OUT/tg-before.folded $OUT/tg-before.json)
	na=$(distinct $OUT/tg-after.folded $OUT/tg-after.json)
	for pair in tg_chain_10:chain_t tg_hot_35:hot35_t tg_hot_15:hot15_t; do
		fn=${pair%:*} key=${pair#*:}
		# The diff's arithmetic, exactly: each side's share is that
		# profile's own, the change their difference.
		pb=$(self_share $OUT/tg-before.folded $fn)
		pa=$(self_share $OUT/tg-after.folded $fn)
		db=$(diff_num $fn self_before_pct) da=$(diff_num $fn self_after_pct)
		got=$(diff_num $fn delta_points)
		check "diff: $fn ${db:-?}% -> ${da:-?}% (${got:-?} points) are the two profiles' own shares, $pb% -> $pa%" \
			awk -v db="$db" -v da="$da" -v d="$got" -v pb="$pb" -v pa="$pa" 'BEGIN {
				e = 0.006; exit !(db != "" && da != "" && d != "" && pb != "" && pa != "" &&
					db - pb <= e && pb - db <= e && da - pa <= e && pa - da <= e &&
					d - (pa - pb) <= 2 * e && (pa - pb) - d <= 2 * e) }'
		# Against the guest's clock, by the rule for a difference of two
		# shares (docs/TESTING.md).
		eval "b=\$before_$key a=\$after_$key bse=\$before_${key}_se ase=\$after_${key}_se"
		want=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a - b }')
		tol=$(tolerance "$a" "$na" "$ase" "$b" "$nb" "$bse")
		msg="diff: $fn changed ${got:-?} points, the guest's clock says $want (+-$tol: $SHARE_MARGIN points and 3.5 SE; $nb/$na samples, clock's own error $bse/$ase)"
		if within "$got" "$want" "$tol"; then
			ok "$msg"
		else
			not_ok "$msg" "$(head -n 8 $OUT/diff.txt)"
		fi
	done
	check "diff: the flame graph has its legend and coloured frames" \
		sh -c "grep -q 'red grew, blue shrank' $OUT/diff.svg && grep -q 'points)</title>' $OUT/diff.svg"
	send_file $OUT/diff.svg tg-diff.svg
	send_file $OUT/diff.txt tg-diff.txt
else
	not_ok "diff: both runs profiled" "$(cat $OUT/tg-before.err $OUT/tg-after.err 2>/dev/null)"
fi
xl profile report /nonexistent.pb.gz > /dev/null 2> $OUT/bad.err
rc=$?
check "report of a missing file: exit $rc, one line" \
	sh -c "[ $rc -eq 1 ] && [ \$(wc -l < $OUT/bad.err) -eq 1 ] && grep -q 'cannot open profile' $OUT/bad.err"
head -c 200 "${FP_PV_STEM:-/dev/null}.pb.gz" > $OUT/cut.pb.gz 2>/dev/null
xl profile report $OUT/cut.pb.gz > /dev/null 2> $OUT/bad.err
rc=$?
check "report of a truncated pprof: exit $rc, one line" \
	sh -c "[ $rc -eq 1 ] && [ \$(wc -l < $OUT/bad.err) -eq 1 ] && grep -q 'cut short' $OUT/bad.err"
