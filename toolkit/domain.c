/* Domain lookup and life cycle through libxl. */
#include "config.h"

#include <errno.h>
#include <libxl.h>
#include <libxl_utils.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xentoollog.h>

#include "domain.h"

static libxl_ctx *ctx;
static xentoollog_logger_stdiostream *logger;

int tk_libxl_open(void)
{
	if (ctx)
		return 0;
	/* libxl logs its own failures; we print one line of ours. */
	logger = xtl_createlogger_stdiostream(stderr,
					      getenv("UNIPROF_XEN_DEBUG") ? XTL_DEBUG : XTL_CRITICAL,
					      0);
	if (!logger || libxl_ctx_alloc(&ctx, LIBXL_VERSION, 0, (xentoollog_logger *)logger)) {
		fprintf(stderr, "xl profile: cannot talk to libxl: run as root in dom0 with xenstored running\n");
		tk_libxl_close();
		return -1;
	}
	return 0;
}

void tk_libxl_close(void)
{
	libxl_ctx_free(ctx);
	ctx = NULL;
	if (logger)
		xtl_logger_destroy((xentoollog_logger *)logger);
	logger = NULL;
}

static int parse_domid(const char *s, uint32_t *id)
{
	char *end;
	unsigned long v;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > UINT32_MAX)
		return -1;
	*id = (uint32_t)v;
	return 0;
}

static const char *type_name(libxl_domain_type t)
{
	switch (t) {
	case LIBXL_DOMAIN_TYPE_PV: return "pv";
	case LIBXL_DOMAIN_TYPE_PVH: return "pvh";
	default: return "hvm";
	}
}

/* The domain's configuration as xl create stored it, read and parsed
 * alone: libxl_retrieve_domain_configuration also takes the domain's lock
 * and brings each device's entry up to date from xenstore, 70-420 ms of
 * an emulated dom0's set-up (most with a disk or a network), where we read
 * only the kernel, the type and the vCPUs. That is the fallback. */
static int stored_config(uint32_t domid, libxl_domain_config *cfg)
{
	uint8_t *data = NULL;
	char *json;
	int len = 0, rc = -1;

	/* data is undefined after a failure: freed only after success. */
	if (libxl_userdata_retrieve(ctx, domid, "libxl-json", &data, &len) == 0) {
		if (data && len > 0 && (json = malloc((size_t)len + 1))) {
			memcpy(json, data, (size_t)len);
			json[len] = '\0';
			rc = libxl_domain_config_from_json(ctx, cfg, json);
			free(json);
		}
		free(data);
	}
	if (rc == 0)
		return 0;
	libxl_domain_config_dispose(cfg);
	libxl_domain_config_init(cfg);
	return libxl_retrieve_domain_configuration(ctx, domid, cfg, NULL);
}

/* What libxl knows of domid; -1, silently, when it is gone. */
int tk_domain_by_id(uint32_t domid, struct tk_domain *out)
{
	libxl_dominfo info;
	libxl_domain_config cfg;

	memset(out, 0, sizeof(*out));
	if (tk_libxl_open() < 0)
		return -1;
	libxl_dominfo_init(&info);
	if (libxl_domain_info(ctx, &info, domid) != 0) {
		libxl_dominfo_dispose(&info);
		return -1;
	}
	out->domid = domid;
	out->max_vcpus = (int)info.vcpu_max_id + 1;
	out->type = type_name(info.domain_type);
	out->paused = info.paused;
	out->shutdown = info.shutdown;
	out->crashed = info.shutdown &&
		       info.shutdown_reason == LIBXL_SHUTDOWN_REASON_CRASH;
	out->dying = info.dying;
	libxl_dominfo_dispose(&info);
	out->name = libxl_domid_to_name(ctx, domid);
	if (!out->name && asprintf(&out->name, "domain%u", domid) < 0)
		out->name = NULL;

	libxl_domain_config_init(&cfg);
	if (stored_config(domid, &cfg) == 0) {
		const char *k = cfg.b_info.kernel;

		if (!k && cfg.b_info.type == LIBXL_DOMAIN_TYPE_PV)
			k = cfg.b_info.u.pv.kernel;
		if (k)
			out->kernel = strdup(k);
		/* The stored configuration tells PVH from HVM; dominfo may not. */
		if (cfg.b_info.type != LIBXL_DOMAIN_TYPE_INVALID)
			out->type = type_name(cfg.b_info.type);
		if (cfg.b_info.max_vcpus > 0)
			out->max_vcpus = cfg.b_info.max_vcpus;
	}
	libxl_domain_config_dispose(&cfg);
	return 0;
}

int tk_domain_lookup(const char *spec, struct tk_domain *out)
{
	uint32_t domid;

	memset(out, 0, sizeof(*out));
	if (tk_libxl_open() < 0)
		return -1;
	if (parse_domid(spec, &domid) < 0 &&
	    libxl_name_to_domid(ctx, spec, &domid) != 0) {
		fprintf(stderr, "xl profile: domain '%s' does not exist (see xl list)\n", spec);
		return -1;
	}
	if (domid == 0) {
		fprintf(stderr, "xl profile: domain '%s' is dom0, the control domain: profile a guest domain instead\n",
			spec);
		return -1;
	}
	if (tk_domain_by_id(domid, out) < 0) {
		fprintf(stderr, "xl profile: domain '%s' does not exist (see xl list)\n", spec);
		return -1;
	}
	return 0;
}

int tk_domain_wait(const char *name, bool want_paused,
		    volatile sig_atomic_t *stop)
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 };

	if (tk_libxl_open() < 0)
		return -1;
	while (!*stop) {
		uint32_t domid;
		libxl_dominfo info;
		int ready = 0;

		if (libxl_name_to_domid(ctx, name, &domid) == 0 && domid != 0) {
			libxl_dominfo_init(&info);
			/* Created with -p: wait for paused. Otherwise wait for
			 * the builder to let it run, so the configuration is
			 * stored and the guest has started. */
			if (libxl_domain_info(ctx, &info, domid) == 0)
				ready = want_paused ? info.paused && !info.dying :
						      !info.paused && !info.dying;
			libxl_dominfo_dispose(&info);
			/* ... and until its configuration is stored: it names
			 * the kernel the symbols come from. */
			if (ready) {
				libxl_domain_config cfg;

				libxl_domain_config_init(&cfg);
				ready = libxl_retrieve_domain_configuration(ctx, domid, &cfg, NULL) == 0;
				libxl_domain_config_dispose(&cfg);
			}
			if (ready)
				return 0;
		}
		nanosleep(&tick, NULL);
	}
	return 1;
}

int tk_domain_unpause(const struct tk_domain *d)
{
	if (tk_libxl_open() < 0)
		return -1;
	if (libxl_domain_unpause(ctx, d->domid, NULL) != 0) {
		fprintf(stderr, "xl profile: cannot unpause domain %s\n", d->name);
		return -1;
	}
	return 0;
}

int tk_domain_list(struct tk_domain_state **out, size_t *n)
{
	libxl_dominfo *info;
	int nb = 0;

	*out = NULL;
	*n = 0;
	if (tk_libxl_open() < 0)
		return -1;
	info = libxl_list_domain(ctx, &nb);
	if (!info)
		return -1;
	*out = calloc((size_t)nb + 1, sizeof(**out));
	if (!*out) {
		libxl_dominfo_list_free(info, nb);
		return -1;
	}
	for (int i = 0; i < nb; i++)
		if (info[i].domid != 0 && !info[i].dying) {
			(*out)[*n].domid = info[i].domid;
			(*out)[(*n)++].shutdown = info[i].shutdown;
		}
	libxl_dominfo_list_free(info, nb);
	return 0;
}

int tk_domain_vcpu_pcpus(uint32_t domid, struct tk_cpuset *out,
			  unsigned max, unsigned *n)
{
	libxl_vcpuinfo *vi;
	int nb = 0, nr_cpus = 0;

	*n = 0;
	if (tk_libxl_open() < 0)
		return -1;
	vi = libxl_list_vcpu(ctx, domid, &nb, &nr_cpus);
	if (!vi)
		return -1;
	for (int i = 0; i < nb && *n < max; i++) {
		struct tk_cpuset *s = &out[(*n)++];
		unsigned bits = (unsigned)vi[i].cpumap.size * 8;

		tk_cpuset_clear(s);
		for (unsigned c = 0; c < bits && c < TK_MAX_CPUS; c++)
			if (libxl_bitmap_test(&vi[i].cpumap, (int)c))
				tk_cpuset_add(s, c);
	}
	libxl_vcpuinfo_list_free(vi, nb);
	return 0;
}

void tk_domain_release(struct tk_domain *d)
{
	free(d->name);
	free(d->kernel);
	memset(d, 0, sizeof(*d));
}
