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
check "--paused: profiled the whole run (${n:-0} samples; the guest ran ${ran:-?} ms: need 80% of its periods)" \
	awk -v n="${n:-0}" -v ms="${ran:-1000000}" 'BEGIN { exit !(n >= 0.8 * ms / 1000 * 97) }'
check "--paused: the guest ran (its console shows it finished)" \
	grep -q "tg: done" /var/log/xen/console/guest-tg-p.log
[ $rc -eq 0 ] || tap "# $(cat $OUT/paused.stderr)"
stop_guest tg-p
