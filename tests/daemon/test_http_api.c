/* uniprofd's HTTP layer over real sockets (libmicrohttpd serving, libcurl
 * asking), with a stand-in backend: status codes and their one-line
 * bodies, the bearer token, methods and paths, and what reaches the
 * backend (only valid, parsed requests). */
#include "config.h"

#include <curl/curl.h>
#include <stdarg.h>

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
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s", token);
		h = curl_slist_append(h, auth);
	}
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

static struct upd_http *serve(const char *token)
{
	struct upd_http_config c = {
		.listen = "127.0.0.1", .port = 0, .token = token, .max_connections = 8,
		.bounds = { .max_seconds = 300, .default_hz = 97, .max_hz = 1000 },
	};
	struct upd_backend b = {
		.domains_json = fake_json, .status_json = fake_json, .profile = fake_profile,
	};
	struct upd_http *h;

	if (upd_http_start(&h, &c, &b) < 0)
		return NULL;
	port = upd_http_port(h);
	return h;
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
	/* The backend never sees a bad request. */
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
	upd_http_stop(h);
}

static void test_port_in_use_is_one_error(void)
{
	struct upd_http *a = serve(NULL), *b;
	struct upd_http_config c = {
		.listen = "127.0.0.1", .max_connections = 8,
		.bounds = { .max_seconds = 300, .default_hz = 97, .max_hz = 1000 },
	};
	struct upd_backend be = {
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
	curl_global_cleanup();
	TEST_MAIN_END();
}
