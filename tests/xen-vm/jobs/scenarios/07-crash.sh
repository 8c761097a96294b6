# crash: a crashed domain kept with on_crash = "preserve". Leaves
# $OUT/tg-crash-TY.once (core compares with it).
section "A crashed domain kept with on_crash = preserve"
# --- A crashed domain kept with on_crash = "preserve": --once prints the
# stack it crashed with (it panics through tg_crash_01 -> tg_crash_02 ->
# tg_panic -> SCHEDOP_shutdown(crash)), and profiling it is refused in one
# line that says what to do.
for t in pv:nofp pvh:fp; do
	ty=${t%:*} b=${t#*:}
	g=tg-crash-$ty
	if ! crashed_guest $g tg-$ty-$b; then
		not_ok "crash $ty: guest starts"
		continue
	fi
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
