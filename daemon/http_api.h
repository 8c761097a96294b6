/* The daemon's HTTP endpoints, served by libmicrohttpd (a thread per
 * connection, so a profile request may take its seconds):
 *   GET /debug/pprof/profile?domain=NAME&seconds=N&hz=F  gzip'ed pprof
 *   GET /domains                                         JSON list
 *   GET /status                                          JSON counters
 * At most max_connections at once, max_client_connections of them from
 * one address; a request's headers must be in within header_timeout_s
 * of the connection (or of the last answer on it), and an idle
 * connection is closed after 30 s. What a client sent is logged escaped.
 * Bearer token checked first when one is configured (401), then the
 * method (405) and path (404), then the parameters (400, one line). What
 * is done is the endpoints': the daemon's, or a test's stand-in. */
#ifndef UPD_HTTP_API_H
#define UPD_HTTP_API_H

#include <stddef.h>

#include "request.h"

enum upd_outcome {
	UPD_OK = 200,
	UPD_BAD_REQUEST = 400,
	UPD_NOT_FOUND = 404,
	UPD_BUSY = 429,
	UPD_FAILED = 500,
	UPD_UNAVAILABLE = 503,
};

struct upd_endpoints {
	void *ctx;
	/* A JSON document, malloc'ed; -1 when out of memory. */
	int (*domains_json)(void *ctx, char **buf, size_t *len);
	int (*status_json)(void *ctx, char **buf, size_t *len);
	/* The profile (malloc'ed) on UPD_OK, else one line in msg. */
	enum upd_outcome (*profile)(void *ctx, const struct upd_profile_request *rq,
				    unsigned char **buf, size_t *len,
				    char *msg, size_t msglen);
};

struct upd_http_config {
	const char *listen;        /* address literal */
	unsigned port;             /* 0: any free port (tests) */
	const char *token;         /* NULL: none required (loopback) */
	const char *tls_cert_pem, *tls_key_pem;   /* NULL: plain HTTP */
	unsigned max_connections;
	unsigned max_client_connections;   /* from one address */
	unsigned header_timeout_s;         /* for a request's headers, >= 1 */
	struct upd_request_bounds bounds;
};

struct upd_http;

/* Returns 0 serving, or -1 after one log line (address in use, ...). */
int upd_http_start(struct upd_http **out, const struct upd_http_config *c,
		   const struct upd_endpoints *b);
/* The port bound (the one asked, or the one given for 0). */
unsigned upd_http_port(const struct upd_http *h);
/* Stop accepting; waits for requests in progress. */
void upd_http_stop(struct upd_http *h);

#endif
