/* Building synthetic guests for unit tests: x86_64 page tables in an image,
 * stacks with frame-pointer chains, known registers. */
#ifndef UP_TEST_GUEST_H
#define UP_TEST_GUEST_H

#include <stdbool.h>
#include <stdint.h>
#include "uniprof/uniprof.h"
#include "target/image.h"

struct test_guest {
	struct up_image *img;
	enum up_frame_kind kind;
	uint64_t root;          /* PML4 frame */
	uint64_t next_frame;
	struct { uint64_t vpage, frame; } *pages;   /* 4K data mappings */
	size_t nr_pages;
};

/* PV guests get machine frames, HVM guests guest frames. */
void tg_init(struct test_guest *g, enum up_domain_type type);
void tg_release(struct test_guest *g);

uint64_t tg_alloc(struct test_guest *g);
uint8_t *tg_data(struct test_guest *g, uint64_t frame);

/* Map va (aligned to the page size) to frame (aligned likewise). */
void tg_map_4k(struct test_guest *g, uint64_t va, uint64_t frame);
void tg_map_2m(struct test_guest *g, uint64_t va, uint64_t frame);
void tg_map_1g(struct test_guest *g, uint64_t va, uint64_t frame);

/* Map npages fresh 4K frames at va. */
void tg_map_fresh(struct test_guest *g, uint64_t va, unsigned npages);

/* Write into memory mapped with tg_map_4k / tg_map_fresh. */
void tg_poke64(struct test_guest *g, uint64_t va, uint64_t val);

/* Registers for this guest's address space. */
struct up_regs tg_regs(const struct test_guest *g, uint64_t ip, uint64_t sp,
		       uint64_t fp);

/* Build a frame-pointer chain on the stack: ret[0] is the caller of the
 * IP's function. Frames are 32 bytes apart starting at sp; the last link is
 * 0. Returns the FP to put in the registers. */
uint64_t tg_fp_chain(struct test_guest *g, uint64_t sp, const uint64_t *ret,
		     unsigned n);

/* Serialize and open as an image target. */
struct up_target *tg_open(struct test_guest *g);

/* Where tg_two_vcpus puts its stacks. */
#define TG_STACK_VA 0xffff880000010000ULL

/* A PV guest of two vCPUs on one stack page: vCPU 0 at 0xaaaa, called from
 * 0x1111, from 0x2222 (frames at TG_STACK_VA + 16 and + 48); vCPU 1 at
 * 0xbbbb, from 0x3333 (at TG_STACK_VA + 0x810), online and blocked as
 * asked. *g stays for more pokes; release it after opening. */
struct up_target *tg_two_vcpus(struct test_guest *g, bool second_online,
			       bool second_blocked);

/* A profile's folded stacks (opts may be NULL), malloc'ed. */
char *tg_folded(const struct up_profile *p, const struct up_output_opts *opts);

/* The first hex number a shell command prints (0 if none): fmt is given
 * elf, a and b as its three %s. For reading addresses off an ELF file. */
unsigned long tg_shell_hex(const char *fmt, const char *elf, const char *a,
			   const char *b);

/* A symbol's address in an ELF file, from nm (0 if absent). */
unsigned long tg_elf_symbol(const char *elf, const char *name);

/* A file's bytes (*small, *len) and the same followed by pad bytes of
 * fill (returned): an image past the size at which loaders copy only its
 * parts (core/util/elf_copy.c). Both malloc'ed; NULL if unreadable. */
uint8_t *tg_padded_file(const char *path, size_t pad, int fill, uint8_t **small,
			size_t *len);

/* Image variant n of img[0..len), for n from 0 to 2 * len: cut to its
 * first n bytes, or past len whole but for 32 bytes of 0xff at n - len.
 * Exactly *size bytes malloc'ed (ASan sees a read past them); NULL if
 * out of memory. */
uint8_t *tg_spoilt_image(const uint8_t *img, size_t len, size_t n, size_t *size);

/* A minimal x86_64 ELF executable of program headers only: one PT_LOAD per
 * load (flags PF_R/PF_W/PF_X), in this order, its file bytes zero; the
 * file runs to the farthest p_offset + p_filesz. *len bytes, malloc'ed. */
struct tg_load {
	uint32_t flags;
	uint64_t offset, vaddr, filesz, memsz;
};
uint8_t *tg_elf_loads(const struct tg_load *loads, size_t n, size_t *len);

#endif
