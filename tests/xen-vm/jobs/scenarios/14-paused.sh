# paused: --paused around xl create -p.
section "--paused around xl create -p"
# --- --paused around xl create -p: boot is profiled, then the guest runs.
# trap=1: the round's tg_hot_15 runs in the guest's #BP handler, on an
# interrupt stack of its own (IST1).
xl create -p /guests/tg-pvh-fp.cfg 'name="tg-p"' 'extra="run=4 report_ms=1000 trap=1"' >/dev/null 2>&1
state=$(xl list tg-p | awk 'NR == 2 { print $5 }')
check "--paused: the guest was created paused ($state)" sh -c "echo '$state' | grep -q p"
$PROF --paused tg-p $KEEP_RATE -o $OUT/paused > $OUT/paused.stdout 2> $OUT/paused.stderr
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
# Its stacks in tg_hot_15 go on through the CPU's frame, found at IST1's
# top by the vCPU's TSS, into the code the int3 stopped, down to the
# entry; a cut one is written [truncated], never whole. One sample of
# slack: a stack taken before the round began the trap is not one of them.
f=$OUT/paused.folded
nt=$(awk '/;tg_hot_15 [0-9]+$/ { n += $NF } END { printf "%d", n }' $f)
wt=$(awk '/^tg_entry64;tg_main;tg_workload;tg_round;tg_trap_hot_15;tg_hvm_trap;tg_hot_15 [0-9]+$/ { n += $NF } END { printf "%d", n }' $f)
bad=$(awk '/;tg_hot_15 [0-9]+$/ && !/^\[truncated\];/ && !/^tg_entry64;tg_main;tg_workload;tg_round;tg_trap_hot_15;tg_hvm_trap;tg_hot_15 / { n += $NF } END { printf "%d", n }' $f)
check "--paused trap=1: $wt of $nt stacks in tg_hot_15 whole through its exception's frame on the interrupt stack into tg_trap_hot_15 (need >= 99% or all but one, >= 10)" \
	awk -v n="${nt:-0}" -v w="${wt:-0}" 'BEGIN { exit !(n >= 10 && (w >= 0.99 * n || w >= n - 1)) }'
check "--paused trap=1: none of them written whole otherwise (${bad:-?})" [ "${bad:-1}" -eq 0 ]
[ "${wt:-0}" -lt "${nt:-0}" ] && grep ';tg_hot_15 [0-9]*$' $f | grep -v '^tg_entry64;tg_main;tg_workload;tg_round;tg_trap_hot_15;tg_hvm_trap;' |
	head -n 5 | sed 's/^/# trap stack: /' | while read -r l; do tap "$l"; done
[ $rc -eq 0 ] || tap "# $(cat $OUT/paused.stderr)"
stop_guest tg-p
# --- The stall budget (issue 39): at 997 Hz a pause of 0.3-0.8 ms under
# emulation holds the guest still 30-60 % of its time. With the default
# budget (5 %) the sampler must lower its rate at once, say so on stderr
# and in the summary, keep the run's stood-still share near the budget,
# and count each sample for the periods it stood for: the profile then
# holds about the periods asked. With --max-stall 100 it keeps 997 Hz.
# (Here, beside --paused: the same short guest, a few seconds more.)
g=tg-stall
if create_guest $g tg-pv-fp; then
	s=$OUT/stall
	$PROF $g -f 997 -d 4 -F json,txt,folded -o $s > $s.stdout 2> $s.stderr
	rc=$?
	check "stall budget: exits 0" [ $rc -eq 0 ]
	check "stall budget: said at once on stderr: $(grep -m1 'rate lowered' $s.stderr)" \
		grep -Eq "^xl profile: $g stood still [0-9.]+ % of its time for samples \(budget 5 %\): rate lowered to [0-9.]+ Hz from 997 Hz; --max-stall PCT to change$" $s.stderr
	check "stall budget: the summary says the rate reached and why: $(grep -m1 '^stall budget' $s.txt)" \
		grep -q "^stall budget 5% of the domain's time: rate lowered from the 997 Hz asked at " $s.txt
	still=$(json_num $s.json stood_still_pct) el=$(json_num $s.json duration_s)
	pmax=$(json_num $s.json max) hz=$(json_num $s.json hz_final)
	k=$(json_num $s.json factor) kmax=$(json_num $s.json factor_max)
	at=$(json_num $s.json rate_lowered_at_s)
	# The margin, what the budget promises (core/sampler/stall_budget.c):
	# nothing is lowered before the first window closes, after its 20
	# samples, at 250 ms or once it has stood still 5 % of 250 ms
	# (12.5 ms): at most 12.5 ms or 20 pauses (p50), and the pause that
	# crossed the line (the JSON's max). Each change of rate after it
	# comes from a window that may spend a whole window's budget (50 ms
	# of a second) in less time, and one pause more. One more point for
	# the noise of the windows that keep the rate. Measured beside a
	# CPU-heavy process: 7.3 % with two changes, pauses up to 20 ms.
	p50=$(json_num $s.json p50) nch=$(json_num $s.json rate_changes)
	margin=$(awk -v e="${el:-4}" -v p="${pmax:-0}" -v m="${p50:-0}" -v c="${nch:-0}" 'BEGIN {
		first = 20 * m / 1e6; if (first < 0.0125) first = 0.0125
		printf "%.2f", 100 * (first + p / 1e6 + c * (0.05 + p / 1e6)) / e + 1 }')
	check "stall budget: stood still ${still:-?}% of the run (budget 5 + ${margin:-?}: the first window and ${nch:-?} changes of rate)" \
		awk -v s="${still:-100}" -v m="${margin:-0}" 'BEGIN { exit !(s <= 5 + m) }'
	check "stall budget: rate reached ${hz:-?} Hz (k ${k:-?}, at most ${kmax:-?}), below the 997 asked, lowered at ${at:-never} s" \
		awk -v h="${hz:-997}" -v a="${at:-9}" 'BEGIN { exit !(h < 997 && a < 1) }'
	# Shares unbiased: each sample counted for the periods it stood for,
	# the profile holds about 997 Hz over the time the guest was not held
	# (instants in our own pauses are dropped), the periods missed
	# outright added. Poisson instants at 997/k counted k times: a
	# standard deviation of sqrt(k * n); 4.5 of them, k the largest
	# (dom0's awk has no sqrt: tolerance.sh's sq).
	n=$(json_num $s.json stacks) miss=$(json_num $s.json missed_deadlines)
	paused=$(json_num $s.json paused_ms)
	want=$(awk -v e="${el:-0}" -v p="${paused:-0}" 'BEGIN { printf "%d", 997 * (e - p / 1000) }')
	check "stall budget: ${n:-0} periods counted (${miss:-?} missed at the lowered rate), ${want:-?} asked over the time not held (within 4.5 SD of k ${kmax:-?})" \
		awk -v n="${n:-0}" -v m="${miss:-0}" -v k="${k:-1}" -v km="${kmax:-1}" -v w="${want:-0}" "$SQRT"'
			BEGIN { d = n + m * k - w; if (d < 0) d = -d; exit !(w > 0 && d <= 4.5 * sq(km * w) + 10) }'
	tap "# stall budget: $(grep -m1 '^stall budget' $s.txt)"
	# No budget: the rate asked, whatever the guest pays.
	s=$OUT/stall-off
	$PROF $g -f 997 -d 4 --max-stall 100 -F json,txt -o $s > $s.stdout 2> $s.stderr
	rc=$?
	still=$(json_num $s.json stood_still_pct) hz=$(json_num $s.json hz_final)
	check "--max-stall 100: 997 Hz kept (${hz:-?} Hz), nothing said, the guest stood still ${still:-?}% (past 5: the budget above had work to do)" \
		sh -c "[ $rc -eq 0 ] && ! grep -q 'rate lowered' $s.stderr && grep -q '\"rate_lowered_at_s\": null' $s.json &&
			awk -v h='${hz:-0}' -v s='${still:-0}' 'BEGIN { exit !(h == 997 && s > 5) }'"
	tap "# --max-stall 100: $(grep -m1 '^stall budget' $s.txt)"
else
	not_ok "stall budget: guest starts"
fi
stop_guest $g
