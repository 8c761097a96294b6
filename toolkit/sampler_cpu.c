/* The sampler's dom0 vCPU (see sampler_cpu.h). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "domain.h"
#include "util/clock.h"
#include "sampler_cpu.h"

void tk_cpu_view_probe(uint32_t domid, const struct tk_backend_load *before,
			struct tk_cpu_view *v)
{
	struct tk_cpuset guest[64];
	struct tk_backend_load *after = NULL;
	cpu_set_t mine;
	unsigned n = 0;
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	memset(v, 0, sizeof(*v));
	/* dom0's Linux CPU N is its vCPU N: Xen's count when it gives one. */
	if (tk_domain_vcpu_pcpus(0, v->dom0_pcpus, TK_MAX_DOM0_CPUS, &n) == 0 && n)
		v->nr_dom0 = n;
	else
		v->nr_dom0 = online > 0 ? (unsigned)online : 1;
	if (v->nr_dom0 > TK_MAX_DOM0_CPUS)
		v->nr_dom0 = TK_MAX_DOM0_CPUS;
	if (sched_getaffinity(0, sizeof(mine), &mine) == 0) {
		for (unsigned c = 0; c < v->nr_dom0 && c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &mine))
				tk_cpuset_add(&v->allowed, c);
	} else {
		for (unsigned c = 0; c < v->nr_dom0; c++)
			tk_cpuset_add(&v->allowed, c);
	}
	if (n) {
		unsigned gn = 0;

		if (tk_domain_vcpu_pcpus(domid, guest, 64, &gn) == 0 && gn) {
			for (unsigned i = 0; i < gn; i++)
				for (unsigned w = 0; w < TK_MAX_CPUS / 64; w++)
					v->guest_pcpus.w[w] |= guest[i].w[w];
			v->pcpus_known = true;
		}
	}
	/* One dom0 vCPU to run on: nothing to choose, no window to wait. */
	if (before && (before->irqs_ok || before->threads_ok) &&
	    v->nr_dom0 > 1 && (after = malloc(sizeof(*after)))) {
		uint64_t wait_until = before->at_ns + TK_BACKEND_WINDOW_NS;
		uint64_t t = mono_ns();

		if (t < wait_until) {
			struct timespec ts = { .tv_sec = (time_t)((wait_until - t) / 1000000000ULL),
					       .tv_nsec = (long)((wait_until - t) % 1000000000ULL) };

			while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
				;
		}
		tk_backend_load_read(after);
		v->window_s = (double)(after->at_ns - before->at_ns) / 1e9;
		v->ticks_hz = sysconf(_SC_CLK_TCK) > 0 ? (unsigned)sysconf(_SC_CLK_TCK) : 100;
		v->irqs_known = before->irqs_ok && after->irqs_ok;
		v->ticks_known = before->threads_ok && after->threads_ok;
		for (unsigned c = 0; c < v->nr_dom0; c++)
			if (v->irqs_known && after->irqs[c] > before->irqs[c])
				v->irqs[c] = after->irqs[c] - before->irqs[c];
		if (v->ticks_known)
			tk_backend_ticks_between(before, after, v->ticks, v->nr_dom0);
		free(after);
	}
}

/* A CPU serves the backends when it took a twentieth or more of their
 * interrupts in the window, fifty a second at least, or ran a twentieth
 * or more of their threads' time, two percent of the window at least: the
 * ring of a guest they drive interrupts or keeps a thread busy hundreds
 * of times a second; a console's now and then is not serving. */
#define MIN_IRQ_RATE 50.0
#define MIN_THREAD_SHARE 0.02

static bool serves(const struct tk_cpu_view *v, unsigned c,
		   uint64_t irqs, uint64_t ticks)
{
	double tick_s = 1.0 / (double)(v->ticks_hz ? v->ticks_hz : 100);

	/* dom0's one vCPU runs every backend, whatever it did lately. */
	if (v->nr_dom0 == 1)
		return true;
	if (v->irqs_known && v->irqs[c] * 20 >= irqs &&
	    (double)v->irqs[c] >= MIN_IRQ_RATE * v->window_s && v->irqs[c] > 0)
		return true;
	return v->ticks_known && v->ticks[c] * 20 >= ticks &&
	       (double)v->ticks[c] * tick_s >= MIN_THREAD_SHARE * v->window_s &&
	       v->ticks[c] > 0;
}

static bool shares(const struct tk_cpu_view *v, unsigned c)
{
	return !v->pcpus_known ||
	       tk_cpuset_meets(&v->dom0_pcpus[c], &v->guest_pcpus);
}

/* "pCPU 2" or "pCPUs 0-3,6", at most len bytes. */
static void cpuset_text(const struct tk_cpuset *s, char *buf, size_t len)
{
	size_t used = 0;
	unsigned n = 0;

	buf[0] = '\0';
	for (unsigned c = 0; c < TK_MAX_CPUS; c++)
		n += tk_cpuset_has(s, c);
	used = (size_t)snprintf(buf, len, "pCPU%s ", n == 1 ? "" : "s");
	for (unsigned c = 0; c < TK_MAX_CPUS && used < len; c++) {
		unsigned e = c;

		if (!tk_cpuset_has(s, c))
			continue;
		while (e + 1 < TK_MAX_CPUS && tk_cpuset_has(s, e + 1))
			e++;
		used += (size_t)snprintf(buf + used, len - used, "%s%u", buf[used - 1] == ' ' ? "" : ",", c);
		if (e > c && used < len)
			used += (size_t)snprintf(buf + used, len - used, "-%u", e);
		c = e;
	}
}

#define REMEDY "for a sampler of its own, give dom0 a vCPU that takes no backend interrupts, pinned to a pCPU the guest does not use (Xen's dom0_max_vcpus=2 or more with dom0_vcpus_pin; the guest's cpus=), or name one with --sampler-cpu"

int tk_sampler_cpu_parse(const char *s, int *cpu, char *why, size_t len)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (!*s || *s == '-' || *s == '+' || *end || errno) {
		snprintf(why, len, "give a dom0 CPU number from 0 (see xl vcpu-list 0)");
		return -1;
	}
	if (n < 1)
		n = 1;
	if (v >= (unsigned long)n || v >= TK_MAX_DOM0_CPUS) {
		snprintf(why, len, "dom0 has CPUs 0 to %ld (see xl vcpu-list 0)", n - 1);
		return -1;
	}
	*cpu = (int)v;
	return 0;
}

int tk_sampler_cpu_choose(const struct tk_cpu_view *v, int forced,
			   struct tk_sampler_cpu *out)
{
	uint64_t irqs = 0, ticks = 0;
	int best = -1;
	unsigned best_score = 0;
	char gp[96], dp[96];

	memset(out, 0, sizeof(*out));
	out->cpu = -1;
	for (unsigned c = 0; c < v->nr_dom0; c++) {
		irqs += v->irqs_known ? v->irqs[c] : 0;
		ticks += v->ticks_known ? v->ticks[c] : 0;
	}
	cpuset_text(&v->guest_pcpus, gp, sizeof(gp));
	if (forced >= 0) {
		if ((unsigned)forced >= v->nr_dom0) {
			snprintf(out->why, sizeof(out->why),
				 "invalid --sampler-cpu '%d': dom0 has CPUs 0 to %u (see xl vcpu-list 0)",
				 forced, v->nr_dom0 - 1);
			return -1;
		}
		out->cpu = forced;
		out->forced = true;
		out->fit = !shares(v, (unsigned)forced) && !serves(v, (unsigned)forced, irqs, ticks);
		snprintf(out->why, sizeof(out->why), "sampler on dom0 CPU %d, as --sampler-cpu says", forced);
		return 0;
	}
	/* Fewest faults first (sharing the guest's pCPUs, serving the
	 * backends), then fewest backend interrupts, then the highest
	 * number: dom0's first vCPU does most of the kernel's own work. */
	for (unsigned c = 0; c < v->nr_dom0; c++) {
		unsigned score;

		if (!tk_cpuset_has(&v->allowed, c))
			continue;
		score = (shares(v, c) ? 2u : 0u) + (serves(v, c, irqs, ticks) ? 1u : 0u);
		if (best < 0 || score < best_score ||
		    (score == best_score &&
		     v->irqs[c] + v->ticks[c] <= v->irqs[best] + v->ticks[best]))
			best = (int)c, best_score = score;
	}
	if (best < 0)
		return 0;
	out->fit = best_score == 0;
	/* One CPU to run on, and it is the only one: nothing to choose. */
	out->cpu = v->nr_dom0 > 1 ? best : -1;
	if (v->pcpus_known)
		cpuset_text(&v->dom0_pcpus[best], dp, sizeof(dp));
	if (out->fit) {
		snprintf(out->why, sizeof(out->why),
			 "sampler on dom0 CPU %d: in the last %.1f s it took %" PRIu64 " of the backends' %" PRIu64 " event-channel interrupts and ran %" PRIu64 " of their threads' %" PRIu64 " clock ticks, and it runs on %s, which the guest cannot use (its vCPUs: %s)",
			 best, v->window_s, v->irqs[best], irqs, v->ticks[best], ticks, dp, gp);
	} else if (v->nr_dom0 == 1) {
		snprintf(out->why, sizeof(out->why),
			 "dom0 has one vCPU: the sampler shares it with the backends that serve the guest, and CPU time they drive may go unseen ([unseen]); " REMEDY);
	} else if (!v->pcpus_known) {
		snprintf(out->why, sizeof(out->why),
			 "Xen did not say where dom0's and the guest's vCPUs may run; sampling on dom0 CPU %d, which may share a pCPU with the guest; " REMEDY, best);
	} else {
		size_t used = (size_t)snprintf(out->why, sizeof(out->why),
					       "no dom0 vCPU is free for the sampler:");

		for (unsigned c = 0; c < v->nr_dom0 && used < sizeof(out->why); c++) {
			bool sh = shares(v, c), sv = serves(v, c, irqs, ticks);

			if (!tk_cpuset_has(&v->allowed, c))
				continue;
			cpuset_text(&v->dom0_pcpus[c], dp, sizeof(dp));
			used += (size_t)snprintf(out->why + used, sizeof(out->why) - used,
						 " CPU %u %s%s%s;", c,
						 sh ? "may run where the guest does (" : "",
						 sh ? dp : "",
						 sh ? (sv ? "), serves backends" : ")") :
						      (sv ? "serves backends" : "is free"));
		}
		if (used < sizeof(out->why))
			snprintf(out->why + used, sizeof(out->why) - used,
				 " sampling on CPU %d, CPU time may go unseen ([unseen]); " REMEDY, best);
	}
	return 0;
}

int tk_sampler_cpu_apply(const struct tk_sampler_cpu *c, cpu_set_t *saved)
{
	cpu_set_t one;

	CPU_ZERO(saved);
	if (c->cpu < 0 || c->cpu >= CPU_SETSIZE)
		return 0;
	if (sched_getaffinity(0, sizeof(*saved), saved) < 0)
		return -1;
	CPU_ZERO(&one);
	CPU_SET(c->cpu, &one);
	return sched_setaffinity(0, sizeof(one), &one);
}

void tk_sampler_cpu_restore(const struct tk_sampler_cpu *c,
			     const cpu_set_t *saved)
{
	if (c->cpu >= 0 && CPU_COUNT(saved))
		sched_setaffinity(0, sizeof(*saved), saved);
}

int tk_sampler_cpu_place(uint32_t domid, const struct tk_backend_load *before,
			  int forced, const char *prefix, int verbose,
			  bool quiet, struct tk_sampler_cpu *out,
			  cpu_set_t *saved)
{
	struct tk_cpu_view *v = malloc(sizeof(*v));
	int rc;

	CPU_ZERO(saved);
	if (!v) {
		memset(out, 0, sizeof(*out));
		out->cpu = -1;
		return 0;
	}
	tk_cpu_view_probe(domid, forced >= 0 ? NULL : before, v);
	rc = tk_sampler_cpu_choose(v, forced, out);
	free(v);
	if (rc < 0) {
		fprintf(stderr, "%s: %s\n", prefix, out->why);
		return -1;
	}
	if (tk_sampler_cpu_apply(out, saved) < 0) {
		fprintf(stderr, "%s: cannot run on dom0 CPU %d: %s%s\n", prefix,
			out->cpu, strerror(errno),
			out->forced ? "" : "; sampling where it was");
		if (out->forced)
			return -1;
		out->cpu = -1;
		return 0;
	}
	if (!out->fit && !out->forced && !quiet)
		fprintf(stderr, "%s: note: %s\n", prefix, out->why);
	else if (verbose)
		fprintf(stderr, "%s: %s\n", prefix, out->why);
	return 0;
}
