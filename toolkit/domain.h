/* The domain to profile, through libxl: lookup by name or id (dom0
 * refused), what its stored configuration says (type, kernel, vCPUs), and
 * the two life-cycle hooks of the workflows: waiting for a domain to
 * appear (--wait) and unpausing one created with `xl create -p`
 * (--paused). */
#ifndef TK_DOMAIN_H
#define TK_DOMAIN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpuset.h"

struct tk_domain {
	uint32_t domid;
	char *name;
	const char *type;     /* "pv", "pvh", "hvm" */
	char *kernel;         /* configured kernel image, or NULL */
	int max_vcpus;
	bool paused;          /* paused when looked up */
	bool shutdown;        /* shut down but kept (e.g. on_crash=preserve) */
	bool crashed;         /* ... by crashing */
	bool dying;           /* being destroyed */
};

/* Open and close libxl for this process (errors: one line, -1). */
int tk_libxl_open(void);
void tk_libxl_close(void);

/* Resolve a name or numeric id. Prints one error line and returns -1 if
 * the domain does not exist or is dom0. */
int tk_domain_lookup(const char *spec, struct tk_domain *out);

/* The same by id, silent: -1 when the domain is gone (or libxl fails). */
int tk_domain_by_id(uint32_t domid, struct tk_domain *out);

/* Wait until a domain called name exists and has left the paused state the
 * builder creates it in, or, with want_paused, until it exists and is
 * paused (xl create -p). Returns 0, or 1 if *stop was raised first. */
int tk_domain_wait(const char *name, bool want_paused,
		    volatile sig_atomic_t *stop);

/* Let a domain created with `xl create -p` run. */
int tk_domain_unpause(const struct tk_domain *d);

/* Every guest domain that is not being destroyed (dom0 left out),
 * malloc'ed. Returns 0, or -1 when libxl cannot list. */
struct tk_domain_state {
	uint32_t domid;
	bool shutdown;
};
int tk_domain_list(struct tk_domain_state **out, size_t *n);

/* Each vCPU's hard affinity, the pCPUs Xen may run it on, for up to max
 * vCPUs (dom0's too: domid 0): 0 with *n set, or -1 when libxl cannot
 * say. */
int tk_domain_vcpu_pcpus(uint32_t domid, struct tk_cpuset *out,
			  unsigned max, unsigned *n);

void tk_domain_release(struct tk_domain *d);

#endif
