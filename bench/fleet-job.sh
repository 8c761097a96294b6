# Sourced by the overhead benchmark's job in dom0: uniprofd at its
# defaults (push every 10 s at 19 Hz, CPU budget 10%) over 1, 4 and 16
# test domains sharing pCPU 1. Per fleet size: the daemon's own CPU in
# dom0 (its threads, from /proc) over 30 s of steady pushing, and each
# domain's paused share of its last profile (/domains).

FLEET_RECV=$UNIPROF_LIBEXEC/uniprof-ingest-receiver

# cpu_ticks PID: user + system clock ticks of a process, all its threads
cpu_ticks() { awk '{ print $14 + $15 }' /proc/$1/stat; }

fleet_phase() {
	_n=$1 _i=1 _ok=1
	while [ $_i -le $_n ]; do
		create_guest fl-$_i tg-pv-fp "$PIN" || { put "error fleet $_n: fl-$_i did not start"; _ok=0; }
		_i=$((_i + 1))
	done
	if [ $_ok = 1 ]; then
		# No stall budget (max_stall 100): this measures the daemon's own
		# CPU budget at the rates it scales, not the guests' budget.
		uniprofd --push-url http://127.0.0.1:4041 --push-domains 'fl-*' --host bench \
			--port 9190 --max-stall 100 > $OUT/fleet-$_n.log 2>&1 &
		_pid=$!
		# The first period loads the symbols once; measure after it.
		sleep 14
		_t0=$(uptime_ms) _c0=$(cpu_ticks $_pid)
		sleep 30
		_t1=$(uptime_ms) _c1=$(cpu_ticks $_pid)
		wget -q -O $OUT/fleet-$_n.domains http://127.0.0.1:9190/domains
		wget -q -O $OUT/fleet-$_n.status http://127.0.0.1:9190/status
		_paused=$(awk '/"paused_pct"/ { v = $2; sub(/,/, "", v); s += v; n++; if (v > m) m = v }
			END { if (n) printf "mean=%.3f max=%.3f n=%d", s / n, m, n; else print "mean=? max=? n=0" }' \
			$OUT/fleet-$_n.domains)
		_sent=$(sed -n 's/.*"sent": \([0-9]*\).*/\1/p' $OUT/fleet-$_n.status)
		_drop=$(sed -n 's/.*"dropped_queue_full": \([0-9]*\).*/\1/p' $OUT/fleet-$_n.status)
		_scale=$(sed -n 's/.*"rate_scale": \([0-9.]*\).*/\1/p' $OUT/fleet-$_n.status)
		put "fleet domains=$_n cpu_pct=$(awk -v c=$((_c1 - _c0)) -v t=$((_t1 - _t0)) 'BEGIN { printf "%.2f", c * 10 * 100 / t }') paused_pct_$(echo $_paused | sed 's/ / paused_pct_/') sent=${_sent:-?} dropped=${_drop:-?} rate_scale=${_scale:-?}"
		kill -TERM $_pid
		wait $_pid
	fi
	_i=1
	while [ $_i -le $_n ]; do
		stop_guest fl-$_i
		_i=$((_i + 1))
	done
}

fleet_bench() {
	"$FLEET_RECV" --port 4041 --log $OUT/fleet-ingest.log &
	_recv=$!
	for _n in 1 4 16; do
		fleet_phase $_n
	done
	kill $_recv
	wait $_recv
}
