# top: xl profile top's batch form on a live domain.
section "xl profile top"
# --- xl profile top -b: one screen a second, as plain text. Each
# interval's split of the test unikernel (tg_chain_10's self share of its
# ~97 samples) is within that interval's sampling error of the guest's
# own split; Ctrl-C ends it with the domain running; a domain destroyed
# mid-run ends it cleanly (exit 0, one line saying so).
g=tg-top
if create_guest $g tg-pv-fp; then
	log=/var/log/xen/console/guest-$g.log
	n0=$(reports $log work)
	timeout -s KILL 60 xl profile top -b -n 6 $KEEP_RATE $g > $OUT/top.out 2> $OUT/top.err
	rc=$?
	next_report $log work
	want=$(guest_split $log work $n0 chain_t chain_t hot35_t hot15_t)
	frames=$(grep -c '^uniprof top: ' $OUT/top.out)
	check "top -b -n 6: exits 0 after 6 screens ($frames)" sh -c "[ $rc -eq 0 ] && [ $frames -eq 6 ]"
	# Each screen: "interval S s: N samples", then its rows
	# "self% total% samples self% total% function".
	awk '/^interval / { n = $4 + 0 } $NF == "tg_chain_10" && NF == 6 { print n, $1 }' $OUT/top.out > $OUT/top.split
	i=0 bad=
	while read -r n got; do
		i=$((i + 1))
		tol=$(tolerance "${want:-50}" "$n")
		within "$got" "${want:--100}" "$tol" || bad="$bad #$i:$got%/$n"
	done < $OUT/top.split
	check "top -b: each interval's tg_chain_10 share within its sampling error of the guest's ${want:-?}% ($(tr '\n' ' ' < $OUT/top.split| sed 's/ $//'); off:${bad:- none})" \
		sh -c "[ -z '$bad' ] && [ $i -ge 5 ]"
	check "top -b: the sampler's own cost on each screen" sh -c "[ \$(grep -c '^sampler: pause p50' $OUT/top.out) -eq 6 ]"
	[ -s $OUT/top.err ] && tap "# $(head -n 3 $OUT/top.err)"
	tap "# top: $(sed -n '1,12p' $OUT/top.out | tr '\n' '|')"
	# xl-profile itself, not the xl function: the signal must reach it.
	xl-profile top -b $g > $OUT/top-int.out 2>&1 &
	pid=$!
	sleep 3
	kill -INT $pid
	wait $pid
	rc=$?
	check "top -b: Ctrl-C ends it (exit $rc)" \
		sh -c "[ $rc -eq 0 ] && grep -q '^uniprof top: ' $OUT/top-int.out"
	check "top -b: the domain running after Ctrl-C" not_paused $g
	xl profile top -b $g > $OUT/top-gone.out 2>&1 &
	pid=$!
	sleep 3
	xl destroy $g
	start=$(date +%s)
	wait $pid
	rc=$?
	took=$(( $(date +%s) - start ))
	check "top -b: the domain destroyed mid-run ends it cleanly (exit $rc, ${took}s later): $(tail -n 1 $OUT/top-gone.out)" \
		sh -c "[ $rc -eq 0 ] && [ $took -lt 10 ] && tail -n 1 $OUT/top-gone.out | grep -q 'domain $g destroyed after'"
	stop_guest $g
else
	not_ok "top: guest starts"
fi
# A guest dom0 drives (as 06-dom0-driven's PVH one): its bursts are too
# short for the samples, so the busy share they show falls far below
# what Xen says it ran; top shows Xen's figure beside it and flags it.
g=tg-top-dd
if create_guest $g tg-pvh-fp 'extra="io=2 report_ms=500 unit=200"'; then
	sleep 2
	timeout -s KILL 60 xl profile top -b -n 5 $KEEP_RATE $g > $OUT/top-dd.out 2> $OUT/top-dd.err
	rc=$?
	flagged=$(grep -c '^! the samples saw it busy far less than Xen says it ran' $OUT/top-dd.out)
	check "top -b, a dom0-driven guest: Xen's run share beside the samples' busy share, the shortfall flagged in $flagged of 5 screens (need 2)" \
		sh -c "[ $rc -eq 0 ] && [ $flagged -ge 2 ] && grep -q 'ran (Xen)' $OUT/top-dd.out"
	tap "# top dom0-driven: $(grep -A 1 '^vCPU ' $OUT/top-dd.out | grep '^0 ' | tr '\n' '|')"
	stop_guest $g
else
	not_ok "top: dom0-driven guest starts"
fi
