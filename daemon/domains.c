/* The followed domain list (see domains.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <xenstore.h>

#include "toolkit/domain.h"
#include "domains.h"
#include "log.h"

#define MAX_DOMAINS 4096
/* Without xenstore's watches, or while a domain's configuration cannot
 * be read yet (libxl still creating it), the list is read every second;
 * with them, only when xenstore says a domain came or went, and every
 * RESYNC_MS in case a watch event was lost (xenstored restarted). Each
 * read is a libxl domain list: milliseconds of an idle daemon's CPU in
 * an emulated dom0, every second. */
#define RETRY_MS 1000
#define RESYNC_MS 30000

struct upd_domains {
	pthread_mutex_t lock;
	pthread_t thread;
	bool stopping;
	struct xs_handle *xs; /* watching @introduceDomain/@releaseDomain */
	int stop_pipe[2];     /* wakes the thread out of its poll */
	struct upd_domain *dom;
	size_t n;
};

void upd_domain_free(struct upd_domain *dom)
{
	free(dom->kernel);
	dom->kernel = NULL;
}

static int copy_domain(struct upd_domain *to, const struct upd_domain *from)
{
	*to = *from;
	to->kernel = NULL;
	if (from->kernel && !(to->kernel = strdup(from->kernel)))
		return -1;
	return 0;
}

static struct upd_domain *find_id(struct upd_domains *d, uint32_t domid)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->dom[i].domid == domid)
			return &d->dom[i];
	return NULL;
}

/* One look at libxl: new domains added (their configuration read once),
 * gone ones removed, shutdown states updated. libxl is called outside
 * the lock, by this thread only. Returns how many domains are listed
 * whose configuration could not be read (to be read again soon), or -1
 * when libxl could not list them. */
static int refresh(struct upd_domains *d)
{
	struct tk_domain_state *now;
	size_t n;
	int unread = 0;

	if (tk_domain_list(&now, &n) < 0)
		return -1;
	for (size_t i = 0; i < n && i < MAX_DOMAINS; i++) {
		struct tk_domain x;
		struct upd_domain nd = { 0 };
		bool known;

		pthread_mutex_lock(&d->lock);
		known = find_id(d, now[i].domid) != NULL;
		if (known)
			find_id(d, now[i].domid)->shutdown = now[i].shutdown;
		pthread_mutex_unlock(&d->lock);
		if (known)
			continue;
		if (tk_domain_by_id(now[i].domid, &x) < 0) {
			unread++;
			continue;
		}
		nd.domid = x.domid;
		snprintf(nd.name, sizeof(nd.name), "%s", x.name ? x.name : "");
		snprintf(nd.type, sizeof(nd.type), "%s", x.type);
		nd.vcpus = x.max_vcpus;
		nd.shutdown = x.shutdown;
		nd.kernel = x.kernel;
		nd.last_paused_pct = nd.last_pause_mean_us = nd.last_hz = -1;
		x.kernel = NULL;
		/* A name we could not ask for is still listed, by id. */
		if (!x.name || strlen(x.name) > UPD_DOMAIN_NAME_MAX)
			snprintf(nd.name, sizeof(nd.name), "domain%u", x.domid);
		tk_domain_release(&x);
		pthread_mutex_lock(&d->lock);
		if (d->n < MAX_DOMAINS) {
			d->dom[d->n++] = nd;
			upd_log("domain %s (id %u, %s) appeared", nd.name, nd.domid, nd.type);
		} else
			upd_domain_free(&nd);
		pthread_mutex_unlock(&d->lock);
	}
	pthread_mutex_lock(&d->lock);
	for (size_t i = 0; i < d->n;) {
		bool present = false;

		for (size_t j = 0; j < n && !present; j++)
			present = now[j].domid == d->dom[i].domid;
		if (present) {
			i++;
			continue;
		}
		upd_log("domain %s (id %u) is gone", d->dom[i].name, d->dom[i].domid);
		upd_domain_free(&d->dom[i]);
		d->dom[i] = d->dom[--d->n];
	}
	pthread_mutex_unlock(&d->lock);
	free(now);
	return unread;
}

/* Watches xenstore's own events for a domain introduced, and for one
 * shut down or destroyed (both fire @releaseDomain). Without them (no
 * xenstored connection) the list is polled every second as before. */
static void watch_start(struct upd_domains *d)
{
	d->xs = xs_open(0);
	if (d->xs && xs_watch(d->xs, "@introduceDomain", "domains") &&
	    xs_watch(d->xs, "@releaseDomain", "domains") && xs_fileno(d->xs) >= 0)
		return;
	upd_log("cannot watch xenstore for domains coming and going (%s): listing them every second",
		strerror(errno));
	if (d->xs)
		xs_close(d->xs);
	d->xs = NULL;
}

/* Sleeps until a watch fires, the stop, or ms pass. Each watch's events
 * are drained: one list read answers any number of them. A watch whose
 * descriptor wakes the thread with no event to read (its connection to
 * xenstored lost) is given up for the poll a second, rather than waking
 * it for ever. */
static void wait_events(struct upd_domains *d, int ms)
{
	struct pollfd p[2] = {
		{ .fd = d->stop_pipe[0], .events = POLLIN },
		{ .fd = d->xs ? xs_fileno(d->xs) : -1, .events = POLLIN },
	};
	unsigned events = 0;
	char **ev;

	if (poll(p, 2, ms) <= 0 || !p[1].revents)
		return;
	errno = 0;
	while ((ev = xs_check_watch(d->xs))) {
		free(ev);
		events++;
	}
	if (events || (errno == EAGAIN && !(p[1].revents & (POLLERR | POLLHUP | POLLNVAL))))
		return;
	upd_log("lost xenstore's watch for domains coming and going (%s): listing them every second",
		errno ? strerror(errno) : "no event to read");
	xs_close(d->xs);
	d->xs = NULL;
}

static bool stopping(struct upd_domains *d)
{
	bool stop;

	pthread_mutex_lock(&d->lock);
	stop = d->stopping;
	pthread_mutex_unlock(&d->lock);
	return stop;
}

static void *follow(void *arg)
{
	struct upd_domains *d = arg;
	bool failing = false;
	int unread = 0;

	while (!stopping(d)) {
		wait_events(d, d->xs && !failing && !unread ? RESYNC_MS : RETRY_MS);
		if (stopping(d))
			break;
		unread = refresh(d);
		if (unread < 0 && !failing)
			upd_log("cannot list domains through libxl; retrying every second");
		failing = unread < 0;
		if (failing)
			unread = 0;
	}
	return NULL;
}

int upd_domains_start(struct upd_domains **out)
{
	struct upd_domains *d = calloc(1, sizeof(*d));
	int rc;

	*out = NULL;
	if (!d || !(d->dom = calloc(MAX_DOMAINS, sizeof(*d->dom)))) {
		free(d);
		upd_log("out of memory");
		return -1;
	}
	pthread_mutex_init(&d->lock, NULL);
	if (pipe2(d->stop_pipe, O_CLOEXEC) < 0) {
		upd_log("cannot make a pipe: %s", strerror(errno));
		d->stop_pipe[0] = d->stop_pipe[1] = -1;
		upd_domains_stop(d);
		return -1;
	}
	rc = tk_libxl_open();
	if (rc == 0) {
		/* Watched before the first list, so no domain falls between. */
		watch_start(d);
		rc = refresh(d);
	}
	if (rc < 0) {
		upd_log("cannot list domains through libxl: run as root in dom0 with xenstored running");
		upd_domains_stop(d);
		return -1;
	}
	if (pthread_create(&d->thread, NULL, follow, d) != 0) {
		upd_log("cannot start the domain list thread");
		upd_domains_stop(d);
		return -1;
	}
	*out = d;
	return 0;
}

void upd_domains_stop(struct upd_domains *d)
{
	if (!d)
		return;
	pthread_mutex_lock(&d->lock);
	d->stopping = true;
	pthread_mutex_unlock(&d->lock);
	if (d->stop_pipe[1] >= 0 && write(d->stop_pipe[1], "s", 1) < 0)
		upd_log("cannot wake the domain list thread: %s", strerror(errno));
	if (d->thread)
		pthread_join(d->thread, NULL);
	for (size_t i = 0; i < d->n; i++)
		upd_domain_free(&d->dom[i]);
	free(d->dom);
	if (d->xs)
		xs_close(d->xs);
	if (d->stop_pipe[0] >= 0) {
		close(d->stop_pipe[0]);
		close(d->stop_pipe[1]);
	}
	pthread_mutex_destroy(&d->lock);
	tk_libxl_close();
	free(d);
}

void upd_domains_free_list(struct upd_domain *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		upd_domain_free(&list[i]);
	free(list);
}

int upd_domains_list(struct upd_domains *d, struct upd_domain **out, size_t *n)
{
	int rc = 0;

	pthread_mutex_lock(&d->lock);
	*n = 0;
	*out = calloc(d->n + 1, sizeof(**out));
	for (size_t i = 0; *out && i < d->n; i++) {
		if (copy_domain(&(*out)[i], &d->dom[i]) < 0) {
			rc = -1;
			break;
		}
		(*n)++;
	}
	if (!*out)
		rc = -1;
	pthread_mutex_unlock(&d->lock);
	if (rc < 0) {
		upd_domains_free_list(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

int upd_domains_claim_pull(struct upd_domains *d, const char *name,
			   struct upd_domain *out)
{
	int rc = -1;

	pthread_mutex_lock(&d->lock);
	for (size_t i = 0; i < d->n; i++) {
		if (strcmp(d->dom[i].name, name) != 0)
			continue;
		if (d->dom[i].pulling)
			rc = -2;
		else if (copy_domain(out, &d->dom[i]) == 0) {
			d->dom[i].pulling = true;
			rc = 0;
		}
		break;
	}
	pthread_mutex_unlock(&d->lock);
	return rc;
}

void upd_domains_release_pull(struct upd_domains *d, uint32_t domid)
{
	struct upd_domain *x;

	pthread_mutex_lock(&d->lock);
	if ((x = find_id(d, domid)))
		x->pulling = false;
	pthread_mutex_unlock(&d->lock);
}

int upd_domains_set_pushing(struct upd_domains *d, uint32_t domid, bool on)
{
	struct upd_domain *x;

	pthread_mutex_lock(&d->lock);
	if ((x = find_id(d, domid)))
		x->pushing = on;
	pthread_mutex_unlock(&d->lock);
	return x ? 0 : -1;
}

void upd_domains_note_run(struct upd_domains *d, uint32_t domid,
			  const struct upd_run_note *n)
{
	struct upd_domain *x;

	pthread_mutex_lock(&d->lock);
	if ((x = find_id(d, domid))) {
		x->last_paused_pct = n->paused_pct;
		x->last_pause_mean_us = n->pause_mean_us;
		x->last_hz = n->hz;
		x->last = *n;
		x->profiles++;
	}
	pthread_mutex_unlock(&d->lock);
}

double upd_domains_budget_hz(struct upd_domains *d, uint32_t domid)
{
	struct upd_domain *x;
	double hz = 0;

	pthread_mutex_lock(&d->lock);
	if ((x = find_id(d, domid)) && x->profiles && x->last.stall_factor > 1)
		hz = x->last.hz_final;
	pthread_mutex_unlock(&d->lock);
	return hz;
}

bool upd_domains_alive(struct upd_domains *d, uint32_t domid)
{
	bool alive;

	pthread_mutex_lock(&d->lock);
	alive = find_id(d, domid) != NULL;
	pthread_mutex_unlock(&d->lock);
	return alive;
}
