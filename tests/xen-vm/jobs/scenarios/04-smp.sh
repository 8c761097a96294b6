# smp: two vCPUs, each on its own chain, paused and relaxed.
section "Two vCPUs, each on its own chain"
# --- Two vCPUs, each on its own chain: vCPU 0 the known 50/35/15 split,
# vCPU 1 its tg_ap_* chain at 80/20. Every sample takes one stack per vCPU.
for t in pv:fp pvh:nofp; do
	ty=${t%:*} b=${t#*:}
	g=tg-smp-$ty
	# Two vCPUs on two CPUs: one shares dom0's, which is harmless for a
	# guest that never blocks (and two on one CPU would take turns in
	# scheduler time slices, sampled mostly while waiting).
	if ! create_guest $g tg-$ty-$b 'vcpus=2' 'cpus="all"'; then
		not_ok "2 vCPUs $ty: guest starts"
		continue
	fi
	check "2 vCPUs $ty: the guest brought up vCPU 1" \
		grep -q "tg: start.*vcpus=2" /var/log/xen/console/guest-$g.log
	glog=/var/log/xen/console/guest-$g.log
	for mode in paused relaxed; do
		lb="2 vCPUs $ty"
		[ $mode = relaxed ] && lb="2 vCPUs $ty relaxed"
		n0=$(reports $glog work)
		$PROF $g -f 97 -d 20 $KEEP_RATE --consistency $mode -o $OUT/$g-$mode > $OUT/$g-$mode.stdout 2> $OUT/$g-$mode.stderr
		rc=$?
		next_report $glog work
		check "$lb: xl-profile exits 0" [ $rc -eq 0 ]
		check_two_vcpus "$lb" $OUT/$g-$mode $glog $n0
		n=$(grep -c '"vcpu": [01]' $OUT/$g-$mode.json)
		check "$lb: JSON counts both vCPUs" [ "$n" -eq 2 ]
		tap "# $lb: $(grep -e 'vCPU stacks' -e 'per sample' $OUT/$g-$mode.txt | tr '\n' ' ')"
	done
	for v in 0 1; do
		sp=$(json_vcpu_num $OUT/$g-paused.json $v stall_pct)
		sr=$(json_vcpu_num $OUT/$g-relaxed.json $v stall_pct)
		check "$lb: vCPU $v stood still ${sr:-?}% of the run relaxed, ${sp:-?}% paused: less" \
			awk -v a="${sr:-100}" -v b="${sp:-0}" 'BEGIN { exit !(a < b) }'
	done
	check "2 vCPUs $ty: domain running afterwards" not_paused $g
	stop_guest $g
done
