# paused: --paused around xl create -p.
section "--paused around xl create -p"
# --- --paused around xl create -p: boot is profiled, then the guest runs.
xl create -p /guests/tg-pvh-fp.cfg 'name="tg-p"' 'extra="run=4 report_ms=1000"' >/dev/null 2>&1
state=$(xl list tg-p | awk 'NR == 2 { print $5 }')
check "--paused: the guest was created paused ($state)" sh -c "echo '$state' | grep -q p"
$PROF --paused tg-p -o $OUT/paused > $OUT/paused.stdout 2> $OUT/paused.stderr
rc=$?
check "--paused: exits 0 after the guest ends" [ $rc -eq 0 ]
# The guest's own clock says how long it ran: the profile must cover most
# of it at 97 Hz (docs/TESTING.md, "Whole runs").
ran=$(sed -n 's/.*tg: work t_ms=\([0-9]*\).*/\1/p' /var/log/xen/console/guest-tg-p.log | tail -n 1)
n=$(stat $OUT/paused.folded samples)
# Instants inside our own pauses are dropped (pacing.c): the periods of
# the time it was not paused by us.
paused=$(json_num $OUT/paused.json paused_ms)
check "--paused: profiled the whole run (${n:-0} samples; the guest ran ${ran:-?} ms, ${paused:-?} ms of it paused by us: need 80% of the other periods)" \
	awk -v n="${n:-0}" -v ms="${ran:-1000000}" -v p="${paused:-0}" 'BEGIN { exit !(n >= 0.8 * (ms - p) / 1000 * 97) }'
check "--paused: the guest ran (its console shows it finished)" \
	grep -q "tg: done" /var/log/xen/console/guest-tg-p.log
[ $rc -eq 0 ] || tap "# $(cat $OUT/paused.stderr)"
stop_guest tg-p
