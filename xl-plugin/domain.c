/* Domain lookup through libxl: name or id, refusing dom0, and the stored
 * configuration (libxl_retrieve_domain_configuration) for type and kernel. */
#include "config.h"

#include <errno.h>
#include <libxl.h>
#include <libxl_utils.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xentoollog.h>

#include "domain.h"

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

int xlp_domain_lookup(const char *spec, struct xlp_domain *out)
{
	xentoollog_logger_stdiostream *log;
	libxl_ctx *ctx = NULL;
	libxl_dominfo info;
	libxl_domain_config cfg;
	uint32_t domid;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	/* libxl logs its own failures; we print one line of ours. */
	log = xtl_createlogger_stdiostream(stderr,
					   getenv("UNIPROF_XEN_DEBUG") ? XTL_DEBUG : XTL_CRITICAL,
					   0);
	if (libxl_ctx_alloc(&ctx, LIBXL_VERSION, 0, (xentoollog_logger *)log)) {
		fprintf(stderr, "xl profile: cannot talk to libxl: run as root in dom0 with xenstored running\n");
		goto out;
	}
	if (parse_domid(spec, &domid) < 0 &&
	    libxl_name_to_domid(ctx, spec, &domid) != 0) {
		fprintf(stderr, "xl profile: domain '%s' does not exist (see xl list)\n", spec);
		goto out;
	}
	if (domid == 0) {
		fprintf(stderr, "xl profile: domain '%s' is dom0, the control domain: profile a guest domain instead\n",
			spec);
		goto out;
	}
	libxl_dominfo_init(&info);
	if (libxl_domain_info(ctx, &info, domid) != 0) {
		libxl_dominfo_dispose(&info);
		fprintf(stderr, "xl profile: domain '%s' does not exist (see xl list)\n", spec);
		goto out;
	}
	out->domid = domid;
	out->max_vcpus = (int)info.vcpu_max_id + 1;
	out->type = info.domain_type == LIBXL_DOMAIN_TYPE_PV ? "pv" :
		    info.domain_type == LIBXL_DOMAIN_TYPE_PVH ? "pvh" : "hvm";
	libxl_dominfo_dispose(&info);
	out->name = libxl_domid_to_name(ctx, domid);
	if (!out->name) {
		char buf[32];

		snprintf(buf, sizeof(buf), "domain%u", domid);
		out->name = strdup(buf);
	}

	libxl_domain_config_init(&cfg);
	if (libxl_retrieve_domain_configuration(ctx, domid, &cfg, NULL) == 0) {
		const char *k = cfg.b_info.kernel;

		if (!k && cfg.b_info.type == LIBXL_DOMAIN_TYPE_PV)
			k = cfg.b_info.u.pv.kernel;
		if (k)
			out->kernel = strdup(k);
		/* The stored configuration tells PVH from HVM; dominfo may not. */
		if (cfg.b_info.type == LIBXL_DOMAIN_TYPE_PV)
			out->type = "pv";
		else if (cfg.b_info.type == LIBXL_DOMAIN_TYPE_PVH)
			out->type = "pvh";
		else if (cfg.b_info.type == LIBXL_DOMAIN_TYPE_HVM)
			out->type = "hvm";
		out->max_vcpus = cfg.b_info.max_vcpus;
	}
	libxl_domain_config_dispose(&cfg);
	rc = 0;
out:
	libxl_ctx_free(ctx);
	xtl_logger_destroy((xentoollog_logger *)log);
	return rc;
}

void xlp_domain_release(struct xlp_domain *d)
{
	free(d->name);
	free(d->kernel);
	memset(d, 0, sizeof(*d));
}
