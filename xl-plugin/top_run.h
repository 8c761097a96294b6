/* xl profile top's run, shared by its files: the live loop
 * (top_live.c) and the replay (top_replay.c) both make frames
 * (top_frame.c) and read keys between them (top_keys.c); cmd_top.c parses
 * the options and picks one. */
#ifndef XLP_TOP_RUN_H
#define XLP_TOP_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "live_domain.h"
#include "top_view.h"
#include "options.h"
#include "util/clock.h"

/* One run of xl profile top: its options, the view, the last frame. */
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

/* Draw the last frame again (a key changed the view, or a new one). */
void xlp_top_draw(struct top *tp);
/* A new frame: the samples of total taken since the last one's end, up
 * to end_ns; s and wall_s (the interval's wall time) for a live run's
 * cost, s NULL in a replay. 0, or -1 with tp->error set. */
int xlp_top_new_frame(struct top *tp, const struct up_profile *total,
		      uint64_t end_ns, double t_s, const struct up_sampler_stats *s,
		      double wall_s);
/* Keys pressed since the last call (none in batch mode): the view
 * switched, redrawn when it changed. */
void xlp_top_keys(struct top *tp, unsigned nr_vcpus);
/* Sample the domain tp->opt names, a frame each interval: the exit status. */
int xlp_top_live(struct top *tp);
/* Play tp->replay's sample times at tp->speed: the exit status. */
int xlp_top_replay(struct top *tp);

#endif
