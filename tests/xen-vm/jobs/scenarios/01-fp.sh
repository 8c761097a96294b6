# fp: PV and PVH guests with frame pointers: the known split, the
# hypercall paths, relaxed consistency. Leaves FP_PV_STEM, the stem of
# its PV profile's files, for stored.
section "PV and PVH guests with frame pointers"
# --- PV and PVH guests with frame pointers, symbols from the domain config.
# Each profile of the known split takes 149 Hz for 13 s (docs/TESTING.md).
for t in pv pvh; do
	g=tg-$t-fp
	if ! start_guest $g; then
		not_ok "$t: guest starts" "$(cat /tmp/create-$g.log)"
		diagnose
		continue
	fi
	glog=/var/log/xen/console/guest-$g.log
	n0=$(reports $glog work)
	if [ $t = pv ]; then
		# Default output location and unwinder (auto: CFI, the image has it).
		$PROF $g -f 149 -d 13 $KEEP_RATE > $OUT/$g.stdout 2> $OUT/$g.stderr
		rc=$?
		folded=$(ls -t /var/log/xen/profile/$g-*.folded 2>/dev/null | head -n 1)
	else
		$PROF $g -f 149 -d 13 $KEEP_RATE -u fp -o $OUT/$g > $OUT/$g.stdout 2> $OUT/$g.stderr
		rc=$?
		folded=$OUT/$g.folded
	fi
	next_report $glog work
	check "$t: xl-profile exits 0" [ $rc -eq 0 ]
	[ $rc -eq 0 ] || tap "# $(cat $OUT/$g.stderr)"
	check_split "$t" "$folded" $glog $n0
	stem=${folded%.folded}
	check "$t: flame graph written" grep -q '<g class="f"' "$stem.svg"
	check "$t: JSON summary names the domain and its symbols" \
		grep -q "\"file\": \"/guests/tg-fp.elf\"" "$stem.json"
	check "$t: domain type from its configuration is $t" \
		grep -q "\"type\": \"$t\"" "$stem.json"
	check "$t: samples took the direct domctl path (buffers reused)" \
		grep -q '"hypercalls": "direct domctl"' "$stem.json"
	for ext in folded svg txt json pb.gz; do send_file "$stem.$ext" "$g.$ext"; done
	[ $t = pv ] && FP_PV_STEM=$stem
	# The portable path: libxenctrl's own calls give the same stacks.
	$PROF $g -f 97 -d 5 $KEEP_RATE --hypercalls libxenctrl -o $OUT/$g-xc > /dev/null 2> $OUT/$g-xc.stderr
	check "$t --hypercalls libxenctrl: exits 0, JSON says libxenctrl" \
		grep -q '"hypercalls": "libxenctrl"' $OUT/$g-xc.json
	c=$(stat $OUT/$g-xc.folded complete)
	check "$t --hypercalls libxenctrl: ${c:-0}% whole chains" within "${c:-0}" 100 1
	if [ $t = pv ]; then
		# A hypervisor speaking another domctl version (made so by the
		# test hook): direct is refused in one line, auto falls back.
		UNIPROF_TEST_DOMCTL_VERSION=0x1 $PROF $g -d 2 --hypercalls direct -o $OUT/$g-v1 \
			> /dev/null 2> $OUT/$g-v1.stderr
		rc=$?
		check "domctl version mismatch: --hypercalls direct exits $rc with one line naming it" \
			sh -c "[ $rc -eq 1 ] && [ \$(wc -l < $OUT/$g-v1.stderr) -eq 1 ] && grep -q 'refuses domctl interface version 0x1' $OUT/$g-v1.stderr"
		tap "# $(cat $OUT/$g-v1.stderr)"
		UNIPROF_TEST_DOMCTL_VERSION=0x1 $PROF $g -d 2 -o $OUT/$g-v2 > /dev/null 2>&1
		check "domctl version mismatch: auto falls back to libxenctrl and says why" \
			grep -q '"hypercalls": "libxenctrl (direct path unavailable: the running hypervisor refuses' $OUT/$g-v2.json
	fi
	# Relaxed consistency: no domain pause, the same split, whole stacks.
	paused_folded=$folded     # check_split sets $folded
	n0=$(reports $glog work)
	u=auto
	[ $t = pvh ] && u=fp
	$PROF $g -f 149 -d 13 $KEEP_RATE -u $u --consistency relaxed -o $OUT/$g-rx > $OUT/$g-rx.stdout 2> $OUT/$g-rx.stderr
	rc=$?
	next_report $glog work
	check "$t relaxed: xl-profile exits 0" [ $rc -eq 0 ]
	check_split "$t relaxed" $OUT/$g-rx.folded $glog $n0
	check_relaxed "$t relaxed" $OUT/$g-rx "$paused_folded"
	check "$t: domain running after the profiler exits" not_paused $g
	check "$t: guest keeps working after the profiler exits" guest_progresses $g
	grep -q "pause per sample" $OUT/$g.stdout &&
		tap "# $t $(grep 'pause per sample' $OUT/$g.stdout)"
	stop_guest $g
done
