#!/bin/sh
# The Xen on Arm scenarios, run in an arm64 dom0 (make check-arm64): the
# AArch64 test unikernel, with and without frame pointers, profiled by the
# cross-built xl profile against its own clock; --once on a live and on a
# crashed domain; signals and SIGKILL never leave it paused.
. /uniprof/jobs/lib.sh
PROF="timeout -s KILL 150 xl profile"
# The shares here rest on the rate asked: no stall budget (as
# scenarios/helpers.sh says why).
KEEP_RATE="--max-stall 100"
OUT=/tmp/out
mkdir -p $OUT
tap "# dom0: $(uname -m), $(xl info | sed -n 's/^xen_caps *: //p')"

section "The known split, FP"
# --- The known split, FP (-u fp) and no-FP (-u cfi, auto, and libunwind,
# which in an arm64 dom0 unwinds AArch64), symbols
# found beside the Image (NAME.img.dbg) with no -s. 30 s at 97 Hz
# (the tolerance that gives: docs/TESTING.md).
for run in nofp:cfi nofp:auto nofp:libunwind fp:fp; do
	b=${run%:*} u=${run#*:}
	g=tg-a64-$b
	label="arm64 $b -u $u"
	if ! xl domid $g >/dev/null 2>&1 && ! start_guest $g; then
		not_ok "$label: guest starts" "$(cat /tmp/create-$g.log)"
		diagnose
		continue
	fi
	glog=/var/log/xen/console/guest-$g.log
	n0=$(reports $glog work)
	$PROF $g -f 97 -d 30 $KEEP_RATE -u $u -o $OUT/$g-$u > $OUT/$g-$u.stdout 2> $OUT/$g-$u.stderr
	rc=$?
	next_report $glog work
	check "$label: xl-profile exits 0" [ $rc -eq 0 ]
	[ $rc -eq 0 ] || tap "# $(cat $OUT/$g-$u.stderr)"
	check_split "$label" $OUT/$g-$u.folded $glog $n0
	check "$label: symbols found beside the Image" \
		grep -q "\"file\": \"/guests/$g.img.dbg\"" $OUT/$g-$u.json
	check "$label: JSON says aarch64" grep -q '"arch": "aarch64"' $OUT/$g-$u.json
	check "$label: domain running afterwards" not_paused $g
	tap "# $label: $(grep 'pause per sample' $OUT/$g-$u.txt)"
	send_file $OUT/$g-$u.folded $g-$u.folded
	[ $u = libunwind ] || continue
	# The frame-record walk on the build without them must not pass for
	# whole (it proves the check): x29 is a general register there. Then
	# the FP guest gets CPU 1 to itself.
	$PROF $g -f 97 -d 3 -u fp -o $OUT/$g-fp > /dev/null 2>&1
	c=$(stat $OUT/$g-fp.folded complete)
	check "arm64 nofp -u fp: chains are not whole (${c:-0}%), so the check has teeth" \
		awk -v c="${c:-0}" 'BEGIN { exit !(c < 90) }'
	stop_guest $g
done

section "--once on the live FP guest"
# --- --once on the live FP guest: every frame from tg_start to a leaf.
g=tg-a64-fp
if xl domid $g >/dev/null 2>&1; then
	$PROF $g --once > $OUT/once 2> $OUT/once.err
	rc=$?
	check "arm64 --once: exits 0 ($(head -c 150 $OUT/once.err))" [ $rc -eq 0 ]
	order=$(crash_order $OUT/once)
	if workload_chain_whole "$order" "tg_boot tg_start"; then
		ok "arm64 --once: a whole stack: $order"
	else
		not_ok "arm64 --once: a whole stack" "$(cat $OUT/once $OUT/once.err)"
	fi
	check "arm64 --once: domain running afterwards" not_paused $g
fi

section "Signals on the FP guest"
# --- Signals on the FP guest: the profile so far is written, the domain
# runs on.
check_signals "arm64 " $g 5 20
check_sigkill "arm64 " $g 4

section "uniprofd in the arm64 dom0"
# --- uniprofd in the arm64 dom0: a pull, as go tool pprof makes it, read
# back by xl profile report and checked against the guest's clock. Its
# shares rest on the rate asked, as above: no stall budget (under arm64
# emulation a pause can cost past 5 %; each sample would then stand for
# several periods and the tolerance from the samples' count would lie).
uniprofd --port 9180 --max-stall 100 > /tmp/uniprofd.log 2>&1 &
upd=$!
for i in $(seq 1 30); do grep -q serving /tmp/uniprofd.log && break; sleep 0.5; done
glog=/var/log/xen/console/guest-$g.log
n0=$(reports $glog work)
timeout -s KILL 90 wget -q -O $OUT/pull.pb.gz \
	"http://127.0.0.1:9180/debug/pprof/profile?domain=$g&seconds=20&hz=97"
rc=$?
next_report $glog work
if [ $rc -eq 0 ] && xl profile report -F folded $OUT/pull.pb.gz > $OUT/pull.folded 2> $OUT/pull.err; then
	ok "arm64 uniprofd: the pull returned a pprof profile ($(wc -c < $OUT/pull.pb.gz) bytes)"
	check_split "arm64 uniprofd pull" $OUT/pull.folded $glog $n0
else
	not_ok "arm64 uniprofd: the pull returned a pprof profile" "wget rc $rc; $(cat $OUT/pull.err)" \
		"$(tail -n 5 /tmp/uniprofd.log)"
fi
kill -TERM $upd
wait $upd
rc=$?
check "arm64 uniprofd: SIGTERM ends it with exit 0 ($rc)" [ $rc -eq 0 ]
check "arm64 uniprofd: the domain running afterwards" not_paused $g
stop_guest $g

section "Two vCPUs"
# --- Two vCPUs (vCPU 1 started by PSCI CPU_ON, its own stack and chain at
# 80/20), paused and relaxed: one stack per vCPU each sample.
g=tg-a64-smp
if create_guest $g tg-a64-fp 'vcpus=2' 'cpus="all"'; then
	glog=/var/log/xen/console/guest-$g.log
	check "arm64 2 vCPUs: the guest brought up vCPU 1" grep -q "tg: start.*vcpus=2" $glog
	for mode in paused relaxed; do
		lb="arm64 2 vCPUs $mode"
		n0=$(reports $glog work)
		$PROF $g -f 97 -d 20 $KEEP_RATE --consistency $mode -o $OUT/$g-$mode > $OUT/$g.stdout 2> $OUT/$g.stderr
		rc=$?
		next_report $glog work
		check "$lb: xl-profile exits 0" [ $rc -eq 0 ]
		check_two_vcpus "$lb" $OUT/$g-$mode $glog $n0
		tap "# $lb: $(grep -e 'vCPU stacks' -e 'per sample' $OUT/$g-$mode.txt | tr '\n' ' ')"
	done
	check "arm64 2 vCPUs: domain running afterwards" not_paused $g
	stop_guest $g
else
	not_ok "arm64 2 vCPUs: guest starts"
fi

section "A crash kept with on_crash = preserve, no-FP"
# --- A crash kept with on_crash = "preserve", no-FP build: --once shows
# the panic through the hypercall stub (HYPERVISOR_sched_op, no CFI: its
# caller is in LR) down to tg_start.
g=tg-a64-crash
if create_guest $g tg-a64-nofp 'extra="crash=2"' 'on_crash="preserve"'; then
	state=
	for i in $(seq 1 60); do
		state=$(xl list $g 2>/dev/null | awk 'NR == 2 { print $5 }')
		case "$state" in *c*) break ;; esac
		sleep 0.5
	done
	check "arm64 crash: the domain crashed and is kept (state $state)" sh -c "echo '$state' | grep -q c"
	$PROF $g --once > $OUT/crash.once 2> $OUT/crash.once.err
	rc=$?
	check "arm64 crash: --once exits 0" [ $rc -eq 0 ]
	check_crash_stack "arm64 crash: --once shows the crash stack" $OUT/crash.once $OUT/crash.once.err \
		"HYPERVISOR_sched_op tg_panic tg_crash_02 tg_crash_01 tg_workload tg_main tg_boot tg_start"
	check "arm64 crash: the walk says complete" grep -q 'vcpu0 (.*complete)' $OUT/crash.once
	stop_guest $g
else
	not_ok "arm64 crash: guest starts"
fi

[ $TAP_FAILED -eq 0 ] || diagnose
tap_plan_end
