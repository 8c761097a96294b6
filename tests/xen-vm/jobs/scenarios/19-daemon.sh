# daemon: uniprofd, the host daemon (jobs/daemon.sh): pull, push, safety.
section "uniprofd, the host daemon"
# --- uniprofd, the host daemon (jobs/daemon.sh): pull, push, safety.
. /uniprof/jobs/daemon.sh
daemon_scenarios
