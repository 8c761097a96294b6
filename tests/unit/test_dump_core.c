/* The core-file target on synthetic Xen cores: PV (machine frames through
 * .xen_p2m) and HVM (.xen_pfn) walk to the same stacks as the same guest
 * served live from an image; registers by name; a core read from a file;
 * and hostile or truncated cores rejected with one error, never a bad
 * read. */
#include <elf.h>
#include <stddef.h>
#include <unistd.h>
#include <stdint.h>
#include <xen/foreign/x86_64.h>

#include "guest.h"
#include "test.h"
#include "xen_core_build.h"
#include "target/image.h"

TEST_GLOBALS;

#define STACK_VA 0xffff880000010000ULL

/* Two vCPUs on frame-pointer chains; the second one offline if asked. */
static void build(struct test_guest *g, enum up_domain_type type,
		  bool second_online)
{
	uint64_t ret0[3] = { 0x401111, 0x402222, 0x403333 }, ret1[1] = { 0x404444 };
	struct up_regs r;
	uint64_t fp0, fp1;

	tg_init(g, type);
	tg_map_fresh(g, STACK_VA, 2);
	fp0 = tg_fp_chain(g, STACK_VA, ret0, 3);
	fp1 = tg_fp_chain(g, STACK_VA + 0x800, ret1, 1);
	r = tg_regs(g, 0x40aaaa, STACK_VA, fp0);
	up_image_add_vcpu(g->img, &r);
	r = tg_regs(g, 0x40bbbb, STACK_VA + 0x800, fp1);
	r.online = second_online;
	up_image_add_vcpu(g->img, &r);
}

/* One walk of every vCPU, as xl profile core does, as folded stacks. */
static char *walk_once(struct up_target *t)
{
	struct up_sampler_config c;
	struct up_sampler_stats st;
	struct up_profile *p;
	char *buf;

	up_sampler_config_init(&c, UP_SAMPLER_CONFIG_VERSION);
	c.max_samples = 1;
	c.stopped_ok = true;
	c.no_activity = true;
	c.unwinder = UP_UNWINDER_FP;
	if (up_profile_new(&p, up_target_info(t)->max_vcpus) < 0)
		return NULL;
	if (up_sample(t, &c, p, NULL, &st) < 0 || st.samples != 1) {
		up_profile_free(p);
		return NULL;
	}
	buf = tg_folded(p, &(struct up_output_opts){ .version = UP_OUTPUT_OPTS_VERSION,
						     .vcpu = -1, .vcpu_root = true,
						.with_idle = true });
	up_sampler_stats_release(&st);
	up_profile_free(p);
	return buf;
}

static void same_as_live(enum up_domain_type type)
{
	struct test_guest g;
	struct xen_core_layout L;
	struct up_target *live, *core;
	struct up_named_regs nr;
	struct up_core_info ci;
	void *buf;
	size_t len;
	char *a, *b;

	build(&g, type, true);
	live = tg_open(&g);
	xen_core_build(&g, &buf, &len, &L);
	tg_release(&g);
	REQUIRE(live);
	REQUIRE(up_target_open_core_mem(&core, buf, len) == 0);
	CHECK(up_target_info(core)->type == type);
	CHECK(up_target_info(core)->max_vcpus == 2);
	CHECK_STR(up_target_info(core)->hypercalls, "core file");
	REQUIRE(up_target_core_info(core, &ci) == 0);
	CHECK(ci.xen_major == 4 && ci.xen_minor == 17);
	CHECK_STR(ci.xen_extra, ".3-test");
	CHECK(ci.nr_pages == L.nr_pages);
	CHECK(up_target_core_info(live, &ci) < 0);
	a = walk_once(live);
	b = walk_once(core);
	REQUIRE(a && b);
	CHECK_STR(b, "vcpu0;0x403333;0x402222;0x401111;0x40aaaa 1\n"
		     "vcpu1;0x404444;0x40bbbb 1\n");
	CHECK_STR(a, b);
	REQUIRE(up_target_get_named_regs(core, 1, &nr) == 0);
	CHECK(nr.count >= 24);
	CHECK_STR(nr.reg[0].name, "rip");
	CHECK_U64(nr.reg[0].value, 0x40bbbb);
	for (unsigned i = 0; i < nr.count; i++) {
		if (strcmp(nr.reg[i].name, "rax") == 0)
			CHECK_U64(nr.reg[i].value, 0xa0a0a0a1);
		if (strcmp(nr.reg[i].name, "cr2") == 0 && type == UP_DOMAIN_HVM)
			CHECK_U64(nr.reg[i].value, 0xdead000);
	}
	CHECK(up_target_get_named_regs(core, 2, &nr) < 0);
	CHECK(up_target_get_named_regs(live, 0, &nr) == UP_EUNSUPP);
	free(a);
	free(b);
	free(buf);
	up_target_close(live);
	up_target_close(core);
}

static void test_pv_core(void)
{
	same_as_live(UP_DOMAIN_PV);
}

static void test_hvm_core(void)
{
	same_as_live(UP_DOMAIN_HVM);
}

static void test_offline_vcpu(void)
{
	struct test_guest g;
	struct xen_core_layout L;
	struct up_target *core;
	void *buf;
	size_t len;
	char *s;

	build(&g, UP_DOMAIN_PV, false);
	xen_core_build(&g, &buf, &len, &L);
	tg_release(&g);
	REQUIRE(up_target_open_core_mem(&core, buf, len) == 0);
	s = walk_once(core);
	CHECK_STR(s, "vcpu0;0x403333;0x402222;0x401111;0x40aaaa 1\n");
	free(s);
	free(buf);
	up_target_close(core);
}

/* From a file, as xl profile core reads it; a file cut short after it was
 * opened reads as missing frames (a truncated stack), not a crash. */
static void test_file(void)
{
	struct test_guest g;
	struct xen_core_layout L;
	struct up_target *core;
	char path[] = "/tmp/uniprof-core-XXXXXX";
	int fd = mkstemp(path);
	void *buf;
	size_t len;
	char *s;

	REQUIRE(fd >= 0);
	build(&g, UP_DOMAIN_HVM, true);
	xen_core_build(&g, &buf, &len, &L);
	tg_release(&g);
	if (write(fd, buf, len) != (ssize_t)len)
		len = 0;
	free(buf);
	REQUIRE(len);
	REQUIRE(up_target_open_core(&core, path) == 0);
	s = walk_once(core);
	CHECK_STR(s, "vcpu0;0x403333;0x402222;0x401111;0x40aaaa 1\n"
		     "vcpu1;0x404444;0x40bbbb 1\n");
	free(s);
	CHECK(ftruncate(fd, (off_t)L.pages_off) == 0);
	s = walk_once(core);
	CHECK(s && strstr(s, "[truncated]"));
	free(s);
	up_target_close(core);
	CHECK(up_target_open_core(&core, path) == UP_EFORMAT);
	CHECK(strstr(up_error_last(), "truncated") != NULL);
	close(fd);
	unlink(path);
	CHECK(up_target_open_core(&core, path) == UP_ENOENT);
	CHECK(up_target_open_core(&core, "/tmp") < 0);
}

static int open_patched(const uint8_t *buf, size_t len, size_t at,
			const void *val, size_t n, const char *want)
{
	uint8_t *copy = malloc(len);
	struct up_target *t = NULL;
	int rc;

	memcpy(copy, buf, len);
	memcpy(copy + at, val, n);
	rc = up_target_open_core_mem(&t, copy, len);
	if (rc == 0) {
		char *s = walk_once(t);   /* must not crash either */

		free(s);
		up_target_close(t);
	} else if (want && !strstr(up_error_last(), want)) {
		fprintf(stderr, "%s: error '%s' does not say '%s'\n", test_current,
			up_error_last(), want);
		test_failures++;
	}
	free(copy);
	return rc;
}

static void test_hostile(void)
{
	struct test_guest g;
	struct xen_core_layout L;
	struct up_target *t;
	uint8_t *buf;
	void *vbuf;
	size_t len;
	uint64_t big = UINT64_MAX - 100, zero = 0, nv = 100000;
	uint16_t shnum = 60000, idx = 9;

	build(&g, UP_DOMAIN_PV, true);
	xen_core_build(&g, &vbuf, &len, &L);
	tg_release(&g);
	buf = vbuf;
	/* Every cut of the file: one error, never a read past it. */
	for (size_t cut = 0; cut < len; cut += cut < 8192 ? 1 : 509)
		CHECK(up_target_open_core_mem(&t, buf, cut) < 0);
	CHECK(up_target_open_core_mem(&t, buf, len - 1) < 0);
	CHECK(strstr(up_error_last(), "truncated") != NULL);
	/* Not a core at all. */
	CHECK(open_patched(buf, len, 0, "\x7f" "ELX", 4, "not a Xen core") < 0);
	CHECK(open_patched(buf, len, 16, "\x02\x00", 2, "not a Xen core file (an ELF file of type 2") < 0);
	CHECK(open_patched(buf, len, 18, "\xb7\x00", 2, "ELF machine 183") < 0);
	/* Section table and names. */
	CHECK(open_patched(buf, len, offsetof(Elf64_Ehdr, e_shoff), &big, 8, "truncated") < 0);
	CHECK(open_patched(buf, len, offsetof(Elf64_Ehdr, e_shnum), &shnum, 2, "section header table") < 0);
	CHECK(open_patched(buf, len, offsetof(Elf64_Ehdr, e_shstrndx), &idx, 2, "section header table") < 0);
	CHECK(open_patched(buf, len, L.strtab_off + 47, "xen_pfn", 7, "frame table") < 0);
	CHECK(open_patched(buf, len, L.strtab_off + 22, "xen_pagez", 9, "no .xen_prstatus") < 0);
	/* Sections pointing anywhere. */
	CHECK(open_patched(buf, len, L.shdr_off + 4 * sizeof(Elf64_Shdr) +
			   offsetof(Elf64_Shdr, sh_offset), &big, 8, "truncated") < 0);
	CHECK(open_patched(buf, len, L.shdr_off + 5 * sizeof(Elf64_Shdr) +
			   offsetof(Elf64_Shdr, sh_offset), &big, 8, "truncated") < 0);
	CHECK(open_patched(buf, len, L.shdr_off + 3 * sizeof(Elf64_Shdr) +
			   offsetof(Elf64_Shdr, sh_entsize), &zero, 8, "records of 0 bytes") < 0);
	CHECK(open_patched(buf, len, L.shdr_off + 2 * sizeof(Elf64_Shdr) +
			   offsetof(Elf64_Shdr, sh_size), &big, 8, "too large") < 0);
	/* The header note's counts. */
	CHECK(open_patched(buf, len, L.header_desc_off, &zero, 8, "unknown domain kind") < 0);
	CHECK(open_patched(buf, len, L.header_desc_off + 8, &zero, 8, "0 vCPUs") < 0);
	CHECK(open_patched(buf, len, L.header_desc_off + 8, &nv, 8, "100000 vCPUs") < 0);
	CHECK(open_patched(buf, len, L.header_desc_off + 16, &big, 8, "pages") < 0);
	CHECK(open_patched(buf, len, L.header_desc_off + 24, &zero, 8, "0-byte pages") < 0);
	CHECK(open_patched(buf, len, L.note_off + 4, &(uint32_t){ 0x7fffffff }, 4, "runs past") < 0);
	/* Two pages claiming one frame. */
	CHECK(open_patched(buf, len, L.table_off + 8, buf + L.table_off + 16 + 8, 8, "appears twice") < 0);
	/* A frame table entry of padding is simply absent. */
	CHECK(open_patched(buf, len, L.table_off, &(uint64_t){ UINT64_MAX }, 8, NULL) == 0);
	/* Registers anywhere: the walk fails cleanly. */
	CHECK(open_patched(buf, len, L.prstatus_off + offsetof(struct vcpu_guest_context_x86_64, ctrlreg) + 24,
			   &big, 8, NULL) == 0);
	free(buf);
}

/* The build-id notes in a core's pages: found once each, wherever they are
 * 4-byte aligned; none in another target. */
static void test_build_ids(void)
{
	static const uint8_t note[36] = { 4, 0, 0, 0, 20, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0,
					  0xcd, 0x82, 0xeb, 0x0c, 0x99, 0x34, 0x40, 0x4f, 0x08, 0x2a,
					  0x68, 0x13, 0xa3, 0x60, 0x38, 0x15, 0x94, 0x28, 0x38, 0x47 };
	struct test_guest g;
	struct xen_core_layout L;
	struct up_target *core, *live;
	char ids[4][41];
	size_t n = 9;
	uint8_t *page;
	void *buf;
	size_t len;

	build(&g, UP_DOMAIN_HVM, true);
	page = tg_data(&g, 0x300);
	memcpy(page + 0x40, note, sizeof(note));
	memcpy(page + 0x200, note, sizeof(note));     /* the same one again */
	memcpy(page + 0x400, note, 16);               /* a header alone */
	page[0x400 + 16] = 0x11;
	memcpy(page + 0x802, note, sizeof(note));     /* not aligned: not a note */
	page[0x802 + 16] = 0x22;
	live = tg_open(&g);
	xen_core_build(&g, &buf, &len, &L);
	tg_release(&g);
	REQUIRE(up_target_open_core_mem(&core, buf, len) == 0);
	CHECK(up_target_core_build_ids(core, ids, 4, &n) == 0);
	CHECK(n == 2);
	CHECK_STR(ids[0], "cd82eb0c9934404f082a6813a360381594283847");
	CHECK(n < 2 || strncmp(ids[1], "11", 2) == 0);
	CHECK(up_target_core_build_ids(core, ids, 1, &n) == 0 && n == 1);
	CHECK(up_target_core_build_ids(live, ids, 4, &n) == UP_EINVAL && n == 0);
	free(buf);
	up_target_close(core);
	up_target_close(live);
}

int main(void)
{
	RUN(test_pv_core);
	RUN(test_hvm_core);
	RUN(test_offline_vcpu);
	RUN(test_file);
	RUN(test_hostile);
	RUN(test_build_ids);
	TEST_MAIN_END();
}
