/* What the HTTP endpoints do in the daemon: profiles through the domain
 * list's pull slots and the CPU budget, and the JSON of /domains and
 * /status. */
#ifndef UPD_ENDPOINTS_H
#define UPD_ENDPOINTS_H

#include <signal.h>

#include "cpu_budget.h"
#include "domains.h"
#include "http_api.h"
#include "push.h"
#include "settings.h"
#include "symbol_cache.h"

struct upd_daemon {
	const struct upd_settings *settings;
	struct upd_domains *domains;
	struct upd_symbol_cache *cache;
	struct upd_budget *budget;
	struct upd_push *push;          /* NULL: no push */
	volatile sig_atomic_t *stop;
	double started;                 /* monotonic seconds */
};

/* The endpoints upd_http_start serves, done over d. */
struct upd_endpoints upd_daemon_endpoints(struct upd_daemon *d);

#endif
