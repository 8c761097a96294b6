#!/bin/sh
# Issue 11, H1 on real Xen: a guest whose kernel image's CFA rule is
# "DW_OP_skip -3" (tests/xen-vm/make-hostile-cfi.sh; the code is the test
# unikernel's, unchanged) must not hold the domain paused. Not part of
# make check: tests/xen-vm/run-hostile-cfi.sh boots a VM for it.
# 1. -u auto: libunwind takes every frame, spends its step budget, and the
#    run ends normally with truncated stacks, each pause under the limit.
# 2. --max-pause 1 with -u libunwind: pauses longer than 1 ms are ended by
#    the watchdog and counted as abandoned; the domain runs afterwards.
# 3. The same while an administrator holds the domain paused (xl pause):
#    it is still paused afterwards, so neither we nor the watchdog ever
#    unpaused once too often (Xen counts pauses).
. /uniprof/jobs/lib.sh
PROF="timeout -s KILL 150 xl profile"
OUT=/tmp/out
mkdir -p $OUT
g=tg-pvh-nofp

# json FILE KEY: the first integer value of KEY in the beautified JSON.
json() {
	sed -n "s/.*\"$2\": *\([0-9][0-9]*\).*/\1/p" "$1" | head -n 1
}

if ! start_guest $g 'kernel="/guests/tg-nofp-hostile.elf"'; then
	not_ok "hostile image: guest starts" "$(cat /tmp/create-$g.log)"
	diagnose
	tap_plan_end
	exit 0
fi

start=$(date +%s)
$PROF $g -u auto -f 97 -d 10 -o $OUT/h1 > $OUT/h1.stdout 2> $OUT/h1.stderr
rc=$?
took=$(( $(date +%s) - start ))
check "auto: xl profile exits 0 on the hostile image (rc $rc, ${took}s)" [ $rc -eq 0 ]
[ $rc -eq 0 ] || tap "# stderr: $(cat $OUT/h1.stderr)"
n=$(json $OUT/h1.json samples)
tr=$(json $OUT/h1.json truncated_stacks)
max=$(json $OUT/h1.json max)
ab=$(json $OUT/h1.json abandoned_samples)
check "auto: samples taken (${n:-0}; ${ab:-?} abandoned)" [ "${n:-0}" -gt 100 ]
check "auto: stacks cut by the budget (${tr:-0} of ${n:-0} truncated)" \
	[ "${tr:-0}" -ge $(( ${n:-1} * 9 / 10 )) ]
# The limit plus 5 ms for the unpause hypercall and the watchdog's wake-up.
check "auto: longest kept pause ${max:-?} us (limit 50 ms)" [ "${max:-99999999}" -le 55000 ]
check "auto: domain running afterwards" not_paused $g
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
check "max-pause 1: xl profile exits 0 (rc $rc)" [ $rc -eq 0 ]
[ $rc -eq 0 ] || tap "# stderr: $(cat $OUT/h2.stderr)"
ab=$(json $OUT/h2.json abandoned_samples)
n=$(json $OUT/h2.json samples)
tap "# max-pause 1: ${n:-?} samples kept, ${ab:-?} abandoned"
check "max-pause 1: the watchdog ended some pauses (${ab:-0} abandoned)" [ "${ab:-0}" -gt 0 ]
check "max-pause 1: domain running afterwards" not_paused $g
send_file $OUT/h2.json hostile-maxpause.json

xl pause $g
$PROF $g -u libunwind --max-pause 1 -f 97 -d 10 -o $OUT/h3 > $OUT/h3.stdout 2> $OUT/h3.stderr
rc=$?
ab=$(json $OUT/h3.json abandoned_samples)
n=$(json $OUT/h3.json samples)
check "admin pause: xl profile exits 0 (rc $rc; ${n:-?} kept, ${ab:-?} abandoned)" [ $rc -eq 0 ]
state=$(xl list $g 2>/dev/null | awk 'NR == 2 { print $5 }')
case "$state" in
*p*) ok "admin pause: the domain is still paused ($state): no unpause too many" ;;
*) not_ok "admin pause: the domain is running ($state): someone unpaused twice" ;;
esac
xl unpause $g
check "admin pause: running after xl unpause" not_paused $g

stop_guest $g
[ $TAP_FAILED -eq 0 ] || diagnose
tap_plan_end
