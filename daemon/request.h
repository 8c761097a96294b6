/* The pull endpoint's parameters, parsed strictly: only domain, seconds
 * and hz, each once; numbers whole and within the configured bounds; a
 * domain name of a plain character set (it never becomes a path). */
#ifndef UPD_REQUEST_H
#define UPD_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#define UPD_DOMAIN_NAME_MAX 64
#define UPD_DEFAULT_SECONDS 30     /* Go's net/http/pprof default */

struct upd_profile_request {
	char domain[UPD_DOMAIN_NAME_MAX + 1];
	unsigned seconds;
	double hz;
};

struct upd_request_bounds {
	unsigned max_seconds;
	double default_hz, max_hz;
};

/* n query arguments (a value may be NULL: "?seconds"). Returns 0, or -1
 * with one line in err saying which parameter is wrong and what it takes. */
int upd_request_parse(const struct upd_request_bounds *b, const char *const *keys,
		      const char *const *values, size_t n,
		      struct upd_profile_request *out, char *err, size_t errlen);

/* Letters, digits and ._-:+ (not first), 1 to 64 characters. */
bool upd_domain_name_valid(const char *name);

#endif
