/* Pull request parameters (see request.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "request.h"

bool upd_domain_name_valid(const char *name)
{
	size_t n = 0;

	for (const char *p = name; *p; p++, n++) {
		char c = *p;
		bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			     (c >= '0' && c <= '9');

		if (!plain && (n == 0 || !strchr("._-:+", c)))
			return false;
	}
	return n >= 1 && n <= UPD_DOMAIN_NAME_MAX;
}

/* Digits only, at most 9 of them. */
static int whole(const char *v, unsigned long *out)
{
	size_t n = strlen(v);

	if (n == 0 || n > 9 || strspn(v, "0123456789") != n)
		return -1;
	*out = strtoul(v, NULL, 10);
	return 0;
}

/* A plain decimal: digits with at most one point, no sign or exponent. */
static int decimal(const char *v, double *out)
{
	size_t n = strlen(v), digits = strspn(v, "0123456789.");
	const char *dot = strchr(v, '.');

	if (n == 0 || n > 16 || digits != n || (dot && strchr(dot + 1, '.')) ||
	    !strcmp(v, "."))
		return -1;
	errno = 0;
	*out = strtod(v, NULL);
	return errno || !isfinite(*out) ? -1 : 0;
}

int upd_request_parse(const struct upd_request_bounds *b, const char *const *keys,
		      const char *const *values, size_t n,
		      struct upd_profile_request *out, char *err, size_t errlen)
{
	bool seen_domain = false, seen_seconds = false, seen_hz = false;

	memset(out, 0, sizeof(*out));
	out->seconds = UPD_DEFAULT_SECONDS < b->max_seconds ? UPD_DEFAULT_SECONDS : b->max_seconds;
	out->hz = b->default_hz;
	for (size_t i = 0; i < n; i++) {
		const char *k = keys[i], *v = values[i] ? values[i] : "";
		bool *seen;

		if (!strcmp(k, "domain"))
			seen = &seen_domain;
		else if (!strcmp(k, "seconds"))
			seen = &seen_seconds;
		else if (!strcmp(k, "hz"))
			seen = &seen_hz;
		else {
			snprintf(err, errlen, "unknown parameter '%.32s': this endpoint takes domain, seconds and hz",
				 k);
			return -1;
		}
		if (*seen) {
			snprintf(err, errlen, "parameter '%s' given twice", k);
			return -1;
		}
		*seen = true;
		if (seen == &seen_domain) {
			if (!upd_domain_name_valid(v)) {
				snprintf(err, errlen, "domain: want a domain name (letters, digits, ._-:+; at most %d)",
					 UPD_DOMAIN_NAME_MAX);
				return -1;
			}
			memcpy(out->domain, v, strlen(v) + 1);
		} else if (seen == &seen_seconds) {
			unsigned long s;

			if (whole(v, &s) < 0 || s < 1 || s > b->max_seconds) {
				snprintf(err, errlen, "seconds: want a whole number from 1 to %u", b->max_seconds);
				return -1;
			}
			out->seconds = (unsigned)s;
		} else {
			double hz;

			if (decimal(v, &hz) < 0 || hz < 0.1 || hz > b->max_hz) {
				snprintf(err, errlen, "hz: want a number from 0.1 to %g", b->max_hz);
				return -1;
			}
			out->hz = hz;
		}
	}
	if (!seen_domain) {
		snprintf(err, errlen, "domain: missing; which domain? (see GET /domains)");
		return -1;
	}
	return 0;
}
