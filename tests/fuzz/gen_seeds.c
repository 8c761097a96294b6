/* Seed inputs for fuzz_image, fuzz_output and fuzz_dump_core, written by
 * tests/fuzz/make-corpus.sh: small guests in the shapes of the unit tests
 * (paging off, a 1 GiB page, 2 MiB pages; frame-pointer chains and
 * CFI-described stacks), and profiles over a handful of names. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/cfi_table.h"
#include "guest.h"
#include "guest_arm64.h"
#include "xen_core_build.h"
#include "hostile_dwarf.h"
#include "target/image.h"

#define CODE 0x100000ULL

static const char *out_dir;

static void save(const char *dir, const char *name, const void *a, size_t alen,
		 const void *b, size_t blen)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(a, 1, alen, f) != alen || fwrite(b, 1, blen, f) != blen ||
	    fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

/* The fuzz_image prefix (flags, row count, rows), then the image. */
static void save_image(const char *name, struct up_image *img, uint8_t flags,
		       const struct cfi_row *rows, uint8_t nrows)
{
	uint8_t prefix[2 + 32 * sizeof(struct cfi_row)];
	void *buf;
	size_t len;

	prefix[0] = flags;
	prefix[1] = nrows;
	if (nrows)
		memcpy(prefix + 2, rows, nrows * sizeof(*rows));
	if (up_image_serialize(img, &buf, &len) < 0)
		abort();
	save(out_dir, name, prefix, 2 + nrows * sizeof(*rows), buf, len);
	free(buf);
}

static void put64(uint8_t *page, uint64_t va, uint64_t v)
{
	memcpy(page + (va & 4095), &v, 8);
}

/* Functions with a frame pointer: CFA = FP + 16. */
static const struct cfi_row fp_row = {
	.start = CODE, .len = 0x1000, .kind = CFI_ROW_NORMAL, .cfa_reg = CFI_CFA_FP,
	.fp_rule = CFI_FP_AT_CFA, .cfa_off = 16, .ra_off = -8, .fp_off = -16,
};

/* Paging off, one page of stack holding a frame-pointer chain. */
static void paging_off(void)
{
	struct up_image *img;
	struct up_regs r = {
		.ip = CODE + 0x10, .sp = 0x200f00, .fp = 0x200f10, .cr3 = 0,
		.paging = UP_PAGING_NONE, .frame_kind = UP_FRAME_GFN,
		.guest_width = 8, .online = true, .kernel_mode = true,
	};
	uint8_t *page;

	up_image_new(&img, UP_DOMAIN_HVM);
	up_image_add_vcpu(img, &r);
	up_image_frame(img, UP_FRAME_GFN, 0x200, &page);
	for (unsigned i = 0; i < 4; i++) {
		uint64_t fp = 0x200f10 + 32 * i;

		put64(page, fp, i < 3 ? fp + 32 : 0);
		put64(page, fp + 8, CODE + 0x100 * (i + 1) + 5);
	}
	save_image("paging-off-fp.img", img, 0x01, &fp_row, 1);
	save_image("paging-off-fp-cfi-only.img", img, 0x00 | 3 << 3, &fp_row, 1);
	up_image_free(img);
}

/* A 1 GiB page; two vCPUs in functions without frame pointers, each
 * described by a row: CFA = SP + 8 (leaf) or SP + 24 (pushes two words). */
static void one_gig_nofp(void)
{
	struct test_guest g;
	const uint64_t va = 0xffff800000000000ULL, frame = 0x40000;
	struct cfi_row rows[3] = {
		{ .start = CODE, .len = 0x100, .kind = CFI_ROW_NORMAL,
		  .cfa_reg = CFI_CFA_SP, .cfa_off = 8, .ra_off = -8 },
		{ .start = CODE + 0x100, .len = 0x100, .kind = CFI_ROW_NORMAL,
		  .cfa_reg = CFI_CFA_SP, .cfa_off = 24, .ra_off = -8 },
		{ .start = CODE + 0x200, .len = 0x100, .kind = CFI_ROW_OUTERMOST },
	};
	uint64_t sp = va + 0x5000;
	uint8_t *stack;
	struct up_regs r;

	tg_init(&g, UP_DOMAIN_HVM);
	tg_map_1g(&g, va, frame);
	stack = tg_data(&g, frame + 5);
	put64(stack, sp, CODE + 0x110);           /* leaf's return address */
	put64(stack, sp + 8 + 16, CODE + 0x210);  /* caller's, 24 bytes up */
	r = tg_regs(&g, CODE + 0x20, sp, 0);
	up_image_add_vcpu(g.img, &r);
	r = tg_regs(&g, CODE + 0x120, sp + 8, 0x1234);
	up_image_add_vcpu(g.img, &r);
	save_image("1g-nofp-2vcpu.img", g.img, 0x01, rows, 3);
	tg_release(&g);
}

/* PV (machine frames), 2 MiB pages, a frame-pointer chain, no CFI. */
static void pv_2m_fp(void)
{
	struct test_guest g;
	const uint64_t va = 0xffffffff80000000ULL;
	uint64_t base = 0x90000, sp = va + 0x3f00, fp = sp + 16;
	uint8_t *stack;
	struct up_regs r;

	tg_init(&g, UP_DOMAIN_PV);
	tg_map_2m(&g, va, base);
	stack = tg_data(&g, base + 3);
	for (unsigned i = 0; i < 5; i++, fp += 32) {
		put64(stack, fp, i < 4 ? fp + 32 : 0);
		put64(stack, fp + 8, CODE + 0x40 * i);
	}
	r = tg_regs(&g, CODE + 0x8, sp, sp + 16);
	up_image_add_vcpu(g.img, &r);
	save_image("pv-2m-fp.img", g.img, 1 << 1, NULL, 0);
	tg_release(&g);
}

/* AArch64: both halves' tables, a leaf whose return address is in LR
 * (its row says so), its caller's saved x29/x30 under a CFA of sp + 32,
 * and a second vCPU blocked just after an hvc #0xea1 with no CFI. */
static void arm64_cfi_hvc(void)
{
	struct a64 g;
	const uint64_t text = 0xffff000000080000ULL, stack = 0xffff000000200000ULL;
	struct cfi_row rows[3] = {
		{ .start = text, .len = 0x100, .kind = CFI_ROW_NORMAL,
		  .cfa_reg = CFI_CFA_SP, .cfa_off = 0, .ra_rule = CFI_RA_IN_LR },
		{ .start = text + 0x100, .len = 0x100, .kind = CFI_ROW_NORMAL,
		  .cfa_reg = CFI_CFA_SP, .cfa_off = 32, .ra_off = -24,
		  .fp_rule = CFI_FP_AT_CFA, .fp_off = -32 },
		{ .start = text + 0x200, .len = 0x100, .kind = CFI_ROW_OUTERMOST },
	};
	struct up_regs r;

	a64_init(&g, A64_TCR_48);
	a64_map_fresh(&g, text, 1);
	a64_map_fresh(&g, stack, 1);
	a64_poke32(&g, text + 0x404, 0xd401d422u);          /* hvc #0xea1 */
	a64_poke64(&g, stack + 0x100, 0);                    /* x29 */
	a64_poke64(&g, stack + 0x108, text + 0x210);         /* x30 */
	r = a64_regs(&g);
	r.ip = text + 0x10;
	r.sp = stack + 0x100;
	r.lr = text + 0x120;
	r.fp = stack + 0x100;
	up_image_add_vcpu(g.img, &r);
	r.ip = text + 0x408;
	up_image_add_vcpu(g.img, &r);
	save_image("arm64-cfi-hvc.img", g.img, 0x01, rows, 3);
	up_image_free(g.img);
}

static void output_seed(const char *name, uint8_t flags, uint8_t top,
			const char *names, const uint8_t *stacks, size_t n)
{
	uint8_t head[2] = { flags, top };
	size_t nl = strlen(names) + 1;          /* with its NUL */
	uint8_t *buf = malloc(2 + nl + n);

	memcpy(buf, head, 2);
	memcpy(buf + 2, names, nl);
	memcpy(buf + 2 + nl, stacks, n);
	save(out_dir, name, buf, 2 + nl + n, "", 0);
	free(buf);
}

static void outputs(void)
{
	/* vcpu|repeats<<2, depth-1|trunc<<5, frames (name | where<<6) */
	static const uint8_t simple[] = {
		0x08, 0x02, 0, 1, 2,
		0x04, 0x02, 0, 1, 3,
		0x00, 0x03, 0x43, 1, 4, 5,
		0x00, 0x20, 0x80,
		0x00, 0x41, 0xc0, 2,
	};
	static const uint8_t two_vcpus[] = {
		0x01, 0x01, 0, 1,
		0x05, 0x02, 0x41, 2, 3,
		0x00, 0x04, 4, 3, 2, 1, 0,
		0x01, 0x00, 0x85,
	};

	output_seed("names.prof", 0x00, 10,
		    "main\nhandle_request\ntcp_input\nmemcpy\n_ZN3net4Conn4readEPcm\nfoo<bar>&baz\"q'",
		    simple, sizeof(simple));
	output_seed("utf8-2vcpu.prof", 0x0d, 3,
		    "caf\xc3\xa9\n\xe6\x97\xa5\xe6\x9c\xac\n\xf0\x9f\x94\xa5_hot\n]]>x\n&amp;",
		    two_vcpus, sizeof(two_vcpus));
	output_seed("vcpu1-no-names.prof", 0x21, 5, "", two_vcpus, sizeof(two_vcpus));
}

/* Xen cores (fuzz_dump_core): a PV guest of two vCPUs on frame-pointer chains
 * (machine frames through .xen_p2m), and the same as HVM (.xen_pfn). */
static void core_seed(const char *name, enum up_domain_type type)
{
	static const uint64_t ret0[3] = { CODE + 0x105, CODE + 0x205, CODE + 0x305 };
	static const uint64_t ret1[1] = { CODE + 0x405 };
	const uint64_t stack = 0xffff880000010000ULL;
	struct test_guest g;
	struct xen_core_layout layout;
	struct up_regs r;
	void *buf;
	size_t len;

	tg_init(&g, type);
	tg_map_fresh(&g, stack, 1);
	r = tg_regs(&g, CODE + 0x10, stack, tg_fp_chain(&g, stack, ret0, 3));
	up_image_add_vcpu(g.img, &r);
	r = tg_regs(&g, CODE + 0x20, stack + 0x800, tg_fp_chain(&g, stack + 0x800, ret1, 1));
	up_image_add_vcpu(g.img, &r);
	xen_core_build(&g, &buf, &len, &layout);
	save(out_dir, name, buf, len, "", 0);
	free(buf);
	tg_release(&g);
}

/* fuzz_srcinfo: the hostile DWARF of test_srcinfo's cases, scaled to
 * the fuzz target's lowered budget (8 MiB for line tables), and the
 * plain image they are made from. */
static void srcinfo_seeds(void)
{
	static const struct { const char *name; struct hd_case c; } seeds[] = {
		{ "hostile-plain.elf", { .dir_len = 100, .files = 10 } },
		{ "hostile-altlink.elf", { .altlink = "/nonexistent/uniprof-fuzz-alt" } },
		{ "hostile-header-amp.elf", { .dir_len = 4096, .files = 2500 } },
		{ "hostile-rows.elf", { .rows = 70000 } },
		{ "hostile-big-abbrev.elf", { .fn_attrs = 2000, .fns = 4 } },
	};

	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		size_t len;
		uint8_t *img = hd_image(&seeds[i].c, &len);

		save(out_dir, seeds[i].name, img, len, img, 0);
		free(img);
	}
}

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 5) {
		fprintf(stderr, "usage: gen_seeds IMAGE_DIR OUTPUT_DIR [CORE_DIR [SRCINFO_DIR]]\n");
		return 2;
	}
	out_dir = argv[1];
	paging_off();
	one_gig_nofp();
	pv_2m_fp();
	arm64_cfi_hvc();
	out_dir = argv[2];
	outputs();
	if (argc >= 4) {
		out_dir = argv[3];
		core_seed("pv-2vcpu.core", UP_DOMAIN_PV);
		core_seed("hvm-2vcpu.core", UP_DOMAIN_HVM);
	}
	if (argc == 5) {
		out_dir = argv[4];
		srcinfo_seeds();
	}
	return 0;
}
