/* uniprofd's settings (see settings.h). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "toolkit/value_parse.h"
#include "settings.h"
#include "uniprof/uniprof.h"

enum kind { K_STR, K_UINT, K_DOUBLE, K_CONSISTENCY, K_UNWINDER };

struct key_doc {
	const char *key;
	enum kind kind;
	size_t off;
	double min, max;
	const char *arg, *help;
};

#define F(field) offsetof(struct upd_settings, field)
static const struct key_doc keys[] = {
	{ "listen", K_STR, F(listen), 0, 0, "ADDR",
	  "address to serve on (default 127.0.0.1); off loopback needs token_file" },
	{ "port", K_UINT, F(port), 1, 65535, "PORT", "TCP port (default 9180)" },
	{ "token_file", K_STR, F(token_file), 0, 0, "FILE",
	  "file holding the bearer token every request must carry (mode 0600); required off loopback" },
	{ "tls_cert", K_STR, F(tls_cert), 0, 0, "FILE", "PEM certificate: serve HTTPS (with tls_key)" },
	{ "tls_key", K_STR, F(tls_key), 0, 0, "FILE", "PEM private key for tls_cert" },
	{ "max_connections", K_UINT, F(max_connections), 1, 1024, "N",
	  "simultaneous HTTP connections (default 16)" },
	{ "max_client_connections", K_UINT, F(max_client_connections), 1, 1024, "N",
	  "simultaneous HTTP connections from one address (default 4)" },
	{ "header_timeout", K_UINT, F(header_timeout_s), 1, 300, "SECONDS",
	  "time a client has to send a request's headers; then the connection is closed (default 10)" },
	{ "pull_hz", K_DOUBLE, F(pull_hz), 0.1, UP_SAMPLER_MAX_HZ, "HZ",
	  "rate of a pull request without hz= (default 97)" },
	{ "max_seconds", K_UINT, F(max_seconds), 1, 3600, "SECONDS",
	  "longest profile a pull request may ask for (default 300)" },
	{ "max_hz", K_DOUBLE, F(max_hz), 0.1, UP_SAMPLER_MAX_HZ, "HZ",
	  "highest rate a pull request may ask for (default 1000)" },
	{ "push_url", K_STR, F(push_url), 0, 0, "URL",
	  "Pyroscope server to push to, e.g. http://pyroscope:4040 (default: no push)" },
	{ "push_token_file", K_STR, F(push_token_file), 0, 0, "FILE",
	  "bearer token sent with each push, for a server behind an authenticating proxy (mode 0600)" },
	{ "push_period", K_UINT, F(push_period_s), 1, 3600, "SECONDS",
	  "length of each pushed profile (default 10)" },
	{ "push_hz", K_DOUBLE, F(push_hz), 0.1, 1000, "HZ", "push sampling rate (default 19)" },
	{ "push_domains", K_STR, F(push_domains), 0, 0, "GLOBS",
	  "comma-separated domain name patterns to push (default *)" },
	{ "push_queue", K_UINT, F(push_queue), 1, 100000, "N",
	  "profiles kept while the server is unreachable; the oldest are dropped beyond (default 64)" },
	{ "push_queue_mib", K_UINT, F(push_queue_mib), 1, 4096, "MIB",
	  "memory those profiles may take (default 16)" },
	{ "push_max_backoff", K_UINT, F(push_max_backoff_s), 1, 3600, "SECONDS",
	  "longest wait between retries (default 60)" },
	{ "host", K_STR, F(host), 0, 0, "NAME", "the host label of pushed profiles (default: hostname)" },
	{ "cpu_budget", K_DOUBLE, F(cpu_budget_pct), 0.1, 100 * 1024, "PERCENT",
	  "CPU the daemon may use, in % of one CPU; sampling rates are scaled down beyond (default 10)" },
	{ "max_stall", K_DOUBLE, F(max_stall_pct), 0.01, 100, "PERCENT",
	  "the most of its time a domain may stand still for samples; past it that domain's rate is lowered (each sample then counts for the periods it stands for) and raised again when it can; 100: no budget (default 5)" },
	{ "consistency", K_CONSISTENCY, F(consistency), 0, 0, "MODE",
	  "paused (default) or relaxed, as xl profile --consistency" },
	{ "unwinder", K_UNWINDER, F(unwinder), 0, 0, "METHOD",
	  "auto (default), cfi, libunwind, fp, as xl profile -u" },
	{ "debug_dir", K_STR, F(debug_dir), 0, 0, "DIR",
	  "where debug files are found by build-id (default /usr/lib/debug)" },
	{ "debuginfod_urls", K_STR, F(debuginfod_urls), 0, 0, "URLS",
	  "debuginfod servers to fetch a kernel's debug file from, by build-id, when none is found locally (default: none, whatever DEBUGINFOD_URLS says)" },
};
#undef F
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

static const struct key_doc *find_key(const char *k, size_t len)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (strlen(keys[i].key) == len && strncmp(keys[i].key, k, len) == 0)
			return &keys[i];
	return NULL;
}

static char **str_at(struct upd_settings *s, const struct key_doc *d)
{
	return (char **)((char *)s + d->off);
}

void upd_settings_init(struct upd_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->listen = strdup("127.0.0.1");
	s->port = 9180;
	s->max_connections = 16;
	s->max_client_connections = 4;
	s->header_timeout_s = 10;
	s->pull_hz = UP_SAMPLER_DEFAULT_HZ;
	s->max_seconds = 300;
	s->max_hz = 1000;
	s->push_period_s = 10;
	s->push_hz = 19;
	s->push_domains = strdup("*");
	s->push_queue = 64;
	s->push_queue_mib = 16;
	s->push_max_backoff_s = 60;
	s->cpu_budget_pct = 10;
	s->max_stall_pct = UP_SAMPLER_DEFAULT_MAX_STALL_PCT;
	s->consistency = UP_CONSISTENCY_PAUSED;
	s->unwinder = UP_UNWINDER_AUTO;
}

void upd_settings_free(struct upd_settings *s)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (keys[i].kind == K_STR)
			free(*str_at(s, &keys[i]));
	free(s->token);
	free(s->push_token);
	free(s->tls_cert_pem);
	free(s->tls_key_pem);
	memset(s, 0, sizeof(*s));
}

static int parse_number(const char *v, double *out)
{
	char *end;

	if (!*v || *v == ' ')
		return -1;
	errno = 0;
	*out = strtod(v, &end);
	return errno || *end || !isfinite(*out) ? -1 : 0;
}

int upd_settings_set(struct upd_settings *s, const char *key, const char *value,
		     const char *from)
{
	const struct key_doc *d = find_key(key, strlen(key));
	double x;

	if (!d) {
		fprintf(stderr, "uniprofd: %s: unknown setting '%s' (see uniprofd --help)\n",
			from, key);
		return -1;
	}
	switch (d->kind) {
	case K_STR: {
		char **p = str_at(s, d);

		if (strlen(value) > 4096) {
			fprintf(stderr, "uniprofd: %s: %s is too long\n", from, key);
			return -1;
		}
		free(*p);
		*p = *value ? strdup(value) : NULL;
		return 0;
	}
	case K_UINT:
	case K_DOUBLE:
		if (parse_number(value, &x) < 0 || x < d->min || x > d->max ||
		    (d->kind == K_UINT && x != floor(x))) {
			fprintf(stderr, "uniprofd: %s: %s = '%s': want a%s number from %g to %g\n",
				from, key, value, d->kind == K_UINT ? " whole" : "", d->min, d->max);
			return -1;
		}
		if (d->kind == K_UINT)
			*(unsigned *)((char *)s + d->off) = (unsigned)x;
		else
			*(double *)((char *)s + d->off) = x;
		return 0;
	case K_CONSISTENCY:
		if (!strcmp(value, "paused"))
			s->consistency = UP_CONSISTENCY_PAUSED;
		else if (!strcmp(value, "relaxed"))
			s->consistency = UP_CONSISTENCY_RELAXED;
		else {
			fprintf(stderr, "uniprofd: %s: consistency = '%s': want paused or relaxed\n",
				from, value);
			return -1;
		}
		return 0;
	case K_UNWINDER:
		if (tk_parse_unwinder(value, &s->unwinder) < 0) {
			fprintf(stderr, "uniprofd: %s: unwinder = '%s': want auto, cfi, libunwind or fp\n",
				from, value);
			return -1;
		}
		return 0;
	}
	return -1;
}

static char *trim(char *p)
{
	char *e;

	while (*p == ' ' || *p == '\t')
		p++;
	e = p + strlen(p);
	while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		*--e = '\0';
	return p;
}

int upd_settings_read_file(struct upd_settings *s, const char *path, bool missing_ok)
{
	FILE *f = fopen(path, "r");
	char line[4200], where[4200 + 32];
	unsigned n = 0;
	int rc = 0;

	if (!f) {
		if (missing_ok && errno == ENOENT)
			return 0;
		fprintf(stderr, "uniprofd: cannot read %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		char *p = trim(line), *eq, *k, *v;
		size_t vl;

		n++;
		snprintf(where, sizeof(where), "%s:%u", path, n);
		if (strlen(line) >= sizeof(line) - 1) {
			fprintf(stderr, "uniprofd: %s: line too long\n", where);
			rc = -1;
			break;
		}
		if (!*p || *p == '#')
			continue;
		eq = strchr(p, '=');
		if (!eq) {
			fprintf(stderr, "uniprofd: %s: want 'key = value'\n", where);
			rc = -1;
			break;
		}
		*eq = '\0';
		k = trim(p);
		v = trim(eq + 1);
		vl = strlen(v);
		if (vl >= 2 && (v[0] == '"' || v[0] == '\'') && v[vl - 1] == v[0]) {
			v[vl - 1] = '\0';
			v++;
		}
		rc = upd_settings_set(s, k, v, where);
	}
	if (rc == 0 && ferror(f)) {
		fprintf(stderr, "uniprofd: cannot read %s\n", path);
		rc = -1;
	}
	fclose(f);
	return rc;
}

void upd_settings_usage(FILE *out)
{
	fprintf(out,
		"Usage: uniprofd [--config FILE] [--KEY VALUE]... [--check]\n"
		"Profile this host's Xen domains for continuous-profiling engines:\n"
		"  pull: GET /debug/pprof/profile?domain=NAME&seconds=N[&hz=F] (gzip'ed pprof,\n"
		"        as Go's net/http/pprof), GET /domains, GET /status (JSON)\n"
		"  push: every push_period, a profile of each domain to Pyroscope's /ingest\n"
		"\n"
		"  --config FILE   settings file (default " UPD_DEFAULT_CONFIG ", if present)\n"
		"  --check         check the settings and exit\n"
		"  --help, --version\n"
		"Settings, in the file as 'key = value' or here as --key VALUE:\n");
	for (size_t i = 0; i < NKEYS; i++)
		fprintf(out, "  %-17s %-8s %s\n", keys[i].key, keys[i].arg, keys[i].help);
}

int upd_settings_parse_args(struct upd_settings *s, int argc, char **argv,
			    bool *check_only)
{
	const char *config = NULL;

	*check_only = false;
	/* --config first: the command line overrides the file. */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			upd_settings_usage(stdout);
			return 1;
		}
		if (!strcmp(argv[i], "--version")) {
			printf("uniprofd %s\n", up_version());
			return 1;
		}
		if (!strcmp(argv[i], "--config")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "uniprofd: --config needs a file\n");
				return 2;
			}
			config = argv[++i];
		} else if (!strncmp(argv[i], "--config=", 9))
			config = argv[i] + 9;
	}
	if (upd_settings_read_file(s, config ? config : UPD_DEFAULT_CONFIG, !config) < 0)
		return 2;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *eq, *v;
		char key[64];
		size_t kl;

		if (!strcmp(a, "--check")) {
			*check_only = true;
			continue;
		}
		if (!strcmp(a, "--config")) {
			i++;
			continue;
		}
		if (!strncmp(a, "--config=", 9))
			continue;
		if (strncmp(a, "--", 2) != 0 || !a[2]) {
			fprintf(stderr, "uniprofd: unexpected argument '%s' (see uniprofd --help)\n", a);
			return 2;
		}
		a += 2;
		eq = strchr(a, '=');
		kl = eq ? (size_t)(eq - a) : strlen(a);
		if (kl >= sizeof(key)) {
			fprintf(stderr, "uniprofd: unknown option --%.40s (see uniprofd --help)\n", a);
			return 2;
		}
		memcpy(key, a, kl);
		key[kl] = '\0';
		for (char *p = key; *p; p++)
			if (*p == '-')
				*p = '_';
		if (!find_key(key, kl)) {
			fprintf(stderr, "uniprofd: unknown option --%s (see uniprofd --help)\n", key);
			return 2;
		}
		if (eq)
			v = eq + 1;
		else if (i + 1 < argc)
			v = argv[++i];
		else {
			fprintf(stderr, "uniprofd: --%s needs a value\n", key);
			return 2;
		}
		if (upd_settings_set(s, key, v, "command line") < 0)
			return 2;
	}
	return 0;
}

bool upd_address_is_loopback(const char *addr)
{
	struct in_addr a4;
	struct in6_addr a6;

	if (inet_pton(AF_INET, addr, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, addr, &a6) == 1)
		return IN6_IS_ADDR_LOOPBACK(&a6);
	return false;
}

/* A small private file, read whole: the token or a TLS file. */
static char *read_private(const char *what, const char *path, bool must_be_private)
{
	struct stat st;
	char *buf;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0) {
		fprintf(stderr, "uniprofd: cannot read %s %s: %s\n", what, path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > 1 << 20) {
		fprintf(stderr, "uniprofd: %s %s is not a regular file under 1 MiB\n", what, path);
		close(fd);
		return NULL;
	}
	if (must_be_private && (st.st_mode & 077)) {
		fprintf(stderr, "uniprofd: %s %s is readable by others (mode %03o): chmod 600 %s\n",
			what, path, (unsigned)(st.st_mode & 0777), path);
		close(fd);
		return NULL;
	}
	buf = calloc(1, (size_t)st.st_size + 1);
	n = buf ? read(fd, buf, (size_t)st.st_size) : -1;
	close(fd);
	if (n != st.st_size) {
		fprintf(stderr, "uniprofd: cannot read %s %s\n", what, path);
		free(buf);
		return NULL;
	}
	return buf;
}

/* One token of 16 or more printable characters, a final newline allowed. */
static char *read_token(const char *path)
{
	char *t = read_private("token file", path, true), *p;

	if (!t)
		return NULL;
	p = t + strlen(t);
	while (p > t && (p[-1] == '\n' || p[-1] == '\r'))
		*--p = '\0';
	for (p = t; *p; p++)
		if ((unsigned char)*p < 0x21 || (unsigned char)*p > 0x7e)
			break;
	if (strlen(t) < 16 || *p) {
		fprintf(stderr, "uniprofd: token file %s must hold one token of 16 or more printable characters, no spaces\n",
			path);
		free(t);
		return NULL;
	}
	return t;
}

int upd_settings_validate(struct upd_settings *s)
{
	struct in6_addr a6;
	struct in_addr a4;

	if (!s->listen || (inet_pton(AF_INET, s->listen, &a4) != 1 &&
			   inet_pton(AF_INET6, s->listen, &a6) != 1)) {
		fprintf(stderr, "uniprofd: listen = '%s' is not an IP address (e.g. 127.0.0.1 or ::1)\n",
			s->listen ? s->listen : "");
		return -1;
	}
	if (s->token_file) {
		free(s->token);
		if (!(s->token = read_token(s->token_file)))
			return -1;
	} else if (!upd_address_is_loopback(s->listen)) {
		fprintf(stderr, "uniprofd: listen = %s is off loopback and no token_file is set: refusing to serve profiles unauthenticated (set token_file, or listen on 127.0.0.1)\n",
			s->listen);
		return -1;
	}
	if (!s->tls_cert != !s->tls_key) {
		fprintf(stderr, "uniprofd: tls_cert and tls_key go together: set both or neither\n");
		return -1;
	}
	if (s->tls_cert) {
		if (!(s->tls_cert_pem = read_private("TLS certificate", s->tls_cert, false)) ||
		    !(s->tls_key_pem = read_private("TLS key", s->tls_key, true)))
			return -1;
	}
	if (s->push_url && strncmp(s->push_url, "http://", 7) != 0 &&
	    strncmp(s->push_url, "https://", 8) != 0) {
		fprintf(stderr, "uniprofd: push_url = '%s': want an http:// or https:// URL\n", s->push_url);
		return -1;
	}
	if (s->push_url && strpbrk(s->push_url, " \t\r\n?#")) {
		fprintf(stderr, "uniprofd: push_url = '%s': want the server's base URL, without spaces, query or fragment\n",
			s->push_url);
		return -1;
	}
	if (s->push_token_file) {
		free(s->push_token);
		if (!(s->push_token = read_token(s->push_token_file)))
			return -1;
	}
	if (!s->host) {
		char h[256] = "";

		if (gethostname(h, sizeof(h) - 1) < 0 || !h[0])
			strcpy(h, "localhost");
		s->host = strdup(h);
	}
	for (const char *p = s->host; *p; p++)
		if (strchr("{}=,\"\\ ", *p) || (unsigned char)*p < 0x21 || (unsigned char)*p > 0x7e) {
			fprintf(stderr, "uniprofd: host = '%s': a label value may not hold spaces, quotes or {}=,\n",
				s->host);
			return -1;
		}
	if (s->pull_hz > s->max_hz) {
		fprintf(stderr, "uniprofd: pull_hz %g is above max_hz %g\n", s->pull_hz, s->max_hz);
		return -1;
	}
	return 0;
}
