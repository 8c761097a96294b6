/* Test hooks of the image target: faults and races a real guest makes
 * (a stuck walk, a guest writing its stack while we read it, a vCPU
 * waking mid-sample, a slow register read, a failing unpause) replayed on
 * an image, for the unit tests. Not installed, not exported. */
#ifndef UP_IMAGE_HOOKS_H
#define UP_IMAGE_HOOKS_H

#include <stdint.h>

#include "target/image.h"
#include "uniprof/sys/unwind.h"

/* Test hook: on pause number stall_pause (1-based; 0: never;
 * UP_IMAGE_STALL_EVERY: every pause), reading vCPU 0's registers stalls,
 * as a stuck walk would, until someone else (the crash guard) ends the
 * pause, or at most max_ns. */
#define UP_IMAGE_STALL_EVERY UINT64_MAX
void up_target_image_set_stall(struct up_target *t, uint64_t stall_pause,
			       uint64_t max_ns);

/* Test hook: the guest writes its stack while we read it. Reads of vCPU
 * vcpu's state (up_target_get_activity) are numbered from 1; on reads
 * from .. from + count - 1, the 64-bit word at offset of the frame is
 * XORed with flip. Relaxed sampling reads the state before the registers
 * and again after the walk. */
void up_target_image_set_scribble(struct up_target *t, unsigned vcpu,
				  enum up_frame_kind kind, uint64_t frame,
				  unsigned offset, uint64_t flip,
				  uint64_t from, uint64_t count);

/* Test hook: vCPU vcpu blocks, or wakes if it was blocked, when its state
 * is read for the n-th time (numbered as for the scribble hook). */
void up_target_image_block_on_read(struct up_target *t, unsigned vcpu,
				   uint64_t n);

/* Test hook: every register read of a vCPU the domain is not paused for
 * takes ns of wall time, the vCPU running on meanwhile (as when the reader
 * waits for a CPU it shares with that vCPU). */
void up_target_image_set_read_delay(struct up_target *t, uint64_t ns);

/* Test hook: our next n unpauses fail (the pause stays held). */
void up_target_image_fail_unpauses(struct up_target *t, unsigned n);

/* The image's stand-in for Xen's pause count: pauses made, unpauses made
 * by anyone (us or the crash guard), unpauses refused because the domain
 * was not paused (a double unpause), and pauses still held; and what a
 * real target's hypercalls would be: reads of a vCPU's state, and reads
 * of its registers while the domain runs. */
struct up_image_pause_counts {
	uint64_t pauses, unpauses, bad_unpauses, guard_releases;
	int64_t held;
	uint64_t state_reads, unpaused_reg_reads;
};
void up_target_image_pause_counts(struct up_target *t,
				  struct up_image_pause_counts *out);

/* The domain reports shut down after
 * shutdown_after pauses and disappears after gone_after (0: never). */
void up_target_image_set_lifetime(struct up_target *t,
				  uint64_t shutdown_after, uint64_t gone_after);

/* Frames currently mapped and not unmapped (leak checks in tests). */
long up_target_image_mapped(struct up_target *t);

#endif
