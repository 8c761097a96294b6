/* Reading guest virtual memory: a walk of the guest's own page tables on
 * every translation (never a cached translation across samples, so a guest
 * that remaps is still read right) over a bounded cache of mapped frames.
 * Private to libuniprof (the unwinders read through it); what it counts,
 * up_mem_stats, is in the sampler's stats (uniprof/sampler.h). */
#ifndef UP_MEM_MEMORY_H
#define UP_MEM_MEMORY_H

#include <stddef.h>
#include <stdint.h>
#include "private.h"

#ifdef __cplusplus
extern "C" {
#endif

struct up_mem;

#define UP_MEM_DEFAULT_CACHE_FRAMES 1024

/* cache_frames: how many guest frames stay mapped at most (0: default). */
int up_mem_new(struct up_mem **out, struct up_target *t, size_t cache_frames);

/* Unmaps every cached frame. Call before closing the target. */
void up_mem_free(struct up_mem *m);

/* Call once per sample, after pausing: translations remembered within one
 * pause are dropped, since the guest may remap between pauses. */
void up_mem_new_sample(struct up_mem *m);

/* Translate a virtual address with the address space described by regs
 * (cr3, paging mode, frame kind). On success *frame is a frame number of
 * kind regs->frame_kind. Returns UP_EFAULT for a non-present, reserved or
 * non-canonical address. */
int up_mem_translate(struct up_mem *m, const struct up_regs *regs,
		     uint64_t va, uint64_t *frame);

/* Read len bytes at va (may cross pages). */
int up_mem_read(struct up_mem *m, const struct up_regs *regs, uint64_t va,
		void *buf, size_t len);

int up_mem_read_u64(struct up_mem *m, const struct up_regs *regs,
		    uint64_t va, uint64_t *val);

void up_mem_get_stats(const struct up_mem *m, struct up_mem_stats *st);

#ifdef __cplusplus
}
#endif
#endif
