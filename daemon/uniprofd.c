/* uniprofd: continuous profiling of this host's Xen domains, served to
 * the engines fleets run (pull: Go's pprof endpoint, as Parca and go tool
 * pprof read it; push: Pyroscope's /ingest). This file is the daemon's
 * flow: settings, start, wait for a signal, stop in order. */
#include "config.h"

#include <curl/curl.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "endpoints.h"
#include "toolkit/debuginfod_fetch.h"
#include "log.h"
#include "util/clock.h"

/* Set once, when a stop signal arrives: every sampler ends its profile
 * (what it sampled is still sent), nothing new starts. */
static volatile sig_atomic_t stopping;

/* Stop signals are taken by sigwait in main, never by a handler: every
 * thread created after this inherits the mask. */
static void block_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, set, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* Every push period allocates the same buffers again (its profile, the
 * pprof encoder and zlib's state, the frame cache): kept by malloc once
 * freed, instead of handed back to the kernel at the end of each period
 * and faulted in afresh the next, at about 100 us a page in a PV dom0
 * under emulation. The daemon's memory stays at its high-water mark. */
static void keep_freed_memory(void)
{
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
}

int main(int argc, char **argv)
{
	struct upd_settings s;
	struct upd_daemon d = { .settings = &s, .stop = &stopping };
	struct upd_http *http = NULL;
	char *auth_header = NULL;     /* for the push, from push_token_file */
	const char *debuginfod = NULL;
	sigset_t set;
	bool check;
	int rc, sig = 0;

	upd_settings_init(&s);
	rc = upd_settings_parse_args(&s, argc, argv, &check);
	if (rc) {
		upd_settings_free(&s);
		return rc == 1 ? 0 : 2;
	}
	if (upd_settings_validate(&s) < 0) {
		upd_settings_free(&s);
		return 2;
	}
	if (check) {
		printf("uniprofd: settings are valid: listen %s port %u%s%s, push %s\n", s.listen,
		       s.port, s.token ? ", bearer token" : "", s.tls_cert ? ", TLS" : "",
		       s.push_url ? s.push_url : "off");
		upd_settings_free(&s);
		return 0;
	}
	/* Off unless configured; set before any thread reads the environment. */
	if (s.debuginfod_urls)
		debuginfod = tk_debuginfod_setup(s.debuginfod_urls);
	if (debuginfod)
		upd_log("debuginfod: kernels without local symbols get them from %s%s", debuginfod,
			tk_debuginfod_built() ? "" : " (but this build has no libdebuginfod)");
	else
		unsetenv("DEBUGINFOD_URLS");
	keep_freed_memory();
	block_signals(&set);
	d.started = (double)mono_ns() / 1e9;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
		upd_log("cannot initialise libcurl");
		upd_settings_free(&s);
		return 1;
	}
	rc = 1;
	if (upd_domains_start(&d.domains) < 0)
		goto out;
	if (upd_symbol_cache_new(&d.cache, 64, s.unwinder, s.debug_dir, debuginfod,
				 &stopping) < 0 ||
	    upd_budget_start(&d.budget, s.cpu_budget_pct,
			     s.push_url ? s.push_period_s : 0) < 0) {
		upd_log("out of memory");
		goto out;
	}
	if (s.push_url) {
		struct upd_push_config pc = {
			.url = s.push_url, .host = s.host, .domains = s.push_domains,
			.period_s = s.push_period_s, .hz = s.push_hz,
			.queue_max = s.push_queue,
			.queue_bytes = (size_t)s.push_queue_mib << 20,
			.max_backoff_s = s.push_max_backoff_s, .consistency = s.consistency,
			.max_stall_pct = s.max_stall_pct,
		};

		if (s.push_token && asprintf(&auth_header, "Authorization: Bearer %s", s.push_token) < 0) {
			upd_log("out of memory");
			goto out;
		}
		pc.auth_header = auth_header;

		if (upd_push_start(&d.push, &pc, d.domains, d.cache, d.budget, &stopping) < 0) {
			upd_log("cannot start pushing");
			goto out;
		}
	}
	{
		struct upd_http_config hc = {
			.listen = s.listen, .port = s.port, .token = s.token,
			.tls_cert_pem = s.tls_cert_pem, .tls_key_pem = s.tls_key_pem,
			.max_connections = s.max_connections,
			.max_client_connections = s.max_client_connections,
			.header_timeout_s = s.header_timeout_s,
			.bounds = { .max_seconds = s.max_seconds, .default_hz = s.pull_hz,
				    .max_hz = s.max_hz },
		};
		struct upd_endpoints b = upd_daemon_endpoints(&d);

		if (upd_http_start(&http, &hc, &b) < 0)
			goto out;
	}
	upd_log("serving %s://%s%s%s:%u/debug/pprof/profile%s; push %s%s",
		s.tls_cert ? "https" : "http", strchr(s.listen, ':') ? "[" : "", s.listen,
		strchr(s.listen, ':') ? "]" : "", upd_http_port(http),
		s.token ? " (bearer token required)" : "",
		s.push_url ? s.push_url : "off", s.push_url ? "" : " (set push_url)");
	while (sigwait(&set, &sig) != 0 || (sig != SIGINT && sig != SIGTERM && sig != SIGHUP))
		;
	upd_log("stopping (signal %d): ending profiles in progress", sig);
	rc = 0;
out:
	stopping = 1;
	upd_http_stop(http);
	upd_push_stop(d.push);
	upd_budget_stop(d.budget);
	upd_domains_stop(d.domains);
	upd_symbol_cache_free(d.cache);
	curl_global_cleanup();
	free(auth_header);
	upd_settings_free(&s);
	return rc;
}
