/* xl profile top --replay FILE: a stored profile's sample times played
 * at the pace they were taken (or --speed times as fast). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "stored_cmds.h"
#include "top_run.h"
#include "top_term.h"

/* Sleep until `until` (monotonic), reading keys meanwhile. */
static void replay_wait(struct top *tp, uint64_t until, unsigned nr_vcpus)
{
	while (!*tp->stop) {
		uint64_t now = mono_ns();
		struct timespec ts = { 0, 20000000 };

		xlp_top_keys(tp, nr_vcpus);
		if (now >= until)
			return;
		if (until - now < 20000000)
			ts.tv_nsec = (long)(until - now);
		nanosleep(&ts, NULL);
	}
}

int xlp_top_replay(struct top *tp)
{
	char *paths[] = { (char *)tp->replay };
	struct up_symtab *symtab = NULL;
	struct up_stored *s = xlp_stored_load("top", paths, 1, tp->opt.symbols,
					      tp->opt.force_symbols, &symtab);
	const struct up_profile *q;
	struct up_profile *upto = NULL;
	uint64_t step, end, t = 0, wall;
	unsigned nv;

	if (!s)
		return 1;
	q = up_stored_profile(s);
	if (!up_profile_has_times(q)) {
		fprintf(stderr, "xl profile top: %s has no sample times (folded stacks, or a pprof from an older uniprof): nothing to replay\n",
			tp->replay);
		up_stored_free(s);
		up_symtab_free(symtab);
		return 1;
	}
	nv = up_profile_nr_vcpus(q);
	if (tp->view.vcpu >= (int)nv) {
		fprintf(stderr, "xl profile top: vCPU %d is not in the profile: it has vCPUs 0-%u\n",
			tp->view.vcpu, nv - 1);
		up_stored_free(s);
		up_symtab_free(symtab);
		return 2;
	}
	tp->name = tp->replay;
	tp->names = up_stored_symtab(s);
	snprintf(tp->source, sizeof(tp->source), "replay at x%g", tp->speed);
	step = (uint64_t)(tp->delay_s * 1e9);
	end = up_profile_time_end(q) + 1;
	if (!tp->batch && xlp_term_enter() < 0)
		tp->batch = true;
	wall = mono_ns();
	while (!*tp->stop && t < end) {
		struct up_profile *next;

		wall += (uint64_t)((double)step / tp->speed);
		replay_wait(tp, wall, nv);
		if (*tp->stop)
			break;
		t = t + step < end ? t + step : end;
		if (up_profile_slice(q, 0, t, &next) < 0) {
			snprintf(tp->error, sizeof(tp->error), "%s", up_error_last());
			break;
		}
		tp->state = t >= end ? "end of the profile" : NULL;
		if (xlp_top_new_frame(tp, next, t, (double)t / 1e9, NULL, 0) < 0) {
			up_profile_free(next);
			break;
		}
		up_profile_free(upto);
		upto = next;
	}
	/* The last screen stays until q (interactive). */
	while (!tp->batch && !*tp->stop)
		replay_wait(tp, mono_ns() + 100000000, nv);
	xlp_term_leave();
	if (tp->error[0])
		fprintf(stderr, "xl profile top: %s\n", tp->error);
	up_profile_free(tp->interval);
	tp->interval = NULL;
	up_profile_free(upto);
	up_stored_free(s);
	up_symtab_free(symtab);
	return tp->error[0] ? 1 : 0;
}

