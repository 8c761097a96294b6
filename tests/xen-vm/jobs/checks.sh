# Checks of a profile against the guest's own figures (sourced by
# lib.sh): the split of its work, two vCPUs, the crash stack, signals.
# Why each tolerance is what it is: docs/TESTING.md.

# --- Profiles against the guest's own clock.

# stat FILE KEY [NAME]: a value from profile-check.awk's report
stat() {
	awk -f /uniprof/jobs/profile-check.awk "$1" |
		awk -v k="$2" -v n="${3:-}" '$1 == k && (n == "" || $2 == n) { print $NF }'
}

# guest_shares LOG N0 PAUSED_BLOCKED_MS [N1]: an I/O workload's shares of
# its time by Xen's run-state accounting, read by the guest, between its
# "tg: io" reports N0 + 1 and N1 (default: the last): "RUN BUSY", its
# vCPU's running time and its running plus runnable time, of the time it
# was not offline, less the time we held it paused while blocked (which
# Xen counts as blocked). Nothing when no report falls in the window.
guest_shares() {
	awk -v from=$(($2 + 1)) -v pb="${3:-0}" -v to="${4:-0}" '/tg: io / {
		n++
		if (to > 0 && n > to) exit
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		if (n == from) { b0 = v["busy_ms"]; i0 = v["idle_ms"]; r0 = v["run_ms"] }
		b = v["busy_ms"]; id = v["idle_ms"]; r = v["run_ms"]
	}
	END { if (n < from) exit
	      db = b - b0; di = id - i0 - pb
	      if (db + di > 0) printf "%.2f %.2f\n", 100 * (r - r0) / (db + di), 100 * db / (db + di) }' $1
}

# guest_busy LOG N0 PAUSED_BLOCKED_MS [N1]: the BUSY of guest_shares.
guest_busy() {
	guest_shares "$@" | cut -d' ' -f2
}

# Shares are judged by their sampling error (tolerance, within).
. /uniprof/jobs/tolerance.sh
# distinct FOLDED JSON: distinct samples behind a one-vCPU folded file (its
# stacks scaled by the share that are distinct samples; all of them when
# there is no JSON summary, as for a pprof pulled from uniprofd). Where the
# stall budget lowered the rate, the samples counted several times each
# weigh as the JSON's effective_samples (as many as samples otherwise).
distinct() {
	awk -v k="$(stat "$1" samples)" -v s="$(json_num "$2" samples)" \
		-v e="$(json_num "$2" effective_samples)" -v t="$(json_num "$2" stacks)" \
		'BEGIN { if (e > 0 && e < s) s = e; if (t > 0) printf "%d", k * s / t; else print k }'
}
# frames FILE: the "#N pc function" of each frame a --once or core print
# holds, one per line.
frames() {
	awk '/^  #/ { print $1, $2, $3 }' "$1"
}
# crash_order FILE: the guest's functions (and the hypercall stub) of a
# --once or core print, innermost first, on one line.
crash_order() {
	awk '/^  #/ { $1 = ""; $2 = ""; sub(/^ +/, ""); sub(/ at [^ ]+:[0-9]+$/, "")
		sub(/\+0x[0-9a-f]+$/, ""); if ($0 ~ /^(tg_|hypercall_page|HYPERVISOR_)/) print }' "$1" | tr '\n' ' '
}
# workload_chain_whole ORDER ENTRY: ORDER (crash_order's words) is one of
# the test guest's live stacks, every frame there from its leaf down to
# ENTRY (tg_entry64, or "tg_boot tg_start" on Arm). The leaf can be any of
# the work's functions: a sample lands in tg_round between its calls, or in
# a tg_chain_NN after its callee returned, as well as in the three spinners;
# a console print's own frames are not the guest's and cannot be checked,
# so only what lies under them is.
workload_chain_whole() {
	printf '%s\n' "$1" | awk -v entry="$2" '
	BEGIN {
		chain = "tg_chain_10 tg_chain_09 tg_chain_08 tg_chain_07 tg_chain_06 tg_chain_05 tg_chain_04 tg_chain_03 tg_chain_02 tg_chain_01 tg_round"
		n = split(chain, c, " ")
		for (i = 1; i < n; i++) up[c[i]] = c[i + 1]
		up["tg_chain_step"] = "tg_chain_05"
		up["tg_hot_35"] = up["tg_hot_15"] = "tg_round"
		up["tg_round"] = "tg_workload"
		up["tg_workload"] = "tg_main"
		m = split(entry, e, " ")
		prev = "tg_main"
		for (i = 1; i <= m; i++) { up[prev] = e[i]; prev = e[i] }
		last = prev
	}
	{
		# An inlined call is listed as "NAME (inlined)": its name counts.
		gsub(/ \(inlined\)/, "")
		k = split($0, w, " ")
		i = 1
		# What a print from tg_workload runs is not checked, only its caller.
		while (i <= k && w[i] ~ /^(tg_strlen|tg_vsnprintf|hypercall_page|HYPERVISOR_)/) i++
		if (i > 1 && w[i] != "tg_workload") exit 1
		if (i > k || w[i] !~ /^tg_(chain_|hot_|round$|workload$)/) exit 1
		for (; i < k; i++) {
			want = up[w[i]]
			# tg_chain_step is inlined: listed only when DWARF is read.
			if (w[i] == "tg_chain_06" && w[i + 1] == "tg_chain_step") continue
			if (w[i + 1] != want) exit 1
		}
		if (w[k] != last) exit 1
		ok = 1
	}
	END { exit !ok }'
}
# check_crash_stack LABEL PRINT ERRFILE WANT: a --once or core print holds
# the crash stack WANT (crash_order's words), whole.
check_crash_stack() {
	_order=$(crash_order "$2")
	if [ "$_order" = "$4 " ]; then
		ok "$1, whole: $_order"
	else
		not_ok "$1, whole" "$(cat "$2" "$3")"
	fi
}
# json_vcpu_num FILE VCPU KEY: KEY in the JSON summary's entry for a vCPU.
json_vcpu_num() {
	awk -v v="$2" -v k="\"$3\":" '$1 == "\"vcpu\":" { cur = $2; sub(/,/, "", cur) }
		$1 == k && cur == v { x = $2; sub(/,/, "", x); print x; exit }' "$1"
}
# json_num FILE KEY: the first number for KEY in a JSON summary.
json_num() {
	sed -n "s/.*\"$2\": \([0-9.]*\).*/\1/p" "$1" | head -n 1
}

# guest_split_stats LOG KIND N KEY KEYS...: "SHARE SE": KEY's % of the sum
# of KEYS, by the guest's own counters, between its N-th "tg: KIND" report
# and its last (tg: work: the TSC time each part of its rounds took; tg:
# io: busy_ms idle_ms, its busy share, and parse_t crc_t, the time its
# request leaves took), and that share's standard error in points, from
# how it varied between reports (docs/TESTING.md; 0 with fewer than two
# reports). Nothing without an interval.
guest_split_stats() {
	_log=$1 _kind=$2 _from=$3 _key=$4
	shift 4
	awk -v kind="tg: $_kind " -v from="$_from" -v key="$_key" -v keys="$*" "$SQRT"'
	BEGIN { nk = split(keys, ks, " ") }
	index($0, kind) {
		n++
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		if (n > from) {
			b = 0
			for (i = 1; i <= nk; i++) b += v[ks[i]] - p[ks[i]]
			m++; A[m] = v[key] - p[key]; B[m] = b; sa += A[m]; sb += B[m]
		}
		for (k in v) p[k] = v[k]
	}
	END {
		if (m < 1 || sb <= 0) exit
		r = sa / sb
		for (i = 1; i <= m; i++) { d = A[i] - r * B[i]; ss += d * d }
		printf "%.2f %.2f\n", 100 * r, m < 2 ? 0 : 100 * sq(ss / (m * (m - 1))) / (sb / m)
	}' "$_log"
}
# guest_split LOG KIND N KEY KEYS...: the share alone
guest_split() {
	guest_split_stats "$@" | cut -d' ' -f1
}
# reports LOG KIND: how many "tg: KIND" reports the guest has written
reports() {
	grep -c "tg: $2 " "$1"
}
# next_report LOG KIND: wait (up to 5 s) for the guest's next report, so
# its counters cover the whole profile
next_report() {
	_a=$(reports "$1" "$2")
	for _i in 1 2 3 4 5 6 7 8 9 10; do
		sleep 0.5
		[ "$(reports "$1" "$2")" -gt "$_a" ] && return 0
	done
	return 1
}

# The split, within its tolerance of the time each part took by the
# guest's clock (50/35/15 by work), and whole stacks in >= 99% of samples.
# check_split LABEL FOLDED GUEST_LOG N0 (N0: reports before the profile)
check_split() {
	label=$1 folded=$2 glog=$3 n0=$4
	if [ ! -s "$folded" ]; then
		not_ok "$label: profile written" "no folded profile at $folded"
		return
	fi
	ok "$label: profile written ($(stat "$folded" samples) samples)"
	n=$(distinct "$folded" "${folded%.folded}.json")
	for pair in tg_chain_10:chain_t tg_hot_35:hot35_t tg_hot_15:hot15_t; do
		fn=${pair%:*} key=${pair#*:}
		st=$(guest_split_stats "$glog" work $((n0 + 1)) $key chain_t hot35_t hot15_t)
		want=${st% *} cse=${st#* }
		got=$(stat "$folded" leaf "$fn")
		tol=$(tolerance "${want:-50}" "$n" "$cse")
		if within "$got" "${want:--100}" "$tol"; then
			ok "$label: $fn share ${got}%, ${want}% of the time by the guest's clock (+-$tol, $n samples, clock's own error $cse)"
		else
			not_ok "$label: $fn share ${got:-0}%, ${want:-?}% of the time by the guest's clock (+-$tol, $n samples, clock's own error ${cse:-?})" \
				"$(sort -t' ' -k2 -nr "$folded" | head -n 5)"
		fi
	done
	c=$(stat "$folded" complete)
	if within "$c" 100 1; then
		ok "$label: ${c}% of samples have the whole chain from the entry point"
	else
		not_ok "$label: ${c:-0}% of samples have the whole chain (need >= 99%)" \
			"$(head -n 8 "$folded")"
	fi
}

# check_two_vcpus LABEL STEM GUEST_LOG N0: a profile of the two-vCPU guest
# (vCPU 0 the known split, vCPU 1 its tg_ap_* chain at 80/20): vCPU 1 has
# half the stacks (one per vCPU a sample), each leaf its share of its own
# vCPU by the guest's clock, and every chain is whole from its vCPU's entry.
check_two_vcpus() {
	_lb=$1 _f=$2.folded _glog=$3 _n0=$4
	_v1=$(stat $_f vcpu1)
	check "$_lb: vCPU 1 has ${_v1:-0}% of the stacks (expected 50 +-2)" within "${_v1:-0}" 50 2
	_n=$(json_num $2.json samples)
	for _pair in tg_chain_10:chain_t tg_hot_35:hot35_t tg_hot_15:hot15_t tg_ap_leaf_80:ap80_t tg_ap_leaf_20:ap20_t; do
		_fn=${_pair%:*} _key=${_pair#*:}
		case $_key in
		ap*) _keys="ap80_t ap20_t" ;;
		*) _keys="chain_t hot35_t hot15_t" ;;
		esac
		_st=$(guest_split_stats $_glog work $((_n0 + 1)) $_key $_keys)
		_want=${_st% *} _cse=${_st#* }
		_got=$(stat $_f leaf $_fn)
		_tol=$(tolerance "${_want:-50}" "$_n" "$_cse")
		check "$_lb: $_fn ${_got:-0}% of its vCPU, ${_want:-?}% of its time by the guest's clock (+-$_tol, $_n samples, clock's own error ${_cse:-?})" \
			within "${_got:-}" "${_want:--100}" "$_tol"
	done
	_c=$(stat $_f complete)
	check "$_lb: ${_c:-0}% whole chains, from each vCPU's entry point" within "${_c:-0}" 100 1
}

# check_signals PREFIX DOMAIN WAIT MIN: SIGINT and SIGTERM WAIT seconds into
# a run end it with exit 0, a profile of more than MIN samples, the stop
# reason said, and the domain running.
check_signals() {
	for _sig in INT TERM; do
		xl-profile $2 -f 200 -o $OUT/sig-$_sig > $OUT/sig.stdout 2> $OUT/sig.stderr &
		_pid=$!
		sleep $3
		kill -$_sig $_pid
		wait $_pid
		_rc=$?
		check "${1}SIG$_sig: xl-profile exits 0" [ $_rc -eq 0 ]
		[ $_rc -eq 0 ] || tap "# stderr: $(cat $OUT/sig.stderr)"
		_n=$(stat $OUT/sig-$_sig.folded samples)
		check "${1}SIG$_sig: profile written with samples (${_n:-0})" [ "${_n:-0}" -gt $4 ]
		check "${1}SIG$_sig: stop reason reported" grep -q "stopped: stopped by signal" $OUT/sig-$_sig.txt
		check "${1}SIG$_sig: domain running afterwards" not_paused $2
	done
}

# check_sigkill PREFIX DOMAIN TIMES: SIGKILL cannot be caught; the crash
# guard's watchdog must unpause, every time, at 1000 Hz.
check_sigkill() {
	_paused=0
	for _i in $(seq 1 $3); do
		xl-profile $2 -f 1000 -q -o $OUT/kill > /dev/null 2>&1 &
		_pid=$!
		sleep 2
		kill -KILL $_pid
		wait $_pid 2>/dev/null
		sleep 1
		if ! not_paused $2; then
			_paused=$((_paused + 1))
			xl unpause $2 2>/dev/null
		fi
	done
	check "${1}SIGKILL x$3 at 1000 Hz: domain never left paused ($_paused times)" [ $_paused -eq 0 ]
}
