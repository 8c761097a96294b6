# Helpers for jobs run in dom0: TAP results on the console, files sent back
# to the host, and the test guests' life cycle.
TAP_N=0
TAP_FAILED=0

# xl itself must never stall the suite.
XL_BIN=$(command -v xl)
xl() { timeout -s KILL 60 "$XL_BIN" "$@"; }

tap() { echo "UNIPROF-TAP $*"; }

ok() {
	TAP_N=$((TAP_N + 1))
	tap "ok $TAP_N - $*"
}

not_ok() {
	TAP_N=$((TAP_N + 1))
	TAP_FAILED=$((TAP_FAILED + 1))
	tap "not ok $TAP_N - $1"
	shift
	for text in "$@"; do
		printf '%s\n' "$text" | sed 's/^/UNIPROF-TAP # /'
	done
}

# section TITLE: a TAP comment with the seconds since dom0 booted and the
# CPU time dom0 has spent since, so a log shows where the suite's time goes
# (waiting, or dom0 short of CPU).
section() {
	tap "# --- [$(cut -d. -f1 /proc/uptime) s; dom0 CPU $(awk '$1 == "cpu" {
		printf "%d s", ($2 + $3 + $4 + $7 + $8) / 100 }' /proc/stat)] $*"
}

# check NAME CONDITION-COMMAND... : ok if the command succeeds.
check() {
	name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name" "failed: $*"; fi
}

# Send a file to the host (it lands in OUTDIR/files/NAME).
send_file() {
	[ -f "$1" ] || return 0
	echo "UNIPROF-FILE-BEGIN $2"
	base64 < "$1"
	echo "UNIPROF-FILE-END"
}

# Show what went wrong: the tail of Xen's and the guests' consoles.
diagnose() {
	tap "# --- xl list"
	xl list 2>&1 | sed 's/^/UNIPROF-TAP #   /'
	tap "# --- dom0 kernel: crashes"
	dmesg 2>/dev/null | grep -i -e segfault -e "general protection" -e "traps:" |
		tail -n 5 | sed 's/^/UNIPROF-TAP #   /'
	tap "# --- xl dmesg (tail)"
	xl dmesg 2>&1 | tail -n 15 | sed 's/^/UNIPROF-TAP #   /'
	for f in /var/log/xen/console/guest-*.log; do
		[ -f "$f" ] || continue
		tap "# --- $f (tail)"
		tail -n 5 "$f" | sed 's/^/UNIPROF-TAP #   /'
	done
}

# start_guest CONFIG [xl create overrides...]: create /guests/CONFIG.cfg as
# a domain named CONFIG and wait until it runs its workload ("tg: start").
start_guest() {
	cfg=$1
	shift
	create_guest "$cfg" "$cfg" "$@"
}

# create_guest NAME CONFIG [overrides...]: the same, named NAME.
create_guest() {
	name=$1 cfg=$2
	shift 2
	log=/var/log/xen/console/guest-$name.log
	rm -f "$log"
	# A domain just destroyed can hold its name a moment longer: retry once.
	xl create "/guests/$cfg.cfg" "name=\"$name\"" "$@" >/tmp/create-$name.log 2>&1 || {
		sleep 2
		xl destroy "$name" >/dev/null 2>&1
		xl create "/guests/$cfg.cfg" "name=\"$name\"" "$@" >>/tmp/create-$name.log 2>&1
	} || false
	if [ $? -ne 0 ]; then
		tap "# xl create $name failed:"
		sed 's/^/UNIPROF-TAP #   /' /tmp/create-$name.log
		return 1
	fi
	# The first guest after boot can be slow: Xen scrubs free memory.
	for i in $(seq 1 300); do
		grep -q "tg: start" "$log" 2>/dev/null && return 0
		sleep 0.2
	done
	# xenconsoled may be late with the log: a guest that has run a
	# second of CPU time is up all the same.
	cpu=$(xl list "$name" 2>/dev/null | awk 'NR == 2 { print $6 }')
	if awk -v c="${cpu:-0}" 'BEGIN { exit !(c >= 1) }'; then
		tap "# guest $name: no console log after 60 s, but it has run ${cpu}s of CPU"
		return 0
	fi
	tap "# guest $name did not start in 60 s (cpu time ${cpu:-none}); xl list:"
	xl list 2>&1 | sed 's/^/UNIPROF-TAP #   /'
	xl dmesg 2>&1 | tail -n 8 | sed 's/^/UNIPROF-TAP #   /'
	ls -la /var/log/xen/console/ 2>&1 | sed 's/^/UNIPROF-TAP #   /'
	xl destroy "$name" >/dev/null 2>&1
	return 1
}

# Destroy a guest and make sure it is gone (a leftover guest would steal
# CPU from every later scenario).
stop_guest() {
	for try in 1 2 3; do
		xl destroy "$1" >/dev/null 2>&1
		xl domid "$1" >/dev/null 2>&1 || return 0
		sleep 1
	done
	tap "# could not destroy $1"
}

# Is the domain running, not paused? ("p" in xl list's state column)
not_paused() {
	for try in 1 2 3; do
		state=$(xl list "$1" 2>/dev/null | awk 'NR == 2 { print $5 }')
		[ -n "$state" ] && break
		sleep 0.5
	done
	case "$state" in
	"") tap "# cannot read the state of $1"; return 1 ;;
	*p*) tap "# $1 is paused (state $state)"; return 1 ;;
	*) return 0 ;;
	esac
}

# The guest keeps working: its work counter moves within 15 seconds.
guest_progresses() {
	log=/var/log/xen/console/guest-$1.log
	a=$(grep -c "tg: work" "$log")
	for i in $(seq 1 15); do
		sleep 1
		[ "$(grep -c "tg: work" "$log")" -gt "$a" ] && return 0
	done
	return 1
}

tap_plan_end() {
	section "end"
	tap "1..$TAP_N"
}

# The checks of profiles against the guest's own clock.
. /uniprof/jobs/checks.sh
