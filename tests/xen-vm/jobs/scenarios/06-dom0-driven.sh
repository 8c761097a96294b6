# dom0-driven: a guest whose work dom0 drives through xenstored.

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
		# Relaxed on a dom0-driven guest: PV here, and both modes on
		# the production-shaped host (xen-production.test): the time
		# that boot takes is saved here.
		[ $ty = pvh ] && [ $mode = relaxed ] && continue
		label="dom0-driven $ty $b $mode"
		s=$OUT/$g-$mode
		n0=$(reports $log io)
		$PROF $g -f 97 -d 13 $KEEP_RATE --consistency $mode -o $s > $s.stdout 2> $s.stderr
		rc=$?
		n1=$(reports $log io)
		sleep 1
		check "$label: xl-profile exits 0" [ $rc -eq 0 ]
		check "$label: dom0's one vCPU, shared with the backends, said before the first sample with the remedy" \
			sh -c "grep -q 'note: dom0 has one vCPU: .*dom0_max_vcpus=2' $s.stderr &&
				[ \$(grep -n 'note: dom0 has one vCPU' $s.stderr | cut -d: -f1) -lt \$(grep -n ': sampling ' $s.stderr | cut -d: -f1) ]"
		f=$s.folded
		c=$(stat $f complete)
		# The rest may only be cut at the event upcall's assembly or
		# (relaxed) at the IP (docs/TESTING.md, "What the samples cannot see").
		cut=$(awk '/^\[unseen\] / { next } { n += $NF; s = $0; sub(/ [0-9]+$/, "", s); sub(/^\[(idle|waiting)\];/, "", s)
			if (s ~ /^\[truncated\];([^;]*|tg_(pv|hvm)_upcall(;.*)?)$/) c += $NF } END { if (n) printf "%.2f", 100 * c / n }' $f)
		# Why these bounds: docs/TESTING.md, "What the samples cannot see".
		need=97 all=99.5
		[ $mode = relaxed ] && need=80 all=99
		check "$label: ${c:-0}% of $(stat $f samples) stacks whole from tg_thread_starter or the entry, ${cut:-?}% cut at the upcall's assembly or the IP (need >= $need whole, >= $all together)" \
			awk -v c="${c:-0}" -v d="${cut:-0}" -v w=$need -v a=$all 'BEGIN { exit !(c >= w && c + d >= a) }'
		grep '^\[truncated\]\|^\[\(idle\|waiting\)\];\[truncated\]' $f | grep -v '^\(\[\(idle\|waiting\)\];\)\{0,1\}\[truncated\];[^;]* [0-9]*$' |
			grep -v '\[truncated\];tg_\(pv\|hvm\)_upcall' | head -n 5 | sed 's/^/# other cut: /' |
			while read -r l; do tap "$l"; done
		# Woken and not yet back in its code (waiting) may be Xen's
		# running time too: Xen resuming it (run_checks.c, busy_check).
		busy=$(json_num $s.json busy) blocked=$(json_num $s.json blocked)
		waiting=$(json_num $s.json waiting)
		busy=$((${busy:-0} + ${waiting:-0}))
		unseen=$(json_num $s.json unseen)
		# Over the same window: the guest's running share, and its
		# running plus runnable share. The samples count the vCPU busy
		# or woken and waiting to run, so between the two: a vCPU that
		# waits for a pCPU may be found waiting (one run beside a busy
		# loop: 28 % seen, 18 % running), and the [unseen] the tool
		# adds is measured against Xen's running time alone (another:
		# 12.9 % shown, 29.9 % running or runnable).
		shares=$(guest_shares $log $n0 $(json_num $s.json paused_while_blocked_ms) $n1)
		run=${shares% *} theirs=${shares#* }
		seen=$(awk -v b="${busy:-0}" -v i="${blocked:-0}" 'BEGIN { if (b + i) printf "%.2f", 100 * b / (b + i) }')
		shown=$(awk -v b="${busy:-0}" -v i="${blocked:-0}" -v u="${unseen:-0}" 'BEGIN { if (b + i) printf "%.2f", 100 * (b + u) / (b + i) }')
		tol=$(tolerance "${theirs:-50}" "$(json_num $s.json samples)")
		if [ -z "$theirs" ]; then
			# None of its reports in the window: the guest stopped
			# making progress while profiled. What it was doing, for
			# the log: its stack, and Xen's view of its events.
			not_ok "$label: the guest reported progress while profiled (none of its reports in the window; the profile shows ${shown:-?}% CPU time)"
			$PROF --once $g 2>&1 | sed 's/^/# stalled: /' | while read -r l; do tap "$l"; done
			id=$(xl domid $g) && xl debug-keys q && xl debug-keys e &&
				xl dmesg | tail -n 300 | sed -n "/[Dd]omain.* $id\b/,+8p" | head -n 40 | sed 's/^/# xen: /' |
				while read -r l; do tap "$l"; done
		else
			check "$label: CPU time ${shown:-?}% in the profile (${seen:-?}% seen, ${unseen:-?} samples' worth [unseen]), between the guest's own running ${run:-?}% and running or runnable ${theirs:-?}% (+-$tol)" \
				awk -v a="${shown:-}" -v lo="${run:-}" -v hi="${theirs:-}" -v t="$tol" \
					'BEGIN { exit !(a != "" && lo != "" && a >= lo - t && a <= hi + t) }'
		fi
		bc=$(sed -n 's/.*"busy_check": "\([^"]*\)".*/\1/p' $s.json | head -n 1)
		# Judged by the tool's own verdict, as a user reads it: when it
		# says the samples fell short, they did (below the guest's own
		# share) and the rest is shown as [unseen] with the remedy; when
		# it says consistent, what it saw is within the sampling error.
		# (The tool's threshold is its own: a test that recomputed the
		# verdict disagreed with it at the boundary, 8.08 % seen of
		# 12.96 +-4.9 in one run.)
		if [ "$bc" = 'samples low' ]; then
			# Said after 3 s too when the shortfall was plain by then.
			early=no
			grep -q 'after 3 s: vCPU 0' $s.stderr && early=yes
			check "$label: the samples saw ${seen:-?}% of ${run:-?}% running: flagged '${bc:-?}' (after 3 s: $early), the rest [unseen] in the folded file, flame graph and top list, the remedy on stderr" \
				sh -c "awk -v a='${seen:-100}' -v b='${run:-0}' 'BEGIN { exit !(a < b) }' && [ '${unseen:-0}' -gt 0 ] && [ '$(stat $f unseen)' = '${unseen:-0}' ] && grep -q '\[unseen\]' $s.svg && grep -q '\[unseen\]' $s.txt && grep -q 'warning: vCPU 0 .*\[unseen\].*taskset' $s.stderr"
		else
			check "$label: the samples saw ${seen:-?}%, between running ${run:-?}% and running or runnable ${theirs:-?}% (+-$tol): '${bc:-?}', nothing [unseen]" \
				sh -c "[ '$bc' = consistent ] && [ '${unseen:-0}' -eq 0 ] && awk -v a='${seen:-}' -v lo='${run:--100}' -v hi='${theirs:--100}' -v t='$tol' 'BEGIN { exit !(a >= lo - t && a <= hi + t) }'"
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
		# PVH: its events come through an interrupt gate: the walk goes
		# on through the CPU's frame into the code the event interrupted.
		if [ $ty = pvh ]; then
			nu=$(awk '/tg_hvm_upcall/ { n += $NF } END { printf "%d", n }' $f)
			wu=$(awk '/tg_hvm_upcall/ && !/\[truncated\]/ { n += $NF } END { printf "%d", n }' $f)
			[ "${nu:-0}" -ge 5 ] &&
				check "$label: $wu of $nu stacks through the PVH event's interrupt frame whole past it into the interrupted code (need >= 95%)" \
					awk -v n=$nu -v w=$wu 'BEGIN { exit !(w >= 0.95 * n) }'
			# Why the guest keeps this vector off an interrupt stack
			# (tests/guest/x86/idt.c): the times it came a second
			# time at its handler's entry, interrupts off there.
			tap "# $label: events delivered again at the handler's first instruction so far: $(sed -n 's/.*tg: io .* reenter=\([0-9]*\).*/\1/p' $log | tail -n 1)"
		fi
		tap "# $label: $(grep '^vcpu0' $s.txt); $(grep -e 'per sample' $s.txt | head -n 1); $(grep 'sampler woke' $s.txt)"
	done
	send_file $OUT/$g-paused.svg $g.svg
	check "dom0-driven $ty $b: domain running afterwards" not_paused $g
	stop_guest $g
done
