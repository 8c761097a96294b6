/* The host's guest domains as the daemon follows them: a list read from
 * libxl by a thread of its own when xenstore says a domain came or went
 * (every second without xenstore's watches, or while a new domain's
 * configuration is not yet readable; every 30 s in any case),
 * and per domain one pull slot, so a second pull profile of a domain
 * already being profiled is refused (HTTP 429) instead of doubling its
 * pauses. Only this module talks to libxl. */
#ifndef UPD_DOMAINS_H
#define UPD_DOMAINS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "request.h"

/* What a profile of a domain did to its rate: asked (pull's hz= or
 * push_hz), scaled by the daemon's CPU budget (rate_scale, the sampler
 * given hz), then by the domain's stall budget (max_stall_pct: factor
 * at the end and at most, the rate at the end and at the lowest, when
 * it first lowered it, -1: never). */
struct upd_run_note {
	double paused_pct, pause_mean_us;
	double hz_asked, rate_scale, hz;
	double max_stall_pct, hz_final, hz_lowest, lowered_at_s;
	unsigned stall_factor, stall_factor_max;
	/* What the run cost dom0 around its sampling: opening the domain
	 * and loading its symbols, then writing the profile; and, pushed,
	 * the time between the domain's last profile's end and this one's
	 * start, which no profile covers (-1: none before). */
	double setup_ms, write_ms, uncovered_ms;
};

struct upd_domain {
	uint32_t domid;
	char name[UPD_DOMAIN_NAME_MAX + 1];
	char type[8];
	int vcpus;
	char *kernel;         /* configured kernel image, or NULL */
	bool pulling;         /* a pull profile holds it */
	bool pushing;         /* the push loop samples it */
	bool shutdown;        /* shut down or crashed, kept: nothing to sample */
	/* The last profile's cost to the guest (pull or push), for fleet
	 * operators: -1 before the first. */
	double last_paused_pct;   /* of its run, the longest-stalled vCPU */
	double last_pause_mean_us;
	double last_hz;
	struct upd_run_note last; /* the rest of it */
	unsigned long profiles;
};

struct upd_domains;

/* Start following (the first list is read before returning). Returns 0,
 * or -1 after one log line when libxl cannot be used. */
int upd_domains_start(struct upd_domains **out);
void upd_domains_stop(struct upd_domains *d);

/* A copy of the current list (free with upd_domains_free_list). */
int upd_domains_list(struct upd_domains *d, struct upd_domain **out, size_t *n);
void upd_domains_free_list(struct upd_domain *list, size_t n);

/* Take a domain's pull slot by name: 0 with a copy in *out (release it
 * with upd_domains_release), -1 when no such domain, -2 when its slot is
 * taken. */
int upd_domains_claim_pull(struct upd_domains *d, const char *name,
			   struct upd_domain *out);
/* Mark a domain pushed (push loop): 0, or -1 when it is gone. */
int upd_domains_set_pushing(struct upd_domains *d, uint32_t domid, bool on);
void upd_domains_release_pull(struct upd_domains *d, uint32_t domid);
void upd_domain_free(struct upd_domain *dom);

/* Record what a profile of domid cost the guest. */
void upd_domains_note_run(struct upd_domains *d, uint32_t domid,
			  const struct upd_run_note *n);
/* The rate domid's last profile ended at when the stall budget had
 * lowered it; 0 when it had not (or no profile yet). */
double upd_domains_budget_hz(struct upd_domains *d, uint32_t domid);

/* Whether domid is still listed (a pushed domain's collector ends when
 * it is not). */
bool upd_domains_alive(struct upd_domains *d, uint32_t domid);

#endif
