/* xl profile top DOMAIN: a live view, refreshed each interval, as xentop
 * and perf top give one: the hottest functions over the last interval and
 * since the start, each vCPU's busy and blocked share, the sampler's own
 * cost. Keys switch the vCPU, idle stacks, the sort, freeze, quit. -b (or
 * a terminal that cannot take the screen) prints each interval as plain
 * text. --replay FILE plays a stored profile's sample times instead of a
 * domain. Nothing is written to disk: xl profile is for files. The screen
 * is drawn between samples, never while the domain is paused. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "live_domain.h"
#include "realtime.h"
#include "toolkit/sampler_cpu.h"
#include "stored_cmds.h"
#include "subcommands.h"
#include "top_term.h"
#include "top_view.h"
#include "toolkit/image_cache.h"
#include "options.h"

enum { OPT_VCPU = 256, OPT_IDLE, OPT_TOP, OPT_DELAY, OPT_REPLAY, OPT_SPEED, OPT_SAMPLER_CPU,
       OPT_FORCE_SYMBOLS, OPT_CONSISTENCY, OPT_DEBUGINFOD, OPT_MAX_STALL };

static const struct xlp_option_doc docs[] = {
	{ { "batch", no_argument, NULL, 'b' }, 'b', NULL,
	  "plain text, one screen per interval, for scripts and pipes (also when the terminal cannot take the screen)" },
	{ { "iterations", required_argument, NULL, 'n' }, 'n', "N",
	  "stop after N intervals (default: until q, Ctrl-C, -d or the domain's end)" },
	{ { "delay", required_argument, NULL, OPT_DELAY }, OPT_DELAY, "SECONDS",
	  "the interval (default 1)" },
	{ { "duration", required_argument, NULL, 'd' }, 'd', "SECONDS",
	  "stop after this long" },
	{ { "frequency", required_argument, NULL, 'f' }, 'f', "HZ",
	  "samples per second (default 97)" },
	{ { "vcpu", required_argument, NULL, OPT_VCPU }, OPT_VCPU, "N",
	  "show vCPU N only at the start (key v switches)" },
	{ { "idle", no_argument, NULL, OPT_IDLE }, OPT_IDLE, NULL,
	  "count blocked (idle) stacks too at the start (key i switches)" },
	{ { "top", required_argument, NULL, OPT_TOP }, OPT_TOP, "N",
	  "functions listed (default: 20, or what fits the terminal)" },
	{ { "symbols", required_argument, NULL, 's' }, 's', "FILE",
	  "symbols from this ELF image or nm map instead of the search xl profile does" },
	{ { "force-symbols", no_argument, NULL, OPT_FORCE_SYMBOLS }, OPT_FORCE_SYMBOLS, NULL,
	  "use the -s file even if its build-id differs" },
	{ { "debuginfod", required_argument, NULL, OPT_DEBUGINFOD }, OPT_DEBUGINFOD, "URLS",
	  "debuginfod servers for the kernel's debug file, as for xl profile (default: $DEBUGINFOD_URLS)" },
	{ { "unwinder", required_argument, NULL, 'u' }, 'u', "METHOD",
	  "auto, cfi, fp or libunwind, as for xl profile" },
	{ { "consistency", required_argument, NULL, OPT_CONSISTENCY }, OPT_CONSISTENCY, "MODE",
	  "paused (default) or relaxed, as for xl profile" },
	{ { "sampler-cpu", required_argument, NULL, OPT_SAMPLER_CPU }, OPT_SAMPLER_CPU, "N",
	  "run the sampler on dom0 CPU N (default: chosen as for xl profile)" },
	{ { "max-stall", required_argument, NULL, OPT_MAX_STALL }, OPT_MAX_STALL, "PCT",
	  XLP_MAX_STALL_HELP },
	{ { "replay", required_argument, NULL, OPT_REPLAY }, OPT_REPLAY, "FILE",
	  "play a stored pprof profile's samples at the pace they were taken, instead of a domain" },
	{ { "speed", required_argument, NULL, OPT_SPEED }, OPT_SPEED, "X",
	  "--replay: X times as fast (default 1)" },
	{ { "help", no_argument, NULL, 'h' }, 'h', NULL, "show this help" },
};

#define NDOCS (sizeof(docs) / sizeof(docs[0]))

struct top {
	struct xlp_options opt;        /* the live domain's, as xl profile's */
	struct xlp_top_view view;
	bool batch, rows_set;
	unsigned iterations, frames;
	double delay_s, speed;
	const char *replay;
	char source[96];
	const char *name;
	const struct up_symtab *names;
	volatile sig_atomic_t *stop;
	struct up_profile *live;       /* a live run's: its old times forgotten */
	struct xlp_live *domain;       /* a live run's domain; NULL: replay */
	bool frozen;
	/* The last frame: its interval (kept for redrawing it when a key
	 * changes the view), times, and where its pauses began. */
	struct up_profile *interval;
	const struct up_profile *total;
	uint64_t end_ns;               /* the profile's time at its end */
	double t_s, interval_s;
	size_t pause_at;
	bool have_cost;
	double p50_us, p99_us, still_pct;
	/* The stall budget: the rate now and asked, the budget; the samples
	 * taken since the last frame against the periods they count for. */
	double hz_now, hz_asked, max_stall_pct, sample_share;
	uint64_t samples_at, periods_at;
	/* Xen's run clock per vCPU at the last frame, and the interval's
	 * share it ran (a live run). */
	uint64_t *run0, *unpaused0;
	double *ran_pct;
	unsigned nr_ran;
	const char *state;
	uint64_t next_ns;              /* monotonic: the next frame */
	char error[256];               /* why it stopped, when it failed */
};

static volatile sig_atomic_t stop_requested;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: xl profile top [options] DOMAIN\n"
		"       xl profile top [options] --replay FILE\n"
		"\n"
		"A live view of where a domain spends its CPU time, refreshed each second:\n"
		"the hottest functions over the last interval and since the start, each vCPU's\n"
		"busy and blocked share, the sampler's own cost. Keys: v next vCPU, i idle\n"
		"stacks, s sort by self or total, f freeze, q quit. Nothing is written to disk\n"
		"(xl profile writes the files).\n"
		"\n"
		"Options:\n");
	xlp_print_option_docs(out, docs, NDOCS);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The sampler's pauses since the last frame: p50, p99, and the share of
 * the interval the domain stood still. */
static void interval_cost(struct top *tp, const struct up_sampler_stats *s,
			  double wall_s)
{
	size_t n = s->nr_pause > tp->pause_at ? s->nr_pause - tp->pause_at : 0;
	uint64_t *v, sum = 0;

	tp->have_cost = false;
	if (!n || !(v = malloc(n * sizeof(*v))))
		return;
	memcpy(v, s->pause_ns + tp->pause_at, n * sizeof(*v));
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	qsort(v, n, sizeof(*v), cmp_u64);
	tp->p50_us = (double)v[(n - 1) / 2] / 1e3;
	tp->p99_us = (double)v[(size_t)ceil(0.99 * (double)n) - 1] / 1e3;
	tp->still_pct = wall_s > 0 ? 100.0 * (double)sum / 1e9 / wall_s : 0;
	tp->have_cost = true;
	free(v);
}

/* The rate the stall budget left, and how many periods of the rate asked
 * each sample since the last frame stood for: the sampling error of the
 * interval's shares rests on the samples, not the periods. */
static void interval_rate(struct top *tp, const struct up_sampler_stats *s)
{
	uint64_t periods = s->samples + s->covered_periods + s->budget_periods;
	uint64_t ds = s->samples - tp->samples_at, dp = periods - tp->periods_at;

	tp->hz_now = s->hz_now;
	tp->hz_asked = s->hz_asked;
	tp->max_stall_pct = s->max_stall_pct;
	tp->sample_share = dp ? (double)ds / (double)dp : 1;
	tp->samples_at = s->samples;
	tp->periods_at = periods;
}

/* Each vCPU's share of the interval it ran by Xen's accounting: the
 * run clock the sampler reads outside its pauses, over the time it did
 * not hold the domain paused. */
static void interval_ran(struct top *tp, const struct up_sampler_stats *s)
{
	if (!s->vcpu_run_ns || !s->vcpu_unpaused_ns)
		return;
	if (!tp->ran_pct) {
		tp->run0 = calloc(s->nr_vcpus, sizeof(*tp->run0));
		tp->unpaused0 = calloc(s->nr_vcpus, sizeof(*tp->unpaused0));
		tp->ran_pct = calloc(s->nr_vcpus, sizeof(*tp->ran_pct));
		if (!tp->run0 || !tp->unpaused0 || !tp->ran_pct) {
			free(tp->run0);
			free(tp->unpaused0);
			free(tp->ran_pct);
			tp->run0 = tp->unpaused0 = NULL;
			tp->ran_pct = NULL;
			return;
		}
		tp->nr_ran = s->nr_vcpus;
	}
	for (unsigned v = 0; v < tp->nr_ran; v++) {
		uint64_t run = s->vcpu_run_ns[v] - tp->run0[v];
		uint64_t up = s->vcpu_unpaused_ns[v] - tp->unpaused0[v];

		tp->ran_pct[v] = up ? (run > up ? 100.0 : 100.0 * (double)run / (double)up) : -1;
		tp->run0[v] = s->vcpu_run_ns[v];
		tp->unpaused0[v] = s->vcpu_unpaused_ns[v];
	}
}

/* Draw the last frame again (a key changed the view, or a new one). */
static void draw(struct top *tp)
{
	struct xlp_top_input in = {
		.name = tp->name, .source = tp->source, .t_s = tp->t_s,
		.interval_s = tp->interval_s, .total = tp->total,
		.interval = tp->interval, .names = tp->names,
		.have_cost = tp->have_cost, .pause_p50_us = tp->p50_us,
		.pause_p99_us = tp->p99_us, .still_pct = tp->still_pct,
		.state = tp->frozen ? "frozen (f resumes)" : tp->state,
		.ran_pct = tp->ran_pct, .nr_ran = tp->nr_ran,
		.live = tp->live != NULL,
		.hz_now = tp->hz_now, .hz_asked = tp->hz_asked,
		.max_stall_pct = tp->max_stall_pct,
		.sample_share = tp->sample_share > 0 ? tp->sample_share : 1,
	};
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (!tp->interval || !tp->total)
		return;
	if (tp->batch) {
		xlp_top_render(&in, &tp->view, stdout);
		fputc('\n', stdout);
		/* The reader gone (top -b | head): stop sampling too. */
		if (fflush(stdout) != 0 || ferror(stdout))
			*tp->stop = 1;
		return;
	}
	if (!(f = open_memstream(&text, &len)))
		return;
	{
		unsigned cols, rows;

		xlp_term_size(&cols, &rows);
		tp->view.width = cols;
		if (!tp->rows_set)
			tp->view.rows = rows > 18 ? rows - 14 : 4;
	}
	xlp_top_render(&in, &tp->view, f);
	fclose(f);
	xlp_term_show(text, len);
	free(text);
}

/* A new frame: the samples taken since the last one's end. */
static int new_frame(struct top *tp, const struct up_profile *total,
		     uint64_t end_ns, double t_s, const struct up_sampler_stats *s,
		     double wall_s)
{
	struct up_profile *iv;

	if (up_profile_slice(total, tp->end_ns, end_ns, &iv) < 0) {
		*tp->stop = 1;
		snprintf(tp->error, sizeof(tp->error), "%s", up_error_last());
		return -1;
	}
	if (tp->live)
		up_profile_forget_times(tp->live, end_ns);
	up_profile_free(tp->interval);
	tp->interval = iv;
	tp->total = total;
	tp->interval_s = (double)(end_ns - tp->end_ns) / 1e9;
	tp->end_ns = end_ns;
	tp->t_s = t_s;
	if (s) {
		interval_cost(tp, s, wall_s);
		interval_rate(tp, s);
		tp->pause_at = s->nr_pause;
		interval_ran(tp, s);
	}
	tp->frames++;
	if (!tp->frozen)
		draw(tp);
	if (tp->iterations && tp->frames >= tp->iterations)
		*tp->stop = 1;
	return 0;
}

/* A key: 1 when the view changed. */
static int key(struct top *tp, int c, unsigned nr_vcpus)
{
	switch (c) {
	case 'q': case 'Q': case 3:
		*tp->stop = 1;
		return 0;
	case 'v':
		tp->view.vcpu = tp->view.vcpu + 1 >= (int)nr_vcpus ? -1 : tp->view.vcpu + 1;
		return 1;
	case 'i':
		tp->view.with_idle = !tp->view.with_idle;
		return 1;
	case 's':
		tp->view.by_total = !tp->view.by_total;
		return 1;
	case 'f':
		tp->frozen = !tp->frozen;
		return 1;
	default:
		return 0;
	}
}

static void keys(struct top *tp, unsigned nr_vcpus)
{
	int c, changed = 0;

	if (tp->batch)
		return;
	if (xlp_term_resumed) {
		xlp_term_resumed = 0;
		changed = 1;
	}
	while ((c = xlp_term_key()) >= 0)
		changed |= key(tp, c, nr_vcpus);
	if (changed)
		draw(tp);
}

/* After each sample (between samples): keys, and a frame each interval. */
static void on_sample(const struct up_profile *p, const struct up_sampler_stats *s,
		      void *arg)
{
	struct top *tp = arg;
	uint64_t now = mono_ns();

	keys(tp, up_profile_nr_vcpus(p));
	if (tp->domain)
		xlp_live_between_samples(tp->domain, up_profile_time_end(p));
	if (now < tp->next_ns)
		return;
	new_frame(tp, p, up_profile_time_end(p) + 1,
		  (double)up_profile_time_end(p) / 1e9, s,
		  tp->delay_s + (double)(now - tp->next_ns) / 1e9);
	tp->next_ns = now + (uint64_t)(tp->delay_s * 1e9);
}

static int live(struct top *tp)
{
	struct xlp_live l = { .opt = &tp->opt };
	struct up_sampler_config cfg;
	struct up_sampler_stats stats;
	struct up_profile *p = NULL;
	struct xlp_backend_load backends;
	struct xlp_sampler_cpu where = { .cpu = -1 };
	cpu_set_t cpus;
	const char *why;
	int rc;

	memset(&stats, 0, sizeof(stats));
	if ((rc = xlp_live_check(&l, tp->stop)) != 0)
		return rc;
	xlp_backend_load_read(&backends);
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
	if (xlp_sampler_cpu_place(l.dom.domid, &backends, tp->opt.sampler_cpu,
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
	xlp_sampler_cpu_restore(&where, &cpus);
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
	xlp_image_cache_drop();
	return rc;
}

/* Sleep until `until` (monotonic), reading keys meanwhile. */
static void replay_wait(struct top *tp, uint64_t until, unsigned nr_vcpus)
{
	while (!*tp->stop) {
		uint64_t now = mono_ns();
		struct timespec ts = { 0, 20000000 };

		keys(tp, nr_vcpus);
		if (now >= until)
			return;
		if (until - now < 20000000)
			ts.tv_nsec = (long)(until - now);
		nanosleep(&ts, NULL);
	}
}

static int replay(struct top *tp)
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
		if (new_frame(tp, next, t, (double)t / 1e9, NULL, 0) < 0) {
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

static int bad(const char *what, const char *arg, const char *fix)
{
	fprintf(stderr, "xl profile top: invalid %s '%s': %s\n", what, arg, fix);
	return 2;
}

static int parse(struct top *tp, int argc, char **argv)
{
	struct option longopts[NDOCS + 1];
	char shortopts[3 * NDOCS + 2];
	unsigned v;
	int c;

	xlp_getopt_tables(docs, NDOCS, longopts, shortopts);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'b': tp->batch = true; break;
		case 'n':
			if (xlp_parse_uint(optarg, 1000000, &tp->iterations) < 0 || !tp->iterations)
				return bad("iterations", optarg, "give a number of intervals from 1");
			break;
		case OPT_DELAY:
			if (xlp_parse_double(optarg, &tp->delay_s) < 0 || !(tp->delay_s >= 0.1 && tp->delay_s <= 3600))
				return bad("delay", optarg, "give seconds from 0.1 to 3600");
			break;
		case 'd':
			if (xlp_parse_double(optarg, &tp->opt.duration_s) < 0 || !(tp->opt.duration_s > 0 && tp->opt.duration_s <= 1e7))
				return bad("duration", optarg, "give a number of seconds above 0");
			break;
		case 'f':
			if (xlp_parse_double(optarg, &tp->opt.hz) < 0 || !(tp->opt.hz > 0 && tp->opt.hz <= UP_SAMPLER_MAX_HZ))
				return bad("frequency", optarg, "give samples per second, above 0 and at most 100000");
			break;
		case OPT_VCPU:
			if (xlp_parse_uint(optarg, 4095, &v) < 0)
				return bad("vCPU", optarg, "give a vCPU number from 0");
			tp->view.vcpu = (int)v;
			break;
		case OPT_IDLE: tp->view.with_idle = true; break;
		case OPT_TOP:
			if (xlp_parse_uint(optarg, 100000, &tp->view.rows) < 0 || !tp->view.rows)
				return bad("--top", optarg, "give a number of functions from 1");
			tp->rows_set = true;
			break;
		case 's': tp->opt.symbols = optarg; break;
		case OPT_FORCE_SYMBOLS: tp->opt.force_symbols = true; break;
		case OPT_DEBUGINFOD: tp->opt.debuginfod = optarg; break;
		case 'u':
			if (xlp_parse_unwinder(optarg, &tp->opt.unwinder) < 0)
				return bad("unwinder", optarg, "use auto, cfi, fp or libunwind");
			break;
		case OPT_CONSISTENCY:
			if (strcmp(optarg, "paused") == 0)
				tp->opt.consistency = UP_CONSISTENCY_PAUSED;
			else if (strcmp(optarg, "relaxed") == 0)
				tp->opt.consistency = UP_CONSISTENCY_RELAXED;
			else
				return bad("consistency", optarg, "use paused or relaxed");
			break;
		case OPT_REPLAY: tp->replay = optarg; break;
		case OPT_SAMPLER_CPU: {
			char why[96];

			if (xlp_sampler_cpu_parse(optarg, &tp->opt.sampler_cpu, why, sizeof(why)) < 0)
				return bad("sampler CPU", optarg, why);
			break;
		}
		case OPT_MAX_STALL:
			if (xlp_parse_max_stall(optarg, &tp->opt.max_stall_pct) < 0)
				return bad("stall budget", optarg,
					   "give a share of the time above 0 and at most 100, in % (100: no budget)");
			break;
		case OPT_SPEED:
			if (xlp_parse_double(optarg, &tp->speed) < 0 || !(tp->speed >= 0.01 && tp->speed <= 1000))
				return bad("speed", optarg, "give a factor from 0.01 to 1000");
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			if (optopt && strchr(shortopts, optopt) && optopt != ':')
				fprintf(stderr, "xl profile top: option -%c needs a value (see --help)\n", optopt);
			else
				fprintf(stderr, "xl profile top: unknown option '%s' (see --help)\n",
					argv[optind - 1]);
			return 2;
		}
	}
	if (tp->replay && optind < argc) {
		fprintf(stderr, "xl profile top: give a domain or --replay FILE, not both\n");
		return 2;
	}
	if (!tp->replay && optind + 1 != argc) {
		fprintf(stderr, "xl profile top: %s: xl profile top [options] DOMAIN (see --help)\n",
			optind >= argc ? "no domain given" : "one domain only");
		return 2;
	}
	tp->opt.domain = tp->replay ? NULL : argv[optind];
	return 0;
}

int xlp_cmd_top(int argc, char **argv)
{
	struct top tp;
	int rc;

	memset(&tp, 0, sizeof(tp));
	tp.opt.hz = UP_SAMPLER_DEFAULT_HZ;
	tp.opt.vcpu = -1;
	tp.opt.sampler_cpu = -1;
	tp.opt.max_depth = UP_UNWIND_DEFAULT_MAX_DEPTH;
	tp.opt.unwinder = UP_UNWINDER_AUTO;
	tp.opt.quiet = true;
	tp.view.vcpu = -1;
	tp.view.rows = 20;
	tp.delay_s = 1;
	tp.speed = 1;
	tp.stop = &stop_requested;
	rc = parse(&tp, argc, argv);
	if (rc)
		return rc == 1 ? 0 : 2;
	/* A terminal that cannot take the screen gets the batch form. */
	if (!tp.batch && !xlp_term_usable())
		tp.batch = true;
	tp.view.keys = !tp.batch;
	xlp_live_stop_on_signals(&stop_requested);
	if (tp.replay)
		return replay(&tp);
	if (xlp_libxl_open() < 0)
		return 1;
	rc = live(&tp);
	xlp_libxl_close();
	return rc;
}
