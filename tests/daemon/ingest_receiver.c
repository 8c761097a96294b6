/* A stand-in for Grafana Pyroscope's POST /ingest, for uniprofd's tests
 * and for an admin checking a push setup without a Pyroscope at hand.
 * It checks what a Pyroscope would need (the query: name with its labels,
 * from/until, format, sampleRate; the body: a multipart form whose
 * "profile" part, or a raw body, decodes as pprof with uniprof's own
 * reader) and logs one line per push:
 *   ingest domain=D host=H build_id=B from=F until=U rate=R samples=N bytes=L
 * or "reject REASON" (answered 400). --status CODE answers every request
 * that way (a sick server). --dir keeps the bodies. */
#include "config.h"

#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uniprof/uniprof.h"

#define MAX_BODY (16u << 20)

static const char *dir;
static FILE *logf_;
static unsigned forced_status;
static unsigned long seq;

struct upload {
	struct MHD_PostProcessor *pp;
	unsigned char *buf;        /* the profile part, or the raw body */
	size_t len;
	bool multipart, too_big;
};

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status, const char *text)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)text,
								MHD_RESPMEM_MUST_COPY);
	enum MHD_Result rc;

	if (!r)
		return MHD_NO;
	rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

static bool append(struct upload *u, const char *data, size_t n)
{
	unsigned char *p;

	if (u->len + n > MAX_BODY) {
		u->too_big = true;
		return false;
	}
	if (!(p = realloc(u->buf, u->len + n + 1)))
		return false;
	memcpy(p + u->len, data, n);
	u->buf = p;
	u->len += n;
	return true;
}

static enum MHD_Result on_part(void *cls, enum MHD_ValueKind kind, const char *key,
			       const char *filename, const char *type, const char *enc,
			       const char *data, uint64_t off, size_t size)
{
	(void)kind; (void)filename; (void)type; (void)enc; (void)off;
	if (strcmp(key, "profile") != 0 || size == 0)
		return MHD_YES;
	return append(cls, data, size) ? MHD_YES : MHD_NO;
}

/* The series name: xen.domain{host=H,domain=D,kernel_build_id=B}. */
static bool split_name(const char *name, char *host, char *dom, char *bid, size_t len)
{
	char fmt[80];
	int end = 0;

	if (strncmp(name, "xen.domain{host=", 16) != 0 || strlen(name) > 3 * len)
		return false;
	snprintf(fmt, sizeof(fmt), "xen.domain{host=%%%zu[^,{}=],domain=%%%zu[^,{}=],kernel_build_id=%%n",
		 len - 1, len - 1);
	bid[0] = '\0';
	if (sscanf(name, fmt, host, dom, &end) != 2 || !end)
		return false;
	name += end;
	size_t n = strspn(name, "0123456789abcdef");

	if (n >= len || strcmp(name + n, "}") != 0)
		return false;
	memcpy(bid, name, n);
	bid[n] = '\0';
	return true;
}

static bool number(const char *s, bool decimal, double *out)
{
	char *end;

	if (!s || !*s || strspn(s, decimal ? "0123456789." : "0123456789") != strlen(s))
		return false;
	errno = 0;
	*out = strtod(s, &end);
	return !errno && !*end;
}

/* The body in a file of its own: uniprof's reader takes it from there as
 * from any stored profile (gunzipped, within its caps). */
static int spill(const struct upload *u, char *path, size_t len)
{
	int fd;

	snprintf(path, len, "%s/ingest-XXXXXX", dir ? dir : "/tmp");
	if ((fd = mkstemp(path)) < 0)
		return -1;
	if (write(fd, u->buf, u->len) != (ssize_t)u->len) {
		close(fd);
		unlink(path);
		return -1;
	}
	return close(fd);
}

static enum MHD_Result reject(struct MHD_Connection *c, const char *why)
{
	char line[256];

	fprintf(logf_, "reject %s\n", why);
	fflush(logf_);
	snprintf(line, sizeof(line), "%s\n", why);
	return answer(c, MHD_HTTP_BAD_REQUEST, line);
}

/* The whole request is in: check it. */
static enum MHD_Result finish(struct MHD_Connection *c, struct upload *u)
{
	const char *name = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "name");
	const char *from = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "from");
	const char *until = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "until");
	const char *format = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "format");
	const char *rate = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "sampleRate");
	char host[128], dom[128], bid[130];
	struct up_output_opts all = { .version = UP_OUTPUT_OPTS_VERSION,
				      .vcpu = -1, .with_idle = true };
	struct up_stored *s = NULL;
	char tmp[4200], keep[4400];
	const char *paths[1];
	double f, t, hz;
	uint64_t samples;

	if (forced_status)
		return answer(c, forced_status, "forced status\n");
	if (u->too_big)
		return answer(c, MHD_HTTP_CONTENT_TOO_LARGE, "body over 16 MiB\n");
	if (!name || !split_name(name, host, dom, bid, sizeof(host)))
		return reject(c, "name: want xen.domain{host=H,domain=D,kernel_build_id=B}");
	if (!number(from, false, &f) || !number(until, false, &t) || f < 1e9 || t < f ||
	    t - f > 3600)
		return reject(c, "from/until: want unix seconds, until >= from, at most an hour apart");
	if (!format || strcmp(format, "pprof") != 0)
		return reject(c, "format: want pprof");
	if (!number(rate, true, &hz) || hz <= 0)
		return reject(c, "sampleRate: want a positive number");
	if (!u->len)
		return reject(c, "no profile in the body");
	if (spill(u, tmp, sizeof(tmp)) < 0)
		return answer(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "cannot store the body\n");
	paths[0] = tmp;
	if (up_stored_load(&s, paths, 1, NULL) < 0) {
		char why[300];

		unlink(tmp);
		snprintf(why, sizeof(why), "body is not a pprof profile: %s", up_error_last());
		return reject(c, why);
	}
	if (bid[0] && up_stored_build_id(s) && strcmp(bid, up_stored_build_id(s)) != 0) {
		up_stored_free(s);
		unlink(tmp);
		return reject(c, "kernel_build_id differs from the profile's mapping");
	}
	samples = up_profile_kept_samples(up_stored_profile(s), &all);
	up_stored_free(s);
	fprintf(logf_, "ingest domain=%s host=%s build_id=%s from=%s until=%s rate=%s samples=%llu bytes=%zu\n",
		dom, host, bid, from, until, rate, (unsigned long long)samples, u->len);
	fflush(logf_);
	/* Kept as DOMAIN-SEQ.pb.gz with --dir. */
	snprintf(keep, sizeof(keep), "%s/%s-%lu.pb.gz", dir ? dir : "", dom, ++seq);
	if (!dir || rename(tmp, keep) != 0)
		unlink(tmp);
	return answer(c, MHD_HTTP_OK, "ok\n");
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *data,
			      size_t *size, void **state)
{
	struct upload *u = *state;

	(void)cls;
	(void)version;
	if (!u) {
		const char *type;

		if (strcmp(url, "/ingest") != 0)
			return answer(c, MHD_HTTP_NOT_FOUND, "not found\n");
		if (strcmp(method, "POST") != 0)
			return answer(c, MHD_HTTP_METHOD_NOT_ALLOWED, "POST only\n");
		if (!(u = calloc(1, sizeof(*u))))
			return MHD_NO;
		type = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
		u->multipart = type && strncmp(type, "multipart/form-data", 19) == 0;
		if (u->multipart && !(u->pp = MHD_create_post_processor(c, 64 * 1024, on_part, u))) {
			free(u);
			return MHD_NO;
		}
		*state = u;
		return MHD_YES;
	}
	if (*size) {
		if (u->multipart)
			MHD_post_process(u->pp, data, *size);
		else
			append(u, data, *size);
		*size = 0;
		return MHD_YES;
	}
	return finish(c, u);
}

static void done(void *cls, struct MHD_Connection *c, void **state,
		 enum MHD_RequestTerminationCode why)
{
	struct upload *u = *state;

	(void)cls; (void)c; (void)why;
	if (!u)
		return;
	if (u->pp)
		MHD_destroy_post_processor(u->pp);
	free(u->buf);
	free(u);
	*state = NULL;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct MHD_Daemon *d;
	const char *logpath = NULL;
	unsigned port = 0;
	sigset_t set;
	int sig;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--port"))
			port = (unsigned)atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--dir"))
			dir = argv[i + 1];
		else if (!strcmp(argv[i], "--log"))
			logpath = argv[i + 1];
		else if (!strcmp(argv[i], "--status"))
			forced_status = (unsigned)atoi(argv[i + 1]);
	}
	if (argc % 2 == 0 || !port || port > 65535 ||
	    (forced_status && (forced_status < 100 || forced_status > 599))) {
		fprintf(stderr, "usage: uniprof-ingest-receiver --port N [--dir DIR] [--log FILE] [--status CODE]\n");
		return 2;
	}
	logf_ = logpath ? fopen(logpath, "a") : stdout;
	if (!logf_) {
		fprintf(stderr, "uniprof-ingest-receiver: cannot open %s: %s\n", logpath, strerror(errno));
		return 2;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, (uint16_t)port, NULL, NULL,
			     handle, NULL, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
			     MHD_OPTION_NOTIFY_COMPLETED, done, NULL, MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, "uniprof-ingest-receiver: cannot listen on 127.0.0.1:%u\n", port);
		return 2;
	}
	fprintf(logf_, "listening 127.0.0.1:%u\n", port);
	fflush(logf_);
	while (sigwait(&set, &sig) != 0)
		;
	MHD_stop_daemon(d);
	if (logf_ != stdout)
		fclose(logf_);
	return 0;
}
