/* What a run's figures say (see run_checks.h). */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "run_checks.h"

/* Samples whose state is known: on-CPU, blocked, or woken and waiting. */
static uint64_t known_samples(const struct up_profile *p, unsigned v)
{
	return up_profile_vcpu_busy(p, v) + up_profile_vcpu_blocked(p, v) +
	       up_profile_vcpu_waiting(p, v);
}

double tk_busy_pct(const struct up_profile *p, unsigned v)
{
	uint64_t known = known_samples(p, v);

	return known ? 100.0 * (double)up_profile_vcpu_busy(p, v) / (double)known : -1;
}

double tk_waiting_pct(const struct up_profile *p, unsigned v)
{
	uint64_t known = known_samples(p, v);

	return known ? 100.0 * (double)up_profile_vcpu_waiting(p, v) / (double)known : -1;
}

double tk_others_pct(const struct tk_run *r, unsigned v)
{
	return r->others_pct && v < r->nr_others ? r->others_pct[v] : -1;
}

/* Sampling error of a share of n samples, in points, as the checks here
 * use it: 3.5 standard errors, plus 1.5 points for the edges of our
 * pauses, which the two clocks do not share. */
static double share_tolerance(double pct, double n)
{
	double p = pct / 100;

	if (p < 0 || p > 1 || n < 1)
		return 100;
	return 1.5 + 3.5 * 100 * sqrt(p * (1 - p) / n);
}

static enum tk_busy_check busy_check(const struct up_profile *profile,
				      const struct up_sampler_stats *s,
				      unsigned v)
{
	double sampled = tk_busy_pct(profile, v);
	double running = up_sampler_running_pct(s, v);
	double n = tk_effective_samples(s);

	if (sampled < 0 || running < 0 || n < 1)
		return TK_BUSY_UNKNOWN;
	/* Xen's running time is the vCPU in its own code, or in Xen on its
	 * behalf: entering a wait and being resumed from one, where a sample
	 * finds it at the block point, not blocked (waiting). Samples that
	 * found it in neither state less often than it ran, beyond sampling
	 * error, missed CPU time. More is no fault: a vCPU preempted, or
	 * woken and not yet resumed, waits. */
	sampled += tk_waiting_pct(profile, v);
	return sampled < running - share_tolerance(sampled, n) ?
	       TK_BUSY_SAMPLES_LOW : TK_BUSY_CONSISTENT;
}

enum tk_busy_check tk_busy_check(const struct tk_run *r, unsigned v)
{
	return busy_check(r->profile, r->stats, v);
}

double tk_effective_samples(const struct up_sampler_stats *s)
{
	/* Stats of a sampler before the effective count existed: all alike. */
	return s->effective_samples > 0 ? s->effective_samples : (double)s->samples;
}

/* Below this share of the rate asked, the sampler ran back to back. */
#define RATE_SHORT 0.9

double tk_rate_short(const struct tk_run *r)
{
	const struct up_sampler_stats *s = r->stats;
	/* In periods of the rate asked: a sample at a rate the stall budget
	 * lowered stands for several (not a shortfall of the sampler's). */
	double reached = s->elapsed_s > 0 ?
			 (double)(s->samples + s->budget_periods) / s->elapsed_s : 0;

	return r->asked.hz > 0 && s->samples > 1 && s->missed_deadlines &&
	       reached < RATE_SHORT * r->asked.hz ? reached : 0;
}

double tk_stood_still_pct(const struct up_sampler_stats *s)
{
	double most = -1;

	for (unsigned v = 0; v < s->nr_vcpus; v++)
		if (up_sampler_stall_pct(s, v) > most)
			most = up_sampler_stall_pct(s, v);
	return most;
}

bool tk_budget_lowered(const struct up_sampler_stats *s)
{
	return s->stall_factor_max > 1;
}

void tk_budget_text(const struct up_sampler_stats *s, char *buf, size_t len)
{
	double still = tk_stood_still_pct(s);
	char run[64] = "";

	if (still >= 0)
		snprintf(run, sizeof(run), "; it stood still %.2f%% of the run", still);
	if (!(s->max_stall_pct > 0 && s->max_stall_pct < UP_SAMPLER_NO_STALL_BUDGET))
		snprintf(buf, len, "stall budget: none (max stall 100%%), the %g Hz asked kept%s",
			 s->hz_asked, run);
	else if (!tk_budget_lowered(s))
		snprintf(buf, len, "stall budget %g%% of the domain's time: never reached, the %g Hz asked kept%s",
			 s->max_stall_pct, s->hz_asked, run);
	else
		snprintf(buf, len, "stall budget %g%% of the domain's time: rate lowered from the %g Hz asked at %.2f s, %.5g Hz at the end, %.5g Hz at the lowest (the domain stood still %.1f%% of its time for samples in the window that changed it last%s); each sample counts for the %" PRIu64 " periods of the rate asked it stood for beyond itself, %.0f effective samples; --max-stall (uniprofd: max_stall) to change",
			 s->max_stall_pct, s->hz_asked, s->lowered_at_s, s->hz_now,
			 s->hz_lowest, s->window_stall_pct, run, s->budget_periods,
			 tk_effective_samples(s));
}

/* On-CPU well above running: the samples found the vCPU runnable where
 * it ran, far more than our own pauses explain (sampling error, plus
 * WAITING_MARGIN points for the wait after each unpause). */
#define WAITING_MARGIN 5.0

double tk_busy_waiting(const struct tk_run *r, unsigned v)
{
	double sampled = tk_busy_pct(r->profile, v);
	double running = up_sampler_running_pct(r->stats, v);
	double n = tk_effective_samples(r->stats);

	if (sampled < 0 || running < 0 || n < 1)
		return 0;
	return sampled > running + share_tolerance(sampled, n) + WAITING_MARGIN ?
	       sampled - running : 0;
}

/* Whether Xen's pCPU accounting allows `points` of waiting for pCPUs
 * other vCPUs held: 1 yes, 0 no (they held them less, beyond the
 * tolerance), -1 not known. */
static int others_explain(const struct tk_run *r, unsigned v, double points,
			  double tol)
{
	double o = tk_others_pct(r, v);

	if (o < 0)
		return -1;
	return o + tol >= points;
}

/* The samples a vCPU's run time by Xen is worth beyond those that found
 * it busy, when they fell short beyond sampling error; else 0. */
static uint64_t unseen_samples(const struct up_profile *p,
			       const struct up_sampler_stats *s, unsigned v)
{
	uint64_t busy = up_profile_vcpu_busy(p, v) + up_profile_vcpu_waiting(p, v);
	double known = (double)known_samples(p, v);
	double worth = up_sampler_running_pct(s, v) / 100 * known;

	if (busy_check(p, s, v) != TK_BUSY_SAMPLES_LOW || worth <= (double)busy)
		return 0;
	return (uint64_t)llround(worth - (double)busy);
}

int tk_account_unseen(struct up_profile *p, const struct up_sampler_stats *s)
{
	for (unsigned v = 0; v < up_profile_nr_vcpus(p) && v < s->nr_vcpus; v++) {
		uint64_t n = unseen_samples(p, s, v), had = up_profile_vcpu_unseen(p, v);

		/* Once: asked again, nothing more is missing. */
		if (n > had && up_profile_add_unseen(p, v, n - had) < 0)
			return -1;
	}
	return 0;
}

const char *tk_busy_check_name(enum tk_busy_check c)
{
	switch (c) {
	case TK_BUSY_CONSISTENT: return "consistent";
	case TK_BUSY_SAMPLES_LOW: return "samples low";
	case TK_BUSY_UNKNOWN: break;
	}
	return "unknown";
}

/* Why a vCPU waited, by what Xen's pCPU accounting allows. */
static void why_waited(const struct tk_run *r, unsigned v, double points,
		       double tol, FILE *out)
{
	switch (others_explain(r, v, points, tol)) {
	case 1:
		fprintf(out, "other vCPUs held the pCPUs it may use up to %.1f%% of the time (Xen's pCPU accounting): keep them off its pCPUs (its cpus=, xl vcpu-pin) to see its CPU time alone\n",
			tk_others_pct(r, v));
		break;
	case 0:
		fprintf(out, "no other vCPU held its pCPUs that long (at most %.1f%% of the time, by Xen's pCPU accounting): the pCPU itself was slow to take it up (its wake-up from idle; under emulation, the emulator's thread for it)\n",
			tk_others_pct(r, v));
		break;
	default:
		fputs("whether other vCPUs held its pCPUs, Xen did not say\n", out);
	}
}

/* The samples that found a vCPU waiting to run, and why it waited. */
static void waiting_lines(const struct tk_run *r, unsigned v, FILE *out)
{
	double n = tk_effective_samples(r->stats), w = tk_waiting_pct(r->profile, v);
	double excess = tk_busy_waiting(r, v), tol;

	if (w > 0 && w > share_tolerance(w, n)) {
		tol = share_tolerance(w, n);
		fprintf(out, "xl profile: warning: vCPU %u was woken and waiting to run in %.1f%% of the samples (runnable where it had blocked: not CPU time, [waiting] with --idle); ",
			v, w);
		why_waited(r, v, w, tol, out);
	}
	if (excess <= 0)
		return;
	/* Back to back, the wait to run again after each of our own
	 * pauses is most of it: the rate line says so. */
	if (tk_rate_short(r) > 0) {
		fprintf(out, "xl profile: warning: vCPU %u was busy in %.1f%% of the samples but ran %.1f%% of the time by Xen's accounting: with the sampler back to back, the vCPU spends that much of the time between pauses waiting to run again; lower -f to profile its CPU time\n",
			v, tk_busy_pct(r->profile, v),
			up_sampler_running_pct(r->stats, v));
		return;
	}
	tol = share_tolerance(tk_busy_pct(r->profile, v), n) + WAITING_MARGIN;
	fprintf(out, "xl profile: warning: vCPU %u was on-CPU in %.1f%% of the samples but ran %.1f%% of the time by Xen's accounting: ",
		v, tk_busy_pct(r->profile, v), up_sampler_running_pct(r->stats, v));
	if (others_explain(r, v, excess, tol) == 1)
		fprintf(out, "in about %.0f points of them it was runnable, waiting for a pCPU other vCPUs held (Xen's pCPU accounting: up to %.1f%% of the time); the on-CPU view shows where it waited as well as where it ran; keep other vCPUs off its pCPUs (its cpus=, xl vcpu-pin) to see its CPU time alone\n",
			excess, tk_others_pct(r, v));
	else if (others_explain(r, v, excess, tol) == 0)
		fprintf(out, "%.0f points that waiting for other vCPUs does not explain (they held its pCPUs at most %.1f%% of the time, by Xen's pCPU accounting); why, the profiler does not know: compare its busy share with the guest's own accounting before trusting the split\n",
			excess, tk_others_pct(r, v));
	else
		fprintf(out, "%.0f points more; whether it waited for pCPUs other vCPUs held, Xen did not say\n",
			excess);
}

/* One line per vCPU whose samples found it busy well below Xen's run
 * time: after secs of sampling (secs > 0), or at the end. */
static void busy_lines(const struct tk_run *r, double secs, FILE *out)
{
	for (unsigned v = 0; v < up_profile_nr_vcpus(r->profile); v++) {
		if (tk_busy_check(r, v) != TK_BUSY_SAMPLES_LOW)
			continue;
		if (secs > 0)
			fprintf(out, "xl profile: after %.0f s: ", secs);
		else
			fputs("xl profile: warning: ", out);
		fprintf(out, "vCPU %u was busy in %.1f%% of the samples but ran %.1f%% of the time by Xen's accounting: ",
			v, tk_busy_pct(r->profile, v) + tk_waiting_pct(r->profile, v),
			up_sampler_running_pct(r->stats, v));
		if (secs > 0)
			fputs("most of its CPU time is going unseen (the warning at the end says why and what to change in dom0; Ctrl-C keeps what was sampled)\n",
			      out);
		else
			fputs("its CPU time came in bursts the sampler could not catch (work driven by backends that share dom0's CPU with the sampler, or the guest on dom0's CPU); [unseen] in the flame graph and top list stands for it; give the sampler a dom0 vCPU that neither the guest nor its backends use, on a pCPU the guest does not use either (dom0_max_vcpus=2 or more with dom0_vcpus_pin, the guest's cpus= on a pCPU no dom0 vCPU is on, taskset -c N xl profile)\n",
			      out);
	}
	for (unsigned v = 0; secs <= 0 && v < up_profile_nr_vcpus(r->profile); v++)
		waiting_lines(r, v, out);
}

void tk_busy_warnings(const struct tk_run *r, FILE *out)
{
	busy_lines(r, 0, out);
}

void tk_busy_warnings_early(const struct tk_run *r, double secs, FILE *out)
{
	busy_lines(r, secs, out);
}
