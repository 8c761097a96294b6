/* Guest images: registers plus a set of guest frames in one small file,
 * so tests can build guests with known page tables and stacks (private:
 * the tests and fuzzers link the private archive; up_target_open_image
 * reads them).
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
#ifndef UP_TARGET_IMAGE_H
#define UP_TARGET_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "private.h"

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

#ifdef __cplusplus
}
#endif
#endif
