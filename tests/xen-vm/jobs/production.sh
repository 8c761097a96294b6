#!/bin/sh
# The production-shaped host (xen-production.test): dom0 with two pinned
# vCPUs, its backends (xenstored, xenconsoled, the guests' event channels)
# on its first, as production dom0s keep them; the dom0-driven test guest
# beside them on pCPU 0. xl profile must place its sampler by itself on
# dom0's second vCPU, which serves no backend and runs on a pCPU the guest
# cannot use, and then see the guest's CPU time: its on-CPU share within
# sampling error plus 5 points of the guest's own running share, its
# waiting share of the guest's own runnable share. Why this shape and not
# 3 pCPUs with the guest alone on one: docs/IO-GUESTS.md (the emulator's
# third CPU takes turns with the other two on this 2-core machine).
. /uniprof/jobs/lib.sh
PROF="timeout -s KILL 150 xl profile"
# The shares here rest on the rate asked: no stall budget (as
# scenarios/helpers.sh says why).
KEEP_RATE="--max-stall 100"
OUT=/tmp/out
mkdir -p $OUT
tap "# dom0: $(nproc) vCPUs; $(xl info | sed -n 's/^nr_cpus *: //p') pCPUs; $(xl vcpu-list 0 | awk 'NR > 1 { printf "vCPU %s on pCPU %s (hard affinity %s); ", $3, $4, $7 }')"

# dom0's backends on its CPU 0: new interrupts there, the existing
# event channels' and the user-space backends moved.
echo 1 > /proc/irq/default_smp_affinity
pin_backends() {
	for i in $(grep -e evtchn -e blkif -e vif /proc/interrupts | cut -d: -f1); do
		echo 0 > /proc/irq/$i/smp_affinity_list
	done 2>/dev/null
	for p in $(pidof oxenstored xenstored xenconsoled); do
		taskset -a -p -c 0 $p >/dev/null
	done
}
pin_backends

# The guest's own figures between its reports N0 + 1 and N1, over the time
# we did not hold it paused (PAUSED_MS of PROFILED_MS): its on-CPU share
# (running, less the running it did inside its waits, where a sample finds
# it at the block point) and its waiting share (runnable, plus its being
# resumed from a wait: not blocked, at the block point).
guest_shares() {
	awk -v from=$(($2 + 1)) -v to=$3 -v p="${4:-0}" -v pt="${5:-0}" '/tg: io / {
		n++
		if (n > to) exit
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		if (n == from) { r0 = v["run_ms"]; b0 = v["busy_ms"]; k0 = v["blockrun_ms"]; s0 = v["resume_ms"]; t0 = v["t_ms"] }
		r = v["run_ms"]; b = v["busy_ms"]; k = v["blockrun_ms"]; s = v["resume_ms"]; t = v["t_ms"]
	}
	END { dt = t - t0; if (pt > 0) dt -= p * dt / pt
	      if (n >= from && dt > 0 && s != "")
		printf "%.2f %.2f\n", 100 * (r - r0 - (k - k0)) / dt, 100 * (b - b0 - (r - r0) + (s - s0)) / dt }' $1
}

section "The production-shaped host"
g=tg-prod
if create_guest $g tg-pv-nofp 'cpus="0"' 'extra="io=2 report_ms=500 unit=200"'; then
	sleep 2
	pin_backends
	log=/var/log/xen/console/guest-$g.log
	for mode in paused relaxed; do
		label="production $mode"
		s=$OUT/$g-$mode
		n0=$(reports $log io)
		$PROF $g -f 97 -d 13 $KEEP_RATE -v --consistency $mode -o $s > $s.stdout 2> $s.stderr
		rc=$?
		n1=$(reports $log io)
		sleep 1
		check "$label: xl-profile exits 0" [ $rc -eq 0 ]
		check "$label: the sampler placed itself on dom0's CPU 1, free of backends and of the guest's pCPU ($(grep -o 'sampler on dom0 CPU [0-9]*[^,]*' $s.stderr | head -n 1))" \
			sh -c "grep -q 'sampler on dom0 CPU 1: ' $s.stderr && grep -q '\"cpu\": 1,' $s.json && grep -q '\"fit\": true' $s.json && ! grep -q 'note:' $s.stderr"
		shares=$(guest_shares $log $n0 $n1 $(json_num $s.json paused_ms) \
			$(awk -v e="$(json_num $s.json duration_s)" 'BEGIN { printf "%d", e * 1000 }'))
		oncpu=${shares% *} waiting=${shares#* }
		n=$(json_num $s.json samples)
		busy=$(json_num $s.json busy_pct) seen_wait=$(json_num $s.json waiting_pct)
		if [ -z "$shares" ]; then
			not_ok "$label: the guest reported progress while profiled"
		else
			tol=$(awk -v t="$(tolerance "$oncpu" "$n")" 'BEGIN { printf "%.1f", t + 5 }')
			check "$label: on-CPU ${busy:-?}% of $n samples, the guest's own ${oncpu}% (+-$tol: sampling error and 5 points)" \
				within "${busy:-}" "$oncpu" "$tol"
			tol=$(awk -v t="$(tolerance "$waiting" "$n")" 'BEGIN { printf "%.1f", t + 5 }')
			# Relaxed dates a vCPU's state from its first read,
			# before the register copy: its waiting share is low
			# here, and the summary says so (docs/IO-GUESTS.md).
			if [ $mode = paused ]; then
				check "$label: waiting to run ${seen_wait:-?}% of the samples, the guest's own runnable share ${waiting}% (+-$tol)" \
					within "${seen_wait:-}" "$waiting" "$tol"
			else
				check "$label: waiting ${seen_wait:-?}% of the samples, at most the guest's own ${waiting}% (+$tol), and the summary says relaxed's share is a lower bound" \
					sh -c "awk -v a='${seen_wait:-999}' -v b='$waiting' -v t='$tol' 'BEGIN { exit !(a <= b + t) }' && grep -q 'waiting share is a lower bound' $s.txt"
			fi
		fi
		check "$label: nothing [unseen] ($(json_num $s.json unseen) samples' worth), the busy check consistent" \
			sh -c "[ '$(json_num $s.json unseen)' = 0 ] && grep -q '\"busy_check\": \"consistent\"' $s.json"
		# Waiting is explained by what Xen's pCPU accounting allows: the
		# backends' vCPU shares the guest's pCPU here.
		if grep -q 'waiting to run' $s.stderr; then
			check "$label: the waiting is put down to other vCPUs on its pCPU, as Xen's accounting shows" \
				grep -q 'other vCPUs held the pCPUs it may use up to' $s.stderr
		fi
		tap "# $label: $(grep '^vcpu0' $s.txt); $(grep -e 'per sample' $s.txt | head -n 1); $(grep 'sampler woke' $s.txt); the guest: $(tail -n 1 $log)"
	done
	# Told where to run, on the backends' CPU: said before the first
	# sample, with the remedy.
	s=$OUT/$g-cpu0
	taskset -c 0 $PROF $g -f 97 -d 2 -o $s > $s.stdout 2> $s.stderr
	rc=$?
	check "taskset -c 0: no free dom0 vCPU, said before the first sample with the remedy" \
		sh -c "[ $rc -eq 0 ] && grep -q 'note: no dom0 vCPU is free for the sampler: CPU 0 ' $s.stderr && grep -q 'dom0_vcpus_pin' $s.stderr &&
			[ \$(grep -n 'note: no dom0 vCPU' $s.stderr | cut -d: -f1) -lt \$(grep -n ': sampling ' $s.stderr | cut -d: -f1) ]"
	$PROF $g --sampler-cpu 7 -d 1 -o $OUT/bad > /dev/null 2> $OUT/bad.stderr
	rc=$?
	check "--sampler-cpu 7: one line naming dom0's CPUs, exit 2 ($(cat $OUT/bad.stderr))" \
		sh -c "[ $rc -eq 2 ] && [ \$(wc -l < $OUT/bad.stderr) -eq 1 ] && grep -q 'dom0 has CPUs 0 to 1' $OUT/bad.stderr"
	check "production: domain running afterwards" not_paused $g
	send_file $OUT/$g-paused.json production-paused.json
	stop_guest $g
else
	not_ok "production: guest starts"
	diagnose
fi
[ $TAP_FAILED -eq 0 ] || diagnose
tap_plan_end
