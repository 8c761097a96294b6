/* One profile of one domain, in memory: open the domain, take its
 * build's symbols from the cache, guard it (never left paused), sample
 * for the given time, unpause and close, then write the gzip'ed pprof to
 * a buffer. Used by pull requests and the push loop alike; many may run
 * at once, on different domains. */
#ifndef UPD_PROFILE_RUN_H
#define UPD_PROFILE_RUN_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "domains.h"
#include "symbol_cache.h"

struct upd_run_params {
	const struct upd_domain *dom;
	double hz;                 /* after the CPU budget's scaling */
	double hz_asked;           /* before it (reported) */
	unsigned seconds;
	enum up_consistency consistency;
	volatile sig_atomic_t *stop;   /* daemon shutdown */
};

struct upd_run_result {
	unsigned char *pprof;      /* gzip'ed profile.proto, malloc'ed */
	size_t len;
	struct timespec started, ended;   /* wall clock */
	double elapsed_s;
	uint64_t samples;
	enum up_stop_reason stop;
	char build_id[129];        /* the kernel's, "" if none */
	double paused_pct;         /* of the run, the domain stood paused by us */
	double pause_mean_us;
	char error[400];           /* one line when the run failed */
};

/* Returns 0 with a profile (possibly cut short: result->stop says why;
 * whatever was sampled is in it), or -1 with result->error. */
int upd_profile_run(struct upd_symbol_cache *cache, const struct upd_run_params *p,
		    struct upd_run_result *result);
void upd_run_result_free(struct upd_run_result *r);

#endif
