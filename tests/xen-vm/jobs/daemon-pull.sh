# uniprofd's pull side (part of jobs/daemon.sh, which starts the daemon
# and the domains tg-da and tg-db): loopback by default, pulls as Go's
# pprof tools make them, bad parameters, a domain destroyed mid-profile.
daemon_pull() {
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
		# The pull carries each sample's time: its last 10 of 20 s are
		# a range of their own, about half of it.
		xl profile report --from 10 -F folded $OUT/daemon-pull.pb.gz > $OUT/daemon-pull-late.folded 2> /tmp/report-late.err
		m=$(stat $OUT/daemon-pull-late.folded samples)
		check "daemon: the pull carries sample times: its last 10 of 20 s hold ${m:-0} of ${n:-0} samples ($(head -n 1 /tmp/report-late.err))" \
			awk -v m="${m:-0}" -v n="${n:-0}" 'BEGIN { exit !(n > 0 && m > 0.35 * n && m < 0.65 * n) }'
		# Where the domain's rate is reported, both budgets: the
		# daemon's CPU (rate_scale) and the domain's stall (max_stall
		# 100 here: the rate asked kept). The last profile may be the
		# push's (19 Hz) or the pull's (97 Hz).
		upd_get /domains > /tmp/domains.json
		check "daemon: /domains gives the last profile's rate asked, the CPU budget's rate_scale and the stall budget's factor ($(grep -m1 '"hz_asked"' /tmp/domains.json | tr -d ' ,'))" \
			sh -c "grep -Eq '\"hz_asked\": (97|19)\.00' /tmp/domains.json && grep -q '\"rate_scale\": 1.000' /tmp/domains.json &&
				grep -q '\"max_stall_pct\": 100.000' /tmp/domains.json && grep -q '\"stall_factor\": 1,' /tmp/domains.json &&
				grep -q '\"rate_lowered_at_s\": null' /tmp/domains.json"
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
}
