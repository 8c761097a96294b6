/* uniprofd's settings and request parsing: defaults, the file format,
 * the safety rules (loopback unless a token; a private token file; TLS
 * in pairs), strict pull parameters, push names and selectors, and the
 * CPU budget's rule. */
#include "config.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpu_budget.h"
#include "push.h"
#include "request.h"
#include "settings.h"
#include "test.h"
#include "uniprof/uniprof.h"

TEST_GLOBALS;

static char dir[] = "/tmp/upd-test-XXXXXX";

static const char *write_file(const char *name, const char *text, mode_t mode)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	chmod(path, mode);
	return path;
}

static void test_defaults_are_loopback_and_valid(void)
{
	struct upd_settings s;

	upd_settings_init(&s);
	CHECK_STR(s.listen, "127.0.0.1");
	CHECK(s.port == 9180);
	CHECK(s.push_url == NULL);
	CHECK(s.debuginfod_urls == NULL);      /* no fetching unless configured */
	CHECK(s.push_hz == 19 && s.push_period_s == 10);
	CHECK(upd_settings_validate(&s) == 0);
	CHECK(s.host && s.host[0]);
	upd_settings_free(&s);
}

static void test_file_and_command_line(void)
{
	struct upd_settings s;
	bool check;
	const char *conf = write_file("a.conf",
		"# comment\n\nport = 9999\npush_url = \"http://pyro:4040\"\n"
		"push_domains = web*, db1\nconsistency = relaxed\n"
		"debuginfod_urls = \"http://a:8002 https://b\"\n", 0644);
	char *argv[] = { "uniprofd", "--config", (char *)conf, "--port", "9100",
			 "--push-hz=7", "--check", NULL };

	upd_settings_init(&s);
	CHECK(upd_settings_parse_args(&s, 7, argv, &check) == 0);
	CHECK(check);
	CHECK(s.port == 9100);                 /* the command line wins */
	CHECK(s.push_hz == 7);
	CHECK_STR(s.push_url, "http://pyro:4040");
	CHECK_STR(s.push_domains, "web*, db1");
	CHECK(s.consistency == UP_CONSISTENCY_RELAXED);
	CHECK_STR(s.debuginfod_urls, "http://a:8002 https://b");
	CHECK(upd_settings_validate(&s) == 0);
	upd_settings_free(&s);
}

static void test_bad_settings_are_refused(void)
{
	struct upd_settings s;
	bool check;
	char *bad_opt[] = { "uniprofd", "--bogus", "1", NULL };
	char *bad_num[] = { "uniprofd", "--port", "70000", NULL };
	char *no_val[] = { "uniprofd", "--port", NULL };

	upd_settings_init(&s);
	CHECK(upd_settings_parse_args(&s, 3, bad_opt, &check) == 2);
	CHECK(upd_settings_parse_args(&s, 3, bad_num, &check) == 2);
	CHECK(upd_settings_parse_args(&s, 2, no_val, &check) == 2);
	CHECK(upd_settings_set(&s, "max_seconds", "1.5", "t") < 0);
	CHECK(upd_settings_set(&s, "push_hz", "1e400", "t") < 0);
	CHECK(upd_settings_set(&s, "unwinder", "orc", "t") < 0);
	/* Each domain's stall budget: 5 % unless set, 100 for none, in
	 * (0, 100]; the daemon's CPU budget is another setting. */
	CHECK(s.max_stall_pct == UP_SAMPLER_DEFAULT_MAX_STALL_PCT);
	CHECK(upd_settings_set(&s, "max_stall", "0", "t") < 0);
	CHECK(upd_settings_set(&s, "max_stall", "-5", "t") < 0);
	CHECK(upd_settings_set(&s, "max_stall", "100.5", "t") < 0);
	CHECK(upd_settings_set(&s, "max_stall", "nan", "t") < 0);
	CHECK(s.max_stall_pct == UP_SAMPLER_DEFAULT_MAX_STALL_PCT);
	CHECK(upd_settings_set(&s, "max_stall", "100", "t") == 0 && s.max_stall_pct == 100);
	CHECK(upd_settings_set(&s, "max_stall", "2.5", "t") == 0 && s.max_stall_pct == 2.5);
	CHECK(upd_settings_read_file(&s, write_file("b.conf", "port 80\n", 0644), false) < 0);
	CHECK(upd_settings_read_file(&s, "/nonexistent/uniprofd.conf", false) < 0);
	CHECK(upd_settings_read_file(&s, "/nonexistent/uniprofd.conf", true) == 0);
	CHECK(upd_settings_set(&s, "push_url", "ftp://x", "t") == 0);
	CHECK(upd_settings_validate(&s) < 0);
	CHECK(upd_settings_set(&s, "push_url", "http://x/ingest?name=evil", "t") == 0);
	CHECK(upd_settings_validate(&s) < 0);
	upd_settings_free(&s);
}

static void test_off_loopback_needs_a_private_token(void)
{
	struct upd_settings s;
	const char *open_tok = write_file("open.token", "0123456789abcdef0123\n", 0644);
	const char *short_tok;
	const char *tok;

	CHECK(upd_address_is_loopback("127.0.0.1"));
	CHECK(upd_address_is_loopback("127.9.9.9"));
	CHECK(upd_address_is_loopback("::1"));
	CHECK(!upd_address_is_loopback("0.0.0.0"));
	CHECK(!upd_address_is_loopback("::"));
	CHECK(!upd_address_is_loopback("10.0.0.1"));
	upd_settings_init(&s);
	CHECK(upd_settings_set(&s, "listen", "0.0.0.0", "t") == 0);
	CHECK(upd_settings_validate(&s) < 0);          /* no token: refused */
	CHECK(upd_settings_set(&s, "token_file", open_tok, "t") == 0);
	CHECK(upd_settings_validate(&s) < 0);          /* readable by others */
	short_tok = write_file("short.token", "abc\n", 0600);
	CHECK(upd_settings_set(&s, "token_file", short_tok, "t") == 0);
	CHECK(upd_settings_validate(&s) < 0);          /* too short */
	tok = write_file("good.token", "0123456789abcdef0123\n", 0600);
	CHECK(upd_settings_set(&s, "token_file", tok, "t") == 0);
	CHECK(upd_settings_validate(&s) == 0);
	CHECK_STR(s.token, "0123456789abcdef0123");
	CHECK(upd_settings_set(&s, "tls_cert", tok, "t") == 0);
	CHECK(upd_settings_validate(&s) < 0);          /* cert without key */
	CHECK(upd_settings_set(&s, "listen", "localhost", "t") == 0);
	CHECK(upd_settings_validate(&s) < 0);          /* not an address */
	upd_settings_free(&s);
}

static int parse(const char *const *k, const char *const *v, size_t n,
		 struct upd_profile_request *rq, char *err)
{
	const struct upd_request_bounds b = { .max_seconds = 300, .default_hz = 97,
					      .max_hz = 1000 };

	return upd_request_parse(&b, k, v, n, rq, err, 200);
}

static void test_pull_parameters_strict(void)
{
	struct upd_profile_request rq;
	char err[200];
	const char *k1[] = { "domain", "seconds", "hz" }, *v1[] = { "web-1.a", "20", "49.5" };
	const char *k2[] = { "domain" }, *v2[] = { "web1" };
	struct { const char *k, *v; } bad[] = {
		{ "seconds", "abc" }, { "seconds", "0" }, { "seconds", "301" },
		{ "seconds", "-5" }, { "seconds", "+5" }, { "seconds", " 5" },
		{ "seconds", "99999999999999" }, { "hz", "0" }, { "hz", "1001" },
		{ "hz", "1e3" }, { "hz", "nan" }, { "hz", "1..2" }, { "hz", "" },
		{ "domain", "../etc/passwd" }, { "domain", "a/b" }, { "domain", "" },
		{ "domain", "-x" }, { "domain", "a b" }, { "path", "/etc" },
	};

	CHECK(parse(k1, v1, 3, &rq, err) == 0);
	CHECK_STR(rq.domain, "web-1.a");
	CHECK(rq.seconds == 20 && rq.hz == 49.5);
	CHECK(parse(k2, v2, 1, &rq, err) == 0);
	CHECK(rq.seconds == 30 && rq.hz == 97);        /* Go's default */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *k[2] = { "domain", bad[i].k }, *v[2] = { "web1", bad[i].v };
		size_t off = strcmp(bad[i].k, "domain") == 0;

		err[0] = '\0';
		if (parse(k + off, v + off, 2 - off, &rq, err) == 0) {
			fprintf(stderr, "accepted %s=%s\n", bad[i].k, bad[i].v);
			CHECK(0);
		}
		CHECK(err[0] && !strchr(err, '\n'));
	}
	{
		const char *k[] = { "seconds" }, *v[] = { "5" };

		CHECK(parse(k, v, 1, &rq, err) < 0);      /* no domain */
	}
	{
		const char *k[] = { "domain", "domain" }, *v[] = { "a", "b" };

		CHECK(parse(k, v, 2, &rq, err) < 0);      /* twice */
	}
	{
		char longname[80];

		memset(longname, 'a', sizeof(longname) - 1);
		longname[sizeof(longname) - 1] = '\0';
		CHECK(!upd_domain_name_valid(longname));
	}
}

static void test_push_names_and_selectors(void)
{
	char buf[128];

	CHECK(upd_push_series_name(buf, sizeof(buf), "h1", "web1", "ab12") == 0);
	CHECK_STR(buf, "xen.domain{host=h1,domain=web1,kernel_build_id=ab12}");
	CHECK(upd_push_series_name(buf, 10, "h1", "web1", "ab12") < 0);
	CHECK(upd_push_selected("*", "anything"));
	CHECK(upd_push_selected("web*, db1", "web7"));
	CHECK(upd_push_selected("web*, db1", "db1"));
	CHECK(!upd_push_selected("web*, db1", "db2"));
	CHECK(!upd_push_selected("", "web1"));
}

static void test_budget_rule(void)
{
	double s = 1;

	CHECK(upd_budget_next_scale(1, 5, 10) == 1);           /* under: stays */
	s = upd_budget_next_scale(1, 40, 10);                 /* 4x over */
	CHECK(s > 0.2 && s < 0.25);
	CHECK(upd_budget_next_scale(0.5, 9, 10) == 0.5);       /* near: holds */
	CHECK(upd_budget_next_scale(0.5, 1, 10) == 0.625);     /* recovers */
	CHECK(upd_budget_next_scale(0.9, 1, 10) == 1);         /* up to 1 */
	CHECK(upd_budget_next_scale(0.01, 1000, 10) == 0.01);  /* a floor */
	{
		/* Held after a change until its profiles show in the usage:
		 * the push period (10 s) and the 5 s window. */
		double held = 0, sc;

		sc = upd_budget_step(1, 40, 10, 100, 10, &held);
		CHECK(sc < 0.25 && held == 115);
		CHECK(upd_budget_step(sc, 40, 10, 101, 10, &held) == sc);
		CHECK(upd_budget_step(sc, 40, 10, 114.9, 10, &held) == sc);
		CHECK(upd_budget_step(sc, 40, 10, 115, 10, &held) < sc);
		held = 0;
		CHECK(upd_budget_step(0.5, 9, 10, 50, 10, &held) == 0.5);
		CHECK(held == 0);                               /* no change, no hold */
	}
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	RUN(test_defaults_are_loopback_and_valid);
	RUN(test_file_and_command_line);
	RUN(test_bad_settings_are_refused);
	RUN(test_off_loopback_needs_a_private_token);
	RUN(test_pull_parameters_strict);
	RUN(test_push_names_and_selectors);
	RUN(test_budget_rule);
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd) != 0)
			return 1;
	}
	TEST_MAIN_END();
}
