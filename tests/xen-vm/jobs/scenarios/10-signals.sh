# signals: SIGINT, SIGTERM and SIGKILL never leave the domain paused.
section "Signals"
# --- Signals: SIGINT and SIGTERM end the run with a complete profile and
# the domain unpaused.
g=tg-pv-fp
start_guest $g || not_ok "signals: guest starts"
check_signals "" $g 4 50

section "SIGKILL cannot be caught"
# --- SIGKILL cannot be caught: the crash guard's watchdog must unpause.
check_sigkill "" $g 6
stop_guest $g
