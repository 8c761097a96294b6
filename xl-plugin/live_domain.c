/* A live domain made ready to sample, as xl profile and xl profile top
 * both need it: looked up (or waited for), opened, its symbols, unwind
 * tables and kernel map loaded, and the sampler configured from the
 * options. */
#include "config.h"

#include <signal.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live_domain.h"
#include "util/clock.h"
#include "toolkit/image_cache.h"
#include "toolkit/kernel_map_load.h"
#include "toolkit/debuginfod_fetch.h"
#include "toolkit/symbols_find.h"

/* The domain exists and can be profiled as asked: 0, or the exit status
 * after one error line. */
int xlp_live_check(struct xlp_live *r, volatile sig_atomic_t *stop)
{
	const struct xlp_options *opt = r->opt;

	r->stop = stop;

	if (opt->wait) {
		if (!opt->quiet)
			fprintf(stderr, "xl profile: waiting for domain %s%s (Ctrl-C gives up)\n",
				opt->domain, opt->paused ? " to be created paused" : "");
		if (tk_domain_wait(opt->domain, opt->paused, stop) != 0) {
			fprintf(stderr, "xl profile: stopped before domain %s appeared\n",
				opt->domain);
			return 1;
		}
	}
	if (tk_domain_lookup(opt->domain, &r->dom) < 0)
		return 1;
	if (opt->paused && !r->dom.paused) {
		fprintf(stderr, "xl profile: domain %s is not paused: --paused is for domains created with 'xl create -p'\n",
			r->dom.name);
		return 1;
	}
	if (r->dom.dying) {
		fprintf(stderr, "xl profile: domain %s is being destroyed: nothing left to profile\n",
			r->dom.name);
		return 1;
	}
	if (r->dom.shutdown && !opt->once) {
		fprintf(stderr, "xl profile: domain %s has %s and is kept, its vCPUs stopped: there is no CPU time to sample; print their stacks with 'xl profile --once %s'\n",
			r->dom.name, r->dom.crashed ? "crashed" : "shut down", r->dom.name);
		return 1;
	}
	if (opt->vcpu >= 0 && opt->vcpu >= r->dom.max_vcpus) {
		fprintf(stderr, "xl profile: vCPU %d does not exist: domain %s has %d vCPUs (0-%d)\n",
			opt->vcpu, r->dom.name, r->dom.max_vcpus, r->dom.max_vcpus - 1);
		return 2;
	}
	return 0;
}

void xlp_setup_step(struct xlp_setup_steps *s, const char *what)
{
	if (!s || s->n >= XLP_SETUP_STEPS)
		return;
	s->what[s->n] = what;
	s->end_ns[s->n++] = mono_ns();
}

void xlp_setup_steps_format(const struct xlp_setup_steps *s, uint64_t start_ns,
			    char *buf, size_t size)
{
	size_t len = 0;
	uint64_t from = start_ns;

	buf[0] = '\0';
	for (unsigned i = 0; i < s->n && len < size; i++) {
		int w = snprintf(buf + len, size - len, "%s%s %.0f", i ? ", " : "",
				 s->what[i], (double)(s->end_ns[i] - from) / 1e6);

		if (w < 0)
			break;
		len += (size_t)w;
		from = s->end_ns[i];
	}
}

/* Open the domain, then what its stacks are walked and named with: the
 * symbols, the unwind tables, the kernel map. 0, or -1 after one error
 * line. */
int xlp_live_open(struct xlp_live *r)
{
	const struct xlp_options *opt = r->opt;
	const struct up_target_info *info;
	struct tk_symbol_query q = { 0 };

	if ((opt->once ? up_target_open_xen_stopped(&r->t, r->dom.domid, opt->hypercalls) :
			 up_target_open_xen_with(&r->t, r->dom.domid, opt->hypercalls)) < 0) {
		fprintf(stderr, "xl profile: %s\n", up_error_last());
		return -1;
	}
	xlp_setup_step(r->steps, "domain");
	info = up_target_info(r->t);
	r->hypercalls = info->hypercalls;
	if (opt->verbose)
		fprintf(stderr, "xl profile: hypercalls: %s\n", r->hypercalls);
	q.explicit_file = opt->symbols;
	q.kernel = r->dom.kernel;
	q.debug_dir = getenv("UNIPROF_DEBUG_DIR");
	q.force = opt->force_symbols;
	q.verbose = opt->verbose;
	/* A fetch, if any, happens here: before the first pause. */
	q.debuginfod = tk_debuginfod_setup(opt->debuginfod);
	q.stop = r->stop;
	q.arch = r->arch = info->arch;
	/* A PV guest's width is fixed when it is built; an HVM/PVH vCPU's
	 * changes as it boots, so only PV is cross-checked. */
	if (info->type == UP_DOMAIN_PV)
		q.guest_width = info->guest_width;
	if (tk_find_symbols(&q, &r->symtab, &r->symbols_used) < 0)
		return -1;
	xlp_setup_step(r->steps, "symbols");
	if (tk_unwind_load(opt->unwinder, r->dom.kernel, r->symbols_used, opt->verbose, &r->uw) < 0)
		return -1;
	xlp_setup_step(r->steps, "unwind tables");
	if (tk_kernel_map_load(r->dom.kernel, r->symbols_used, r->symtab, r->uw.cfi,
				opt->entries, opt->nr_entries, opt->verbose, &r->kmap) < 0)
		return -1;
	xlp_setup_step(r->steps, "code map");
	r->hypercall_seen = tk_kernel_map_probe(r->kmap, r->symtab, r->t, opt->verbose,
						 "xl profile");
	tk_image_cache_drop();         /* before sampling locks memory */
	xlp_setup_step(r->steps, "hypercall probe");
	return 0;
}

#define PROBES 6

void xlp_live_between_samples(struct xlp_live *l, uint64_t run_ns)
{
	/* At 1, 2, 4 ... 32 s of the run. */
	if (l->hypercall_seen || l->probes >= PROBES || !l->t ||
	    run_ns < (1000000000ULL << l->probes))
		return;
	l->probes++;
	l->hypercall_seen = tk_kernel_map_probe(l->kmap, l->symtab, l->t,
						 l->opt->verbose, "xl profile");
}

void xlp_live_configure(const struct xlp_live *r, struct up_sampler_config *cfg)
{
	const struct xlp_options *opt = r->opt;

	up_sampler_config_init(cfg, UP_SAMPLER_CONFIG_VERSION);
	cfg->hz = opt->hz;
	cfg->duration_s = opt->duration_s;
	cfg->vcpu = opt->vcpu;
	cfg->unwind.max_depth = opt->max_depth;
	cfg->max_pause_ns = (uint64_t)opt->max_pause_ms * 1000000;
	cfg->max_stall_pct = opt->max_stall_pct;
	tk_unwind_configure(&r->uw, r->kmap, cfg);
	cfg->no_activity = opt->no_vcpu_state;
	cfg->consistency = opt->consistency;
	if (opt->once) {
		cfg->max_samples = 1;
		cfg->stopped_ok = true;
	}
}


void xlp_live_release(struct xlp_live *r)
{
	up_target_close(r->t);
	r->t = NULL;
	up_symtab_free(r->symtab);
	tk_unwind_release(&r->uw);
	up_kernel_map_free(r->kmap);
	tk_domain_release(&r->dom);
	free(r->symbols_used);
	r->symtab = NULL;
	r->kmap = NULL;
	r->symbols_used = NULL;
}

static volatile sig_atomic_t *stop_flag;

static void on_stop_signal(int sig)
{
	(void)sig;
	if (stop_flag)
		*stop_flag = 1;
}

void xlp_live_stop_on_signals(volatile sig_atomic_t *flag)
{
	struct sigaction sa;

	stop_flag = flag;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;    /* no SA_RESTART: sleeps wake */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}
