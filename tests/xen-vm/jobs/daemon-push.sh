# uniprofd's push side (part of jobs/daemon.sh): both domains pushed to
# the stand-in for Pyroscope's /ingest every period, the receiver down for
# a while, and off loopback only with a token.
daemon_push() {
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
	# What each domain's last profile cost dom0 around its sampling, and
	# the time before it no profile covered.
	tap "# daemon: last profiles' $(upd_get /domains | tr -d ' \n' | grep -o '"setup_ms":[0-9.]*,"write_ms":[0-9.]*,"uncovered_ms":[0-9.a-z]*' | tr '\n' ' ')"
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
}
