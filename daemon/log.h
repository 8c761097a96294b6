/* The daemon's log: one line per event on stderr, escaped as a terminal
 * would want it and bounded (journald adds the time
 * under systemd; we add it too, for a plain terminal). Thread-safe. */
#ifndef UPD_LOG_H
#define UPD_LOG_H

__attribute__((format(printf, 1, 2)))
void upd_log(const char *fmt, ...);

#endif
