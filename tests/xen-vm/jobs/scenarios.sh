#!/bin/sh
# The real-Xen scenarios, run in dom0. Each result is a TAP line on the
# console; the host turns them into `make check` results.
. /uniprof/jobs/lib.sh
# Through our xl front, as an admin types it; a hang fails the check
# instead of stalling the suite.
PROF="timeout -s KILL 150 xl profile"
OUT=/tmp/out
mkdir -p $OUT
# The test guest's crash on purpose, innermost first (crash_order's words).
CRASH_STACK="hypercall_page [sched_op] tg_panic tg_crash_02 tg_crash_01 tg_workload tg_main tg_entry64"

# Relaxed consistency (no domain pause) against the paused run just before
# it on the same guest: each leaf within 2 points (issue "stall less") plus
# 3.5 standard errors of the difference of two shares, and whole stacks
# (those cut to their IP as the stack moved are not) >= 99.5 %.
# check_relaxed LABEL STEM PAUSED_FOLDED
check_relaxed() {
	label=$1 stem=$2 pf=$3
	check "$label: the JSON says relaxed" grep -q '"consistency": "relaxed"' $stem.json
	nr=$(distinct $stem.folded $stem.json)
	np=$(distinct $pf ${pf%.folded}.json)
	for fn in tg_chain_10 tg_hot_35 tg_hot_15; do
		r=$(stat $stem.folded leaf $fn)
		p=$(stat $pf leaf $fn)
		tol=$(awk -v a="${r:-0}" -v b="${p:-0}" -v n1="$nr" -v n2="$np" "$SQRT"'
			BEGIN { if (n1 < 1) n1 = 1; if (n2 < 1) n2 = 1; a /= 100; b /= 100
				printf "%.1f", 2 + 3.5 * 100 * sq(a * (1 - a) / n1 + b * (1 - b) / n2) }')
		check "$label: $fn ${r:-?}% relaxed, ${p:-?}% paused (+-$tol: 2 points and 3.5 SE)" \
			within "${r:-}" "${p:--100}" "$tol"
	done
	w=$(stat $stem.folded complete)
	d=$(json_num $stem.json dropped)
	check "$label: ${w:-0}% whole stacks, the ${d:-?} cut to their IP counted as not whole (need >= 99.5)" \
		awk -v w="${w:-0}" 'BEGIN { exit !(w >= 99.5) }'
	tap "# $label: $(grep 'vCPU stacks' $stem.txt); $(grep 'per sample' $stem.txt)"
}

section "Post-mortem, started early"
# --- Post-mortem, started early. An admin's guest: /etc/xen/NAME.cfg with
# on_crash = "coredump-destroy"; it crashes on purpose after 2 s and xl
# writes its core to /var/lib/xen/dump/NAME before destroying it, in the
# background, at low priority, while the scenarios below run; the PV one
# crashes before the bad-input checks; the core checks come last. The PVH
# test guest maps grant frames above its RAM first, as real unikernels map
# theirs (tests/guest/x86/core_fit.c): without them xl tries every frame
# below the MMIO window, 14 to 22 minutes beside the scenarios; with them,
# a few seconds (xl's log then says "exceeded nr_pages (N) losing M
# pages": the frames it skipped once it had all N, none of them the
# guest's). core_guest NAME CONFIG
core_guest() {
	sed -e "s/^name = .*/name = \"$1\"/" \
		-e 's/^on_crash = .*/on_crash = "coredump-destroy"/' \
		-e 's/^extra = "\(.*\)"/extra = "\1 crash=2"/' /guests/$2.cfg > /etc/xen/$1.cfg
	rm -f /var/lib/xen/dump/$1
	xl create /etc/xen/$1.cfg > /tmp/create-$1.log 2>&1 || return 1
	date +%s > /tmp/core-start-$1
	sleep 1
	for pid in $(pgrep -f "/etc/xen/$1.cfg" 2>/dev/null); do
		renice -n 19 -p $pid > /dev/null 2>&1
	done
}
mkdir -p /etc/xen /var/lib/xen/dump
core_guest tg-core-pvh tg-pvh-fp || tap "# the PVH guest for the core-file checks did not start"

section "PV and PVH guests with frame pointers"
# --- PV and PVH guests with frame pointers, symbols from the domain config.
# Each profile of the known split here and below without frame pointers
# takes 149 Hz for 13 s: the ~1,940 samples of 97 Hz for 20 s (the
# tolerances follow the distinct samples taken) in two-thirds of the time.
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
		$PROF $g -f 149 -d 13 > $OUT/$g.stdout 2> $OUT/$g.stderr
		rc=$?
		folded=$(ls -t /var/log/xen/profile/$g-*.folded 2>/dev/null | head -n 1)
	else
		$PROF $g -f 149 -d 13 -u fp -o $OUT/$g > $OUT/$g.stdout 2> $OUT/$g.stderr
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
	[ $t = pv ] && pv_stem=$stem
	# The portable path: libxenctrl's own calls give the same stacks.
	$PROF $g -f 97 -d 5 --hypercalls libxenctrl -o $OUT/$g-xc > /dev/null 2> $OUT/$g-xc.stderr
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
	$PROF $g -f 149 -d 13 -u $u --consistency relaxed -o $OUT/$g-rx > $OUT/$g-rx.stdout 2> $OUT/$g-rx.stderr
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

section "Stored profiles"
# --- Stored profiles: the pprof file re-renders what the live run wrote
# (xl profile report, no guest needed), and two runs of the guest with
# different splits compare (xl profile diff). The host reads the pprof
# with go tool pprof (tests/xl-plugin/pprof-go.test).
if [ -s "${pv_stem:-}.pb.gz" ]; then
	xl profile report -F folded "$pv_stem.pb.gz" > $OUT/r.folded 2> $OUT/r.err
	check "report: the stored pprof gives the live run's folded stacks byte for byte" \
		cmp -s $OUT/r.folded "$pv_stem.folded"
	[ -s $OUT/r.err ] && tap "# $(cat $OUT/r.err)"
	xl profile report -F svg "$pv_stem.pb.gz" > $OUT/r.svg 2>> $OUT/r.err
	check "report: and the live run's flame graph byte for byte" cmp -s $OUT/r.svg "$pv_stem.svg"
	xl profile report -q -o $OUT/r "$pv_stem.pb.gz" 2>> $OUT/r.err
	check "report -o: folded, svg, txt, json and pprof written, the JSON with the build-id" \
		sh -c "[ -s $OUT/r.folded ] && [ -s $OUT/r.svg ] && [ -s $OUT/r.txt ] && [ -s $OUT/r.pb.gz ] &&
			grep -q '\"build_id\": \"[0-9a-f]\{40\}\"' $OUT/r.json"
	xl profile report -F folded $OUT/r.pb.gz > $OUT/r2.folded 2>> $OUT/r.err
	check "report: a pprof written by report reads back the same" cmp -s $OUT/r2.folded "$pv_stem.folded"
else
	not_ok "report: the PV run left a pprof profile" "$(ls /var/log/xen/profile/)"
fi
# diff: the guest at its 50/35/15 split, then at 20/30/50, each profiled at
# 199 Hz for 25 s (about 5,000 samples: a difference of two shares has a
# standard error of about 1 point; at 499 Hz the sampler takes all of an
# emulated dom0's CPU and falls behind, by a quarter of its periods in a
# failed CI run).
diff_run() {
	name=$1 extra=$2
	if ! create_guest $name tg-pv-fp "extra=\"report_ms=1000 $extra\""; then
		not_ok "diff: guest $name starts"
		return 1
	fi
	glog=/var/log/xen/console/guest-$name.log
	n0=$(reports $glog work)
	$PROF $name -f 199 -d 25 -q -F pprof,json,folded,txt -o $OUT/$name 2> $OUT/$name.err
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
		# Against the guest's clock: the margin, and 3.5 standard errors
		# of the two profiles' sampling and of the guest's clock itself.
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
head -c 200 "${pv_stem:-/dev/null}.pb.gz" > $OUT/cut.pb.gz 2>/dev/null
xl profile report $OUT/cut.pb.gz > /dev/null 2> $OUT/bad.err
rc=$?
check "report of a truncated pprof: exit $rc, one line" \
	sh -c "[ $rc -eq 1 ] && [ \$(wc -l < $OUT/bad.err) -eq 1 ] && grep -q 'cut short' $OUT/bad.err"

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
		$PROF $g -f 149 -d 13 -u $u -o $OUT/$g-$u > $OUT/$g-$u.stdout 2> $OUT/$g-$u.stderr
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
	$PROF $g -f 149 -d 13 -u cfi --consistency relaxed -o $OUT/$g-rx > $OUT/$g-rx.stdout 2> $OUT/$g-rx.stderr
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
		$PROF $g -f 97 -d 20 --consistency $mode -o $OUT/$g-$mode > $OUT/$g-$mode.stdout 2> $OUT/$g-$mode.stderr
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

# The busy share is judged as a share (3.5 standard errors of the samples
# taken, late periods not counted) within BUSY_MARGIN points plus a part of
# the periods the sampler only inferred. A period it missed while dom0 was
# short of CPU counts as the last sample (core/sampler.c), whose state it
# may not have had; under emulation on a loaded host the guest's busy
# bursts take the CPU dom0's sampler needs, so those guesses lean to
# "blocked". The error such periods can make grows with their share of the
# run: at most all of it, measured at up to 0.22 of it (loaded, 22-27 % of
# the periods inferred: 0 to -6.1 points over three runs; unloaded, 1 %:
# within 1 point). BUSY_INFERRED of it is allowed.
BUSY_MARGIN=1.5
BUSY_INFERRED=0.3
# busy_tolerance SHARE JSON: the allowed deviation, in points, of the busy
# share of the profile whose JSON summary is given
busy_tolerance() {
	SHARE_MARGIN=$(awk -v c="$(json_num "$2" covered_periods)" -v k="$(json_num "$2" stacks)" \
		-v m=$BUSY_MARGIN -v w=$BUSY_INFERRED 'BEGIN { printf "%.2f", m + (k > 0 ? w * 100 * c / k : 0) }') \
		tolerance "$1" "$(json_num "$2" samples)"
}

# guest_running LOG N0 N1 PAUSED_MS PROFILED_MS: the dom0-driven
# workload's share of the time it ran (alone: CPU time) between its
# reports N0 + 1 and N1 (those the profile's run spans), by its own
# run-state time, of the time we did not hold it paused (PAUSED_MS over
# the PROFILED_MS the profile ran, for the reports' part of it).
guest_running() {
	awk -v from=$(($2 + 1)) -v to=$3 -v p="${4:-0}" -v pt="${5:-0}" '/tg: io / {
		n++
		if (n > to) exit
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		if (n == from) { r0 = v["run_ms"]; t0 = v["t_ms"] }
		r = v["run_ms"]; t = v["t_ms"]
	}
	END { dt = t - t0; if (pt > 0) dt -= p * dt / pt
	      if (dt > 0 && r != "") printf "%.2f\n", 100 * (r - r0) / dt }' $1
}

# guest_busy LOG N0 PAUSED_BLOCKED_MS: the blocking workload's busy share by
# its own run-state time after its N0-th report, less the time we held it
# paused while blocked.
guest_busy() {
	awk -v from=$(($2 + 1)) -v pb="${3:-0}" '/tg: io / {
		n++
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		if (n == from) { b0 = v["busy_ms"]; i0 = v["idle_ms"] }
		b = v["busy_ms"]; id = v["idle_ms"]
	}
	END { db = b - b0; di = id - i0 - pb; if (db + di > 0) printf "%.2f\n", 100 * db / (db + di) }' $1
}

section "Real unikernels block"
# --- Real unikernels block: a workload like an I/O-bound unikernel's, bursts
# of requests (tg_req_parse 60 / tg_req_crc 40 of the request work), then
# SCHEDOP_block through the hypercall page until a timer, ~30 % busy. Every
# stack, idle ones too, must be whole from the entry, idle ones through the
# hypercall stub to the function that blocked; the busy share must match
# the guest's own figure (Xen's run-state accounting of its vCPU, read by the
# guest, over the same window); the request split as every share (35 s
# at 499 Hz gives ~5,000 request samples: a tolerance of 3.9 points or so
# unloaded).
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
	n0=$(reports $log io)
	$PROF $g -f 499 -d 35 -o $OUT/$g > $OUT/$g.stdout 2> $OUT/$g.stderr
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
	# Xen counts the time a blocked vCPU stood paused by us as blocked
	# (a busy one's as neither): take our pauses of it out of the
	# guest's blocked time, as the profile never samples inside them.
	pb=$(json_num $OUT/$g.json paused_while_blocked_ms)
	theirs=$(guest_busy $log $n0 $pb)
	tol=$(busy_tolerance "${theirs:-50}" $OUT/$g.json)
	check "$label: busy ${mine:-?}% per the profile, ${theirs:-?}% per the guest (its run-state time, less ${pb:-?} ms we held it paused while blocked; +-$tol, $(json_num $OUT/$g.json covered_periods) of $(json_num $OUT/$g.json stacks) periods inferred)" \
		within "${mine:-}" "${theirs:--100}" $tol
	# Xen's run time (between our samples, outside our pauses) is a
	# lower bound of busy, which also counts waiting for a CPU: the
	# guest's figure is not below it, and the samples are not said to
	# be low against it. Unless the sampler, short of CPU, inferred a
	# good part of the periods (over 5 %: a loaded host), whose guesses
	# lean to blocked (above): then the samples may fall short of Xen's
	# figure, and the profile must say so and show the rest as
	# [unseen] (measured: 2.9 points short with 31 % inferred).
	running=$(json_num $OUT/$g.json running_pct)
	bc=$(sed -n 's/.*"busy_check": "\([^"]*\)".*/\1/p' $OUT/$g.json | head -n 1)
	inf=$(awk -v c="$(json_num $OUT/$g.json covered_periods)" -v k="$(json_num $OUT/$g.json stacks)" 'BEGIN { if (k > 0) printf "%.1f", 100 * c / k }')
	check "$label: ran ${running:-?}% of the time per the profile (Xen's accounting), no more than busy ${theirs:-?}% per the guest (+0.5); samples '${bc:-?}' (${inf:-?}% of the periods inferred, $(json_num $OUT/$g.json unseen) samples' worth [unseen])" \
		sh -c "{ [ '$bc' = consistent ] || { [ '$bc' = 'samples low' ] && awk -v i='${inf:-0}' 'BEGIN { exit !(i > 5) }' && grep -q '^\[unseen\] [1-9]' $f; }; } && awk -v r='${running:-101}' -v b='${theirs:--1}' 'BEGIN { exit !(r > 0 && r <= b + 0.5) }'"
	# Distinct samples in the two request leaves: their count scaled by
	# the share of the profile's stacks that are distinct samples.
	n=$(awk -v r="$(stat $f requests)" -v s="$(json_num $OUT/$g.json samples)" \
		-v k="$(json_num $OUT/$g.json stacks)" 'BEGIN { if (k > 0) printf "%d", r * s / k; else print 0 }')
	# The split is judged against the time each leaf took by the guest's
	# own clock (60/40 by work; under emulation the time differs), by the
	# suite's rule for shares (tolerance, lib.sh).
	st=$(guest_split_stats $log io $((n0 + 1)) parse_t parse_t crc_t)
	want=${st% *} cse=${st#* }
	got=$(stat $f request tg_req_parse)
	tol=$(tolerance "${want:-50}" "$n" "$cse")
	check "$label: tg_req_parse ${got:-?}% of the request samples, ${want:-?}% of their time by the guest's clock (+-${tol:-?}, $n distinct samples in the requests, clock's own error ${cse:-?})" \
		within "${got:-}" "${want:--100}" "$tol"
	check "$label: the flame graph shows on-CPU time only by default" \
		sh -c "! grep -q '\[idle\]' $OUT/$g.svg && grep -q 'tg_req_parse' $OUT/$g.svg"
	check "$label: the folded file keeps the idle stacks under [idle]" grep -q '^\[idle\];tg_entry64;' $f
	check "$label: JSON gives busy and blocked samples per vCPU" \
		grep -q '"blocked": [1-9]' $OUT/$g.json
	tap "# $label: $(grep '^vcpu0' $OUT/$g.txt); $(grep 'pause per sample' $OUT/$g.txt); $(grep 'missed deadlines' $OUT/$g.txt); $(grep 'sampler woke' $OUT/$g.txt); abandoned samples $(json_num $OUT/$g.json abandoned_samples)"
	if [ $t = pv:nofp ]; then
		# What asking Xen for each vCPU's state adds to the paused window,
		# in this boot, on this guest: alternate runs with and without.
		for i in 1 2; do
			$PROF $g -f 97 -d 8 --no-vcpu-state -o $OUT/$g-nostate$i > /dev/null 2>&1
			$PROF $g -f 97 -d 8 -o $OUT/$g-state$i > /dev/null 2>&1
			tap "# vcpu state cost $i: p50 without $(json_num $OUT/$g-nostate$i.json p50) us, with $(json_num $OUT/$g-state$i.json p50) us"
		done
		check "--no-vcpu-state: no busy share claimed" grep -q '"busy_pct": null' $OUT/$g-nostate1.json
		# Relaxed: a vCPU blocked across its register read and walk
		# gives an exact stack (its run clock stood still); the busy
		# share and whole stacks hold as paused.
		n0=$(reports $log io)
		$PROF $g -f 499 -d 20 --consistency relaxed -o $OUT/$g-rx > /dev/null 2> $OUT/$g-rx.stderr
		sleep 1.5
		ex=$(json_num $OUT/$g-rx.json exact)
		check "$label relaxed: ${ex:-0} stacks exact (the vCPU did not run across its read)" \
			[ "${ex:-0}" -gt 0 ]
		c=$(stat $OUT/$g-rx.folded complete)
		check "$label relaxed: ${c:-0}% of stacks whole, idle ones too (need >= 99.5)" \
			awk -v c="${c:-0}" 'BEGIN { exit !(c >= 99.5) }'
		mine=$(json_num $OUT/$g-rx.json busy_pct)
		theirs=$(guest_busy $log $n0 $(json_num $OUT/$g-rx.json paused_while_blocked_ms))
		tol=$(busy_tolerance "${theirs:-50}" $OUT/$g-rx.json)
		check "$label relaxed: busy ${mine:-?}% per the profile, ${theirs:-?}% per the guest (+-$tol)" \
			within "${mine:-}" "${theirs:--100}" $tol
		tap "# $label relaxed: $(grep -e 'vCPU stacks' -e 'per sample' -e '^vcpu0' $OUT/$g-rx.txt | tr '\n' ' ')"
		# One sample: ~70 % of the time the vCPU is blocked, then its
		# leaf is the sched_op stub; busy, it is anywhere else.
		$PROF $g --once > $OUT/$g.once 2>&1
		state=$(sed -n 's/^vcpu0 (\([a-z]*\), complete):$/\1/p' $OUT/$g.once)
		leaf=$(awk '/^  #0 / { $1 = ""; $2 = ""; sub(/^ +/, ""); print; exit }' $OUT/$g.once)
		case "$state:$leaf" in
		"blocked:hypercall_page [sched_op]"*|busy:*)
			ok "blocking --once: vCPU $state, stack complete, leaf $leaf" ;;
		*) not_ok "blocking --once: busy/blocked and stack agree" "$(cat $OUT/$g.once)" ;;
		esac
		send_file $f $g.folded
		send_file $OUT/$g.svg $g.svg
	fi
	check "$label: domain running afterwards" not_paused $g
	stop_guest $g
done

section "Guests driven by dom0"
# --- Guests driven by dom0, as real unikernels are (blkback, netback,
# xenstored): round trips to xenstored over the xenstore ring, each
# followed by one request of the guest's own work, on a thread started as
# Mini-OS starts its threads (tg_thread_starter: no CFI, rbp zeroed). Its
# bursts are shorter than dom0, whose one vCPU also runs xenstored, takes
# to wake the sampler: the samples find it busy far less than it ran, as
# they do Mini-OS's blkfront test. What the profile must do: stacks whole
# from the trampoline (no-FP too); the CPU time it saw plus what it shows
# as [unseen] equal to the guest's own running share; a shortfall beyond
# sampling error flagged with the remedy and shown as [unseen]; the
# request split it did see within its sampling error. At 97 Hz, paused
# and relaxed.
for t in pv:nofp pvh:fp; do
	ty=${t%:*} b=${t#*:}
	g=tg-dd-$ty-$b
	if ! create_guest $g tg-$ty-$b 'extra="io=2 report_ms=500 unit=200"'; then
		not_ok "dom0-driven $ty $b: guest starts"
		continue
	fi
	sleep 2
	log=/var/log/xen/console/guest-$g.log
	for mode in paused relaxed; do
		label="dom0-driven $ty $b $mode"
		s=$OUT/$g-$mode
		n0=$(reports $log io)
		$PROF $g -f 97 -d 13 --consistency $mode -o $s > $s.stdout 2> $s.stderr
		rc=$?
		n1=$(reports $log io)
		sleep 1
		check "$label: xl-profile exits 0" [ $rc -eq 0 ]
		f=$s.folded
		c=$(stat $f complete)
		# The rest may only be cut for a reason of the code they ran: at
		# the event upcall's assembly, which has no unwind information
		# (in the interrupted frame or above it), or (relaxed) at the IP
		# of a vCPU that woke between its register copy and the walk,
		# thousands of times a second here.
		cut=$(awk '/^\[unseen\] / { next } { n += $NF; s = $0; sub(/ [0-9]+$/, "", s); sub(/^\[idle\];/, "", s)
			if (s ~ /^\[truncated\];([^;]*|tg_(pv|hvm)_upcall(;.*)?)$/) c += $NF } END { if (n) printf "%.2f", 100 * c / n }' $f)
		# Relaxed, the race cut 1.6 to 8.3 % of the stacks in runs here
		# (the most beside a fuzzer on the other core), and beside a busy
		# loop 0.5 % were cut higher up, over words the woken vCPU had
		# just rewritten (counted truncated, never whole); paused, only
		# the upcall's stub cuts, a few in a thousand.
		need=97 all=99.5
		[ $mode = relaxed ] && need=80 all=99
		check "$label: ${c:-0}% of $(stat $f samples) stacks whole from tg_thread_starter or the entry, ${cut:-?}% cut at the upcall's assembly or the IP (need >= $need whole, >= $all together)" \
			awk -v c="${c:-0}" -v d="${cut:-0}" -v w=$need -v a=$all 'BEGIN { exit !(c >= w && c + d >= a) }'
		grep '^\[truncated\]\|^\[idle\];\[truncated\]' $f | grep -v '^\(\[idle\];\)\{0,1\}\[truncated\];[^;]* [0-9]*$' |
			grep -v '\[truncated\];tg_\(pv\|hvm\)_upcall' | head -n 5 | sed 's/^/# other cut: /' |
			while read -r l; do tap "$l"; done
		busy=$(json_num $s.json busy) blocked=$(json_num $s.json blocked)
		unseen=$(json_num $s.json unseen)
		# Over the same window: the guest runs otherwise without us.
		theirs=$(guest_running $log $n0 $n1 $(json_num $s.json paused_ms) \
			$(awk -v e="$(json_num $s.json duration_s)" 'BEGIN { printf "%d", e * 1000 }'))
		seen=$(awk -v b="${busy:-0}" -v i="${blocked:-0}" 'BEGIN { if (b + i) printf "%.2f", 100 * b / (b + i) }')
		shown=$(awk -v b="${busy:-0}" -v i="${blocked:-0}" -v u="${unseen:-0}" 'BEGIN { if (b + i) printf "%.2f", 100 * (b + u) / (b + i) }')
		tol=$(tolerance "${theirs:-50}" "$(json_num $s.json samples)")
		check "$label: CPU time ${shown:-?}% in the profile (${seen:-?}% seen, ${unseen:-?} samples' worth [unseen]), ${theirs:-?}% by the guest's own run state (+-$tol)" \
			within "${shown:-}" "${theirs:--100}" "$tol"
		bc=$(sed -n 's/.*"busy_check": "\([^"]*\)".*/\1/p' $s.json | head -n 1)
		if awk -v a="${seen:-0}" -v b="${theirs:-0}" -v t="${tol:-0}" 'BEGIN { exit !(a < b - t) }'; then
			# Said after 3 s too when the shortfall was plain by then.
			early=no
			grep -q 'after 3 s: vCPU 0' $s.stderr && early=yes
			check "$label: the samples saw ${seen:-?}% of ${theirs:-?}%: flagged '${bc:-?}' (after 3 s: $early), the rest [unseen] in the folded file, flame graph and top list, the remedy on stderr" \
				sh -c "[ '$bc' = 'samples low' ] && [ '${unseen:-0}' -gt 0 ] && [ '$(stat $f unseen)' = '${unseen:-0}' ] && grep -q '\[unseen\]' $s.svg && grep -q '\[unseen\]' $s.txt && grep -q 'warning: vCPU 0 .*\[unseen\].*taskset' $s.stderr"
		else
			check "$label: the samples saw ${seen:-?}% of ${theirs:-?}% (+-$tol): '${bc:-?}', nothing [unseen]" \
				sh -c "[ '$bc' = consistent ] && [ '${unseen:-0}' -eq 0 ]"
		fi
		# The request split among what it saw, by its sampling error
		# (a handful of samples: a wide tolerance, and it says so).
		n=$(stat $f requests)
		if [ "${n:-0}" -gt 0 ]; then
			st=$(guest_split_stats $log io $((n0 + 1)) parse_t parse_t crc_t)
			want=${st% *} cse=${st#* }
			got=$(stat $f request tg_req_parse)
			tol=$(tolerance "${want:-50}" "$n" "$cse")
			check "$label: tg_req_parse ${got:-0}% of the $n request samples it saw, ${want:-?}% of their time by the guest's clock (+-${tol:-?})" \
				within "${got:-0}" "${want:--100}" "$tol"
		fi
		tap "# $label: $(grep '^vcpu0' $s.txt); $(grep -e 'per sample' $s.txt | head -n 1); $(grep 'sampler woke' $s.txt)"
	done
	send_file $OUT/$g-paused.svg $g.svg
	check "dom0-driven $ty $b: domain running afterwards" not_paused $g
	stop_guest $g
done

section "A crashed domain kept with on_crash = preserve"
# --- A crashed domain kept with on_crash = "preserve": --once prints the
# stack it crashed with (it panics through tg_crash_01 -> tg_crash_02 ->
# tg_panic -> SCHEDOP_shutdown(crash)), and profiling it is refused in one
# line that says what to do.
for t in pv:nofp pvh:fp; do
	ty=${t%:*} b=${t#*:}
	g=tg-crash-$ty
	if ! create_guest $g tg-$ty-$b 'extra="crash=2"' 'on_crash="preserve"'; then
		not_ok "crash $ty: guest starts"
		continue
	fi
	state=
	for i in $(seq 1 60); do
		state=$(xl list $g 2>/dev/null | awk 'NR == 2 { print $5 }')
		case "$state" in *c*) break ;; esac
		sleep 0.5
	done
	check "crash $ty: the domain crashed and is kept (state $state)" sh -c "echo '$state' | grep -q c"
	$PROF $g --once > $OUT/$g.once 2> $OUT/$g.once.err
	rc=$?
	check "crash $ty: --once exits 0 on the crashed domain" [ $rc -eq 0 ]
	check_crash_stack "crash $ty: --once shows the crash stack" $OUT/$g.once $OUT/$g.once.err "$CRASH_STACK"
	check "crash $ty: --once says the domain crashed and the stack is complete" \
		sh -c "grep -q 'crashed' $OUT/$g.once && grep -q 'vcpu0 (.*complete)' $OUT/$g.once"
	$PROF $g -d 2 > $OUT/$g.out 2> $OUT/$g.err
	rc=$?
	check "crash $ty: profiling it exits $rc with one line: $(head -c 150 $OUT/$g.err)" \
		sh -c "[ $rc -eq 1 ] && [ \$(wc -l < $OUT/$g.err) -eq 1 ] && grep -q 'crashed.*--once' $OUT/$g.err"
	stop_guest $g
done

section "A hung domain's runbook"
# --- A hung domain's runbook: xl pause, xl dump-core, xl unpause (xl
# dump-core itself does not pause). The core of a running 2-vCPU guest holds
# both vCPUs' stacks whole, the same frames --once printed while it was
# paused for the dump; its kernel is found by the build-id in its memory.
g=tg-smp-dump
if create_guest $g tg-pv-fp 'vcpus=2' 'cpus="all"' && \
   grep -q "tg: start.*vcpus=2" /var/log/xen/console/guest-$g.log; then
	sleep 2
	xl pause $g
	$PROF $g --once > $OUT/$g.once 2>&1
	t0=$(date +%s)
	timeout -s KILL 300 $XL_BIN dump-core $g /tmp/$g.core > $OUT/$g.dump 2>&1
	rc=$?
	xl unpause $g
	check "dump-core: xl dump-core of the paused 2-vCPU guest exits 0 in $(( $(date +%s) - t0 ))s" [ $rc -eq 0 ]
	check "dump-core: the domain runs again" not_paused $g
	# No /etc/xen/tg-smp-dump.cfg: the kernel is found by the build-id the
	# core holds, among the configurations in /etc/xen.
	$PROF core -v /tmp/$g.core > $OUT/$g.core 2> $OUT/$g.core.err
	rc=$?
	check "dump-core: xl profile core exits 0" [ $rc -eq 0 ]
	check "dump-core: symbols found by the core's build-id: $(grep -m1 '^symbols' $OUT/$g.core)" \
		grep -q "^symbols /guests/tg-fp.elf" $OUT/$g.core
	check "dump-core: both vCPUs' stacks complete" \
		sh -c "grep -q '^vcpu0 (complete)' $OUT/$g.core && grep -q '^vcpu1 (complete)' $OUT/$g.core"
	roots=$(awk '/^vcpu/ { v = $1 } /^  #/ { last[v] = $3 } END { for (k in last) print k, last[k] }' $OUT/$g.core | sort | sed 's/+0x[0-9a-f]*//' | tr '\n' ' ')
	check "dump-core: vCPU 0 from tg_entry64, vCPU 1 from tg_ap_entry64: $roots" \
		[ "$roots" = "vcpu0 tg_entry64 vcpu1 tg_ap_entry64 " ]
	if [ "$(frames $OUT/$g.once)" = "$(frames $OUT/$g.core)" ] && [ -n "$(frames $OUT/$g.core)" ]; then
		ok "dump-core: the same $(frames $OUT/$g.core | wc -l) frames as --once on the paused domain"
	else
		not_ok "dump-core: the same frames as --once on the paused domain" "$(cat $OUT/$g.once)" "--- core:" "$(cat $OUT/$g.core $OUT/$g.core.err)"
	fi
else
	not_ok "dump-core: 2-vCPU guest starts"
fi
stop_guest $g
rm -f /tmp/$g.core

section "The unwinders against each other on the same pause"
# --- The unwinders against each other on the same paused samples of a live
# guest: on the frame-pointer build all three are valid, on the other the
# CFI table and libunwind. They must agree frame by frame. The walk costs
# are reported (a benchmark, not asserted here).
bench_case() {
	g=$1 elf=$2 want_fp=$3
	if ! start_guest $g; then
		not_ok "walk bench: $g starts"
		return
	fi
	/usr/local/libexec/uniprof/uniprof-walk-bench "$(xl domid $g)" "$elf" 300 \
		> $OUT/walk.out 2> $OUT/walk.err
	rc=$?
	json=$(grep '^{' $OUT/walk.out)
	lu=$(echo "$json" | sed -n 's/.*"cfi_libunwind_identical_pct": \([0-9.]*\).*/\1/p')
	fp=$(echo "$json" | sed -n 's/.*"identical_pct": \([0-9.]*\).*/\1/p')
	if [ $rc -eq 0 ] && awk -v s="${lu:-0}" 'BEGIN { exit !(s >= 98) }'; then
		ok "$g: CFI table and libunwind agree frame by frame on ${lu}% of 300 live samples"
	else
		not_ok "$g: CFI table and libunwind agree (${lu:-?}%, exit $rc)" "$(cat $OUT/walk.out $OUT/walk.err)"
	fi
	if [ "$want_fp" = yes ]; then
		if awk -v s="${fp:-0}" 'BEGIN { exit !(s >= 98) }'; then
			ok "$g: CFI table and frame pointers agree on ${fp}% of the samples"
		else
			not_ok "$g: CFI table and frame pointers agree (${fp:-?}%)"
		fi
	fi
	sed "s/^/UNIPROF-TAP # walk $g: /" $OUT/walk.out
	check "$g: domain running after the walk benchmark" not_paused $g
	stop_guest $g
}
bench_case tg-pv-fp /guests/tg-fp.elf yes
bench_case tg-pvh-nofp /guests/tg-nofp.elf no

section "Signals"
# --- Signals: SIGINT and SIGTERM end the run with a complete profile and
# the domain unpaused.
g=tg-pv-fp
start_guest $g || not_ok "signals: guest starts"
check_signals "" $g 4 50

section "SIGKILL cannot be caught"
# --- SIGKILL cannot be caught: the crash guard's watchdog must unpause.
check_sigkill "" $g 6
stop_guest $g

section "The guest shuts itself down mid-profile"
# --- The guest shuts itself down mid-profile.
g=tg-pvh-fp
if start_guest $g 'extra="run=5 report_ms=1000"'; then
	start=$(date +%s)
	$PROF $g -f 97 -d 60 -o $OUT/shutdown > $OUT/shutdown.stdout 2> $OUT/shutdown.stderr
	rc=$?
	[ $rc -eq 0 ] || tap "# stderr: $(cat $OUT/shutdown.stderr)"
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

section "--once"
# --- --once: one symbolized stack per vCPU, the hung-domain runbook.
g=tg-pv-fp
if start_guest $g; then
	$PROF $g --once > $OUT/once.out 2> $OUT/once.err
	rc=$?
	check "--once: exits 0" [ $rc -eq 0 ]
	check "--once: stack is complete, the vCPU busy" grep -q "vcpu0 (busy, complete)" $OUT/once.out
	order=$(awk '$3 ~ /^tg_/ { sub(/\+0x.*/, "", $3); print $3 }' $OUT/once.out | tr '\n' ' ')
	case "$order" in
	*"tg_workload tg_main tg_entry64 ") ok "--once: chain down to tg_entry64: $order" ;;
	*) not_ok "--once: chain down to tg_entry64" "$(cat $OUT/once.out)" ;;
	esac
	before=$(ls /var/log/xen/profile | wc -l)
	$PROF $g -1 > /dev/null 2>&1
	check "--once: writes no files" [ "$(ls /var/log/xen/profile | wc -l)" -eq "$before" ]
	check "--once: domain running afterwards" not_paused $g
fi
stop_guest $g

section "--wait around xl create / xl destroy"
# --- --wait around xl create / xl destroy: profiled from start to end.
rm -f $OUT/wait.*
$PROF --wait tg-w -o $OUT/wait > $OUT/wait.stdout 2> $OUT/wait.stderr &
pid=$!
sleep 2
create_guest tg-w tg-pv-fp >/dev/null 2>&1
sleep 5
xl destroy tg-w
start=$(date +%s)
wait $pid
rc=$?
took=$(( $(date +%s) - start ))
check "--wait: exits 0 when the domain is destroyed (${took}s later)" sh -c "[ $rc -eq 0 ] && [ $took -lt 10 ]"
n=$(stat $OUT/wait.folded samples)
ran=$(sed -n 's/.*tg: work t_ms=\([0-9]*\).*/\1/p' /var/log/xen/console/guest-tg-w.log | tail -n 1)
check "--wait: profiled the run (${n:-0} samples; the guest ran ${ran:-?} ms: need 80% of its periods)" \
	awk -v n="${n:-0}" -v ms="${ran:-1000000}" 'BEGIN { exit !(n >= 0.8 * ms / 1000 * 97) }'
check "--wait: stopped because the domain was destroyed" grep -q "stopped: domain destroyed" $OUT/wait.txt
c=$(stat $OUT/wait.folded complete)
check "--wait: ${c:-0}% whole chains" within "${c:-0}" 100 1
[ $rc -eq 0 ] || tap "# $(cat $OUT/wait.stderr)"
stop_guest tg-w

section "--paused around xl create -p"
# --- --paused around xl create -p: boot is profiled, then the guest runs.
xl create -p /guests/tg-pvh-fp.cfg 'name="tg-p"' 'extra="run=4 report_ms=1000"' >/dev/null 2>&1
state=$(xl list tg-p | awk 'NR == 2 { print $5 }')
check "--paused: the guest was created paused ($state)" sh -c "echo '$state' | grep -q p"
$PROF --paused tg-p -o $OUT/paused > $OUT/paused.stdout 2> $OUT/paused.stderr
rc=$?
check "--paused: exits 0 after the guest ends" [ $rc -eq 0 ]
# The guest's own clock says how long it ran: the profile must cover most
# of it at 97 Hz (the run's first and last moments are the builder's and
# the shutdown's, and the guest's clock starts after boot).
ran=$(sed -n 's/.*tg: work t_ms=\([0-9]*\).*/\1/p' /var/log/xen/console/guest-tg-p.log | tail -n 1)
n=$(stat $OUT/paused.folded samples)
check "--paused: profiled the whole run (${n:-0} samples; the guest ran ${ran:-?} ms: need 80% of its periods)" \
	awk -v n="${n:-0}" -v ms="${ran:-1000000}" 'BEGIN { exit !(n >= 0.8 * ms / 1000 * 97) }'
check "--paused: the guest ran (its console shows it finished)" \
	grep -q "tg: done" /var/log/xen/console/guest-tg-p.log
[ $rc -eq 0 ] || tap "# $(cat $OUT/paused.stderr)"
stop_guest tg-p

section "Symbols found by themselves"
# --- Symbols found by themselves, in order, from the domain config's kernel.
# sym_case DIR EXPECTED-VERBOSE-LINE DEBUG-DIR [options]: all stripped
# variants share one build-id, so only the build-id case gets a debug dir.
sym_case() {
	dir=$1 expect=$2 debugdir=$3
	shift 3
	stop_guest tg-sym
	create_guest tg-sym tg-pv-fp "kernel=\"/guests/$dir/tg.elf\"" >/dev/null 2>&1 ||
		{ not_ok "symbols ($dir): guest starts"; return; }
	UNIPROF_DEBUG_DIR=$debugdir $PROF tg-sym --once -v "$@" > $OUT/sym.out 2> $OUT/sym.err
	if grep -q "$expect" $OUT/sym.err && grep -q "tg_chain_\|tg_hot_\|tg_workload" $OUT/sym.out; then
		ok "symbols ($dir$*): $(grep "$expect" $OUT/sym.err | head -n 1)"
	else
		not_ok "symbols ($dir$*): expected '$expect'" "$(cat $OUT/sym.err)" "$(head -n 5 $OUT/sym.out)"
	fi
	stop_guest tg-sym
}
sym_case beside "tg.elf.debug (beside the kernel): .* functions" /nonexistent
sym_case bid "/debug/.build-id/.*(build-id): .* functions" /debug
sym_case link ".debug/tg-symbols.elf (.gnu_debuglink): .* functions" /nonexistent
sym_case map "System.map (beside the kernel): .* functions" /nonexistent
sym_case bad "build-id differs from the kernel's.*used anyway" /nonexistent --force-symbols
# Refused without --force-symbols: profiles addresses and says how to pass symbols.
create_guest tg-sym tg-pv-fp 'kernel="/guests/bad/tg.elf"' >/dev/null 2>&1
UNIPROF_DEBUG_DIR=/nonexistent $PROF tg-sym --once -v > $OUT/sym.out 2> $OUT/sym.err
if grep -q "refused" $OUT/sym.err && grep -q "no symbols found" $OUT/sym.err &&
	! grep -q "tg_" $OUT/sym.out; then
	ok "symbols: a build-id mismatch is refused, addresses profiled"
else
	not_ok "symbols: a build-id mismatch is refused" "$(cat $OUT/sym.err)"
fi
stop_guest tg-sym
create_guest tg-sym tg-pv-fp 'kernel="/guests/none/tg.elf"' >/dev/null 2>&1
$PROF tg-sym -d 2 -o $OUT/nosym > $OUT/sym.out 2> $OUT/sym.err
rc=$?
if [ $rc -eq 0 ] && grep -q "no symbols found for /guests/none/tg.elf.*-s FILE" $OUT/sym.err &&
	grep -q "^0x" $OUT/nosym.folded; then
	ok "symbols: none found: profiles addresses and says to pass -s"
else
	not_ok "symbols: none found" "exit $rc" "$(cat $OUT/sym.err)"
fi
stop_guest tg-sym

section "A hostile kernel image"
# --- A hostile kernel image (issue 11, H1): the no-frame-pointer guest whose
# CFA rule is "DW_OP_skip -3" (make-hostile-cfi.sh). libunwind would loop
# inside the paused window: its step budget ends each walk, the watchdog
# ends any pause that outlives --max-pause, never unpausing once too often
# (Xen counts pauses), and the domain runs afterwards.
# json FILE KEY: the first integer value of KEY in the beautified JSON.
json() {
	sed -n "s/.*\"$2\": *\([0-9][0-9]*\).*/\1/p" "$1" | head -n 1
}
g=tg-pvh-nofp
if start_guest $g 'kernel="/guests/tg-nofp-hostile.elf"'; then

start=$(date +%s)
$PROF $g -u auto -f 97 -d 10 -o $OUT/h1 > $OUT/h1.stdout 2> $OUT/h1.stderr
rc=$?
took=$(( $(date +%s) - start ))
check "hostile image -u auto: xl profile exits 0 on the hostile image (rc $rc, ${took}s)" [ $rc -eq 0 ]
[ $rc -eq 0 ] || tap "# stderr: $(cat $OUT/h1.stderr)"
n=$(json $OUT/h1.json samples)
tr=$(json $OUT/h1.json truncated_stacks)
max=$(json $OUT/h1.json max)
ab=$(json $OUT/h1.json abandoned_samples)
check "hostile image -u auto: samples taken (${n:-0}; ${ab:-?} abandoned)" [ "${n:-0}" -gt 100 ]
check "hostile image -u auto: stacks cut by the budget (${tr:-0} of ${n:-0} truncated)" \
	[ "${tr:-0}" -ge $(( ${n:-1} * 9 / 10 )) ]
# The limit plus 5 ms for the unpause hypercall and the watchdog's wake-up.
p99=$(json $OUT/h1.json p99)
# The watchdog shares dom0's one emulated vCPU (it preempts the sampler)
# and its unpause is a hypercall that takes milliseconds under TCG: the
# limit holds within a stated slack of 25 ms.
check "hostile image -u auto: kept pauses p99 ${p99:-?} us, max ${max:-?} us (limit 50 ms + 25 ms slack)" \
	[ "${max:-99999999}" -le 75000 ]
check "hostile image -u auto: domain running afterwards" not_paused $g
send_file $OUT/h1.json hostile-auto.json
send_file $OUT/h1.txt hostile-auto.txt

$PROF $g -u libunwind --max-pause 1 -f 97 -d 10 -o $OUT/h2 > $OUT/h2.stdout 2> $OUT/h2.stderr &
sleep 4
# The watchdog's scheduling: policy 1 is SCHED_FIFO (fields 40, 41 of stat).
for pid in $(pidof uniprof-guard); do
	tap "# uniprof-guard $pid: rt_priority $(awk '{ print $40 }' /proc/$pid/stat), policy $(awk '{ print $41 }' /proc/$pid/stat)"
done
wait $!
rc=$?
sed 's/^/UNIPROF-TAP # stderr: /' $OUT/h2.stderr
check "hostile image --max-pause 1: xl profile exits 0 (rc $rc)" [ $rc -eq 0 ]
[ $rc -eq 0 ] || tap "# stderr: $(cat $OUT/h2.stderr)"
ab=$(json $OUT/h2.json abandoned_samples)
n=$(json $OUT/h2.json samples)
tap "# hostile image --max-pause 1: ${n:-?} samples kept, ${ab:-?} abandoned"
check "hostile image --max-pause 1: the watchdog ended some pauses (${ab:-0} abandoned)" [ "${ab:-0}" -gt 0 ]
check "hostile image --max-pause 1: domain running afterwards" not_paused $g
send_file $OUT/h2.json hostile-maxpause.json

xl pause $g
$PROF $g -u libunwind --max-pause 1 -f 97 -d 10 -o $OUT/h3 > $OUT/h3.stdout 2> $OUT/h3.stderr
rc=$?
ab=$(json $OUT/h3.json abandoned_samples)
n=$(json $OUT/h3.json samples)
check "hostile image, admin pause: xl profile exits 0 (rc $rc; ${n:-?} kept, ${ab:-?} abandoned)" [ $rc -eq 0 ]
state=$(xl list $g 2>/dev/null | awk 'NR == 2 { print $5 }')
case "$state" in
*p*) ok "hostile image, admin pause: the domain is still paused ($state): no unpause too many" ;;
*) not_ok "hostile image, admin pause: the domain is running ($state): someone unpaused twice" ;;
esac
xl unpause $g
check "hostile image, admin pause: running after xl unpause" not_paused $g

stop_guest $g
else
	not_ok "hostile image: guest starts" "$(cat /tmp/create-$g.log)"
fi

section "The xl front"
# --- The xl front: xl's own commands pass through, help lists ours.
check "xl front: 'xl help' lists profile" sh -c 'xl help | grep -q "^ profile "'
check "xl front: 'xl help' still lists xl's own commands" sh -c 'xl help | grep -q "^ create "'
check "xl front: 'xl -v list' reaches the real xl" sh -c 'xl -v list | grep -q Domain-0'
check "xl front: 'xl help profile' shows our usage" sh -c 'xl help profile | grep -q "Usage: xl profile"'

core_guest tg-core-pv tg-pv-nofp || tap "# the PV guest for the core-file checks did not start"

section "Bad input"
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
start_guest tg-pv-fp || tap "# the guest for the bad-input checks did not start"
# dom0 itself stays sound while a guest runs: short processes, each with
# its own TLS and heap (with two unpinned dom0 vCPUs under TCG, tens of
# these died a minute; see run-vm.sh).
bad=0
for i in $(seq 1 150); do
	[ "$(seq 1 300 | awk '{ s += $1 } END { print s }' 2>/dev/null)" = 45150 ] || bad=$((bad + 1))
done
check "dom0: 150 short processes beside a running guest, $bad failed" [ $bad -eq 0 ]
one_line_error "does not exist" no-such-domain -d 1
one_line_error "does not exist" 4242 -d 1
one_line_error "dom0" Domain-0 -d 1
one_line_error "dom0" 0 -d 1
one_line_error "invalid frequency" -f 0 tg-pv-fp
one_line_error "invalid frequency" -f abc tg-pv-fp
one_line_error "invalid frequency" -f 200000 tg-pv-fp
one_line_error "invalid duration" -d -3 tg-pv-fp
one_line_error "invalid duration" -d 0 tg-pv-fp
one_line_error "invalid format" -F pdf tg-pv-fp
one_line_error "invalid unwinder" -u orc tg-pv-fp
one_line_error "invalid unwinder" -u magic tg-pv-fp
one_line_error "invalid hypercall path" --hypercalls magic tg-pv-fp
one_line_error "invalid vCPU" --vcpu x tg-pv-fp
one_line_error "vCPU 5 does not exist" --vcpu 5 -d 1 tg-pv-fp
one_line_error "invalid top count" --top -1 tg-pv-fp
one_line_error "invalid maximum depth" --max-depth 0 tg-pv-fp
one_line_error "invalid maximum depth" --max-depth 5000 tg-pv-fp
one_line_error "unknown option --bogus" --bogus tg-pv-fp
one_line_error "needs a value" tg-pv-fp -f
one_line_error "no domain given" -d 1
one_line_error "cannot open symbol file /nonexistent.elf" -s /nonexistent.elf -d 1 tg-pv-fp
one_line_error "neither an ELF file nor an nm symbol map" -s /uniprof/jobs/lib.sh -d 1 tg-pv-fp
one_line_error "not paused" --paused -d 1 tg-pv-fp
one_line_error "does not combine" --once -d 3 tg-pv-fp
one_line_error "cannot open core file /nonexistent" core /nonexistent
one_line_error "not a Xen core file" core /guests/tg-fp.elf
one_line_error "give the core file" core
one_line_error "needs a core file" --core
stop_guest tg-pv-fp

section "uniprofd, the host daemon"
# --- uniprofd, the host daemon (jobs/daemon.sh): pull, push, safety.
. /uniprof/jobs/daemon.sh
daemon_scenarios

section "Post-mortem"
# --- Post-mortem (issue 15): xl profile core on the core xl wrote of a
# crashed domain, with symbols found from /etc/xen/NAME.cfg alone (NAME is
# the core's file name), prints the crash stack whole, frame for frame the
# stack --once printed on the crash-kept twin above; -v adds registers,
# -F json the same for runbooks, --core FILE is the same command; a core
# cut short is refused in one line. Last in the job, where xl has long
# written both cores (see "started early").
for t in pv:nofp pvh:fp; do
	ty=${t%:*} b=${t#*:}
	g=tg-core-$ty core=/var/lib/xen/dump/tg-core-$ty
	for i in $(seq 1 1200); do
		xl domid $g > /dev/null 2>&1 || break
		sleep 0.5
	done
	if xl domid $g > /dev/null 2>&1 || [ ! -s $core ]; then
		not_ok "core $ty: xl wrote the crashed domain's core" "$(ls -la /var/lib/xen/dump; tail -n 5 /var/log/xen/xl-$g.log)"
		stop_guest $g
		continue
	fi
	# When xl finished the core, counted from the domain's start.
	start=$(cat /tmp/core-start-$g 2>/dev/null)
	secs=${start:+, $(( $(date -r $core +%s) - start ))s after the domain started}
	ok "core $ty: xl wrote the crashed domain's core to $core ($(wc -c < $core) bytes$secs)"
	$PROF core $core > $OUT/$g.core 2> $OUT/$g.core.err
	rc=$?
	check "core $ty: xl profile core exits 0 ($(head -c 200 $OUT/$g.core.err))" [ $rc -eq 0 ]
	check_crash_stack "core $ty: the crash stack, symbols from /etc/xen/$g.cfg" $OUT/$g.core $OUT/$g.core.err "$CRASH_STACK"
	check "core $ty: the walk says it is complete" grep -q "^vcpu0 (complete)" $OUT/$g.core
	twin=$OUT/tg-crash-$ty.once
	if [ -s "$twin" ] && [ "$(frames $twin)" = "$(frames $OUT/$g.core)" ]; then
		ok "core $ty: the same $(frames $twin | wc -l) frames as --once on the crash-kept twin"
	else
		not_ok "core $ty: the same frames as --once on the crash-kept twin" "$(frames $twin)" "--- core:" "$(frames $OUT/$g.core)"
	fi
	$PROF core -v $core > $OUT/$g.core.v 2>&1
	rip=$(awk '$1 == "rip" { print $2 }' $OUT/$g.core.v)
	pc=$(awk '$1 == "#0" { print $2 }' $OUT/$g.core.v)
	check "core $ty: -v prints the registers, rip $rip = frame #0 $pc" \
		sh -c "[ -n '$rip' ] && [ '0x$rip' = '$pc' ] && grep -q 'cr3 ' $OUT/$g.core.v"
	$PROF core -F json $core > $OUT/$g.json 2> $OUT/$g.json.err
	check "core $ty: -F json: complete, tg_crash_01 named, registers" \
		sh -c "grep -q '\"complete\": true' $OUT/$g.json && grep -q '\"function\": \"tg_crash_01\"' $OUT/$g.json && grep -q '\"rip\": \"0x' $OUT/$g.json"
	$PROF --core $core > $OUT/$g.alias 2>&1
	check "core $ty: xl profile --core FILE is the same command" cmp -s $OUT/$g.core $OUT/$g.alias
	send_file $OUT/$g.json core-$ty.json
done
head -c 1000000 /var/lib/xen/dump/tg-core-pv > /tmp/core-cut 2>/dev/null
one_line_error "is truncated" core /tmp/core-cut
rm -f /tmp/core-cut

[ $TAP_FAILED -eq 0 ] || diagnose
tap_plan_end
