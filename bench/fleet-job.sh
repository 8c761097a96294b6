# Sourced by the overhead benchmark's job in dom0: uniprofd at its
# defaults (push every 10 s at 19 Hz, CPU budget 10%) over 1, 4, 16 and
# 64 test domains (FLEET_SIZES) sharing pCPU 1, 8 MiB each. Per fleet
# size: the daemon's own CPU in dom0 (its threads, from /proc) over 30 s
# of steady pushing, divided by the samples it took meanwhile (/status),
# against the floor's CPU per sample paced at 19 Hz on one of the
# fleet's domains right after (uniprof-floor, Xen's interfaces only);
# the daemon's crash guards' CPU; its resident memory per
# domain; each domain's paused share of its last profile (/domains).

FLEET_RECV=$UNIPROF_TOOLS/uniprof-ingest-receiver

# cpu_ticks PID: user + system clock ticks of a process, all its threads
cpu_ticks() { awk '{ print $14 + $15 }' /proc/$1/stat; }
# min_faults PID: its minor page faults so far (a fresh page costs a PV
# dom0 about 100 us under emulation: docs/BENCHMARKS.md)
min_faults() { awk '{ sub(/.*\) /, ""); print $8 }' /proc/$1/stat; }

# child_ticks PID: the same, summed over the process's living children:
# the daemon's crash guards (uniprof-guard, one per domain it profiles),
# whose CPU is the daemon's cost too but not in its own /proc figures.
# (Fields counted after the name's closing parenthesis: a name may hold
# spaces.)
child_ticks() {
	awk -v p=$1 '{ sub(/.*\) /, "") } $2 == p { t += $12 + $13; n++ }
		END { print (CHILDREN ? n : t) + 0 }' CHILDREN=${2:-} /proc/[0-9]*/stat 2>/dev/null
}

# fleet_window N BUILD: uniprofd over the running fleet of N domains, its
# figures over 30 s of steady pushing left in $_line. BUILD "after" is the
# installed daemon; "before" the build given to the bench as
# FLEET_BEFORE_BUILD (/bench/before: its daemon, library and guard),
# measured in the same minutes on the same fleet.
fleet_window() {
	_n=$1 _b=$2
	if [ $_b = before ]; then
		# No stall budget (max_stall 100): this measures the daemon's own
		# CPU budget at the rates it scales, not the guests' budget.
		LD_LIBRARY_PATH=/bench/before UNIPROF_GUARD=/bench/before/uniprof-guard \
			/bench/before/uniprofd --push-url http://127.0.0.1:4041 --push-domains 'fl-*' --host bench \
			--port 9190 --max-stall 100 > $OUT/fleet-$_n-$_b.log 2>&1 &
	else
		uniprofd --push-url http://127.0.0.1:4041 --push-domains 'fl-*' --host bench \
			--port 9190 --max-stall 100 > $OUT/fleet-$_n-$_b.log 2>&1 &
	fi
	_pid=$!
	# It serves once it has read every domain's configuration
	# (seconds at 64 under emulation); then the first period loads
	# the symbols once: measure after it.
	_w=0
	while [ $_w -lt 300 ] && ! wget -q -O /dev/null http://127.0.0.1:9190/status 2>/dev/null; do
		sleep 1
		_w=$((_w + 1))
	done
	put "fleet serving domains=$_n build=$_b after_s=$_w"
	sleep 14
	_s0=$(fleet_samples) _t0=$(uptime_ms) _c0=$(cpu_ticks $_pid) _g0=$(child_ticks $_pid) _f0=$(min_faults $_pid)
	sleep 30
	_t1=$(uptime_ms) _c1=$(cpu_ticks $_pid) _g1=$(child_ticks $_pid) _s1=$(fleet_samples) _f1=$(min_faults $_pid)
	_guards=$(child_ticks $_pid count)
	_rss=$(awk '/^VmRSS:/ { print $2 }' /proc/$_pid/status)
	wget -q -O $OUT/fleet-$_n-$_b.domains http://127.0.0.1:9190/domains
	wget -q -O $OUT/fleet-$_n-$_b.status http://127.0.0.1:9190/status
	_paused=$(awk '/"paused_pct"/ { v = $2; sub(/,/, "", v); s += v; n++; if (v > m) m = v }
		END { if (n) printf "mean=%.3f max=%.3f n=%d", s / n, m, n; else print "mean=? max=? n=0" }' \
		$OUT/fleet-$_n-$_b.domains)
	# Each domain's last profile: its set-up and its writing (ms),
	# the fixed costs of a period that its samples share.
	_fixed=$(awk '/"setup_ms"|"write_ms"/ { k = $1; gsub(/[":]/, "", k); v = $2; sub(/,/, "", v); s[k] += v; n[k]++ }
		END { printf "setup_ms_mean=%.1f write_ms_mean=%.1f", n["setup_ms"] ? s["setup_ms"] / n["setup_ms"] : -1,
			n["write_ms"] ? s["write_ms"] / n["write_ms"] : -1 }' $OUT/fleet-$_n-$_b.domains)
	_sent=$(sed -n 's/.*"sent": \([0-9]*\).*/\1/p' $OUT/fleet-$_n-$_b.status)
	_drop=$(sed -n 's/.*"dropped_queue_full": \([0-9]*\).*/\1/p' $OUT/fleet-$_n-$_b.status)
	_scale=$(sed -n 's/.*"rate_scale": \([0-9.]*\).*/\1/p' $OUT/fleet-$_n-$_b.status)
	kill -TERM $_pid
	wait $_pid
	_line="domains=$_n build=$_b window_ms=$((_t1 - _t0)) cpu_pct=$(awk -v c=$((_c1 - _c0)) -v t=$((_t1 - _t0)) 'BEGIN { printf "%.2f", c * 10 * 100 / t }') samples=$((_s1 - _s0)) cpu_us_per_sample=$(awk -v c=$((_c1 - _c0)) -v s=$((_s1 - _s0)) 'BEGIN { if (s > 0) printf "%.1f", c * 10000 / s; else print "?" }') guard_cpu_pct=$(awk -v c=$((_g1 - _g0)) -v t=$((_t1 - _t0)) 'BEGIN { printf "%.2f", c * 10 * 100 / t }') guards=$_guards minflt=$((_f1 - _f0)) rss_kib=${_rss:-?} rss_kib_per_domain=$(awk -v r=${_rss:-0} -v b=${FLEET_RSS0:-0} -v n=$_n 'BEGIN { printf "%.0f", (r - b) / n }') paused_pct_$(echo $_paused | sed 's/ / paused_pct_/') $_fixed sent=${_sent:-?} dropped=${_drop:-?} rate_scale=${_scale:-?}"
}

fleet_phase() {
	_n=$1 _i=1 _ok=1
	while [ $_i -le $_n ]; do
		create_guest fl-$_i tg-pv-fp "$PIN" 'memory=8' || { put "error fleet $_n: fl-$_i did not start"; _ok=0; }
		_i=$((_i + 1))
	done
	if [ $_ok = 1 ]; then
		_lines=
		if [ -x /bench/before/uniprofd ]; then
			fleet_window $_n before
			_lines=$_line
		fi
		fleet_window $_n after
		# The floor's CPU per sample in the same minutes, on one domain
		# of this fleet while the others run: the emulator's speed
		# drifts by tens of per cent over a boot, so the ratio is taken
		# against this, not the floor measured at the start.
		_floor=$($UNIPROF_TOOLS/uniprof-floor $(xl domid fl-1) -f 19 -n 200 2>&1 | tail -n 1 |
			sed -n 's/.*cpu_us=\([0-9.]*\).*/\1/p')
		[ -z "$_lines" ] || put "fleet $_lines floor_cpu_us=${_floor:-?}"
		put "fleet $_line floor_cpu_us=${_floor:-?}"
	fi
	_i=1
	while [ $_i -le $_n ]; do
		stop_guest fl-$_i
		_i=$((_i + 1))
	done
}

# fleet_samples: the samples the daemon has taken since it started.
fleet_samples() {
	wget -q -O - http://127.0.0.1:9190/status | sed -n 's/.*"samples_taken": *\([0-9]*\).*/\1/p'
}

# fleet_floor: the floor's CPU per sample, paced at the daemon's 19 Hz,
# on one domain of the fleet's kind; and the daemon's resident memory
# with no domain, the base of its memory per domain.
fleet_floor() {
	create_guest fl-floor tg-pv-fp "$PIN" 'memory=8' || { put "error fleet: the floor's guest did not start"; return; }
	put "fleet floor $($UNIPROF_TOOLS/uniprof-floor $(xl domid fl-floor) -f 19 -n 400 2>&1 | tail -n 1)"
	# Start-up in dom0 with the generated 100,000-function images, the
	# symbols alone and with DWARF (run-overhead.sh puts them in /bench).
	for _img in big-symbols big-lines; do
		[ -f /bench/$_img.elf ] || continue
		xl profile fl-floor -s /bench/$_img.elf --force-symbols -d 1 -F json -o $OUT/su-$_img -q \
			> $OUT/su-$_img.err 2>&1 ||
			{ put "error startup $_img: $(head -n 1 $OUT/su-$_img.err)"; continue; }
		put "fleet startup_$_img setup_ms=$(json_num $OUT/su-$_img setup_ms) rss_kib=$(json_num $OUT/su-$_img peak_rss_kib) functions=$(json_num $OUT/su-$_img functions)"
	done
	stop_guest fl-floor
	# The daemon with nothing to push: its resident memory, and the CPU
	# its own threads take (domain list, HTTP, budget) over 20 s.
	uniprofd --push-url http://127.0.0.1:4041 --push-domains 'none-*' --host bench \
		--port 9190 > $OUT/fleet-0.log 2>&1 &
	_pid=$!
	sleep 5
	_t0=$(uptime_ms) _c0=$(cpu_ticks $_pid)
	sleep 20
	_t1=$(uptime_ms) _c1=$(cpu_ticks $_pid)
	FLEET_RSS0=$(awk '/^VmRSS:/ { print $2 }' /proc/$_pid/status)
	FLEET_IDLE_PCT=$(awk -v c=$((_c1 - _c0)) -v t=$((_t1 - _t0)) 'BEGIN { printf "%.2f", c * 10 * 100 / t }')
	kill -TERM $_pid
	wait $_pid
	put "fleet base rss_kib=${FLEET_RSS0:-?} cpu_pct=${FLEET_IDLE_PCT:-?}"
}

fleet_bench() {
	"$FLEET_RECV" --port 4041 --log $OUT/fleet-ingest.log &
	_recv=$!
	fleet_floor
	for _n in ${FLEET_SIZES:-1 4 16 64}; do
		fleet_phase $_n
	done
	kill $_recv
	wait $_recv
}
