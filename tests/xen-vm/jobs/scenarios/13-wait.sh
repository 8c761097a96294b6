# wait: --wait around xl create and xl destroy.
section "--wait around xl create / xl destroy"
# --- --wait around xl create / xl destroy: profiled from start to end.
rm -f $OUT/wait.*
$PROF --wait tg-w $KEEP_RATE -o $OUT/wait > $OUT/wait.stdout 2> $OUT/wait.stderr &
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
# Sampling starts once the symbols are loaded, after the builder lets
# the guest run: the profile spans the guest's run to its last report
# but for that set-up (0.5-0.8 s measured under emulation, where xl
# create itself takes 2-3 s; 1.5 s allowed).
d=$(json_num $OUT/wait.json duration_s)
check "--wait: sampled the run (the profile spans ${d:-?} s; the guest's last report at ${ran:-?} ms of its run; 1.5 s for the set-up)" \
	awk -v d="${d:-0}" -v ms="${ran:-1000000}" 'BEGIN { exit !(d * 1000 >= ms - 1500) }'
# Instants inside our own pauses are dropped (pacing.c): the periods of
# the span not paused by us.
paused=$(json_num $OUT/wait.json paused_ms)
check "--wait: at the rate asked (${n:-0} samples in ${d:-?} s, ${paused:-?} ms of it paused by us: need 80% of the other periods)" \
	awk -v n="${n:-0}" -v d="${d:-1000}" -v p="${paused:-0}" 'BEGIN { exit !(n >= 0.8 * (d * 1000 - p) / 1000 * 97) }'
check "--wait: stopped because the domain was destroyed" grep -q "stopped: domain destroyed" $OUT/wait.txt
c=$(stat $OUT/wait.folded complete)
check "--wait: ${c:-0}% whole chains" within "${c:-0}" 100 1
[ $rc -eq 0 ] || tap "# $(cat $OUT/wait.stderr)"
stop_guest tg-w
