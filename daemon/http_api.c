/* The HTTP endpoints over libmicrohttpd (see http_api.h). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "http_api.h"
#include "log.h"
#include "uniprof/text.h"

#define MAX_ARGS 16
/* What a client sent, as the log shows it: escaped, at most this long. */
#define LOGGED_MAX 200
/* A connection idle this long (between requests, or not reading its
 * answer) is closed. */
#define IDLE_TIMEOUT_S 30

/* A connection waiting for a request's headers: closed at its deadline
 * by the watchdog, whatever trickles in (MHD's timeout is an idle one,
 * which a byte every few seconds resets). fd is our duplicate of the
 * socket: shutdown() on it reaches the connection, and it cannot be
 * another socket by then, since we close it only when MHD is done. */
struct watch {
	struct watch *next, **prev;
	int fd;
	bool armed;
	struct timespec deadline;
	char from[64];
};

struct upd_http {
	struct MHD_Daemon *mhd;
	struct upd_http_config c;
	struct upd_endpoints b;
	unsigned port;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t watchdog;
	bool watchdog_started, stopping;
	struct watch *watches;
};

struct args {
	const char *keys[MAX_ARGS], *values[MAX_ARGS];
	size_t n;
	bool too_many;
};

static enum MHD_Result collect_arg(void *cls, enum MHD_ValueKind kind,
				   const char *key, const char *value)
{
	struct args *a = cls;

	(void)kind;
	if (a->n == MAX_ARGS) {
		a->too_many = true;
		return MHD_NO;
	}
	a->keys[a->n] = key;
	a->values[a->n++] = value;
	return MHD_YES;
}

static enum MHD_Result send_buf(struct MHD_Connection *conn, unsigned status,
				const char *type, void *buf, size_t len,
				enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, buf, mode);
	enum MHD_Result rc;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	if (status == 401)
		MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
					"Bearer realm=\"uniprofd\"");
	if (status == 405)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET");
	if (strcmp(type, "application/octet-stream") == 0)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_DISPOSITION,
					"attachment; filename=\"profile\"");
	rc = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return rc;
}

/* One line of plain text: every error answer. */
static enum MHD_Result send_line(struct MHD_Connection *conn, unsigned status,
				 const char *line)
{
	char buf[512];
	int n = snprintf(buf, sizeof(buf), "%s\n", line);

	if (n < 0)
		return MHD_NO;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	return send_buf(conn, status, "text/plain; charset=utf-8", buf, (size_t)n,
			MHD_RESPMEM_MUST_COPY);
}

/* Equal in time whatever the request holds: no timing oracle on the
 * token (the time depends on the token's length only). */
static bool same_secret(const char *given, const char *token)
{
	size_t lg = strlen(given), lt = strlen(token);
	unsigned char d = lg != lt;

	for (size_t i = 0; i < lt; i++)
		d |= (unsigned char)((i < lg ? given[i] : 0) ^ token[i]);
	return d == 0;
}

/* RFC 7235: the scheme is case-insensitive, one or more spaces follow. */
static bool authorized(struct upd_http *h, struct MHD_Connection *conn)
{
	const char *v;

	if (!h->c.token)
		return true;
	v = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	if (!v || strncasecmp(v, "Bearer ", 7) != 0)
		return false;
	v += 7;
	while (*v == ' ')
		v++;
	return same_secret(v, h->c.token);
}

static void peer_of(const struct sockaddr *sa, char *buf, size_t len)
{
	snprintf(buf, len, "?");
	if (sa && sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, buf, (socklen_t)len);
	else if (sa && sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, buf, (socklen_t)len);
}

static const char *peer(struct MHD_Connection *conn, char *buf, size_t len)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);

	peer_of(ci ? ci->client_addr : NULL, buf, len);
	return buf;
}

/* What a client sent, fit for the log: no control character, newline,
 * bidi control or byte that is not UTF-8 reaches the journal or the
 * admin's terminal raw, and it is bounded. */
static const char *logged(const char *s, char buf[LOGGED_MAX])
{
	up_text_escape(buf, LOGGED_MAX, s, strlen(s));
	return buf;
}

static enum MHD_Result serve_json(struct MHD_Connection *conn,
				  int (*fn)(void *, char **, size_t *), void *ctx)
{
	char *buf = NULL;
	size_t len = 0;

	if (fn(ctx, &buf, &len) < 0) {
		free(buf);
		return send_line(conn, 500, "out of memory");
	}
	return send_buf(conn, 200, "application/json", buf, len, MHD_RESPMEM_MUST_FREE);
}

static enum MHD_Result serve_profile(struct upd_http *h, struct MHD_Connection *conn,
				     const char *from)
{
	struct args a = { .n = 0 };
	struct upd_profile_request rq;
	unsigned char *buf = NULL;
	size_t len = 0;
	char msg[448];
	enum upd_outcome o;

	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, collect_arg, &a);
	if (a.too_many)
		return send_line(conn, 400, "too many parameters: this endpoint takes domain, seconds and hz");
	if (upd_request_parse(&h->c.bounds, a.keys, a.values, a.n, &rq, msg, sizeof(msg)) < 0) {
		char m[LOGGED_MAX];

		upd_log("pull from %s: 400 %s", from, logged(msg, m));
		return send_line(conn, 400, msg);
	}
	msg[0] = '\0';
	o = h->b.profile(h->b.ctx, &rq, &buf, &len, msg, sizeof(msg));
	if (o != UPD_OK) {
		free(buf);
		upd_log("pull %s (%u s at %g Hz) from %s: %d %s", rq.domain, rq.seconds, rq.hz,
			from, (int)o, msg);
		return send_line(conn, (unsigned)o, msg[0] ? msg : "cannot profile");
	}
	upd_log("pull %s (%u s at %g Hz) from %s: 200, %zu bytes%s%s", rq.domain, rq.seconds,
		rq.hz, from, len, msg[0] ? "; " : "", msg);
	return send_buf(conn, 200, "application/octet-stream", buf, len, MHD_RESPMEM_MUST_FREE);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
			      const char *method, const char *version,
			      const char *upload, size_t *upload_size, void **state)
{
	struct upd_http *h = cls;
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct watch *w = ci ? ci->socket_context : NULL;
	char from[64], m[LOGGED_MAX], u[LOGGED_MAX];

	(void)version;
	(void)upload;
	(void)state;
	/* The headers are in: no deadline while the request is served. */
	if (w) {
		pthread_mutex_lock(&h->lock);
		w->armed = false;
		pthread_mutex_unlock(&h->lock);
	}
	/* Answered on the first call, with the headers: a request body is
	 * never read (MHD discards it). */
	*upload_size = 0;
	peer(conn, from, sizeof(from));
	if (!authorized(h, conn)) {
		upd_log("%s %s from %s: 401 (no or wrong bearer token)", logged(method, m),
			logged(url, u), from);
		return send_line(conn, 401, "unauthorized: send 'Authorization: Bearer TOKEN' (the daemon's token_file)");
	}
	if (strcmp(method, "GET") != 0)
		return send_line(conn, 405, "method not allowed: GET only");
	if (strcmp(url, "/debug/pprof/profile") == 0)
		return serve_profile(h, conn, from);
	if (strcmp(url, "/domains") == 0)
		return serve_json(conn, h->b.domains_json, h->b.ctx);
	if (strcmp(url, "/status") == 0)
		return serve_json(conn, h->b.status_json, h->b.ctx);
	return send_line(conn, 404, "not found: try /debug/pprof/profile?domain=NAME&seconds=N, /domains or /status");
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char buf[512];
	size_t n;

	(void)cls;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	n = strlen(buf);
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	upd_log("http: %s", buf);
}

static void arm(struct upd_http *h, struct watch *w)
{
	clock_gettime(CLOCK_MONOTONIC, &w->deadline);
	w->deadline.tv_sec += h->c.header_timeout_s;
	w->armed = true;
	pthread_cond_signal(&h->wake);
}

/* A connection opens (deadline for its first request's headers) or
 * closes (MHD is done with it: our duplicate goes). */
static void on_connection(void *cls, struct MHD_Connection *conn, void **ctx,
			  enum MHD_ConnectionNotificationCode what)
{
	struct upd_http *h = cls;
	struct watch *w = *ctx;

	if (what == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *fd =
			MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);

		w = calloc(1, sizeof(*w));
		if (!w || !fd || (w->fd = fcntl(fd->connect_fd, F_DUPFD_CLOEXEC, 0)) < 0) {
			/* No deadline we can keep: refuse rather than serve without. */
			upd_log("http: cannot watch a new connection: %s", strerror(errno ? errno : ENOMEM));
			free(w);
			if (fd)
				shutdown(fd->connect_fd, SHUT_RDWR);
			return;
		}
		peer(conn, w->from, sizeof(w->from));
		pthread_mutex_lock(&h->lock);
		w->next = h->watches;
		w->prev = &h->watches;
		if (h->watches)
			h->watches->prev = &w->next;
		h->watches = w;
		arm(h, w);
		pthread_mutex_unlock(&h->lock);
		*ctx = w;
		return;
	}
	if (!w)
		return;
	pthread_mutex_lock(&h->lock);
	*w->prev = w->next;
	if (w->next)
		w->next->prev = w->prev;
	pthread_mutex_unlock(&h->lock);
	close(w->fd);
	free(w);
	*ctx = NULL;
}

/* A request answered: the next one on this connection has its deadline. */
static void on_completed(void *cls, struct MHD_Connection *conn, void **state,
			 enum MHD_RequestTerminationCode why)
{
	struct upd_http *h = cls;
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct watch *w = ci ? ci->socket_context : NULL;

	(void)state;
	(void)why;
	if (!w)
		return;
	pthread_mutex_lock(&h->lock);
	arm(h, w);
	pthread_mutex_unlock(&h->lock);
}

static bool before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* Ends the connections past their header deadline; sleeps until the
 * next deadline (or a new connection, or the stop). */
static void *watchdog(void *arg)
{
	struct upd_http *h = arg;

	pthread_mutex_lock(&h->lock);
	while (!h->stopping) {
		struct timespec now, next = { 0, 0 };
		bool any = false;

		clock_gettime(CLOCK_MONOTONIC, &now);
		for (struct watch *w = h->watches; w; w = w->next) {
			if (!w->armed)
				continue;
			if (!before(&now, &w->deadline)) {
				w->armed = false;
				shutdown(w->fd, SHUT_RDWR);
				upd_log("http: %s sent no whole request within %u s: closed",
					w->from, h->c.header_timeout_s);
			} else if (!any || before(&w->deadline, &next)) {
				next = w->deadline;
				any = true;
			}
		}
		if (any)
			pthread_cond_timedwait(&h->wake, &h->lock, &next);
		else
			pthread_cond_wait(&h->wake, &h->lock);
	}
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

static int watchdog_start(struct upd_http *h)
{
	pthread_condattr_t ca;
	int rc;

	pthread_mutex_init(&h->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&h->wake, &ca);
	pthread_condattr_destroy(&ca);
	rc = pthread_create(&h->watchdog, NULL, watchdog, h);
	if (rc) {
		upd_log("cannot start the HTTP header watchdog: %s", strerror(rc));
		return -1;
	}
	h->watchdog_started = true;
	return 0;
}

static void watchdog_stop(struct upd_http *h)
{
	if (h->watchdog_started) {
		pthread_mutex_lock(&h->lock);
		h->stopping = true;
		pthread_cond_signal(&h->wake);
		pthread_mutex_unlock(&h->lock);
		pthread_join(h->watchdog, NULL);
	}
	pthread_cond_destroy(&h->wake);
	pthread_mutex_destroy(&h->lock);
}

int upd_http_start(struct upd_http **out, const struct upd_http_config *c,
		   const struct upd_endpoints *b)
{
	struct upd_http *h = calloc(1, sizeof(*h));
	struct sockaddr_storage ss;
	unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
			 MHD_USE_ERROR_LOG;
	const union MHD_DaemonInfo *di;

	*out = NULL;
	if (!h)
		return -1;
	h->c = *c;
	h->b = *b;
	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, c->listen, &((struct sockaddr_in *)&ss)->sin_addr) == 1) {
		((struct sockaddr_in *)&ss)->sin_family = AF_INET;
		((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)c->port);
	} else if (inet_pton(AF_INET6, c->listen, &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1) {
		((struct sockaddr_in6 *)&ss)->sin6_family = AF_INET6;
		((struct sockaddr_in6 *)&ss)->sin6_port = htons((uint16_t)c->port);
		flags |= MHD_USE_IPv6;
	} else {
		upd_log("listen = %s is not an IP address", c->listen);
		free(h);
		return -1;
	}
	if (c->tls_cert_pem) {
		if (!MHD_is_feature_supported(MHD_FEATURE_TLS)) {
			upd_log("this libmicrohttpd was built without TLS: unset tls_cert and tls_key, or install one with it");
			free(h);
			return -1;
		}
		flags |= MHD_USE_TLS;
	}
	if (watchdog_start(h) < 0) {
		watchdog_stop(h);
		free(h);
		return -1;
	}
	/* The total limit, a per-client one below it (one client's half-open
	 * connections cannot take them all), and the deadlines. */
	h->mhd = MHD_start_daemon(flags, (uint16_t)c->port, NULL, NULL, handle, h,
				  MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
				  MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				  MHD_OPTION_CONNECTION_LIMIT, (unsigned)c->max_connections,
				  MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)c->max_client_connections,
				  MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)IDLE_TIMEOUT_S,
				  MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
				  MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
				  c->tls_cert_pem ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END,
				  c->tls_cert_pem, MHD_OPTION_HTTPS_MEM_KEY, c->tls_key_pem,
				  MHD_OPTION_END);
	if (!h->mhd) {
		upd_log("cannot serve on %s port %u (in use? see the lines above)", c->listen, c->port);
		watchdog_stop(h);
		free(h);
		return -1;
	}
	di = MHD_get_daemon_info(h->mhd, MHD_DAEMON_INFO_BIND_PORT);
	h->port = di ? di->port : c->port;
	*out = h;
	return 0;
}

unsigned upd_http_port(const struct upd_http *h)
{
	return h->port;
}

void upd_http_stop(struct upd_http *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->mhd);   /* every connection closed: no watch left */
	watchdog_stop(h);
	free(h);
}
