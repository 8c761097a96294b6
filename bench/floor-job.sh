# Sourced by the overhead benchmark's job in dom0: uniprof against the
# floor, in the same boot and on the same guest (tg-pv-fp on pCPU 1, dom0
# on pCPU 0). The floor is what any pause-and-walk sampler must spend:
# pause, one vCPU context read, an rbp walk of at most 12 frames over
# cached foreign mappings, unpause, each a bare domctl through libxencall
# (bench/floor.c, uniprof-floor): paced at 97 Hz on absolute deadlines
# with SCHED_FIFO and locked memory ("paced"), and back to back ("warm").
# Beside it, the 2017 uniprof's sampling loop as its default build does it
# (uniprof-floor --style uniprof2017), back to back, and the 2017 uniprof
# itself when the bench was given a build (/bench/uniprof2017).
# FLOOR_ROUNDS short rounds (default 5), each measuring everything once
# for a few seconds: a ratio is taken within a round, never between
# minutes apart, as the emulator's speed drifts; the table gives every
# round's ratio, their median and the worst.

FLOOR_BIN=$UNIPROF_TOOLS/uniprof-floor

# floor_profile LABEL HZ SECONDS [options]: one xl profile run's pause
# p50 and p99, samples and duration, as "k=v" pairs. At the rate asked
# (--max-stall 100: no stall budget), 20000 Hz back to back included: the
# pause is compared with the floor's at the same rate.
floor_profile() {
	_l=$1 _hz=$2 _s=$3
	shift 3
	xl profile ${FLOOR_GUEST:-tg-floor} -f $_hz -d $_s -u fp -F json -o $OUT/$_l -q --max-stall 100 "$@" > $OUT/$_l.err 2>&1 ||
		{ put "error $_l: xl profile failed: $(head -n 1 $OUT/$_l.err)"; return 1; }
	set -- $(pause_of $OUT/$_l)
	echo "p50_us=$1 p99_us=$2 samples=$(json_num $OUT/$_l samples) duration_s=$(json_num $OUT/$_l duration_s) stall_pct=$(json_num $OUT/$_l stall_pct)"
}

# floor_2017_real KIND: the 2017 uniprof itself, if the bench has it; its
# -F/-T make F*T samples however long they take.
floor_2017_real() {
	[ -x /bench/uniprof2017 ] || return 0
	_t0=$(uptime_ms)
	/bench/uniprof2017 -F 3000 -T 1 $OUT/u2017.trace $_id > $OUT/u2017.out 2>&1
	_ms=$(( $(uptime_ms) - _t0 ))
	_n=$(grep -c '^[01]$' $OUT/u2017.trace)
	put "floor $1 r=$_r samples=$_n ms=$_ms sample_us=$(awk -v n=$_n -v ms=$_ms 'BEGIN { if (n) printf "%.1f", ms * 1000 / n }')"
}

floor_bench() {
	create_guest tg-floor tg-pv-fp "$PIN" || { put "error floor: guest did not start"; return; }
	_id=$(xl domid tg-floor)
	_r=1
	while [ $_r -le ${FLOOR_ROUNDS:-5} ]; do
		# Each uniprof run between two of what it is compared with:
		# the table takes their mean, which cancels a drift that is
		# steady over the round.
		put "floor paced r=$_r $($FLOOR_BIN $_id -f 97 -n 582 2>&1 | tail -n 1)"
		put "floor uniprof97 r=$_r $(floor_profile fl-97-$_r 97 6)"
		put "floor relaxed97 r=$_r $(floor_profile fl-r97-$_r 97 6 --consistency relaxed)"
		put "floor paced2 r=$_r $($FLOOR_BIN $_id -f 97 -n 582 2>&1 | tail -n 1)"
		put "floor warm r=$_r $($FLOOR_BIN $_id -w -n 3000 2>&1 | tail -n 1)"
		put "floor u2017 r=$_r $($FLOOR_BIN $_id -n 3000 --style uniprof2017 2>&1 | tail -n 1)"
		floor_2017_real u2017real
		put "floor uniprofmax r=$_r $(floor_profile fl-max-$_r 20000 3)"
		put "floor warm2 r=$_r $($FLOOR_BIN $_id -w -n 3000 2>&1 | tail -n 1)"
		put "floor u2017b r=$_r $($FLOOR_BIN $_id -n 3000 --style uniprof2017 2>&1 | tail -n 1)"
		floor_2017_real u2017realb
		put "floor fused r=$_r $($FLOOR_BIN $_id -w -n 3000 --style fused 2>&1 | tail -n 1)"
		_r=$((_r + 1))
	done
	stop_guest tg-floor
	floor_unpinned
}

# The highest rate again on a guest left to Xen's placement (cpus="all",
# as xl creates one by default): its vCPU may share dom0's pCPU, where
# each unpause can put it back to run ahead of the sampler. Suffix _u.
floor_unpinned() {
	create_guest tg-floor-u tg-pv-fp 'cpus="all"' || { put "error floor: the unpinned guest did not start"; return; }
	_id=$(xl domid tg-floor-u)
	_r=1
	while [ $_r -le ${FLOOR_ROUNDS:-5} ]; do
		put "floor warm_u r=$_r $($FLOOR_BIN $_id -w -n 3000 2>&1 | tail -n 1)"
		put "floor u2017_u r=$_r $($FLOOR_BIN $_id -n 3000 --style uniprof2017 2>&1 | tail -n 1)"
		floor_2017_real u2017real_u
		put "floor uniprofmax_u r=$_r $(FLOOR_GUEST=tg-floor-u floor_profile fl-maxu-$_r 20000 3)"
		put "floor warm2_u r=$_r $($FLOOR_BIN $_id -w -n 3000 2>&1 | tail -n 1)"
		put "floor u2017b_u r=$_r $($FLOOR_BIN $_id -n 3000 --style uniprof2017 2>&1 | tail -n 1)"
		floor_2017_real u2017realb_u
		_r=$((_r + 1))
	done
	stop_guest tg-floor-u
}
