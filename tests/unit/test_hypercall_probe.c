/* Finding the hypercall page in a domain's memory (core/unwind/
 * hypercall_probe.c): a PVH kernel's page has no note and any name, so the
 * stubs Xen wrote are the proof, in every shape Xen writes them; the
 * image's word is checked against them; the search is bounded. */
#include <string.h>
#include <time.h>

#include "unwind/kernel_map.h"
#include "guest.h"
#include "test.h"
#include "target/image.h"

TEST_GLOBALS;

#define TEXT 0x100000ULL
#define STACK 0x400000ULL

enum shape { VMCALL, VMMCALL, PV64, PV32, WRONG_NUMBER };

/* Xen's stubs for each hypercall number, 32 bytes apart. */
static void fill(uint8_t *page, enum shape shape)
{
	memset(page, 0xcc, 4096);
	for (unsigned nr = 0; nr < 128; nr++) {
		uint8_t *p = page + 32 * nr;
		unsigned n = shape == WRONG_NUMBER && nr == 29 ? 30 : nr;
		uint8_t i = 0;

		if (shape == PV64) {
			p[i++] = 0x51; p[i++] = 0x41; p[i++] = 0x53;
		}
		p[i++] = 0xb8;
		memcpy(p + i, &n, 4);
		i += 4;
		if (shape == PV64) {
			p[i++] = 0x0f; p[i++] = 0x05;
			p[i++] = 0x41; p[i++] = 0x5b; p[i++] = 0x59;
		} else if (shape == PV32) {
			p[i++] = 0xcd; p[i++] = 0x82;
		} else {
			p[i++] = 0x0f; p[i++] = 0x01;
			p[i++] = shape == VMMCALL ? 0xd9 : 0xc1;
		}
		p[i] = 0xc3;
	}
}

/* A guest with four code pages at TEXT, Xen's stubs in page `at` (-1:
 * none), and a vCPU whose registers describe its address space. */
static struct up_target *guest(struct test_guest *g, int at, enum shape shape,
			       bool online)
{
	struct up_regs r;

	tg_init(g, UP_DOMAIN_HVM);
	for (unsigned i = 0; i < 4; i++) {
		uint64_t frame = tg_alloc(g);

		tg_map_4k(g, TEXT + 4096 * i, frame);
		if ((int)i == at)
			fill(tg_data(g, frame), shape);
	}
	tg_map_fresh(g, STACK, 1);
	r = tg_regs(g, TEXT + 0x10, STACK + 0x800, 0);
	r.online = online;
	up_image_add_vcpu(g->img, &r);
	return tg_open(g);
}

static void test_found_by_shape(void)
{
	static const enum shape shapes[] = { VMCALL, VMMCALL, PV64, PV32 };

	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		struct test_guest g;
		struct up_target *t = guest(&g, 2, shapes[i], true);
		struct up_kernel_map *k;
		const char *how;

		CHECK(up_kernel_map_new(&k) == 0);
		up_kernel_map_add_text(k, TEXT, TEXT + 4 * 4096);
		CHECK(up_kernel_map_probe_hypercall_page(k, t, &how) == 1);
		CHECK_U64(up_kernel_map_hypercall_page(k), TEXT + 2 * 4096);
		CHECK_STR(how, "found in memory by the stubs' shape");
		up_kernel_map_free(k);
		up_target_close(t);
		tg_release(&g);
	}
}

/* The image's page (a note, a symbol) is checked: kept when Xen's stubs
 * are there, replaced when they are elsewhere (the test guest's PVH build
 * names one page in its note and asks Xen for another), kept when none
 * is found (not filled yet, say). */
static void test_image_word_checked(void)
{
	static const struct { int stubs_at; uint64_t said, want; int rc; const char *how; } c[] = {
		{ 1, TEXT + 4096, TEXT + 4096, 2, "from the image, checked in memory" },
		{ 3, TEXT + 4096, TEXT + 3 * 4096, 1, "found in memory (the image's page holds no stubs)" },
		{ -1, TEXT + 4096, TEXT + 4096, 0, "from the image; no stubs found in memory" },
		{ -1, 0, 0, 0, "none found" },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct test_guest g;
		struct up_target *t = guest(&g, c[i].stubs_at, VMCALL, true);
		struct up_kernel_map *k;
		const char *how;

		CHECK(up_kernel_map_new(&k) == 0);
		up_kernel_map_add_text(k, TEXT, TEXT + 4 * 4096);
		up_kernel_map_set_hypercall_page(k, c[i].said);
		CHECK(up_kernel_map_probe_hypercall_page(k, t, &how) == c[i].rc);
		CHECK_U64(up_kernel_map_hypercall_page(k), c[i].want);
		CHECK_STR(how, c[i].how);
		up_kernel_map_free(k);
		up_target_close(t);
		tg_release(&g);
	}
}

/* Nothing but Xen's stubs passes: one number wrong is not a page. No
 * vCPU to read with: an error, the map unchanged. A code range of a
 * terabyte: the search stops at its bound, quickly. */
static void test_refused_and_bounded(void)
{
	struct test_guest g;
	struct up_target *t = guest(&g, 2, WRONG_NUMBER, true);
	struct up_kernel_map *k;
	const char *how;
	struct timespec a, b;

	CHECK(up_kernel_map_new(&k) == 0);
	up_kernel_map_add_text(k, TEXT, TEXT + 4 * 4096);
	CHECK(up_kernel_map_probe_hypercall_page(k, t, &how) == 0);
	CHECK_U64(up_kernel_map_hypercall_page(k), 0);
	up_kernel_map_free(k);
	up_target_close(t);
	tg_release(&g);

	t = guest(&g, 2, VMCALL, false);
	CHECK(up_kernel_map_new(&k) == 0);
	up_kernel_map_add_text(k, TEXT, TEXT + 4 * 4096);
	CHECK(up_kernel_map_probe_hypercall_page(k, t, &how) < 0);
	CHECK_U64(up_kernel_map_hypercall_page(k), 0);
	up_kernel_map_free(k);
	up_target_close(t);
	tg_release(&g);

	t = guest(&g, -1, VMCALL, true);
	CHECK(up_kernel_map_new(&k) == 0);
	up_kernel_map_add_text(k, 0x7f0000000000ULL, 0x7fff00000000ULL);
	up_kernel_map_add_text(k, 0xfffffffffff00000ULL, UINT64_MAX);
	clock_gettime(CLOCK_MONOTONIC, &a);
	CHECK(up_kernel_map_probe_hypercall_page(k, t, &how) == 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	CHECK((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < 2000);
	up_kernel_map_free(k);
	up_target_close(t);
	tg_release(&g);
}

int main(void)
{
	RUN(test_found_by_shape);
	RUN(test_image_word_checked);
	RUN(test_refused_and_bounded);
	TEST_MAIN_END();
}
