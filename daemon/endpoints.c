/* The daemon's side of the HTTP endpoints (see endpoints.h). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "endpoints.h"
#include "toolkit/json_write.h"
#include "log.h"
#include "profile_run.h"
#include "util/clock.h"

/* A yajl document into a malloc'ed buffer. */
struct doc {
	FILE *f;
	char *buf;
	size_t len;
	yajl_gen g;
};

static int doc_open(struct doc *d)
{
	memset(d, 0, sizeof(*d));
	if (!(d->f = open_memstream(&d->buf, &d->len)))
		return -1;
	if (!(d->g = tk_json_open(d->f))) {
		fclose(d->f);
		free(d->buf);
		return -1;
	}
	return 0;
}

static int doc_close(struct doc *d, char **buf, size_t *len)
{
	yajl_gen_free(d->g);
	if (fclose(d->f) != 0) {
		free(d->buf);
		return -1;
	}
	*buf = d->buf;
	*len = d->len;
	return 0;
}

/* KEY: v, or null when v is negative (never happened, or unknown). */
static void num_or_null(yajl_gen g, const char *key, double v, int decimals)
{
	tk_json_key(g, key);
	if (v >= 0)
		tk_json_num(g, v, decimals);
	else
		yajl_gen_null(g);
}

static int domains_json(void *ctx, char **buf, size_t *len)
{
	struct upd_daemon *dm = ctx;
	struct upd_domain *list;
	size_t n;
	struct doc d;

	if (upd_domains_list(dm->domains, &list, &n) < 0)
		return -1;
	if (doc_open(&d) < 0) {
		upd_domains_free_list(list, n);
		return -1;
	}
	yajl_gen_map_open(d.g);
	tk_json_key(d.g, "domains");
	yajl_gen_array_open(d.g);
	for (size_t i = 0; i < n; i++) {
		yajl_gen_map_open(d.g);
		tk_json_key(d.g, "name");
		tk_json_str(d.g, list[i].name);
		tk_json_key(d.g, "domid");
		yajl_gen_integer(d.g, list[i].domid);
		tk_json_key(d.g, "type");
		tk_json_str(d.g, list[i].type);
		tk_json_key(d.g, "vcpus");
		yajl_gen_integer(d.g, list[i].vcpus);
		tk_json_key(d.g, "kernel");
		tk_json_str(d.g, list[i].kernel);
		tk_json_key(d.g, "state");
		tk_json_str(d.g, list[i].shutdown ? "shutdown" : "running");
		tk_json_key(d.g, "profiling");
		yajl_gen_bool(d.g, list[i].pulling);
		tk_json_key(d.g, "pushed");
		yajl_gen_bool(d.g, list[i].pushing);
		tk_json_key(d.g, "profiles");
		yajl_gen_integer(d.g, (long long)list[i].profiles);
		tk_json_key(d.g, "last_profile");
		if (list[i].profiles) {
			const struct upd_run_note *rn = &list[i].last;

			yajl_gen_map_open(d.g);
			/* The rate asked, the daemon's CPU budget's scale of
			 * it (hz: what the sampler was given), then what the
			 * domain's stall budget made of that. */
			tk_json_key(d.g, "hz_asked");
			tk_json_num(d.g, rn->hz_asked, 2);
			tk_json_key(d.g, "rate_scale");
			tk_json_num(d.g, rn->rate_scale, 3);
			tk_json_key(d.g, "hz");
			tk_json_num(d.g, list[i].last_hz, 2);
			tk_json_key(d.g, "max_stall_pct");
			tk_json_num(d.g, rn->max_stall_pct, 3);
			tk_json_key(d.g, "stall_factor");
			yajl_gen_integer(d.g, rn->stall_factor);
			tk_json_key(d.g, "hz_final");
			tk_json_num(d.g, rn->hz_final, 3);
			tk_json_key(d.g, "hz_lowest");
			tk_json_num(d.g, rn->hz_lowest, 3);
			num_or_null(d.g, "rate_lowered_at_s", rn->lowered_at_s, 3);
			tk_json_key(d.g, "paused_pct");
			tk_json_num(d.g, list[i].last_paused_pct, 3);
			tk_json_key(d.g, "pause_mean_us");
			tk_json_num(d.g, list[i].last_pause_mean_us, 1);
			/* dom0's time around the sampling, and the time no
			 * pushed profile covered before it. */
			tk_json_key(d.g, "setup_ms");
			tk_json_num(d.g, rn->setup_ms, 1);
			tk_json_key(d.g, "write_ms");
			tk_json_num(d.g, rn->write_ms, 1);
			num_or_null(d.g, "uncovered_ms", rn->uncovered_ms, 1);
			yajl_gen_map_close(d.g);
		} else
			yajl_gen_null(d.g);
		yajl_gen_map_close(d.g);
	}
	yajl_gen_array_close(d.g);
	yajl_gen_map_close(d.g);
	upd_domains_free_list(list, n);
	return doc_close(&d, buf, len);
}

static int status_json(void *ctx, char **buf, size_t *len)
{
	struct upd_daemon *dm = ctx;
	struct doc d;

	if (doc_open(&d) < 0)
		return -1;
	yajl_gen_map_open(d.g);
	tk_json_key(d.g, "version");
	tk_json_str(d.g, up_version());
	tk_json_key(d.g, "uptime_s");
	tk_json_num(d.g, (double)mono_ns() / 1e9 - dm->started, 0);
	tk_json_key(d.g, "cpu_budget_pct");
	tk_json_num(d.g, upd_budget_pct(dm->budget), 1);
	tk_json_key(d.g, "cpu_used_pct");
	tk_json_num(d.g, upd_budget_used_pct(dm->budget), 2);
	tk_json_key(d.g, "rate_scale");
	tk_json_num(d.g, upd_budget_scale(dm->budget), 3);
	/* Each domain's own stall budget (its rate: /domains). */
	tk_json_key(d.g, "max_stall_pct");
	tk_json_num(d.g, dm->settings->max_stall_pct, 3);
	tk_json_key(d.g, "samples_taken");
	yajl_gen_integer(d.g, (long long)upd_samples_taken());
	tk_json_key(d.g, "symbol_loads");
	yajl_gen_integer(d.g, (long long)upd_symbol_cache_loads(dm->cache));
	tk_json_key(d.g, "push");
	if (dm->push) {
		struct upd_push_stats st;

		upd_push_get_stats(dm->push, &st);
		yajl_gen_map_open(d.g);
		tk_json_key(d.g, "url");
		tk_json_str(d.g, dm->settings->push_url);
		tk_json_key(d.g, "period_s");
		yajl_gen_integer(d.g, dm->settings->push_period_s);
		tk_json_key(d.g, "hz");
		tk_json_num(d.g, dm->settings->push_hz, 2);
		tk_json_key(d.g, "domains_pushed");
		yajl_gen_integer(d.g, st.collectors);
		tk_json_key(d.g, "profiles_made");
		yajl_gen_integer(d.g, (long long)st.made);
		tk_json_key(d.g, "sent");
		yajl_gen_integer(d.g, (long long)st.sent);
		tk_json_key(d.g, "failed_attempts");
		yajl_gen_integer(d.g, (long long)st.failed);
		tk_json_key(d.g, "dropped_queue_full");
		yajl_gen_integer(d.g, (long long)st.dropped_full);
		tk_json_key(d.g, "dropped_rejected");
		yajl_gen_integer(d.g, (long long)st.dropped_rejected);
		tk_json_key(d.g, "queued");
		yajl_gen_integer(d.g, (long long)st.queued);
		tk_json_key(d.g, "queued_bytes");
		yajl_gen_integer(d.g, (long long)st.queued_bytes);
		tk_json_key(d.g, "backoff_s");
		yajl_gen_integer(d.g, st.backoff_s);
		tk_json_key(d.g, "last_error");
		tk_json_str(d.g, st.last_error[0] ? st.last_error : NULL);
		yajl_gen_map_close(d.g);
	} else
		yajl_gen_null(d.g);
	yajl_gen_map_close(d.g);
	return doc_close(&d, buf, len);
}

static enum upd_outcome profile(void *ctx, const struct upd_profile_request *rq,
				unsigned char **buf, size_t *len, char *msg, size_t msglen)
{
	struct upd_daemon *dm = ctx;
	struct upd_domain dom;
	struct upd_run_result r;
	double scale = upd_budget_scale(dm->budget);
	struct upd_run_params p = {
		.dom = &dom, .hz = fmax(0.1, rq->hz * scale), .hz_asked = rq->hz,
		.seconds = rq->seconds, .consistency = dm->settings->consistency,
		.max_stall_pct = dm->settings->max_stall_pct, .stop = dm->stop,
	};
	struct upd_run_note note;
	int rc = upd_domains_claim_pull(dm->domains, rq->domain, &dom);

	if (rc == -1) {
		snprintf(msg, msglen, "no domain '%s' on this host (see /domains)", rq->domain);
		return UPD_NOT_FOUND;
	}
	if (rc == -2) {
		snprintf(msg, msglen, "domain '%s' is being profiled by another request: one at a time, try again when it ends",
			 rq->domain);
		return UPD_BUSY;
	}
	p.budget_hz = upd_domains_budget_hz(dm->domains, dom.domid);
	rc = upd_profile_run(dm->cache, &p, &r);
	if (rc == 0) {
		upd_run_note_of(&p, scale, &r, &note);
		upd_domains_note_run(dm->domains, dom.domid, &note);
	}
	upd_domains_release_pull(dm->domains, dom.domid);
	upd_domain_free(&dom);
	if (rc < 0) {
		snprintf(msg, msglen, "%s", r.error);
		return UPD_FAILED;
	}
	*buf = r.pprof;
	*len = r.len;
	snprintf(msg, msglen, "%llu samples, stopped: %s%s%s",
		 (unsigned long long)r.samples, up_stop_reason_name(r.stop),
		 scale < 1 ? ", rate scaled down by the CPU budget" : "",
		 r.stall_factor_max > 1 ? ", rate lowered by the domain's stall budget" : "");
	return UPD_OK;
}

struct upd_endpoints upd_daemon_endpoints(struct upd_daemon *d)
{
	struct upd_endpoints b = {
		.ctx = d, .domains_json = domains_json, .status_json = status_json,
		.profile = profile,
	};

	return b;
}
