/* Synthetic AArch64 guests (see guest_arm64.h). */
#include <stdio.h>
#include <stdlib.h>

#include "guest_arm64.h"
#include "target/image.h"


void a64_init(struct a64 *g, uint64_t tcr)
{
	NEED(up_image_new(&g->img, UP_DOMAIN_HVM) == 0);
	g->next = 0x100;
	g->tcr = tcr;
	g->ttbr0 = g->next++ << 12;
	g->ttbr1 = g->next++ << 12;
	/* Frames exist only once touched: create the two roots. */
	uint8_t *d;
	NEED(up_image_frame(g->img, UP_FRAME_GFN, g->ttbr0 >> 12, &d) == 0);
	NEED(up_image_frame(g->img, UP_FRAME_GFN, g->ttbr1 >> 12, &d) == 0);
}

uint64_t a64_rd(struct a64 *g, uint64_t pa)
{
	uint8_t *d;
	uint64_t v = 0;

	NEED(up_image_frame(g->img, UP_FRAME_GFN, pa >> 12, &d) == 0);
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)d[(pa & 0xfff) + i] << (8 * i);
	return v;
}

void a64_wr(struct a64 *g, uint64_t pa, uint64_t v)
{
	uint8_t *d;

	NEED(up_image_frame(g->img, UP_FRAME_GFN, pa >> 12, &d) == 0);
	for (int i = 0; i < 8; i++)
		d[(pa & 0xfff) + i] = (uint8_t)(v >> (8 * i));
}

uint64_t a64_slot(struct a64 *g, uint64_t va, unsigned lvl)
{
	bool upper = (va >> 55) & 1;
	unsigned txsz = upper ? (g->tcr >> 16) & 0x3f : g->tcr & 0x3f;
	unsigned va_bits = 64 - txsz, levels = (va_bits - 12 + 8) / 9;
	uint64_t table = (upper ? g->ttbr1 : g->ttbr0) & 0x0000fffffffffffeULL;

	for (unsigned l = 4 - levels;; l++) {
		unsigned shift = 12 + 9 * (3 - l);
		unsigned bits = l == 4 - levels ? va_bits - shift : 9;
		uint64_t at = table + ((va >> shift) & ((1ULL << bits) - 1)) * 8;
		uint64_t desc;

		if (l == lvl)
			return at;
		desc = a64_rd(g, at);
		if (!(desc & 1)) {
			desc = (g->next++ << 12) | DESC_TABLE;
			a64_wr(g, at, desc);
			a64_rd(g, desc & 0x0000fffffffff000ULL);   /* create it */
		}
		table = desc & 0x0000fffffffff000ULL;
	}
}

void a64_map_page(struct a64 *g, uint64_t va, uint64_t frame)
{
	a64_wr(g, a64_slot(g, va, 3), frame << 12 | DESC_ATTRS | DESC_PAGE);
}

void a64_map_block(struct a64 *g, uint64_t va, unsigned lvl, uint64_t frame)
{
	a64_wr(g, a64_slot(g, va, lvl), frame << 12 | DESC_ATTRS | DESC_BLOCK);
}

struct up_regs a64_regs(const struct a64 *g)
{
	struct up_regs r = {
		.arch = UP_ARCH_AARCH64, .paging = UP_PAGING_AARCH64,
		.frame_kind = UP_FRAME_GFN, .guest_width = 8, .online = true,
		.kernel_mode = true, .cr3 = g->ttbr0, .ttbr1 = g->ttbr1,
		.tcr = g->tcr,
	};

	return r;
}

struct up_target *a64_open(struct a64 *g, const struct up_regs *regs)
{
	struct up_target *t;
	void *buf;
	size_t len;
	struct up_regs r = regs ? *regs : a64_regs(g);

	NEED(up_image_add_vcpu(g->img, &r) >= 0);
	NEED(up_image_serialize(g->img, &buf, &len) == 0);
	NEED(up_target_open_image_mem(&t, buf, len) == 0);
	free(buf);
	return t;
}


void a64_map_fresh(struct a64 *g, uint64_t va, unsigned npages)
{
	for (unsigned i = 0; i < npages; i++) {
		uint64_t f = g->next++;

		a64_rd(g, f << 12);                 /* create it */
		a64_map_page(g, va + (uint64_t)i * 4096, f);
	}
}

/* The frame behind a 4 KiB mapping made by a64_map_page. */
static uint64_t pa_of(struct a64 *g, uint64_t va)
{
	uint64_t desc = a64_rd(g, a64_slot(g, va, 3));

	NEED(desc & 1);
	return (desc & 0x0000fffffffff000ULL) | (va & 0xfff);
}

void a64_poke64(struct a64 *g, uint64_t va, uint64_t v)
{
	NEED((va & 0xfff) <= 0xff8);
	a64_wr(g, pa_of(g, va), v);
}

void a64_poke32(struct a64 *g, uint64_t va, uint32_t v)
{
	uint64_t pa = pa_of(g, va & ~7ULL), old = a64_rd(g, pa);
	unsigned sh = (va & 4) * 8;

	a64_wr(g, pa, (old & ~(0xffffffffULL << sh)) | (uint64_t)v << sh);
}
