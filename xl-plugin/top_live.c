/* xl profile top DOMAIN: the live loop. The domain sampled as xl profile
 * samples it, a frame drawn each interval between samples, never while
 * the domain is paused. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "realtime.h"
#include "toolkit/image_cache.h"
#include "toolkit/sampler_cpu.h"
#include "top_run.h"
#include "top_term.h"

/* After each sample (between samples): keys, and a frame each interval. */
static void on_sample(const struct up_profile *p, const struct up_sampler_stats *s,
		      void *arg)
{
	struct top *tp = arg;
	uint64_t now = mono_ns();

	xlp_top_keys(tp, up_profile_nr_vcpus(p));
	if (tp->domain)
		xlp_live_between_samples(tp->domain, up_profile_time_end(p));
	if (now < tp->next_ns)
		return;
	xlp_top_new_frame(tp, p, up_profile_time_end(p) + 1,
		  (double)up_profile_time_end(p) / 1e9, s,
		  tp->delay_s + (double)(now - tp->next_ns) / 1e9);
	tp->next_ns = now + (uint64_t)(tp->delay_s * 1e9);
}

int xlp_top_live(struct top *tp)
{
	struct xlp_live l = { .opt = &tp->opt };
	struct up_sampler_config cfg;
	struct up_sampler_stats stats;
	struct up_profile *p = NULL;
	struct tk_backend_load backends;
	struct tk_sampler_cpu where = { .cpu = -1 };
	cpu_set_t cpus;
	const char *why;
	int rc;

	memset(&stats, 0, sizeof(stats));
	if ((rc = xlp_live_check(&l, tp->stop)) != 0)
		return rc;
	tk_backend_load_read(&backends);
	rc = 1;
	if (xlp_live_open(&l) < 0)
		goto out;
	if (up_crash_guard_install(l.t) < 0 ||
	    up_profile_new(&p, up_target_info(l.t)->max_vcpus) < 0) {
		fprintf(stderr, "xl profile top: %s\n", up_error_last());
		goto out;
	}
	if (tp->view.vcpu >= (int)up_target_info(l.t)->max_vcpus) {
		fprintf(stderr, "xl profile top: vCPU %d does not exist: domain %s has %u vCPUs (0-%u)\n",
			tp->view.vcpu, l.dom.name, up_target_info(l.t)->max_vcpus,
			up_target_info(l.t)->max_vcpus - 1);
		rc = 2;
		goto out;
	}
	xlp_live_configure(&l, &cfg);
	cfg.each = on_sample;
	cfg.each_arg = tp;
	tp->domain = &l;
	/* A late sample is not counted again for the periods it missed:
	 * drawing the screen makes the sampler late once a second, and the
	 * sample before would stand for it. */
	cfg.drop_late = true;
	tp->live = p;
	tp->name = l.dom.name;
	tp->names = l.symtab;
	snprintf(tp->source, sizeof(tp->source), "%s at %g Hz%s", l.dom.type,
		 tp->opt.hz, tp->opt.consistency == UP_CONSISTENCY_RELAXED ?
		 ", relaxed" : "");
	tp->next_ns = mono_ns() + (uint64_t)(tp->delay_s * 1e9);
	/* Placed as xl profile's (its note before the screen takes over). */
	if (tk_sampler_cpu_place(l.dom.domid, &backends, tp->opt.sampler_cpu,
				  "xl profile top", 0, false, &where, &cpus) < 0) {
		rc = 2;
		goto out;
	}
	if (!tp->batch && xlp_term_enter() < 0)
		tp->batch = true;
	/* As xl profile samples: SCHED_FIFO, memory locked, or a dom0
	 * short of CPU stretches every pause. */
	xlp_realtime_enter(&why);
	rc = up_sample(l.t, &cfg, p, tp->stop, &stats);
	xlp_realtime_leave();
	tk_sampler_cpu_restore(&where, &cpus);
	up_target_close(l.t);          /* the domain runs free first */
	l.t = NULL;
	xlp_term_leave();
	if (rc < 0) {
		fprintf(stderr, "xl profile top: %s\n", up_error_last());
		rc = 1;
		goto out;
	}
	rc = 0;
	switch (stats.stop) {
	case UP_STOP_GONE:
	case UP_STOP_SHUTDOWN:
		printf("xl profile top: domain %s %s after %.1f s\n", l.dom.name,
		       stats.stop == UP_STOP_GONE ? "destroyed" : "shut down",
		       stats.elapsed_s);
		break;
	case UP_STOP_ERROR:
		fprintf(stderr, "xl profile top: sampling stopped: %s\n", stats.error);
		rc = 1;
		break;
	default:
		break;
	}
	if (tp->error[0]) {
		fprintf(stderr, "xl profile top: %s\n", tp->error);
		rc = 1;
	}
out:
	xlp_term_leave();
	free(tp->run0);
	free(tp->unpaused0);
	free(tp->ran_pct);
	up_profile_free(tp->interval);
	tp->interval = NULL;
	up_profile_free(p);
	up_sampler_stats_release(&stats);
	tp->domain = NULL;
	xlp_live_release(&l);
	tk_image_cache_drop();
	return rc;
}

