# once: --once on a live guest.
section "--once"
# --- --once: one symbolized stack per vCPU, the hung-domain runbook.
g=tg-pv-fp
if start_guest $g; then
	$PROF $g --once > $OUT/once.out 2> $OUT/once.err
	rc=$?
	check "--once: exits 0" [ $rc -eq 0 ]
	check "--once: stack is complete, the vCPU busy" grep -q "vcpu0 (busy, complete)" $OUT/once.out
	order=$(awk '$3 ~ /^tg_/ { sub(/\+0x.*/, "", $3); print $3 }' $OUT/once.out | tr '\n' ' ')
	case "$order" in
	*"tg_workload tg_main tg_entry64 ") ok "--once: chain down to tg_entry64: $order" ;;
	*) not_ok "--once: chain down to tg_entry64" "$(cat $OUT/once.out)" ;;
	esac
	# The image has DWARF: frames say where in the source, and a call
	# inlined into its caller is listed above it (when the chain is seen).
	check "--once: frames with their source file and line" \
		grep -q "tg_workload+0x[0-9a-f]* at .*/workload.c:[0-9]" $OUT/once.out
	case "$order" in
	*"tg_chain_06 tg_chain_step tg_chain_05 "*) ok "--once: the inlined tg_chain_step listed between its callee and caller" ;;
	*tg_chain_06*) not_ok "--once: the inlined tg_chain_step listed" "$(cat $OUT/once.out)" ;;
	esac
	before=$(ls /var/log/xen/profile | wc -l)
	$PROF $g -1 > /dev/null 2>&1
	check "--once: writes no files" [ "$(ls /var/log/xen/profile | wc -l)" -eq "$before" ]
	check "--once: domain running afterwards" not_paused $g
fi
stop_guest $g
