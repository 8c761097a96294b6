/* Finding the domain to profile through libxl, and what its stored
 * configuration says about it. */
#ifndef XLP_DOMAIN_H
#define XLP_DOMAIN_H

#include <stdint.h>

struct xlp_domain {
	uint32_t domid;
	char *name;
	const char *type;     /* "pv", "pvh", "hvm" */
	char *kernel;         /* configured kernel image, or NULL */
	int max_vcpus;
};

/* Resolve a name or numeric id. Prints one error line and returns -1 if
 * the domain does not exist or is dom0. */
int xlp_domain_lookup(const char *spec, struct xlp_domain *out);

void xlp_domain_release(struct xlp_domain *d);

#endif
