# shutdown: the guest shuts itself down mid-profile.
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
