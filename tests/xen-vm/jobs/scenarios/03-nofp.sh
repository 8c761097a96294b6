# nofp: the builds without frame pointers, every unwinder.
section "Without frame pointers"
# --- Without frame pointers: the CFI table alone (-u cfi) and per frame
# with FP fallback (-u auto), PV and PVH.
for t in pv pvh; do
	g=tg-$t-nofp
	if ! start_guest $g; then
		not_ok "$t no-fp: guest starts"
		continue
	fi
	glog=/var/log/xen/console/guest-$g.log
	for u in cfi auto libunwind; do
		n0=$(reports $glog work)
		$PROF $g -f 149 -d 13 $KEEP_RATE -u $u -o $OUT/$g-$u > $OUT/$g-$u.stdout 2> $OUT/$g-$u.stderr
		rc=$?
		next_report $glog work
		check "$t no-fp -u $u: xl-profile exits 0" [ $rc -eq 0 ]
		[ $rc -eq 0 ] || tap "# $(cat $OUT/$g-$u.stderr)"
		check_split "$t no-fp -u $u" $OUT/$g-$u.folded $glog $n0
		check "$t no-fp -u $u: JSON says which unwinder" \
			grep -q "\"unwinder\": \"$u\"" $OUT/$g-$u.json
		grep -q "unwinder" $OUT/$g-$u.txt && tap "# $t no-fp $u: $(grep '^unwinder' $OUT/$g-$u.txt)"
		grep -q "pause per sample" $OUT/$g-$u.txt && tap "# $t no-fp $u: $(grep 'pause per sample' $OUT/$g-$u.txt)"
	done
	n0=$(reports $glog work)
	$PROF $g -f 149 -d 13 $KEEP_RATE -u cfi --consistency relaxed -o $OUT/$g-rx > $OUT/$g-rx.stdout 2> $OUT/$g-rx.stderr
	rc=$?
	next_report $glog work
	check "$t no-fp relaxed: xl-profile exits 0" [ $rc -eq 0 ]
	check_split "$t no-fp relaxed -u cfi" $OUT/$g-rx.folded $glog $n0
	check_relaxed "$t no-fp relaxed -u cfi" $OUT/$g-rx $OUT/$g-cfi.folded
	send_file $OUT/$g-cfi.folded $g-cfi.folded
	if [ $t = pv ]; then
		# The frame-pointer walk on a build without frame pointers
		# loses frames: -u fp must not pass for whole (it proves the
		# check).
		$PROF $g -f 97 -d 3 -u fp -o $OUT/$g-fp > /dev/null 2>&1
		c=$(stat $OUT/$g-fp.folded complete)
		check "pv no-fp -u fp: chains are broken (${c:-0}% whole), so the check has teeth" \
			awk -v c="${c:-0}" 'BEGIN { exit !(c < 90) }'
	fi
	stop_guest $g
done
