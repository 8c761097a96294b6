# core: xl profile core on the cores xl wrote of crashed domains.
section "Post-mortem"
# --- Post-mortem (issue 15): xl profile core on the core xl wrote of a
# crashed domain, with symbols found from /etc/xen/NAME.cfg alone (NAME is
# the core's file name), prints the crash stack whole, frame for frame the
# stack --once printed on the crash-kept twin (crash's); -v adds registers,
# -F json the same for runbooks, --core FILE is the same command; a core
# cut short is refused in one line. Last in the job, where xl has long
# written both cores (the runner starts their guests early).
# The crash-kept twins' --once prints are crash's; without crash, made
# here as crash makes them.
selected crash || for t in pv:nofp pvh:fp; do
	ty=${t%:*} b=${t#*:}
	g=tg-crash-$ty
	crashed_guest $g tg-$ty-$b &&
		$PROF $g --once > $OUT/$g.once 2> $OUT/$g.once.err
	stop_guest $g
done
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
