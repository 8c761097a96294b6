/* xl profile top's screen: see top_view.h. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "top_view.h"

/* One function's figures in both lists. */
struct row {
	const char *name;
	uint64_t self[2], total[2];    /* [0]: the interval, [1]: since start */
};

struct rows {
	struct row *r;
	size_t n, cap;
};

static struct row *row_of(struct rows *rs, const char *name)
{
	for (size_t i = 0; i < rs->n; i++)
		if (strcmp(rs->r[i].name, name) == 0)
			return &rs->r[i];
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 64;
		struct row *r = realloc(rs->r, cap * sizeof(*r));

		if (!r)
			return NULL;
		rs->r = r;
		rs->cap = cap;
	}
	rs->r[rs->n] = (struct row){ .name = name };
	return &rs->r[rs->n++];
}

static bool sort_by_total;

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	uint64_t kx = sort_by_total ? x->total[0] : x->self[0];
	uint64_t ky = sort_by_total ? y->total[0] : y->self[0];
	uint64_t lx = sort_by_total ? x->total[1] : x->self[1];
	uint64_t ly = sort_by_total ? y->total[1] : y->self[1];

	if (kx != ky)
		return kx > ky ? -1 : 1;
	if (lx != ly)
		return lx > ly ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The top list by the view's key: self (as up_profile_top gives it) or
 * total. */
static int entry_cmp(const void *a, const void *b)
{
	const struct up_top_entry *x = a, *y = b;
	uint64_t kx = sort_by_total ? x->total : x->self;
	uint64_t ky = sort_by_total ? y->total : y->self;

	if (kx != ky)
		return kx > ky ? -1 : 1;
	return strcmp(x->name, y->name);
}

static double pct(uint64_t n, uint64_t of)
{
	return of ? 100.0 * (double)n / (double)of : 0.0;
}

/* name cut to at most max bytes, on a UTF-8 character's start. */
static void print_fitted(FILE *out, const char *name, size_t max)
{
	size_t n = strlen(name);
	char *cut;

	if (n <= max) {
		up_text_print_escaped(out, name);
		return;
	}
	if (max < 4 || !(cut = strdup(name))) {
		fputs("...", out);
		return;
	}
	n = max - 3;
	while (n > 0 && ((unsigned char)cut[n] & 0xc0) == 0x80)
		n--;
	memcpy(cut + n, "...", 4);
	up_text_print_escaped(out, cut);
	free(cut);
}

/* Whether the samples' busy share falls short of Xen's: beyond 3.5
 * standard errors of n samples and 1.5 points (the suite's rule). */
static bool short_of_xen(double busy, double ran, uint64_t n)
{
	double p = ran / 100, se;

	if (ran < 0 || n == 0)
		return false;
	se = 100 * sqrt(p * (1 - p) / (double)n);
	return busy + 1.5 + 3.5 * se < ran;
}

/* The samples behind n periods of the interval (see sample_share). */
static uint64_t samples_of(const struct xlp_top_input *in, uint64_t n)
{
	double share = in->sample_share > 0 && in->sample_share < 1 ? in->sample_share : 1;

	return (uint64_t)llround((double)n * share);
}

static void vcpu_lines(const struct xlp_top_input *in, const struct xlp_top_view *v,
		       FILE *out)
{
	unsigned nv = up_profile_nr_vcpus(in->total);
	bool flagged = false;

	fprintf(out, "vCPU      busy  blocked  waiting  samples%s  | since start: busy  samples\n",
		in->ran_pct ? "  ran (Xen)" : "");
	for (unsigned c = 0; c < nv; c++) {
		const struct up_profile *p[2] = { in->interval, in->total };
		uint64_t busy[2], blocked[2], all[2];   /* blocked: and waiting */
		uint64_t waiting;

		if (v->vcpu >= 0 && (unsigned)v->vcpu != c)
			continue;
		for (int k = 0; k < 2; k++) {
			busy[k] = up_profile_vcpu_busy(p[k], c);
			blocked[k] = up_profile_vcpu_blocked(p[k], c) +
				     up_profile_vcpu_waiting(p[k], c);
			all[k] = up_profile_vcpu_samples(p[k], c);
		}
		waiting = up_profile_vcpu_waiting(p[0], c);
		if (!all[1])
			continue;
		if (busy[0] + blocked[0])
			fprintf(out, "%-6u  %5.1f%%   %5.1f%%   %5.1f%%  %7" PRIu64, c,
				pct(busy[0], busy[0] + blocked[0]),
				pct(blocked[0] - waiting, busy[0] + blocked[0]),
				pct(waiting, busy[0] + blocked[0]), all[0]);
		else
			fprintf(out, "%-6u      ?        ?        ?  %7" PRIu64, c, all[0]);
		if (in->ran_pct) {
			double ran = c < in->nr_ran ? in->ran_pct[c] : -1;

			if (ran >= 0)
				fprintf(out, "     %5.1f%%", ran);
			else
				fputs("          ?", out);
			/* Woken and not yet resumed may be Xen's running
			 * time too (run_checks.c, busy_check). */
			if (busy[0] + blocked[0] &&
			    short_of_xen(pct(busy[0] + waiting, busy[0] + blocked[0]), ran,
					 samples_of(in, busy[0] + blocked[0]))) {
				fputc('!', out);
				flagged = true;
			} else {
				fputc(' ', out);
			}
		}
		if (busy[1] + blocked[1])
			fprintf(out, "  |              %5.1f%%  %7" PRIu64 "\n",
				pct(busy[1], busy[1] + blocked[1]), all[1]);
		else
			fprintf(out, "  |                  ?  %7" PRIu64 "\n", all[1]);
	}
	if (flagged)
		fputs("! the samples saw it busy far less than Xen says it ran: bursts too short for the\n"
		      "  sampler to catch (dom0-driven work); give the sampler a dom0 vCPU of its own\n"
		      "  (see xl profile's warning, and man xl-profile)\n", out);
}

int xlp_top_render(const struct xlp_top_input *in, const struct xlp_top_view *v,
		   FILE *out)
{
	const struct up_output_opts o = { .version = UP_OUTPUT_OPTS_VERSION,
					  .vcpu = v->vcpu, .with_idle = v->with_idle,
					  .no_inline = in->live };
	const struct up_profile *p[2] = { in->interval, in->total };
	struct up_top_entry *e[2] = { NULL, NULL };
	size_t ne[2] = { 0, 0 };
	uint64_t kept[2];
	struct rows rs = { 0 };
	int rc = 0;

	for (int k = 0; k < 2 && rc == 0; k++) {
		kept[k] = up_profile_kept_samples(p[k], &o);
		rc = up_profile_top(p[k], in->names, &o, &e[k], &ne[k]);
	}
	/* Only the first rows of each list by the sort's key can be shown
	 * (an image may name 100,000 functions, and this runs each
	 * second): those names, then their figures in both lists. */
	sort_by_total = v->by_total;
	for (int k = 0; k < 2 && rc == 0; k++) {
		qsort(e[k], ne[k], sizeof(*e[k]), entry_cmp);
		for (size_t i = 0; i < ne[k] && i < v->rows; i++)
			if (!row_of(&rs, e[k][i].name)) {
				rc = -1;
				break;
			}
	}
	for (size_t i = 0; i < rs.n && rc == 0; i++)
		for (int k = 0; k < 2; k++)
			for (size_t j = 0; j < ne[k]; j++)
				if (strcmp(e[k][j].name, rs.r[i].name) == 0) {
					rs.r[i].self[k] = e[k][j].self;
					rs.r[i].total[k] = e[k][j].total;
					break;
				}

	fputs("uniprof top: ", out);
	up_text_print_escaped(out, in->name);
	fprintf(out, " (%s), %.1f s%s%s\n", in->source, in->t_s,
		in->state ? ": " : "", in->state ? in->state : "");
	char which[32] = "all vCPUs";

	if (v->vcpu >= 0)
		snprintf(which, sizeof(which), "vCPU %d", v->vcpu);
	fprintf(out, "interval %.1f s: %" PRIu64 " samples; since start: %" PRIu64
		"  [%s, %s, by %s]\n", in->interval_s, kept[0], kept[1], which,
		v->with_idle ? "busy and idle" : "on-CPU only",
		v->by_total ? "total" : "self");
	if (in->have_cost) {
		fprintf(out, "sampler: pause p50 %.0f us, p99 %.0f us; the domain stood still %.2f%% of the interval",
			in->pause_p50_us, in->pause_p99_us, in->still_pct);
		if (in->hz_asked > 0 && in->hz_now > 0 && in->hz_now < in->hz_asked)
			fprintf(out, "; rate %.5g Hz of the %g asked (stall budget %g%%: each sample counts %.0f times)",
				in->hz_now, in->hz_asked, in->max_stall_pct,
				in->hz_asked / in->hz_now);
		fputc('\n', out);
	}
	vcpu_lines(in, v, out);
	if (v->keys)
		fputs("keys: v vCPU  i idle  s sort self/total  f freeze  q quit\n", out);
	fputs("\n  INTERVAL                SINCE START\n"
	      " self%  total%  samples   self%  total%  function\n", out);
	if (rc == 0) {
		qsort(rs.r, rs.n, sizeof(*rs.r), row_cmp);
		for (size_t i = 0; i < rs.n && i < v->rows; i++) {
			const struct row *r = &rs.r[i];

			fprintf(out, "%6.1f  %6.1f  %7" PRIu64 "  %6.1f  %6.1f  ",
				pct(r->self[0], kept[0]), pct(r->total[0], kept[0]),
				r->self[0], pct(r->self[1], kept[1]),
				pct(r->total[1], kept[1]));
			print_fitted(out, r->name, v->width > 50 ? v->width - 46 : 1024);
			fputc('\n', out);
		}
	} else {
		fputs("(out of memory)\n", out);
	}
	free(rs.r);
	for (int k = 0; k < 2; k++)
		up_top_free(e[k], ne[k]);
	return rc < 0 ? -1 : 0;
}
