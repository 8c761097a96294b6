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
	double max_stall_pct;      /* the domain's stall budget; 100: none */
	/* The rate the domain's last profile ended at when the stall budget
	 * had lowered it (0: it had not): this one starts no faster. */
	double budget_hz;
	volatile sig_atomic_t *stop;   /* daemon shutdown */
	/* NULL: the run opens the domain, guards it and closes it. Else the
	 * domain kept open, with its crash guard, across a series of runs
	 * (the push loop): the run uses *keep when set, else opens it there;
	 * a run that fails or sees the domain go closes it and sets NULL.
	 * The caller closes it at the end (up_target_close). Opening and
	 * guarding cost dom0 a process and several hypercalls per run, and
	 * time between two profiles that no profile covers. */
	struct up_target **keep;
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
	/* The stall budget: the rate the sampler was given (hz), at the end
	 * and at the lowest; its factors; when it first lowered it (-1:
	 * never). */
	double hz_final, hz_lowest, lowered_at_s;
	unsigned stall_factor, stall_factor_max;
	double setup_ms, write_ms;  /* before sampling, and after it */
	char error[400];           /* one line when the run failed */
};

/* Returns 0 with a profile (possibly cut short: result->stop says why;
 * whatever was sampled is in it), or -1 with result->error. */
int upd_profile_run(struct upd_symbol_cache *cache, const struct upd_run_params *p,
		    struct upd_run_result *result);
/* What /domains keeps of a run (domains.h), from its parameters, the CPU
 * budget's scale it started with, and its result. */
void upd_run_note_of(const struct upd_run_params *p, double rate_scale,
		     const struct upd_run_result *r, struct upd_run_note *out);
/* The factor a profile at hz starts at, given the rate the domain's last
 * one ended at under the stall budget (0: none): the smallest whole k
 * with hz / k at most that rate. */
unsigned upd_stall_start(double hz, double budget_hz);
void upd_run_result_free(struct upd_run_result *r);
/* Samples taken by every run since the daemon started. */
uint64_t upd_samples_taken(void);

#endif
