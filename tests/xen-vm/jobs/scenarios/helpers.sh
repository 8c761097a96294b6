# Helpers shared by the real-Xen scenarios (scenarios/NN-NAME.sh), sourced
# by the runner (scenarios.sh) after lib.sh; a helper one scenario uses
# stays in its file. The rules behind the tolerances: docs/TESTING.md.
# Through our xl front, as an admin types it; a hang fails the check
# instead of stalling the suite.
PROF="timeout -s KILL 150 xl profile"
# Runs whose checks rest on the rate asked (their sample sizes, shares
# per second, periods counted) ask for no stall budget. Under emulation a
# pause costs 0.3-0.8 ms: 97 Hz holds the guest still 3-8 % of its time,
# 149 Hz 5-12 %, 499 Hz 15-40 %, past the default budget of 5 %, which
# would lower their rates and widen every tolerance (docs/TESTING.md).
# The budget itself is proven in 14-paused.sh; the short runs that check
# no statistics (crash, symbols, package, signals) keep the default.
KEEP_RATE="--max-stall 100"
OUT=/tmp/out
mkdir -p $OUT
# The test guest's crash on purpose, innermost first (crash_order's words).
CRASH_STACK="hypercall_page [sched_op] tg_panic tg_crash_02 tg_crash_01 tg_workload tg_main tg_entry64"

# Relaxed consistency (no domain pause) against the paused run just before
# it on the same guest; the rule: docs/TESTING.md, "Relaxed against paused".
# check_relaxed LABEL STEM PAUSED_FOLDED
check_relaxed() {
	label=$1 stem=$2 pf=$3
	check "$label: the JSON says relaxed" grep -q '"consistency": "relaxed"' $stem.json
	nr=$(distinct $stem.folded $stem.json)
	np=$(distinct $pf ${pf%.folded}.json)
	for fn in tg_chain_10 tg_hot_35 tg_hot_15; do
		r=$(stat $stem.folded leaf $fn)
		p=$(stat $pf leaf $fn)
		tol=$(awk -v a="${r:-0}" -v b="${p:-0}" -v n1="$nr" -v n2="$np" "$SQRT"'
			BEGIN { if (n1 < 1) n1 = 1; if (n2 < 1) n2 = 1; a /= 100; b /= 100
				printf "%.1f", 2 + 3.5 * 100 * sq(a * (1 - a) / n1 + b * (1 - b) / n2) }')
		check "$label: $fn ${r:-?}% relaxed, ${p:-?}% paused (+-$tol: 2 points and 3.5 SE)" \
			within "${r:-}" "${p:--100}" "$tol"
	done
	w=$(stat $stem.folded complete)
	d=$(json_num $stem.json dropped)
	check "$label: ${w:-0}% whole stacks, the ${d:-?} cut to their IP counted as not whole (need >= 99.5)" \
		awk -v w="${w:-0}" 'BEGIN { exit !(w >= 99.5) }'
	tap "# $label: $(grep 'vCPU stacks' $stem.txt); $(grep 'per sample' $stem.txt)"
}

# --- The post-mortem guests (core). An admin's guest: /etc/xen/NAME.cfg
# with on_crash = "coredump-destroy"; it crashes on purpose after 2 s and
# xl writes its core to /var/lib/xen/dump/NAME before destroying it, in
# the background, at low priority, while other scenarios run (the runner
# starts them early; docs/TESTING.md). The PVH test guest maps grant
# frames above its RAM first, as real unikernels map theirs
# (tests/guest/x86/core_fit.c): without them xl tries every frame below
# the MMIO window, 14 to 22 minutes beside the scenarios; with them, a few
# seconds (xl's log then says "exceeded nr_pages (N) losing M pages": the
# frames it skipped once it had all N, none of them the guest's).
# core_config NAME CONFIG: write /etc/xen/NAME.cfg, the test guest CONFIG
# made to crash and leave its core. dump-core needs one such file naming
# the frame-pointer kernel, for its build-id search.
core_config() {
	mkdir -p /etc/xen /var/lib/xen/dump
	sed -e "s/^name = .*/name = \"$1\"/" \
		-e 's/^on_crash = .*/on_crash = "coredump-destroy"/' \
		-e 's/^extra = "\(.*\)"/extra = "\1 crash=2"/' /guests/$2.cfg > /etc/xen/$1.cfg
}
# core_guest NAME CONFIG: start it.
core_guest() {
	core_config $1 $2
	rm -f /var/lib/xen/dump/$1
	xl create /etc/xen/$1.cfg > /tmp/create-$1.log 2>&1 || return 1
	date +%s > /tmp/core-start-$1
	sleep 1
	for pid in $(pgrep -f "/etc/xen/$1.cfg" 2>/dev/null); do
		renice -n 19 -p $pid > /dev/null 2>&1
	done
}

# crashed_guest NAME CONFIG: create the test guest CONFIG as NAME, made to
# crash after 2 s and kept with on_crash = "preserve"; 1 if it did not
# start. Waits up to 30 s for the crash; $state is its xl list state.
crashed_guest() {
	create_guest $1 $2 'extra="crash=2"' 'on_crash="preserve"' || return 1
	state=
	for i in $(seq 1 60); do
		state=$(xl list $1 2>/dev/null | awk 'NR == 2 { print $5 }')
		case "$state" in *c*) break ;; esac
		sleep 0.5
	done
}

# one_line_error EXPECTED XL-PROFILE-ARGS...: bad input gets one clear
# line, with EXPECTED in it, and a non-zero exit.
one_line_error() {
	expect=$1
	shift
	$PROF "$@" > $OUT/bad.stdout 2> $OUT/bad.stderr
	rc=$?
	lines=$(wc -l < $OUT/bad.stderr)
	if [ $rc -ne 0 ] && [ "$lines" -eq 1 ] && grep -q "$expect" $OUT/bad.stderr; then
		ok "bad input '$*': exit $rc, '$(cat $OUT/bad.stderr)'"
	else
		not_ok "bad input '$*': exit $rc, $lines lines" "$(cat $OUT/bad.stderr)"
	fi
}
