/* Synthetic AArch64 guests for unit tests: stage-1 tables (4 KiB granule)
 * in an image, mappings, registers. */
#ifndef UP_TEST_GUEST_ARM64_H
#define UP_TEST_GUEST_ARM64_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "uniprof/uniprof.h"
#include "target/image.h"

/* REQUIRE for helpers that return a value: the test cannot go on. */
#define NEED(cond)                                                         \
	do {                                                               \
		if (!(cond)) {                                             \
			fprintf(stderr, "%s:%d: NEED failed: %s\n",         \
				__FILE__, __LINE__, #cond);                \
			exit(1);                                           \
		}                                                          \
	} while (0)

#define DESC_TABLE 3ULL
#define DESC_BLOCK 1ULL
#define DESC_PAGE 3ULL
/* What a kernel sets besides the address: AF, inner shareable, attrs. */
#define DESC_ATTRS (1ULL << 10 | 3ULL << 8 | 1ULL << 2)

#define A64_TG1_4K (2ULL << 30)
/* Both halves 48 bits, 4 KiB granules. */
#define A64_TCR_48 (16ULL | 16ULL << 16 | A64_TG1_4K)

struct a64 {
	struct up_image *img;
	uint64_t next;          /* next free frame */
	uint64_t ttbr0, ttbr1, tcr;
};

void a64_init(struct a64 *g, uint64_t tcr);
/* A 64-bit word of guest physical memory (frames created on use). */
uint64_t a64_rd(struct a64 *g, uint64_t pa);
void a64_wr(struct a64 *g, uint64_t pa, uint64_t v);
/* Where va's descriptor at level lvl lives, creating tables above it. */
uint64_t a64_slot(struct a64 *g, uint64_t va, unsigned lvl);
void a64_map_page(struct a64 *g, uint64_t va, uint64_t frame);
void a64_map_block(struct a64 *g, uint64_t va, unsigned lvl, uint64_t frame);
/* Map npages fresh frames at va. */
void a64_map_fresh(struct a64 *g, uint64_t va, unsigned npages);
/* Write a word or 32-bit instruction at a mapped va. */
void a64_poke64(struct a64 *g, uint64_t va, uint64_t v);
void a64_poke32(struct a64 *g, uint64_t va, uint32_t v);
struct up_regs a64_regs(const struct a64 *g);
/* Add a vCPU with regs (NULL: a64_regs) and open the image (g->img
 * stays). */
struct up_target *a64_open(struct a64 *g, const struct up_regs *regs);

#endif
