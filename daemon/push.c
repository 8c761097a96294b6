/* Push to Pyroscope (see push.h). */
#include "config.h"

#include <curl/curl.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "profile_run.h"
#include "push.h"
#include "request.h"

struct item {
	struct item *next;
	char name[512];            /* the series name */
	long long from, until;
	double hz;
	unsigned char *pprof;
	size_t len;
};

struct collector {
	struct collector *next;
	struct upd_push *push;
	struct upd_domain dom;
	pthread_t thread;
	bool done;
};

struct upd_push {
	struct upd_push_config c;
	struct upd_domains *domains;
	struct upd_symbol_cache *cache;
	struct upd_budget *budget;
	volatile sig_atomic_t *stop;
	pthread_mutex_t lock;
	pthread_cond_t wake;        /* queue grew, or stopping */
	pthread_t manager, sender;
	bool stopping;
	struct item *head, **tail;
	struct collector *collectors;
	struct upd_push_stats st;
};

int upd_push_selected(const char *globs, const char *name)
{
	char pat[256];
	const char *p = globs;

	while (p && *p) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);

		while (n && *p == ' ')
			p++, n--;
		while (n && p[n - 1] == ' ')
			n--;
		if (n && n < sizeof(pat)) {
			memcpy(pat, p, n);
			pat[n] = '\0';
			if (fnmatch(pat, name, 0) == 0)
				return 1;
		}
		p = comma ? comma + 1 : NULL;
	}
	return 0;
}

int upd_push_series_name(char *buf, size_t len, const char *host,
			 const char *domain, const char *build_id)
{
	int n = snprintf(buf, len, "xen.domain{host=%s,domain=%s,kernel_build_id=%s}",
			 host, domain, build_id);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

static void item_free(struct item *it)
{
	free(it->pprof);
	free(it);
}

/* Callers hold p->lock. */
static void drop_head(struct upd_push *p)
{
	struct item *it = p->head;

	p->head = it->next;
	if (!p->head)
		p->tail = &p->head;
	p->st.queued--;
	p->st.queued_bytes -= it->len;
	item_free(it);
}

static void enqueue(struct upd_push *p, struct item *it)
{
	pthread_mutex_lock(&p->lock);
	while (p->head && (p->st.queued + 1 > p->c.queue_max ||
			   p->st.queued_bytes + it->len > p->c.queue_bytes)) {
		drop_head(p);
		if (!p->st.dropped_full++ || p->st.dropped_full % 100 == 0)
			upd_log("push: queue full (%zu profiles, %zu bytes): dropped the oldest; %llu dropped so far",
				p->st.queued + 1, p->st.queued_bytes + it->len,
				(unsigned long long)p->st.dropped_full);
	}
	*p->tail = it;
	p->tail = &it->next;
	p->st.queued++;
	p->st.queued_bytes += it->len;
	p->st.made++;
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->lock);
}

/* Sleep up to s seconds, or until stopping. Callers hold p->lock. */
static void wait_locked(struct upd_push *p, double s)
{
	struct timespec until;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += (time_t)s;
	until.tv_nsec += (long)((s - floor(s)) * 1e9);
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	while (!p->stopping &&
	       pthread_cond_timedwait(&p->wake, &p->lock, &until) != ETIMEDOUT)
		;
}

static void *collect(void *arg)
{
	struct collector *c = arg;
	struct upd_push *p = c->push;
	/* Open and guarded from one period to the next: the next profile
	 * starts as soon as the last one is written. */
	struct up_target *kept = NULL;
	struct timespec last_end = { 0 };
	bool have_last = false;

	upd_log("push: profiling %s every %u s", c->dom.name, p->c.period_s);
	while (!*p->stop && upd_domains_alive(p->domains, c->dom.domid)) {
		double scale = upd_budget_scale(p->budget);
		struct upd_run_params rp = {
			.dom = &c->dom, .hz = fmax(0.1, p->c.hz * scale), .hz_asked = p->c.hz,
			.seconds = p->c.period_s, .consistency = p->c.consistency,
			.max_stall_pct = p->c.max_stall_pct,
			.budget_hz = upd_domains_budget_hz(p->domains, c->dom.domid),
			.stop = p->stop, .keep = &kept,
		};
		struct upd_run_note note;
		struct upd_run_result r;
		struct item *it;

		if (upd_profile_run(p->cache, &rp, &r) < 0) {
			upd_log("push: %s: %s", c->dom.name, r.error);
			pthread_mutex_lock(&p->lock);
			snprintf(p->st.last_error, sizeof(p->st.last_error), "%s: %s",
				 c->dom.name, r.error);
			wait_locked(p, p->c.period_s);
			pthread_mutex_unlock(&p->lock);
			continue;
		}
		upd_run_note_of(&rp, scale, &r, &note);
		if (have_last)
			note.uncovered_ms = fmax(0, (double)(r.started.tv_sec - last_end.tv_sec) * 1e3 +
						    (double)(r.started.tv_nsec - last_end.tv_nsec) / 1e6);
		have_last = true;
		last_end = r.ended;
		upd_domains_note_run(p->domains, c->dom.domid, &note);
		it = calloc(1, sizeof(*it));
		if (!it || upd_push_series_name(it->name, sizeof(it->name), p->c.host,
						 c->dom.name, r.build_id) < 0) {
			free(it);
			upd_run_result_free(&r);
			continue;
		}
		it->from = r.started.tv_sec;
		it->until = r.ended.tv_sec + (r.ended.tv_nsec > 0);
		it->hz = rp.hz;
		it->pprof = r.pprof;
		it->len = r.len;
		enqueue(p, it);
		if (r.stop == UP_STOP_GONE || r.stop == UP_STOP_SHUTDOWN)
			break;
	}
	up_target_close(kept);
	upd_domains_set_pushing(p->domains, c->dom.domid, false);
	pthread_mutex_lock(&p->lock);
	c->done = true;
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* Start collectors for new selected domains; join the finished ones. */
static void *manage(void *arg)
{
	struct upd_push *p = arg;

	pthread_mutex_lock(&p->lock);
	while (!p->stopping) {
		struct upd_domain *list = NULL;
		size_t n = 0;

		for (struct collector **cp = &p->collectors; *cp;) {
			struct collector *c = *cp;

			if (!c->done) {
				cp = &c->next;
				continue;
			}
			*cp = c->next;
			pthread_mutex_unlock(&p->lock);
			pthread_join(c->thread, NULL);
			upd_domain_free(&c->dom);
			free(c);
			pthread_mutex_lock(&p->lock);
			p->st.collectors--;
		}
		pthread_mutex_unlock(&p->lock);
		upd_domains_list(p->domains, &list, &n);
		pthread_mutex_lock(&p->lock);
		for (size_t i = 0; i < n && !p->stopping; i++) {
			struct collector *c;
			bool have = false;

			if (list[i].shutdown || !upd_domain_name_valid(list[i].name) ||
			    !upd_push_selected(p->c.domains, list[i].name))
				continue;
			for (c = p->collectors; c && !have; c = c->next)
				have = c->dom.domid == list[i].domid;
			if (have || !(c = calloc(1, sizeof(*c))))
				continue;
			c->push = p;
			c->dom = list[i];
			list[i].kernel = NULL;     /* moved */
			upd_domains_set_pushing(p->domains, c->dom.domid, true);
			if (pthread_create(&c->thread, NULL, collect, c) != 0) {
				upd_log("push: cannot start a collector for %s", c->dom.name);
				upd_domain_free(&c->dom);
				free(c);
				continue;
			}
			c->next = p->collectors;
			p->collectors = c;
			p->st.collectors++;
		}
		pthread_mutex_unlock(&p->lock);
		upd_domains_free_list(list, n);
		pthread_mutex_lock(&p->lock);
		wait_locked(p, 1);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static size_t discard(char *ptr, size_t size, size_t n, void *arg)
{
	(void)ptr;
	(void)arg;
	return size * n;
}

/* One POST. Returns the HTTP status, or 0 with err set when there was no
 * answer. */
static long post(CURL *curl, const struct upd_push *p, const struct item *it,
		 char *err, size_t errlen)
{
	char *name = curl_easy_escape(curl, it->name, 0), *url = NULL;
	char cerr[CURL_ERROR_SIZE] = "";
	struct curl_slist *headers = NULL;
	curl_mime *mime = curl_mime_init(curl);
	curl_mimepart *part = mime ? curl_mime_addpart(mime) : NULL;
	long status = 0;
	CURLcode rc;

	if (!name || !part ||
	    asprintf(&url, "%s/ingest?name=%s&from=%lld&until=%lld&format=pprof&sampleRate=%g&spyName=uniprof&units=samples&aggregationType=sum",
		     p->c.url, name, it->from, it->until, it->hz) < 0) {
		snprintf(err, errlen, "out of memory");
		url = NULL;
		goto out;
	}
	/* Pyroscope's pprof ingestion: a multipart form, the profile in the
	 * "profile" part (as its Go client sends it). */
	curl_mime_name(part, "profile");
	curl_mime_filename(part, "profile.pprof");
	curl_mime_type(part, "application/octet-stream");
	curl_mime_data(part, (const char *)it->pprof, it->len);
	if (p->c.auth_header)
		headers = curl_slist_append(NULL, p->c.auth_header);
	curl_easy_reset(curl);
	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_MIMEPOST, mime);
	curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, cerr);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 5L);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT, 30L);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
	rc = curl_easy_perform(curl);
	if (rc == CURLE_OK)
		curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
	else
		snprintf(err, errlen, "%s", cerr[0] ? cerr : curl_easy_strerror(rc));
	if (status && (status < 200 || status > 299))
		snprintf(err, errlen, "the server answered HTTP %ld", status);
out:
	curl_mime_free(mime);
	curl_slist_free_all(headers);
	curl_free(name);
	free(url);
	return status;
}

static void *send_loop(void *arg)
{
	struct upd_push *p = arg;
	CURL *curl = curl_easy_init();
	double backoff = 0;
	struct timespec last_try;

	clock_gettime(CLOCK_MONOTONIC, &last_try);
	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct item *it;
		char err[256] = "";
		long status;

		while (!p->stopping && !p->head)
			pthread_cond_wait(&p->wake, &p->lock);
		if (p->stopping || !p->head || !curl)
			break;
		it = p->head;
		/* Only the sender removes the head, so it stays ours while
		 * the lock is dropped; enqueue only appends, or drops the head
		 * beyond the limit, which it must not do to one in flight:
		 * that is why the head is unlinked for the post. */
		p->head = it->next;
		if (!p->head)
			p->tail = &p->head;
		p->st.queued--;
		p->st.queued_bytes -= it->len;
		pthread_mutex_unlock(&p->lock);
		status = post(curl, p, it, err, sizeof(err));
		pthread_mutex_lock(&p->lock);
		if (status >= 200 && status <= 299) {
			p->st.sent++;
			if (backoff > 0)
				upd_log("push: %s reachable again; %zu profiles queued",
					p->c.url, p->st.queued);
			backoff = 0;
			item_free(it);
		} else if (status >= 400 && status <= 499 && status != 408 && status != 429) {
			p->st.dropped_rejected++;
			snprintf(p->st.last_error, sizeof(p->st.last_error), "%s", err);
			upd_log("push: %s refused a profile of %s: %s (dropped, not retried)",
				p->c.url, it->name, err);
			item_free(it);
		} else {
			/* Back at the head, unless the queue filled meanwhile. */
			p->st.failed++;
			snprintf(p->st.last_error, sizeof(p->st.last_error), "%s", err);
			if (backoff == 0)
				upd_log("push: cannot send to %s: %s; retrying with backoff, sampling goes on",
					p->c.url, err);
			backoff = backoff == 0 ? 1 : fmin(backoff * 2, p->c.max_backoff_s);
			if (p->st.queued + 1 > p->c.queue_max ||
			    p->st.queued_bytes + it->len > p->c.queue_bytes) {
				p->st.dropped_full++;
				item_free(it);
			} else {
				it->next = p->head;
				p->head = it;
				if (!it->next)
					p->tail = &it->next;
				p->st.queued++;
				p->st.queued_bytes += it->len;
			}
			p->st.backoff_s = (unsigned)backoff;
			wait_locked(p, backoff);
		}
		p->st.backoff_s = (unsigned)backoff;
	}
	pthread_mutex_unlock(&p->lock);
	if (curl)
		curl_easy_cleanup(curl);
	return NULL;
}

int upd_push_start(struct upd_push **out, const struct upd_push_config *c,
		   struct upd_domains *domains, struct upd_symbol_cache *cache,
		   struct upd_budget *budget, volatile sig_atomic_t *stop)
{
	struct upd_push *p = calloc(1, sizeof(*p));
	pthread_condattr_t ca;

	*out = NULL;
	if (!p)
		return -1;
	p->c = *c;
	p->domains = domains;
	p->cache = cache;
	p->budget = budget;
	p->stop = stop;
	p->tail = &p->head;
	pthread_mutex_init(&p->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->wake, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&p->sender, NULL, send_loop, p) != 0) {
		free(p);
		return -1;
	}
	if (pthread_create(&p->manager, NULL, manage, p) != 0) {
		pthread_mutex_lock(&p->lock);
		p->stopping = true;
		pthread_cond_broadcast(&p->wake);
		pthread_mutex_unlock(&p->lock);
		pthread_join(p->sender, NULL);
		free(p);
		return -1;
	}
	*out = p;
	return 0;
}

/* At exit: what is queued gets one more try each, for a few seconds. */
static void flush_at_exit(struct upd_push *p)
{
	CURL *curl = curl_easy_init();
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (p->head) {
		char err[256];
		long status = 0;

		clock_gettime(CLOCK_MONOTONIC, &t);
		if (curl && t.tv_sec - t0.tv_sec < 5)
			status = post(curl, p, p->head, err, sizeof(err));
		if (status >= 200 && status <= 299)
			p->st.sent++;
		else
			p->st.dropped_at_exit++;
		drop_head(p);
	}
	if (curl)
		curl_easy_cleanup(curl);
}

void upd_push_stop(struct upd_push *p)
{
	if (!p)
		return;
	/* Collectors see *stop (set by the caller) and end their profile. */
	pthread_mutex_lock(&p->lock);
	p->stopping = true;
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->manager, NULL);
	pthread_join(p->sender, NULL);
	while (p->collectors) {
		struct collector *c = p->collectors;

		p->collectors = c->next;
		pthread_join(c->thread, NULL);
		upd_domain_free(&c->dom);
		free(c);
	}
	flush_at_exit(p);
	if (p->st.sent || p->st.dropped_at_exit)
		upd_log("push: %llu profiles sent in all, %llu left unsent at exit",
			(unsigned long long)p->st.sent, (unsigned long long)p->st.dropped_at_exit);
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

void upd_push_get_stats(struct upd_push *p, struct upd_push_stats *out)
{
	pthread_mutex_lock(&p->lock);
	*out = p->st;
	pthread_mutex_unlock(&p->lock);
}
