# symbols: symbol files found by themselves, and refused.
section "Symbols found by themselves"
# --- Symbols found by themselves, in order, from the domain config's kernel.
# sym_case DIR EXPECTED-VERBOSE-LINE DEBUG-DIR [options]: all stripped
# variants share one build-id, so only the build-id case gets a debug dir.
sym_case() {
	dir=$1 expect=$2 debugdir=$3
	shift 3
	stop_guest tg-sym
	create_guest tg-sym tg-pv-fp "kernel=\"/guests/$dir/tg.elf\"" >/dev/null 2>&1 ||
		{ not_ok "symbols ($dir): guest starts"; return; }
	UNIPROF_DEBUG_DIR=$debugdir $PROF tg-sym --once -v "$@" > $OUT/sym.out 2> $OUT/sym.err
	if grep -q "$expect" $OUT/sym.err && grep -q "tg_chain_\|tg_hot_\|tg_workload" $OUT/sym.out; then
		ok "symbols ($dir$*): $(grep "$expect" $OUT/sym.err | head -n 1)"
	else
		not_ok "symbols ($dir$*): expected '$expect'" "$(cat $OUT/sym.err)" "$(head -n 5 $OUT/sym.out)"
	fi
	stop_guest tg-sym
}
sym_case beside "tg.elf.debug (beside the kernel): .* functions" /nonexistent
sym_case bid "/debug/.build-id/.*(build-id): .* functions" /debug
sym_case link ".debug/tg-symbols.elf (.gnu_debuglink): .* functions" /nonexistent
sym_case map "System.map (beside the kernel): .* functions" /nonexistent
sym_case bad "build-id differs from the kernel's.*used anyway" /nonexistent --force-symbols
# Refused without --force-symbols: profiles addresses and says how to pass symbols.
create_guest tg-sym tg-pv-fp 'kernel="/guests/bad/tg.elf"' >/dev/null 2>&1
UNIPROF_DEBUG_DIR=/nonexistent $PROF tg-sym --once -v > $OUT/sym.out 2> $OUT/sym.err
if grep -q "refused" $OUT/sym.err && grep -q "no symbols found" $OUT/sym.err &&
	! grep -q "tg_" $OUT/sym.out; then
	ok "symbols: a build-id mismatch is refused, addresses profiled"
else
	not_ok "symbols: a build-id mismatch is refused" "$(cat $OUT/sym.err)"
fi
stop_guest tg-sym
create_guest tg-sym tg-pv-fp 'kernel="/guests/none/tg.elf"' >/dev/null 2>&1
$PROF tg-sym -d 2 -o $OUT/nosym > $OUT/sym.out 2> $OUT/sym.err
rc=$?
if [ $rc -eq 0 ] && grep -q "no symbols found for /guests/none/tg.elf.*-s FILE" $OUT/sym.err &&
	grep -q "^0x" $OUT/nosym.folded; then
	ok "symbols: none found: profiles addresses and says to pass -s"
else
	not_ok "symbols: none found" "exit $rc" "$(cat $OUT/sym.err)"
fi
stop_guest tg-sym
