/* uniprofd's settings: one table (key, type, default, help) gives the
 * configuration file's keys, the command-line options of the same names
 * and --help, as xl's command table does. Then the safety rules are
 * checked once, before anything listens or samples. */
#ifndef UPD_SETTINGS_H
#define UPD_SETTINGS_H

#include <stdbool.h>
#include <stdio.h>

#include "uniprof/sampler.h"

#define UPD_DEFAULT_CONFIG "/etc/xen/uniprofd.conf"

struct upd_settings {
	char *listen;            /* address literal; default 127.0.0.1 */
	unsigned port;
	char *token_file;        /* required off loopback */
	char *tls_cert, *tls_key;
	unsigned max_connections;
	unsigned max_client_connections;   /* from one address */
	unsigned header_timeout_s;         /* for a request's headers */
	double pull_hz;          /* a pull request without hz= */
	unsigned max_seconds;    /* bound on seconds= */
	double max_hz;           /* bound on hz= */
	char *push_url;          /* Pyroscope's base URL; NULL: no push */
	char *push_token_file;   /* bearer token for an authenticating proxy */
	unsigned push_period_s;
	double push_hz;
	char *push_domains;      /* comma-separated name globs */
	unsigned push_queue;     /* profiles waiting to be sent */
	unsigned push_queue_mib;
	unsigned push_max_backoff_s;
	char *host;              /* the host label; default: hostname */
	double cpu_budget_pct;   /* of one CPU, for the whole daemon */
	double max_stall_pct;    /* each domain's stall budget, %; 100: none */
	enum up_consistency consistency;
	enum up_unwinder unwinder;
	char *debug_dir;
	char *debuginfod_urls;   /* NULL: no fetching, whatever the environment */
	/* Read from token_file, and the TLS files' contents. */
	char *token, *push_token;
	char *tls_cert_pem, *tls_key_pem;
};

/* Defaults for everything. */
void upd_settings_init(struct upd_settings *s);
void upd_settings_free(struct upd_settings *s);

/* One "key = value" setting (file or command line; value may be quoted).
 * Returns 0, or -1 after one error line naming where (from) and why. */
int upd_settings_set(struct upd_settings *s, const char *key, const char *value,
		     const char *from);

/* A configuration file: "key = value" lines, '#' comments. A missing file
 * is an error unless missing_ok. Returns 0 or -1 after one error line. */
int upd_settings_read_file(struct upd_settings *s, const char *path, bool missing_ok);

/* The command line: --config FILE first, then --KEY VALUE (or
 * --KEY=VALUE) for every key, --check, --help, --version. Returns 0 to
 * run, 1 when help or the version was printed, 2 after one error line.
 * *check_only is set by --check (validate and exit). */
int upd_settings_parse_args(struct upd_settings *s, int argc, char **argv,
			    bool *check_only);

/* The safety rules, the token and TLS files read: loopback unless a
 * token is configured; a token file private to root and not empty; TLS
 * files in pairs. Returns 0 or -1 after one error line. */
int upd_settings_validate(struct upd_settings *s);

/* Whether an address literal is loopback (127.0.0.0/8, ::1). */
bool upd_address_is_loopback(const char *addr);

void upd_settings_usage(FILE *out);

#endif
