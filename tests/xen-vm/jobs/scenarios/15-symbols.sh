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

# --- Step 5: the debug file by build-id from a debuginfod server (Debian's,
# in dom0 on 127.0.0.1, indexing a directory with the full image), the
# kernel being stripped: named profile; unknown build-id and a server that
# is down: one line, the profile written with raw addresses.
section "Symbols from debuginfod"
# dbgd_unnamed LABEL CFG DIR EXPECTED: the stripped /guests/DIR/tg.elf,
# debuginfod on: one line saying EXPECTED, raw addresses, exit 0.
dbgd_unnamed() {
	create_guest tg-sym "$2" "kernel=\"/guests/$3/tg.elf\"" >/dev/null 2>&1
	(unset HOME; UNIPROF_DEBUG_DIR=/nonexistent DEBUGINFOD_URLS=http://127.0.0.1:8002 \
		$PROF tg-sym -d 2 -o $OUT/dbgd-$3) > $OUT/sym.out 2> $OUT/sym.err
	rc=$?
	if [ $rc -eq 0 ] && [ "$(grep -c 'no symbols found' $OUT/sym.err)" = 1 ] &&
		grep -q "$4" $OUT/sym.err && grep -q "^0x" $OUT/dbgd-$3.folded; then
		ok "debuginfod: $1: $(grep 'no symbols found' $OUT/sym.err | cut -c1-200)..."
	else
		not_ok "debuginfod: $1" "exit $rc" "$(cat $OUT/sym.err)"
	fi
	stop_guest tg-sym
}
bid=$(cat /guests/none/build-id)
if ! command -v debuginfod > /dev/null; then
	not_ok "debuginfod: the server is in dom0 (scripts/install-deps.sh installs it on the host)"
else
	mkdir -p /tmp/dbgd
	debuginfod -F -p 8002 -d /tmp/dbgd/db.sqlite -t 0 -g 0 -c 1 --disable-source-scan \
		/debuginfod-served > $OUT/debuginfod.log 2>&1 &
	dbgd=$!
	i=0
	until wget -q -O /dev/null "http://127.0.0.1:8002/buildid/$bid/debuginfo" 2>/dev/null; do
		i=$((i + 1))
		[ $i -ge 120 ] && break
		sleep 0.5
	done
	tap "# debuginfod served build-id $bid after $i polls"
	# A fresh client cache, where a process without a home keeps it.
	rm -rf /var/cache/uniprof
	stop_guest tg-sym
	create_guest tg-sym tg-pv-fp 'kernel="/guests/none/tg.elf"' >/dev/null 2>&1
	(unset HOME; UNIPROF_DEBUG_DIR=/nonexistent $PROF tg-sym -d 3 -v --lines \
		--debuginfod http://127.0.0.1:8002 -o $OUT/dbgd) > $OUT/sym.out 2> $OUT/sym.err
	rc=$?
	if [ $rc -eq 0 ] &&
		grep -q "/var/cache/uniprof/debuginfod/$bid/debuginfo (debuginfod, from http://127.0.0.1:8002/buildid/$bid/debuginfo): .* functions" $OUT/sym.err &&
		grep -q "tg_chain_10" $OUT/dbgd.folded && ! grep -q "^0x" $OUT/dbgd.folded; then
		ok "debuginfod: a stripped kernel's symbols fetched by build-id, the profile named ($(grep -c . $OUT/dbgd.folded) stacks)"
	else
		not_ok "debuginfod: symbols fetched by build-id" "exit $rc" "$(cat $OUT/sym.err)" \
			"$(head -n 3 $OUT/dbgd.folded)" "$(tail -n 5 $OUT/debuginfod.log)"
	fi
	# The stripped kernel has no DWARF: the lines come from the fetched file.
	check "debuginfod: source lines from the fetched file (--lines)" \
		grep -q "tg_chain_10 workload.c:[0-9]" $OUT/dbgd.txt
	# The fetch comes before sampling: the -v line precedes the first sample's.
	check "debuginfod: fetched before the first sample" awk '
		/debuginfod, from/ { f = NR } /^xl profile: sampling / && !s { s = NR }
		END { exit !(f && s && f < s) }' $OUT/sym.err
	stop_guest tg-sym
	dbgd_unnamed "unknown build-id" tg-pv-nofp other \
		"no server in DEBUGINFOD_URLS (http://127.0.0.1:8002) has build-id"
	kill $dbgd
	wait $dbgd 2>/dev/null
	rm -rf /var/cache/uniprof
	dbgd_unnamed "server down" tg-pv-fp none \
		"cannot fetch build-id $bid from http://127.0.0.1:8002"
	stop_guest tg-sym
fi
