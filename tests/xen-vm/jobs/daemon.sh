# uniprofd on real Xen (sourced by scenarios/19-daemon.sh): two
# test domains profiled by the daemon; pulls as Go's pprof tools make
# them, one at a time per domain (429), bad parameters (400), a domain
# destroyed mid-profile; pushes to a stand-in for Pyroscope's /ingest,
# with the receiver down for a while; loopback by default, a token off it.
# Files for the host's go tool pprof check: daemon-pull.pb.gz and its
# guest split daemon-pull.split.

UPD_PORT=9180
UPD_URL=http://127.0.0.1:$UPD_PORT
RECV_PORT=4040
RECEIVER=/usr/local/libexec/uniprof/uniprof-ingest-receiver

# upd_get PATH [wget options]: the body on stdout, 1 on an HTTP error
upd_get() {
	_p=$1
	shift
	timeout -s KILL 60 wget -q -O - "$@" "$UPD_URL$_p"
}

# upd_status PATH [wget options]: the HTTP status of a GET
upd_status() {
	_p=$1
	shift
	timeout -s KILL 60 wget -S -O /dev/null "$@" "$UPD_URL$_p" 2>&1 |
		sed -n 's/^ *HTTP\/1\.[01] \([0-9]*\).*/\1/p' | tail -n 1
}

# raw_get PATH: the whole answer (status line, headers, body), as nc
# reads it.
raw_get() {
	printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$1" |
		timeout -s KILL 20 nc 127.0.0.1 $UPD_PORT | tr -d '\r'
}

# status_num KEY: a number from the daemon's /status
status_num() {
	upd_get /status | sed -n "s/.*\"$1\": \([0-9.]*\).*/\1/p" | head -n 1
}

# wait_for SECONDS COMMAND...: until the command succeeds
wait_for() {
	_n=$1
	shift
	for _i in $(seq 1 $((_n * 2))); do
		"$@" && return 0
		sleep 0.5
	done
	return 1
}

listed() { upd_get /domains | grep -q "\"name\": \"$1\""; }
# Not listed by a /domains that answered.
not_listed() { _d=$(upd_get /domains) && ! echo "$_d" | grep -q "\"name\": \"$1\""; }
received() { awk -v d="domain=$1" '$1 == "ingest" && $2 == d { n++ } END { print n + 0 }' /tmp/ingest.log 2>/dev/null; }
served() { grep -q "serving" "$1" 2>/dev/null; }
receiver_up() { grep -q "listening" /tmp/ingest.log 2>/dev/null; }
rss_kib() { awk '$1 == "VmRSS:" { print $2 }' /proc/$1/status; }

start_receiver() {
	"$RECEIVER" --port $RECV_PORT --dir /tmp/ingest >> /tmp/ingest.log 2>&1 &
	RECV_PID=$!
	wait_for 10 receiver_up
}

daemon_scenarios() {
	if ! create_guest tg-da tg-pv-fp || ! create_guest tg-db tg-pvh-fp; then
		not_ok "daemon: two test domains started" "$(tail -n 3 /tmp/create-tg-d*.log)"
		stop_guest tg-da
		stop_guest tg-db
		return
	fi
	mkdir -p /tmp/ingest
	: > /tmp/ingest.log
	start_receiver || tap "# the ingest receiver did not start: $(tail -n 2 /tmp/ingest.log)"
	cat > /tmp/uniprofd.conf <<-EOF
	# the test's daemon: pushes every 3 s, a small queue to see drops
	port = $UPD_PORT
	push_url = http://127.0.0.1:$RECV_PORT
	push_period = 3
	push_hz = 19
	push_domains = tg-d*
	push_queue = 4
	push_max_backoff = 2
	# not what is tested here: rates must stay as asked
	cpu_budget = 100
	host = "testhost"
	EOF
	uniprofd --config /tmp/uniprofd.conf > /tmp/uniprofd.log 2>&1 &
	UPD_PID=$!
	if ! wait_for 15 served /tmp/uniprofd.log; then
		not_ok "daemon: uniprofd serves" "$(tail -n 5 /tmp/uniprofd.log)"
		kill $UPD_PID $RECV_PID 2>/dev/null
		stop_guest tg-da
		stop_guest tg-db
		return
	fi
	ok "daemon: uniprofd serves ($(grep -m1 serving /tmp/uniprofd.log | sed 's/.*uniprofd: //'))"

	# Loopback only by default: the listening socket's address.
	bound=$(netstat -ltn 2>/dev/null | awk -v p=":$UPD_PORT" '$4 ~ p"$" { print $4 }')
	if [ "$bound" = "127.0.0.1:$UPD_PORT" ]; then
		ok "daemon: listens on loopback only by default ($bound)"
	else
		not_ok "daemon: listens on loopback only by default" "netstat: ${bound:-nothing on $UPD_PORT}"
	fi
	if wait_for 5 listed tg-da && listed tg-db; then
		ok "daemon: /domains lists both test domains"
	else
		not_ok "daemon: /domains lists both test domains" "$(upd_get /domains | head -n 20)"
	fi

	# A pull, as go tool pprof or Parca's scraper makes it; a second
	# one for the same domain meanwhile gets 429.
	glog=/var/log/xen/console/guest-tg-da.log
	n0=$(reports "$glog" work)
	rm -f $OUT/daemon-pull.pb.gz
	timeout -s KILL 90 wget -q -O $OUT/daemon-pull.pb.gz \
		"$UPD_URL/debug/pprof/profile?domain=tg-da&seconds=20&hz=97" &
	pull=$!
	sleep 3
	st=$(upd_status "/debug/pprof/profile?domain=tg-da&seconds=1")
	if [ "$st" = 429 ]; then
		ok "daemon: a second pull of the same domain meanwhile gets 429"
	else
		not_ok "daemon: a second pull of the same domain meanwhile gets 429" "got: ${st:-no answer}"
	fi
	wait $pull
	rc=$?
	next_report "$glog" work
	if [ $rc -eq 0 ] && [ -s $OUT/daemon-pull.pb.gz ] &&
		xl profile report -F folded $OUT/daemon-pull.pb.gz > $OUT/daemon-pull.folded 2>/tmp/report.err; then
		ok "daemon: the pull returned a pprof profile ($(wc -c < $OUT/daemon-pull.pb.gz) bytes) that xl profile report reads"
		n=$(stat $OUT/daemon-pull.folded samples)
		: > $OUT/daemon-pull.split
		for pair in tg_chain_10:chain_t tg_hot_35:hot35_t tg_hot_15:hot15_t; do
			fn=${pair%:*} key=${pair#*:}
			st=$(guest_split_stats "$glog" work $((n0 + 1)) $key chain_t hot35_t hot15_t)
			want=${st% *} cse=${st#* }
			# The host's go tool pprof check (pull-go.test) judges by the same rule.
			echo "$fn ${want:-?} ${cse:-0}" >> $OUT/daemon-pull.split
			got=$(stat $OUT/daemon-pull.folded leaf "$fn")
			tol=$(tolerance "${want:-50}" "$n" "$cse")
			if within "$got" "${want:--100}" "$tol"; then
				ok "daemon: pulled $fn share ${got}%, ${want}% of the time by the guest's clock (+-$tol, $n samples, clock's own error $cse)"
			else
				not_ok "daemon: pulled $fn share ${got:-0}%, ${want:-?}% by the guest's clock (+-${tol:-?}, ${n:-0} samples, clock's own error ${cse:-?})"
			fi
		done
		c=$(stat $OUT/daemon-pull.folded complete)
		if within "$c" 100 1; then
			ok "daemon: ${c}% of pulled samples have the whole chain"
		else
			not_ok "daemon: ${c:-0}% of pulled samples have the whole chain (need >= 99%)"
		fi
		send_file $OUT/daemon-pull.pb.gz daemon-pull.pb.gz
		send_file $OUT/daemon-pull.split daemon-pull.split
	else
		not_ok "daemon: the pull returned a pprof profile" "wget rc $rc; $(cat /tmp/report.err)" \
			"$(tail -n 5 /tmp/uniprofd.log)"
	fi

	# Bad parameters: 400 and one line saying what is wrong.
	for q in "domain=tg-da&seconds=abc" "domain=tg-da&seconds=100000" "domain=tg-da&hz=-5" \
		"domain=../etc/passwd" "seconds=5" "domain=tg-da&path=/etc/xen" \
		"domain=tg-da&seconds=2&seconds=3"; do
		a=$(raw_get "/debug/pprof/profile?$q")
		status=$(echo "$a" | head -n 1 | awk '{ print $2 }')
		body=$(echo "$a" | awk 'b { print } /^$/ { b = 1 }')
		if [ "$status" = 400 ] && [ "$(echo "$body" | wc -l)" = 1 ] && [ -n "$body" ]; then
			ok "daemon: ?$q gets 400: $body"
		else
			not_ok "daemon: ?$q gets 400 with one line" "$(echo "$a" | head -n 12)"
		fi
	done
	st=$(upd_status "/debug/pprof/profile?domain=tg-nosuch&seconds=1")
	check "daemon: an unknown domain gets 404 (got ${st:-nothing})" [ "$st" = 404 ]
	st=$(upd_status "/nosuch")
	check "daemon: an unknown path gets 404 (got ${st:-nothing})" [ "$st" = 404 ]

	# A domain destroyed in the middle of its profile: what was sampled
	# comes back, the daemon lives on and forgets the domain.
	rm -f /tmp/daemon-gone.pb.gz
	timeout -s KILL 60 wget -q -O /tmp/daemon-gone.pb.gz \
		"$UPD_URL/debug/pprof/profile?domain=tg-db&seconds=20" &
	pull=$!
	sleep 5
	stop_guest tg-db
	wait $pull
	rc=$?
	# The profile's recorded header says why it ended.
	stopped=$(xl profile report /tmp/daemon-gone.pb.gz 2>/dev/null |
		grep -o "stopped: [a-z ]*" | head -n 1)
	gone_n=$(xl profile report -F folded /tmp/daemon-gone.pb.gz 2>/dev/null | awk '{ n += $NF } END { print n + 0 }')
	if [ $rc -eq 0 ] && [ "$stopped" = "stopped: domain destroyed" ] && [ "$gone_n" -gt 0 ]; then
		ok "daemon: a domain destroyed mid-profile: its $gone_n samples so far come back ($stopped)"
	else
		not_ok "daemon: a domain destroyed mid-profile: its samples so far come back" \
			"wget rc $rc, ${stopped:-no stop reason}, ${gone_n:-0} samples" "$(tail -n 5 /tmp/uniprofd.log)"
	fi
	check "daemon: it survives the destroyed domain" kill -0 $UPD_PID
	if wait_for 5 not_listed tg-db; then
		ok "daemon: the destroyed domain is gone from /domains"
	else
		not_ok "daemon: the destroyed domain is gone from /domains" "$(upd_get /domains)"
	fi

	# Push: both domains arrived, labelled, every period; the receiver
	# decoded each body as pprof (it answers 400 otherwise).
	bid=$(cd /debug/.build-id && ls */*.debug | sed 's#/##; s#\.debug$##')
	na=$(received tg-da) nb=$(received tg-db)
	if [ "$na" -ge 3 ] && [ "$nb" -ge 1 ]; then
		ok "daemon: pushed profiles arrived: tg-da $na, tg-db $nb (period 3 s)"
	else
		not_ok "daemon: pushed profiles arrived (tg-da $na, tg-db $nb)" "$(tail -n 5 /tmp/ingest.log)" \
			"$(grep push /tmp/uniprofd.log | tail -n 5)"
	fi
	if grep "^ingest domain=tg-da " /tmp/ingest.log | head -n 1 |
		grep -q "host=testhost build_id=$bid from=[0-9]* until=[0-9]* rate=19 samples=[1-9]"; then
		ok "daemon: labels host, domain, kernel_build_id ($bid) and samples in each push"
	else
		not_ok "daemon: labels host, domain, kernel_build_id and samples in each push" \
			"$(head -n 3 /tmp/ingest.log)"
	fi
	gaps=$(grep "^ingest domain=tg-da " /tmp/ingest.log | sed 's/.* from=\([0-9]*\) .*/\1/' |
		awk 'NR > 1 { d = $1 - p; if (d < 2 || d > 5) bad++ } { p = $1 } END { print bad + 0 }')
	check "daemon: pushes of tg-da follow each other every period (irregular: $gaps)" [ "$gaps" = 0 ]
	if grep -q "^reject" /tmp/ingest.log; then
		not_ok "daemon: the receiver accepted every push" "$(grep '^reject' /tmp/ingest.log | head -n 3)"
	else
		ok "daemon: the receiver accepted every push (query and pprof body checked)"
	fi

	# The receiver down: sampling goes on, the queue stays bounded and
	# drops the oldest with a count; back up, the queue is caught up.
	kill $RECV_PID 2>/dev/null
	wait $RECV_PID 2>/dev/null
	made0=$(status_num profiles_made) rss0=$(rss_kib $UPD_PID)
	sleep 18
	made1=$(status_num profiles_made) failed=$(status_num failed_attempts)
	dropped=$(status_num dropped_queue_full) queued=$(status_num queued) rss1=$(rss_kib $UPD_PID)
	if [ "$((made1 - made0))" -ge 4 ]; then
		ok "daemon: receiver down: sampling goes on ($((made1 - made0)) profiles in 18 s)"
	else
		not_ok "daemon: receiver down: sampling goes on" "$made0 -> $made1 profiles made"
	fi
	if [ "${failed:-0}" -gt 0 ] && [ "${dropped:-0}" -gt 0 ] && [ "${queued:-9}" -le 4 ]; then
		ok "daemon: receiver down: $failed failed attempts, $dropped dropped (counted), $queued queued (bound 4)"
	else
		not_ok "daemon: receiver down: failures and drops counted, queue bounded" \
			"failed ${failed:-?} dropped ${dropped:-?} queued ${queued:-?}" "$(upd_get /status)"
	fi
	if [ $((rss1 - rss0)) -lt 8192 ]; then
		ok "daemon: receiver down: memory bounded (resident ${rss0} -> ${rss1} KiB)"
	else
		not_ok "daemon: receiver down: memory bounded" "resident ${rss0} -> ${rss1} KiB"
	fi
	na=$(received tg-da)
	start_receiver
	if wait_for 15 sh -c "[ \$(grep -c '^ingest domain=tg-da ' /tmp/ingest.log) -ge $((na + 3)) ]"; then
		ok "daemon: receiver back: the queue is caught up ($(( $(received tg-da) - na )) profiles arrived)"
	else
		not_ok "daemon: receiver back: the queue is caught up" "$(upd_get /status)"
	fi

	# Off loopback: no token, no start; with one, requests need it.
	a=$(timeout -s KILL 20 uniprofd --listen 0.0.0.0 --port 9181 2>&1)
	rc=$?
	if [ $rc -eq 2 ] && [ "$(echo "$a" | wc -l)" = 1 ] && echo "$a" | grep -q "off loopback"; then
		ok "daemon: off loopback without a token it refuses to start: $a"
	else
		not_ok "daemon: off loopback without a token it refuses to start" "rc $rc: $a"
	fi
	printf 'tok-%s\n' "0123456789abcdef" > /tmp/upd.token
	chmod 600 /tmp/upd.token
	uniprofd --listen 0.0.0.0 --port 9181 --token-file /tmp/upd.token > /tmp/uniprofd2.log 2>&1 &
	upd2=$!
	if wait_for 15 served /tmp/uniprofd2.log; then
		s_none=$(UPD_URL=http://127.0.0.1:9181 upd_status /domains)
		s_wrong=$(UPD_URL=http://127.0.0.1:9181 upd_status /domains --header "Authorization: Bearer tok-0123456789abcdeX")
		s_right=$(UPD_URL=http://127.0.0.1:9181 upd_status /domains --header "Authorization: Bearer tok-0123456789abcdef")
		if [ "$s_none" = 401 ] && [ "$s_wrong" = 401 ] && [ "$s_right" = 200 ]; then
			ok "daemon: off loopback with a token: none 401, wrong 401, right 200"
		else
			not_ok "daemon: off loopback with a token: none 401, wrong 401, right 200" \
				"got $s_none, $s_wrong, $s_right"
		fi
	else
		not_ok "daemon: off loopback with a token file it starts" "$(tail -n 3 /tmp/uniprofd2.log)"
	fi
	kill $upd2 2>/dev/null
	wait $upd2 2>/dev/null

	# SIGTERM: the daemon ends its profiles and leaves nothing paused.
	kill -TERM $UPD_PID
	if wait_for 30 sh -c "! kill -0 $UPD_PID 2>/dev/null"; then
		wait $UPD_PID
		ok "daemon: SIGTERM stops it (exit $?)"
	else
		not_ok "daemon: SIGTERM stops it" "$(tail -n 5 /tmp/uniprofd.log)"
		kill -KILL $UPD_PID 2>/dev/null
	fi
	check "daemon: tg-da is left running, not paused" not_paused tg-da
	kill $RECV_PID 2>/dev/null
	wait $RECV_PID 2>/dev/null
	send_file /tmp/uniprofd.log daemon.log
	send_file /tmp/ingest.log daemon-ingest.log
	stop_guest tg-da
	stop_guest tg-db
}
