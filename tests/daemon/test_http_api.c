/* uniprofd's HTTP layer over real sockets (libmicrohttpd serving, libcurl
 * and raw sockets asking), with stand-in endpoints: status codes and
 * their one-line bodies, the bearer token, methods and paths, what
 * reaches the endpoints (only valid, parsed requests), the connection
 * limits and header deadline, and a log hostile clients cannot forge. */
#include "config.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "http_api.h"
#include "test.h"
#include "uniprof/uniprof.h"

TEST_GLOBALS;

static int profile_calls;
static char last_domain[80];

static int fake_json(void *ctx, char **buf, size_t *len)
{
	(void)ctx;
	*buf = strdup("{\"domains\": []}");
	*len = strlen(*buf);
	return 0;
}

static enum upd_outcome fake_profile(void *ctx, const struct upd_profile_request *rq,
				     unsigned char **buf, size_t *len, char *msg, size_t msglen)
{
	(void)ctx;
	profile_calls++;
	snprintf(last_domain, sizeof(last_domain), "%s", rq->domain);
	if (!strcmp(rq->domain, "busy")) {
		snprintf(msg, msglen, "busy");
		return UPD_BUSY;
	}
	if (!strcmp(rq->domain, "nosuch")) {
		snprintf(msg, msglen, "no domain");
		return UPD_NOT_FOUND;
	}
	*buf = (unsigned char *)strdup("\x1f\x8b fake pprof");
	*len = 13;
	return UPD_OK;
}

struct answer {
	long status;
	char body[512];
	size_t len;
	char type[256], disposition[256], www_auth[256];
};

static size_t on_body(char *p, size_t size, size_t n, void *arg)
{
	struct answer *a = arg;
	size_t k = size * n, room = sizeof(a->body) - 1 - a->len;

	memcpy(a->body + a->len, p, k < room ? k : room);
	a->len += k < room ? k : room;
	a->body[a->len] = '\0';
	return k;
}

static size_t on_header(char *p, size_t size, size_t n, void *arg)
{
	struct answer *a = arg;
	size_t k = size * n;
	char line[256];

	snprintf(line, sizeof(line), "%.*s", (int)(k < 255 ? k : 255), p);
	line[strcspn(line, "\r\n")] = '\0';
	if (!strncasecmp(line, "Content-Type: ", 14))
		snprintf(a->type, sizeof(a->type), "%s", line + 14);
	if (!strncasecmp(line, "Content-Disposition: ", 21))
		snprintf(a->disposition, sizeof(a->disposition), "%s", line + 21);
	if (!strncasecmp(line, "WWW-Authenticate: ", 18))
		snprintf(a->www_auth, sizeof(a->www_auth), "%s", line + 18);
	return k;
}

static unsigned port;

/* The scheme ask() sends the token with, and the address it asks from
 * (NULL: the default, 127.0.0.1). */
static const char *scheme = "Bearer";
static const char *source;

static struct answer ask(const char *method, const char *token, const char *fmt, ...)
{
	struct answer a;
	char path[1200], url[1300], auth[200];
	struct curl_slist *h = NULL;
	CURL *c = curl_easy_init();
	va_list ap;

	memset(&a, 0, sizeof(a));
	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u%s", port, path);
	if (token) {
		snprintf(auth, sizeof(auth), "Authorization: %s %s", scheme, token);
		h = curl_slist_append(h, auth);
	}
	if (source)
		curl_easy_setopt(c, CURLOPT_INTERFACE, source);
	curl_easy_setopt(c, CURLOPT_URL, url);
	if (!strcmp(method, "HEAD"))
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
	else
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	if (!strcmp(method, "POST"))
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, "x=1");
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &a);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, &a);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &a.status);
	curl_easy_cleanup(c);
	curl_slist_free_all(h);
	return a;
}

/* Error answers: one line of text, ending in a newline. */
static int one_line(const struct answer *a)
{
	return a->len > 1 && a->body[a->len - 1] == '\n' &&
	       strchr(a->body, '\n') == a->body + a->len - 1 &&
	       !strncmp(a->type, "text/plain", 10);
}

static struct upd_http *serve_with(const char *token, unsigned per_client,
				   unsigned header_timeout_s)
{
	struct upd_http_config c = {
		.listen = "127.0.0.1", .port = 0, .token = token, .max_connections = 16,
		.max_client_connections = per_client, .header_timeout_s = header_timeout_s,
		.bounds = { .max_seconds = 300, .default_hz = 97, .max_hz = 1000 },
	};
	struct upd_endpoints b = {
		.domains_json = fake_json, .status_json = fake_json, .profile = fake_profile,
	};
	struct upd_http *h;

	if (upd_http_start(&h, &c, &b) < 0)
		return NULL;
	port = upd_http_port(h);
	return h;
}

static struct upd_http *serve(const char *token)
{
	return serve_with(token, 4, 10);
}

static void test_endpoints_and_codes(void)
{
	struct upd_http *h = serve(NULL);
	struct answer a;
	int calls;

	REQUIRE(h && port > 0);
	a = ask("GET", NULL, "/domains");
	CHECK(a.status == 200 && !strcmp(a.type, "application/json"));
	CHECK(strstr(a.body, "\"domains\"") != NULL);
	a = ask("GET", NULL, "/status");
	CHECK(a.status == 200);
	a = ask("GET", NULL, "/debug/pprof/profile?domain=web1&seconds=2");
	CHECK(a.status == 200 && a.len == 13 && !strcmp(a.type, "application/octet-stream"));
	CHECK(strstr(a.disposition, "attachment") != NULL);
	CHECK_STR(last_domain, "web1");
	/* The endpoints never see a bad request. */
	calls = profile_calls;
	a = ask("GET", NULL, "/debug/pprof/profile?domain=web1&seconds=abc");
	CHECK(a.status == 400 && one_line(&a));
	a = ask("GET", NULL, "/debug/pprof/profile?domain=..%%2Fetc%%2Fpasswd");
	CHECK(a.status == 400 && one_line(&a));
	a = ask("GET", NULL, "/debug/pprof/profile?domain=web1&a=1&b=2&c=3&d=4&e=5&f=6&g=7&h=8&i=9&j=10&k=11&l=12&m=13&n=14&o=15&p=16&q=17");
	CHECK(a.status == 400 && one_line(&a));
	a = ask("GET", NULL, "/debug/pprof/profile");
	CHECK(a.status == 400 && one_line(&a));
	CHECK(profile_calls == calls);
	a = ask("GET", NULL, "/debug/pprof/profile?domain=busy");
	CHECK(a.status == 429 && one_line(&a));
	a = ask("GET", NULL, "/debug/pprof/profile?domain=nosuch");
	CHECK(a.status == 404 && one_line(&a));
	a = ask("POST", NULL, "/debug/pprof/profile?domain=web1");
	CHECK(a.status == 405 && one_line(&a));
	a = ask("HEAD", NULL, "/debug/pprof/profile?domain=web1");
	CHECK(a.status == 405);
	a = ask("GET", NULL, "/etc/passwd");
	CHECK(a.status == 404 && one_line(&a));
	upd_http_stop(h);
}

static void test_bearer_token(void)
{
	const char *tok = "0123456789abcdef0123";
	struct upd_http *h = serve(tok);
	struct answer a;
	int calls = profile_calls;

	REQUIRE(h);
	a = ask("GET", NULL, "/domains");
	CHECK(a.status == 401 && one_line(&a) && strstr(a.www_auth, "Bearer"));
	a = ask("GET", "0123456789abcdef012X", "/domains");
	CHECK(a.status == 401);
	a = ask("GET", "0123456789abcdef0123extra", "/domains");
	CHECK(a.status == 401);
	a = ask("GET", "", "/domains");
	CHECK(a.status == 401);
	a = ask("GET", "0123456789abcdef012X", "/debug/pprof/profile?domain=web1");
	CHECK(a.status == 401);
	CHECK(profile_calls == calls);   /* nothing ran for them */
	a = ask("GET", tok, "/domains");
	CHECK(a.status == 200);
	a = ask("GET", tok, "/debug/pprof/profile?domain=web1&seconds=1");
	CHECK(a.status == 200);
	/* RFC 7235: the scheme is case-insensitive. */
	scheme = "bearer";
	a = ask("GET", tok, "/domains");
	CHECK(a.status == 200);
	scheme = "BEARER";
	a = ask("GET", tok, "/domains");
	CHECK(a.status == 200);
	scheme = "Basic";
	a = ask("GET", tok, "/domains");
	CHECK(a.status == 401);
	scheme = "Bearer";
	upd_http_stop(h);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A TCP connection to the server from address from (127.x.y.z). */
static int dial(const char *from)
{
	struct sockaddr_in src = { .sin_family = AF_INET }, dst = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	inet_pton(AF_INET, from, &src.sin_addr);
	inet_pton(AF_INET, "127.0.0.1", &dst.sin_addr);
	dst.sin_port = htons((uint16_t)port);
	if (fd < 0 || bind(fd, (struct sockaddr *)&src, sizeof(src)) < 0 ||
	    connect(fd, (struct sockaddr *)&dst, sizeof(dst)) < 0) {
		perror("dial");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static bool send_str(int fd, const char *s)
{
	return send(fd, s, strlen(s), MSG_NOSIGNAL) == (ssize_t)strlen(s);
}

/* Whether the server closed fd (EOF or reset) within ms milliseconds. */
static bool closed_within(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char c;

	if (poll(&p, 1, ms) <= 0)
		return false;
	return recv(fd, &c, 1, MSG_DONTWAIT) <= 0;
}

/* One client's 16 silent connections (F9: they took every slot for 30 s
 * each, before any token was checked): it keeps 4, the rest are closed at
 * once, and another address is still served. */
static void test_per_client_limit(void)
{
	struct upd_http *h = serve_with("0123456789abcdef0123", 4, 60);
	int fds[16], open_ = 0, closed = 0;
	struct answer a;

	REQUIRE(h);
	for (int i = 0; i < 16; i++)
		fds[i] = dial("127.0.0.1");
	for (int i = 0; i < 16; i++) {
		if (fds[i] < 0)
			continue;
		/* generous: the server refuses at accept; a busy machine */
		if (closed_within(fds[i], i < 4 ? 200 : 5000))
			closed++;
		else
			open_++;
	}
	printf("# 16 silent connections from 127.0.0.1: %d kept, %d refused\n", open_, closed);
	CHECK(open_ == 4 && closed == 12);
	/* Another client is served, with its token. */
	source = "127.0.0.2";
	a = ask("GET", "0123456789abcdef0123", "/status");
	CHECK(a.status == 200);
	/* The same client is not, while its 4 are open. */
	source = "127.0.0.1";
	a = ask("GET", "0123456789abcdef0123", "/status");
	CHECK(a.status == 0);
	source = NULL;
	for (int i = 0; i < 16; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	upd_http_stop(h);
}

/* Read what the server answers on fd until it closes (at most 10 s). */
static size_t read_answer(int fd, char *buf, size_t cap)
{
	size_t n = 0;

	while (n + 1 < cap) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t k;

		if (poll(&p, 1, 10000) <= 0)
			break;
		k = recv(fd, buf + n, cap - 1 - n, 0);
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	buf[n] = '\0';
	return n;
}

/* Headers trickled a line every 200 ms (each resets an idle timeout) are
 * cut at the header deadline; headers sent in pieces within it are
 * served. */
static void test_header_deadline(void)
{
	struct upd_http *h = serve_with(NULL, 4, 1);
	char buf[1024];
	double t0, t = 0;
	bool cut = false;
	int fd;

	REQUIRE(h);
	fd = dial("127.0.0.1");
	REQUIRE(fd >= 0);
	t0 = now_s();
	CHECK(send_str(fd, "GET /status HTTP/1.1\r\nHost: x\r\n"));
	/* 60 lines, 12 s: far past the 1 s deadline, below the 30 s idle one */
	for (int i = 0; i < 60 && !cut; i++) {
		if (closed_within(fd, 200) ||
		    !send_str(fd, "X-Slow: 1\r\n")) {
			cut = true;
			t = now_s() - t0;
		}
	}
	printf("# a slow-loris with a 1 s header deadline: %s after %.2f s\n",
	       cut ? "cut" : "still open", cut ? t : now_s() - t0);
	CHECK(cut && t >= 0.9 && t < 8);
	close(fd);

	/* A slow but honest client: the headers in three pieces, 0.2 s apart. */
	fd = dial("127.0.0.1");
	REQUIRE(fd >= 0);
	CHECK(send_str(fd, "GET /status HTTP/1.1\r\n"));
	usleep(200000);
	CHECK(send_str(fd, "Host: x\r\n"));
	usleep(200000);
	CHECK(send_str(fd, "Connection: close\r\n\r\n"));
	read_answer(fd, buf, sizeof(buf));
	CHECK(strncmp(buf, "HTTP/1.1 200", 12) == 0);
	close(fd);
	upd_http_stop(h);
}

/* Send one raw request and read the answer. */
static void raw_request(const char *req, char *buf, size_t cap)
{
	int fd = dial("127.0.0.1");

	if (fd < 0) {
		buf[0] = '\0';
		return;
	}
	if (send(fd, req, strlen(req), MSG_NOSIGNAL) != (ssize_t)strlen(req))
		perror("send");
	read_answer(fd, buf, cap);
	close(fd);
}

/* Run fn with the daemon's log (stderr) in a file; returns what it wrote. */
static char *logged_by(void (*fn)(void), size_t *len)
{
	char path[] = "/tmp/uniprof-http-log-XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	char *buf = NULL;
	FILE *f;
	long n;

	if (fd < 0 || saved < 0)
		return NULL;
	fflush(stderr);
	dup2(fd, 2);
	fn();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	f = fdopen(fd, "r");
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n)
		n = 0;
	fclose(f);
	unlink(path);
	*len = (size_t)n;
	return buf;
}

static void hostile_requests(void)
{
	struct upd_http *h = serve("0123456789abcdef0123");
	struct upd_http *open = serve(NULL);
	char buf[2048];
	unsigned open_port = upd_http_port(open);

	port = upd_http_port(h);
	/* 401: a forged line, ESC[2J, OSC 52, U+202E, a bell in the path */
	raw_request("GET /x%0a2024-01-01%2000:00:00%20uniprofd:%20pull%20web1%20(10%20s)%20from%2010.0.0.1:%20200"
		    "%1b[2J%1b]52;c;cHduZWQ=%07%e2%80%ae%ff HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		    buf, sizeof(buf));
	CHECK(strncmp(buf, "HTTP/1.1 401", 12) == 0);
	/* a long one: the log keeps a bounded part */
	{
		char req[9000];
		int n = snprintf(req, sizeof(req), "GET /");

		for (int i = 0; i < 2000; i++)
			n += snprintf(req + n, sizeof(req) - (size_t)n, "%%1b");
		snprintf(req + n, sizeof(req) - (size_t)n, " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
		raw_request(req, buf, sizeof(buf));
	}
	/* 400: a parameter's name */
	port = open_port;
	raw_request("GET /debug/pprof/profile?domain=web1&%1b[2J%0aforged=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		    buf, sizeof(buf));
	CHECK(strncmp(buf, "HTTP/1.1 400", 12) == 0);
	upd_http_stop(open);
	upd_http_stop(h);
}

/* F10: what a client sends reaches the log escaped, one line per event,
 * bounded: no control byte, no forged line, no bidi override. */
static void test_log_escaped(void)
{
	size_t len = 0, lines = 0, longest = 0, cur = 0;
	char *log = logged_by(hostile_requests, &len);

	REQUIRE(log != NULL);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)log[i];

		if (c == '\n') {
			lines++;
			longest = cur > longest ? cur : longest;
			cur = 0;
			continue;
		}
		cur++;
		if (c < 0x20 || c == 0x7f || c >= 0x80) {
			printf("# byte 0x%02x at %zu in the log\n", c, i);
			CHECK(!"a raw control or non-ASCII byte in the log");
			break;
		}
	}
	printf("# %zu log lines, the longest %zu bytes\n", lines, longest);
	CHECK(lines == 3);
	CHECK(longest < 2100);
	CHECK(strstr(log, "\\x0a2024-01-01 00:00:00 uniprofd: pull web1") != NULL);
	CHECK(strstr(log, "\\x1b[2J\\x1b]52;c;cHduZWQ=\\x07\\u202e\\xff from 127.0.0.1: 401") != NULL);
	CHECK(strstr(log, "unknown parameter '\\x1b[2J\\x0aforged'") != NULL);
	free(log);
}

static void test_port_in_use_is_one_error(void)
{
	struct upd_http *a = serve(NULL), *b;
	struct upd_http_config c = {
		.listen = "127.0.0.1", .max_connections = 8, .max_client_connections = 4,
		.header_timeout_s = 10,
		.bounds = { .max_seconds = 300, .default_hz = 97, .max_hz = 1000 },
	};
	struct upd_endpoints be = {
		.domains_json = fake_json, .status_json = fake_json, .profile = fake_profile,
	};

	REQUIRE(a);
	c.port = upd_http_port(a);
	CHECK(upd_http_start(&b, &c, &be) < 0 && b == NULL);
	upd_http_stop(a);
}

int main(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
	RUN(test_endpoints_and_codes);
	RUN(test_bearer_token);
	RUN(test_port_in_use_is_one_error);
	RUN(test_per_client_limit);
	RUN(test_header_deadline);
	RUN(test_log_escaped);
	curl_global_cleanup();
	TEST_MAIN_END();
}
