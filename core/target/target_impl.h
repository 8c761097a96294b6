/* What a target implementation provides (see include/uniprof/target.h). */
#ifndef UP_TARGET_IMPL_H
#define UP_TARGET_IMPL_H

#include "guard/pause_state.h"
#include "uniprof/target.h"
#include "private.h"

struct up_target_ops {
	int (*pause)(struct up_target *t);
	int (*unpause)(struct up_target *t);
	int (*get_regs)(struct up_target *t, unsigned vcpu,
			struct up_regs *out);
	int (*map_frame)(struct up_target *t, enum up_frame_kind kind,
			 uint64_t frame, const void **page);
	void (*unmap_frame)(struct up_target *t, const void *page);
	int (*state)(struct up_target *t, enum up_domain_state *state);
	/* Optional: busy or blocked, online or not, and the time run so
	 * far (NULL: unknown). run_ns is never NULL here. */
	int (*activity)(struct up_target *t, unsigned vcpu,
			enum up_vcpu_activity *activity, bool *online,
			uint64_t *run_ns);
	/* Optional: every register by name. */
	int (*named_regs)(struct up_target *t, unsigned vcpu,
			  struct up_named_regs *out);
	/* Optional: the next pause is a sample's, which reads the
	 * registers of vCPUs first..last (a target may read them in the
	 * same hypercall as the pause), and the state (activity) of those
	 * of them in ask_state (bit v - first); clocks: the sampler reads
	 * their run clocks (activity) after this sample's unpause, which the
	 * target may read in the unpausing hypercall. */
	void (*will_read)(struct up_target *t, unsigned first, unsigned last,
			  uint32_t ask_state, bool clocks);
	/* Optional: the domain shut down by crashing. */
	bool (*crashed)(struct up_target *t);
	void (*close)(struct up_target *t);
	/* A live domain: the crash guard's watchdog must cover it. */
	bool live;
};

struct up_target {
	const struct up_target_ops *ops;
	struct up_target_info info;
	/* Whether we hold the domain paused, and since when. Points into
	 * memory shared with the crash guard's watchdog once it is
	 * installed. */
	struct pause_state *ps;
	struct pause_state ps_local;
	/* Our end of the crash guard's socket, its alarm clock (a timerfd
	 * the guard sleeps on and we set) and its process (-1: none): one
	 * guard per target, so one process may sample several domains (the
	 * host daemon). */
	int guard_fd;
	int guard_alarm_fd;
	int guard_pid;
	uint64_t guard_alarm_at;    /* when its alarm rings (0: not set) */
	/* up_target_keep_frames: the frames the last sampling run mapped
	 * (its frame cache, of the size it asked), kept for the next run,
	 * and how to free them (the sampler's: targets sit below memory). */
	bool keep_frames;
	void *kept_frames;
	size_t kept_frames_size;
	void (*kept_frames_free)(void *frames);
};

/* Called by each target's open function. */
void target_init(struct up_target *t, const struct up_target_ops *ops);

/* End our pause. *released is set when the crash guard had already ended
 * it (the pause outlived its limit): the domain has been running since,
 * and nothing read in the window can be trusted. */
int target_end_pause(struct up_target *t, bool *released);

/* The next pause is a sample's reading vCPUs first..last, and the state
 * of those in ask_state (bit v - first), then their run clocks after the
 * unpause when clocks: a hint. */
void target_will_read(struct up_target *t, unsigned first, unsigned last,
		      uint32_t ask_state, bool clocks);

/* No pause of ours begins before ns (CLOCK_MONOTONIC; UINT64_MAX: none
 * planned), unless the guard is woken first (up_target_pause does): the
 * sampler says so before it sleeps, so the guard sleeps too. */
void target_quiet_until(struct up_target *t, uint64_t ns);

/* A run's frame cache, kept for the next run on t when up_target_keep_frames
 * asked for it (freed with free_fn when t closes; else freed at once),
 * and taken back by that run when it asks the same size (else NULL). */
void target_keep_frames(struct up_target *t, void *frames, size_t size,
			void (*free_fn)(void *frames));
void *target_take_frames(struct up_target *t, size_t size);

/* crash_guard.c: wake t's guard to look at a pause it did not expect;
 * set its alarm clock for the latest instant it must look (0: none). */
void crash_guard_wake(struct up_target *t);
int crash_guard_alarm(struct up_target *t, uint64_t ns);

/* Append one register to a crash report's list (full: dropped). */
void named_regs_put(struct up_named_regs *out, const char *name, uint64_t v);

#endif
