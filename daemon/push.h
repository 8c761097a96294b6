/* Push to Pyroscope: every period, each domain whose name matches the
 * selector is profiled at a low rate by a collector thread of its own,
 * and the profile is queued; one sender thread POSTs the queue to the
 * server's /ingest (libcurl), in order, retrying with exponential backoff.
 * Sampling never waits for the network: when the queue is full (count or
 * bytes) the oldest profile is dropped and counted. */
#ifndef UPD_PUSH_H
#define UPD_PUSH_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "cpu_budget.h"
#include "domains.h"
#include "symbol_cache.h"

struct upd_push_config {
	const char *url;            /* the server's base URL */
	const char *host;           /* host label */
	const char *domains;        /* comma-separated globs */
	const char *auth_header;    /* e.g. "Authorization: Bearer ...", or NULL */
	unsigned period_s;
	double hz;
	unsigned queue_max;
	size_t queue_bytes;
	unsigned max_backoff_s;
	enum up_consistency consistency;
	double max_stall_pct;       /* each domain's stall budget; 100: none */
};

struct upd_push_stats {
	uint64_t made;              /* profiles taken */
	uint64_t sent;              /* accepted by the server */
	uint64_t failed;            /* attempts that failed (each retried) */
	uint64_t dropped_full;      /* oldest dropped: queue full */
	uint64_t dropped_rejected;  /* refused by the server (4xx): not retried */
	uint64_t dropped_at_exit;   /* still queued when the daemon stopped */
	size_t queued, queued_bytes;
	unsigned collectors;        /* domains being pushed */
	unsigned backoff_s;         /* current wait after a failure, 0: none */
	char last_error[512];
};

struct upd_push;

int upd_push_start(struct upd_push **out, const struct upd_push_config *c,
		   struct upd_domains *domains, struct upd_symbol_cache *cache,
		   struct upd_budget *budget, volatile sig_atomic_t *stop);
/* After *stop was raised: collectors end their profile (what they
 * sampled is queued), the sender tries the queue once more (a few
 * seconds at most), then everything is freed. */
void upd_push_stop(struct upd_push *p);
void upd_push_get_stats(struct upd_push *p, struct upd_push_stats *out);

/* Whether name matches one of the comma-separated globs. */
int upd_push_selected(const char *globs, const char *name);

/* The series name: xen.domain{host=H,domain=D,kernel_build_id=B}. */
int upd_push_series_name(char *buf, size_t len, const char *host,
			 const char *domain, const char *build_id);

#endif
