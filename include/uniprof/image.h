/* Guest images: registers plus a set of guest frames in one small file,
 * so tests can build guests with known page tables and stacks.
 *
 * Format (little-endian):
 *   header   "UPIMAGE1", u32 version (3; 1 and 2 are read too), u32
 *            domain type, u32 nr_vcpus, u32 nr_frames
 *   vcpu     u64 ip, sp, fp, cr3; u32 paging, frame_kind, guest_width,
 *            flags (1: online, 2: kernel mode, 4: blocked); version 2 goes
 *            on: u64 ttbr1, tcr, lr; u32 arch, u32 reserved; version 3:
 *            u64 arg0, x16 -- nr_vcpus times
 *   frame    u64 number, u32 kind, u32 reserved, 4096 data -- nr_frames times
 */
#ifndef UNIPROF_IMAGE_H
#define UNIPROF_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "target.h"

#ifdef __cplusplus
extern "C" {
#endif

#define UP_IMAGE_MAGIC "UPIMAGE1"
#define UP_IMAGE_MAX_VCPUS 512
#define UP_IMAGE_MAX_FRAMES (1u << 20)

struct up_image;

int up_image_new(struct up_image **out, enum up_domain_type type);
void up_image_free(struct up_image *img);

/* Append a vCPU; returns its number or a negative error. */
int up_image_add_vcpu(struct up_image *img, const struct up_regs *regs);

/* Mark a vCPU blocked (idle) rather than busy; vCPUs start busy. */
int up_image_set_blocked(struct up_image *img, unsigned vcpu, bool blocked);

/* A zeroed frame (created on first use) that the caller may fill. */
int up_image_frame(struct up_image *img, enum up_frame_kind kind,
		   uint64_t number, uint8_t **data);

/* Serialize; *buf is malloc'ed. */
int up_image_serialize(const struct up_image *img, void **buf, size_t *len);
int up_image_write(const struct up_image *img, const char *path);

/* Test hooks on an image target: the domain reports shut down after
 * shutdown_after pauses and disappears after gone_after (0: never). */
void up_target_image_set_lifetime(struct up_target *t,
				  uint64_t shutdown_after, uint64_t gone_after);

/* Frames currently mapped and not unmapped (leak checks in tests). */
long up_target_image_mapped(struct up_target *t);

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
 * was not paused (a double unpause), and pauses still held. */
struct up_image_pause_counts {
	uint64_t pauses, unpauses, bad_unpauses, guard_releases;
	int64_t held;
};
void up_target_image_pause_counts(struct up_target *t,
				  struct up_image_pause_counts *out);

#ifdef __cplusplus
}
#endif
#endif
