# daemon: uniprofd, the host daemon (jobs/daemon.sh): pull, push, safety.
section "uniprofd, the host daemon"
# --- uniprofd, the host daemon (jobs/daemon.sh): pull, push, safety.
# A build without it (configure --with-daemon found no libmicrohttpd or
# libcurl) skips this.
if command -v uniprofd > /dev/null 2>&1; then
	. /uniprof/jobs/daemon.sh
	daemon_scenarios
else
	ok "uniprofd: not in this build (configure --with-daemon) # SKIP"
fi
