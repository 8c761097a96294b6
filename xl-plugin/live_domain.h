/* A live domain made ready to sample: looked up, opened, its symbols,
 * unwind tables and kernel map loaded; the sampler configured from the
 * options (xl profile and xl profile top). */
#ifndef XLP_LIVE_DOMAIN_H
#define XLP_LIVE_DOMAIN_H

#include <signal.h>

#include "toolkit/domain.h"
#include "options.h"
#include "toolkit/unwind_load.h"
#include "uniprof/uniprof.h"

/* Where set-up went, for -v: the end of each step, in order. */
#define XLP_SETUP_STEPS 12
struct xlp_setup_steps {
	unsigned n;
	const char *what[XLP_SETUP_STEPS];
	uint64_t end_ns[XLP_SETUP_STEPS];
};

/* Step `what` ends now (it began where the one before ended). */
void xlp_setup_step(struct xlp_setup_steps *s, const char *what);

/* "libxl 12, domain 30, ..." (ms of each step since start_ns) into buf. */
void xlp_setup_steps_format(const struct xlp_setup_steps *s, uint64_t start_ns,
			    char *buf, size_t size);

struct xlp_live {
	const struct xlp_options *opt;
	struct xlp_setup_steps *steps;  /* NULL: not timed */
	struct tk_domain dom;
	struct up_target *t;
	struct up_symtab *symtab;
	char *symbols_used;       /* the file the names came from */
	struct tk_unwind uw;
	struct up_kernel_map *kmap;
	const char *hypercalls;
	enum up_arch arch;        /* the domain's, kept past the target's close */
	volatile sig_atomic_t *stop; /* Ctrl-C: set by xlp_live_check */
	/* The hypercall page's stubs seen in the domain's memory; if not
	 * (a PVH guest profiled from boot asks Xen for them later), looked
	 * for again between samples, at 1, 2, 4 ... 32 s. */
	bool hypercall_seen;
	unsigned probes;
};

/* The domain exists (waited for with --wait, until *stop) and can be
 * profiled as asked: 0, or the exit status after one error line. */
int xlp_live_check(struct xlp_live *l, volatile sig_atomic_t *stop);

/* Open the domain, then what its stacks are walked and named with. 0, or
 * -1 after one error line. */
int xlp_live_open(struct xlp_live *l);

/* Between two samples (the sampler's each callback, or called from one),
 * run_ns into the run (the profile's latest sample time): what set-up
 * could not find yet is looked for again. */
void xlp_live_between_samples(struct xlp_live *l, uint64_t run_ns);

/* The sampler's configuration from the options. */
void xlp_live_configure(const struct xlp_live *l, struct up_sampler_config *cfg);

/* Ctrl-C, SIGTERM and SIGHUP set *flag (the sampler stops between
 * samples, the domain never left paused); SIGPIPE is ignored. */
void xlp_live_stop_on_signals(volatile sig_atomic_t *flag);

/* Close the domain and free what was loaded for it. */
void xlp_live_release(struct xlp_live *l);

#endif
