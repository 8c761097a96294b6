# unwinders: CFI, libunwind and frame pointers on the same pauses.
section "The unwinders against each other on the same pause"
# --- The unwinders against each other on the same paused samples of a live
# guest: on the frame-pointer build all three are valid, on the other the
# CFI table and libunwind. They must agree frame by frame. The walk costs
# are reported (a benchmark, not asserted here).
bench_case() {
	g=$1 elf=$2 want_fp=$3
	if ! start_guest $g; then
		not_ok "walk bench: $g starts"
		return
	fi
	"$UNIPROF_TOOLS"/uniprof-walk-bench "$(xl domid $g)" "$elf" 300 \
		> $OUT/walk.out 2> $OUT/walk.err
	rc=$?
	json=$(grep '^{' $OUT/walk.out)
	lu=$(echo "$json" | sed -n 's/.*"cfi_libunwind_identical_pct": \([0-9.]*\).*/\1/p')
	fp=$(echo "$json" | sed -n 's/.*"identical_pct": \([0-9.]*\).*/\1/p')
	if [ $rc -eq 0 ] && awk -v s="${lu:-0}" 'BEGIN { exit !(s >= 98) }'; then
		ok "$g: CFI table and libunwind agree frame by frame on ${lu}% of 300 live samples"
	else
		not_ok "$g: CFI table and libunwind agree (${lu:-?}%, exit $rc)" "$(cat $OUT/walk.out $OUT/walk.err)"
	fi
	if [ "$want_fp" = yes ]; then
		if awk -v s="${fp:-0}" 'BEGIN { exit !(s >= 98) }'; then
			ok "$g: CFI table and frame pointers agree on ${fp}% of the samples"
		else
			not_ok "$g: CFI table and frame pointers agree (${fp:-?}%)"
		fi
	fi
	sed "s/^/UNIPROF-TAP # walk $g: /" $OUT/walk.out
	check "$g: domain running after the walk benchmark" not_paused $g
	stop_guest $g
}
bench_case tg-pv-fp /guests/tg-fp.elf yes
bench_case tg-pvh-nofp /guests/tg-nofp.elf no
