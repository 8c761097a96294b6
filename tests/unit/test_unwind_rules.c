/* What real unikernels need of the unwinders (issue: real unikernels):
 * stepping out of Xen's hypercall page (PV and HVM stub layouts, in the FP,
 * CFI and libunwind walks), rbp == 0 meaning nothing in code without frame
 * pointers, return addresses outside the kernel's code ending a walk as
 * truncated, outermost functions ending it whole, the kernel map read from
 * the test unikernel, names for the hypercall stubs, and idle stacks kept
 * apart in a profile. */
#include "unwind/cfi_table.h"
#include "unwind/kernel_map.h"
#include "guest.h"
#include "test.h"
#include "target/image_hooks.h"
#include "mem/memory.h"
#include "target/image.h"

TEST_GLOBALS;

#define STACK 0xffff880000200000ULL
#define HC 0x5000ULL                   /* hypercall page */
#define SCHED_OP_PV (HC + 29 * 32 + 10) /* after syscall */
#define SCHED_OP_HVM (HC + 29 * 32 + 8) /* after vmcall */

static char guest_fp[4096], guest_nofp[4096];

struct fx {
	struct test_guest g;
	struct up_target *t;
	struct up_mem *m;
	struct cfi_row rows[8];
	struct up_cfi_table table;
	struct up_kernel_map *k;
	uint64_t frames[64];
	struct up_stack st;
	struct up_unwind_counts counts;
	struct up_regs r;
};

static void setup(struct fx *f, enum up_domain_type type)
{
	memset(f, 0, sizeof(*f));
	tg_init(&f->g, type);
	tg_map_fresh(&f->g, STACK, 4);
	f->table.rows = f->rows;
	f->st.frames = f->frames;
	f->st.capacity = 64;
	up_kernel_map_new(&f->k);
	up_kernel_map_set_hypercall_page(f->k, HC);
}

static void row(struct fx *f, uint64_t start, uint32_t len, uint8_t kind,
		int32_t cfa_off)
{
	struct cfi_row r = { .start = start, .len = len, .kind = kind,
			     .cfa_reg = CFI_CFA_SP, .cfa_off = cfa_off,
			     .ra_off = -8, .fp_rule = CFI_FP_SAME };

	f->rows[f->table.count++] = r;
}

static void open_guest(struct fx *f, uint64_t ip, uint64_t sp, uint64_t fp)
{
	f->r = tg_regs(&f->g, ip, sp, fp);
	up_image_add_vcpu(f->g.img, &f->r);
	f->t = tg_open(&f->g);
	up_mem_new(&f->m, f->t, 0);
	up_mem_new_sample(f->m);
}

static struct up_unwind_opts opts(struct fx *f, enum up_domain_type type)
{
	struct up_unwind_opts o = { .max_depth = 64, .kernel = f->k,
				    .domain_type = type };

	return o;
}

static void teardown(struct fx *f)
{
	up_mem_free(f->m);
	up_target_close(f->t);
	up_kernel_map_free(f->k);
	tg_release(&f->g);
}

/* PV: paused after the stub's syscall, the stub's pushes (r11, rcx) sit
 * above sp and the return address into block_domain above them. Its
 * caller has CFI; the one above it is outermost. */
static void test_hypercall_pv_cfi(void)
{
	struct fx f;
	struct up_unwind_opts o;

	setup(&f, UP_DOMAIN_PV);
	row(&f, 0x1000, 0x100, CFI_ROW_NORMAL, 16);      /* block_domain */
	row(&f, 0x2000, 0x100, CFI_ROW_OUTERMOST, 0);    /* the entry */
	tg_poke64(&f.g, STACK, 0x1111);                  /* saved r11 */
	tg_poke64(&f.g, STACK + 8, 0x2222);              /* saved rcx */
	tg_poke64(&f.g, STACK + 16, 0x1035);             /* into block_domain */
	tg_poke64(&f.g, STACK + 24 + 8, 0x2011);         /* block_domain's ret */
	open_guest(&f, SCHED_OP_PV, STACK, 0);
	o = opts(&f, UP_DOMAIN_PV);
	CHECK(up_unwind_cfi(f.m, &f.r, &f.table, &o, false, &f.st, &f.counts) == 0);
	CHECK(f.st.trunc == UP_TRUNC_NONE);
	REQUIRE(f.st.depth == 3);
	CHECK_U64(f.frames[0], SCHED_OP_PV);
	CHECK_U64(f.frames[1], 0x1035);
	CHECK_U64(f.frames[2], 0x2011);
	CHECK(f.counts.hypercall == 1 && f.counts.cfi == 1);
	/* Without the kernel map the page is code without CFI: truncated,
	 * never written as whole (the bug: "hypercall_page 1"). */
	o.kernel = NULL;
	CHECK(up_unwind_cfi(f.m, &f.r, &f.table, &o, false, &f.st, NULL) == 0);
	CHECK(f.st.trunc == UP_TRUNC_NO_UNWIND_INFO && f.st.depth == 1);
	teardown(&f);
}

/* HVM/PVH: mov; vmcall; ret: the return address stays at sp. */
static void test_hypercall_hvm_cfi(void)
{
	struct fx f;
	struct up_unwind_opts o;

	setup(&f, UP_DOMAIN_HVM);
	row(&f, 0x1000, 0x100, CFI_ROW_NORMAL, 16);
	row(&f, 0x2000, 0x100, CFI_ROW_OUTERMOST, 0);
	tg_poke64(&f.g, STACK, 0x1035);
	tg_poke64(&f.g, STACK + 8 + 8, 0x2011);
	open_guest(&f, SCHED_OP_HVM, STACK, 0);
	o = opts(&f, UP_DOMAIN_HVM);
	CHECK(up_unwind_cfi(f.m, &f.r, &f.table, &o, true, &f.st, &f.counts) == 0);
	CHECK(f.st.trunc == UP_TRUNC_NONE);
	REQUIRE(f.st.depth == 3);
	CHECK_U64(f.frames[1], 0x1035);
	CHECK_U64(f.frames[2], 0x2011);
	/* The PV layout read on this stack would be wrong: the type matters
	 * (it takes block_domain's return address for the stub's). */
	o.domain_type = UP_DOMAIN_PV;
	f.r.ip = HC + 29 * 32 + 10;
	CHECK(up_unwind_cfi(f.m, &f.r, &f.table, &o, true, &f.st, NULL) == 0);
	CHECK(f.st.depth < 2 || f.frames[1] != 0x1035);
	teardown(&f);
}

/* Offsets where a stub cannot be paused (mid-instruction), and the iret
 * stub (jumped to, never returns), are truncations. */
static void test_hypercall_bad_positions(void)
{
	struct fx f;
	struct up_unwind_opts o;

	setup(&f, UP_DOMAIN_PV);
	open_guest(&f, HC + 29 * 32 + 9, STACK, 0);
	o = opts(&f, UP_DOMAIN_PV);
	CHECK(up_unwind_cfi(f.m, &f.r, &f.table, &o, true, &f.st, NULL) == 0);
	CHECK(f.st.trunc == UP_TRUNC_HYPERCALL_STUB && f.st.depth == 1);
	f.r.ip = HC + 23 * 32 + 10;           /* iret */
	CHECK(up_unwind_fp(f.m, &f.r, &o, &f.st) == 0);
	CHECK(f.st.trunc == UP_TRUNC_HYPERCALL_STUB && f.st.depth == 1);
	f.r.ip = HC + 29 * 32 + 20;           /* padding after ret */
	o.domain_type = UP_DOMAIN_HVM;
	CHECK(up_unwind_fp(f.m, &f.r, &o, &f.st) == 0);
	CHECK(f.st.trunc == UP_TRUNC_HYPERCALL_STUB);
	teardown(&f);
}

/* Frame pointers: the stub sets up no frame, so the rbp chain starts at
 * block_domain's caller; the stub step puts block_domain back. */
static void test_hypercall_fp_keeps_caller(void)
{
	struct fx f;
	struct up_unwind_opts o;
	uint64_t fp = STACK + 0x100;

	setup(&f, UP_DOMAIN_PV);
	tg_poke64(&f.g, STACK + 16, 0x1035);       /* into block_domain */
	tg_poke64(&f.g, fp, 0);                    /* block_domain's frame */
	tg_poke64(&f.g, fp + 8, 0x2011);           /* into schedule */
	open_guest(&f, SCHED_OP_PV, STACK, fp);
	o = opts(&f, UP_DOMAIN_PV);
	CHECK(up_unwind_fp(f.m, &f.r, &o, &f.st) == 0);
	CHECK(f.st.trunc == UP_TRUNC_NONE);
	REQUIRE(f.st.depth == 3);
	CHECK_U64(f.frames[1], 0x1035);
	CHECK_U64(f.frames[2], 0x2011);
	teardown(&f);
}

/* libunwind knows no hypercall page: the walk steps out first. The test
 * unikernel's own code gives libunwind real CFI to go on with. */
static void test_hypercall_libunwind(void)
{
	struct fx f;
	struct up_unwind_opts o;
	struct up_libunwind *lu;
	unsigned long tg_main = tg_elf_symbol(guest_nofp, "tg_main");
	unsigned long entry = tg_elf_symbol(guest_nofp, "tg_entry64");
	unsigned long call_main = tg_shell_hex(
		"objdump -d --no-show-raw-insn %s | awk '/<%s>:/ { f = 1 } f && /call.*<%s>/ { print $1; exit }'",
		guest_nofp, "tg_entry64", "tg_main");
	uint64_t ret_main = call_main + 5;      /* call rel32: 5 bytes */
	/* libunwind unwinds its host's architecture: x86_64 guests only on
	 * an x86_64 build. */
	if (UP_ARCH_HOST != UP_ARCH_X86_64) {
		printf("# %s: libunwind here is not x86_64's: skipped\n", __func__);
		return;
	}

	REQUIRE(tg_main && entry && call_main);
	REQUIRE(up_libunwind_load(&lu, guest_nofp) == 0);
	setup(&f, UP_DOMAIN_HVM);
	/* Paused in the stub called from tg_main's first instruction: the
	 * return address into tg_main at sp, tg_main's CFA = sp + 8 there,
	 * and its own return address into tg_entry64 above it. */
	tg_poke64(&f.g, STACK, tg_main + 1);
	tg_poke64(&f.g, STACK + 8, ret_main);
	open_guest(&f, SCHED_OP_HVM, STACK, 0);
	o = opts(&f, UP_DOMAIN_HVM);
	CHECK(up_unwind_libunwind(f.m, &f.r, lu, &o, &f.st) == 0);
	CHECK_U64(f.frames[1], tg_main + 1);
	CHECK(f.st.depth >= 2);
	up_libunwind_free(lu);
	teardown(&f);
}

/* rbp == 0 says "outermost" only where frame pointers are kept: in a build
 * without them, the fallback at an address without CFI is a truncation. */
static void test_rbp_zero_without_frame_pointers(void)
{
	struct fx f;
	struct up_unwind_opts o;

	setup(&f, UP_DOMAIN_HVM);
	open_guest(&f, 0x3000, STACK, 0);
	o = opts(&f, UP_DOMAIN_HVM);
	up_kernel_map_set_frame_pointers(f.k, UP_FP_OMITTED);
	CHECK(up_unwind_cfi(f.m, &f.r, &f.table, &o, true, &f.st, NULL) == 0);
	CHECK(f.st.trunc == UP_TRUNC_NO_UNWIND_INFO && f.st.depth == 1);
	up_kernel_map_set_frame_pointers(f.k, UP_FP_KEPT);
	CHECK(up_unwind_cfi(f.m, &f.r, &f.table, &o, true, &f.st, NULL) == 0);
	CHECK(f.st.trunc == UP_TRUNC_NONE && f.st.depth == 1);
	teardown(&f);
}

/* A return address outside the kernel's code ends the walk as truncated
 * and is not kept as a frame (the bug: "[truncated];0x100000;..."). */
static void test_return_outside_text(void)
{
	struct fx f;
	struct up_unwind_opts o;
	uint64_t fp = STACK + 0x100;

	setup(&f, UP_DOMAIN_HVM);
	up_kernel_map_add_text(f.k, 0x1000, 0x4000);
	row(&f, 0x1000, 0x100, CFI_ROW_NORMAL, 16);
	tg_poke64(&f.g, STACK + 8, 0x100000);        /* not code */
	tg_poke64(&f.g, fp, 0);
	tg_poke64(&f.g, fp + 8, 0x100000);
	open_guest(&f, 0x1010, STACK, fp);
	o = opts(&f, UP_DOMAIN_HVM);
	CHECK(up_unwind_cfi(f.m, &f.r, &f.table, &o, false, &f.st, NULL) == 0);
	CHECK(f.st.trunc == UP_TRUNC_OUTSIDE_TEXT && f.st.depth == 1);
	CHECK(up_unwind_fp(f.m, &f.r, &o, &f.st) == 0);
	CHECK(f.st.trunc == UP_TRUNC_OUTSIDE_TEXT && f.st.depth == 1);
	teardown(&f);
	/* Inside the code it is a frame. */
	setup(&f, UP_DOMAIN_HVM);
	up_kernel_map_add_text(f.k, 0x1000, 0x4000);
	row(&f, 0x1000, 0x100, CFI_ROW_NORMAL, 16);
	tg_poke64(&f.g, STACK + 8, 0x2011);
	open_guest(&f, 0x1010, STACK, 0x77);
	o = opts(&f, UP_DOMAIN_HVM);
	CHECK(up_unwind_cfi(f.m, &f.r, &f.table, &o, false, &f.st, NULL) == 0);
	CHECK(f.st.depth == 2 && f.st.trunc == UP_TRUNC_NO_UNWIND_INFO);
	teardown(&f);
}

/* A thread trampoline (Mini-OS's thread_starter: no CFI; it pushes a
 * zero and zeroes rbp before it calls the thread's function) ends the
 * walk whole when the CFI below it recovered rbp as zero and the slot
 * above its return address is zero; anything else without CFI stays cut,
 * an event upcall's stub passing on a zero rbp above all. */
static void test_trampoline_rbp_zero(void)
{
	struct fx f;
	struct up_unwind_opts o;
	const uint64_t saved_fp = STACK + 16 + 16;

	/* rbp restored from the stack: zero ends it whole (-u cfi and auto),
	 * anything else cuts it, as before. */
	for (int zero = 1; zero >= 0; zero--) {
		setup(&f, UP_DOMAIN_PV);
		up_kernel_map_add_text(f.k, 0x1000, 0x4000);
		up_kernel_map_set_frame_pointers(f.k, UP_FP_OMITTED);
		row(&f, 0x1000, 0x100, CFI_ROW_NORMAL, 16);   /* rbp untouched */
		row(&f, 0x2000, 0x100, CFI_ROW_NORMAL, 32);   /* saves rbp */
		f.rows[1].fp_rule = CFI_FP_AT_CFA;
		f.rows[1].fp_off = -16;
		tg_poke64(&f.g, STACK + 8, 0x2011);           /* leaf -> 0x2000 */
		tg_poke64(&f.g, saved_fp, zero ? 0 : 0x1234);
		tg_poke64(&f.g, STACK + 16 + 24, 0x3011);     /* -> trampoline */
		tg_poke64(&f.g, STACK + 16 + 32, 0);          /* its pushed 0 */
		open_guest(&f, 0x1010, STACK, 0x55);
		o = opts(&f, UP_DOMAIN_PV);
		for (int fallback = 0; fallback < 2; fallback++) {
			CHECK(up_unwind_cfi(f.m, &f.r, &f.table, &o, fallback, &f.st, NULL) == 0);
			CHECK(f.st.trunc == (zero ? UP_TRUNC_NONE : UP_TRUNC_NO_UNWIND_INFO));
			CHECK(f.st.depth == 3);
			CHECK_U64(f.frames[2], 0x3011);
		}
		teardown(&f);
	}

	/* rbp carried through "same value" rules from the registers: whole
	 * with the trampoline's zero slot; without it (an upcall stub, a
	 * saved register above the return address), cut. */
	for (int zero_slot = 1; zero_slot >= 0; zero_slot--) {
		setup(&f, UP_DOMAIN_PV);
		up_kernel_map_add_text(f.k, 0x1000, 0x4000);
		up_kernel_map_set_frame_pointers(f.k, UP_FP_OMITTED);
		row(&f, 0x1000, 0x100, CFI_ROW_NORMAL, 16);
		tg_poke64(&f.g, STACK + 8, 0x3011);
		tg_poke64(&f.g, STACK + 16, zero_slot ? 0 : 0xe033);
		open_guest(&f, 0x1010, STACK, 0);
		o = opts(&f, UP_DOMAIN_PV);
		CHECK(up_unwind_cfi(f.m, &f.r, &f.table, &o, false, &f.st, NULL) == 0);
		CHECK(f.st.trunc == (zero_slot ? UP_TRUNC_NONE : UP_TRUNC_NO_UNWIND_INFO));
		CHECK(f.st.depth == 2);
		teardown(&f);
	}

	/* The interrupted frame itself without CFI: its rbp is whatever the
	 * code there holds, not a mark; and a rule the table cannot express
	 * is no trampoline. */
	setup(&f, UP_DOMAIN_PV);
	up_kernel_map_add_text(f.k, 0x1000, 0x4000);
	up_kernel_map_set_frame_pointers(f.k, UP_FP_OMITTED);
	row(&f, 0x1000, 0x100, CFI_ROW_NORMAL, 16);
	row(&f, 0x3000, 0x100, CFI_ROW_UNSUPPORTED, 0);
	tg_poke64(&f.g, STACK + 8, 0x3011);
	open_guest(&f, 0x2010, STACK, 0);
	o = opts(&f, UP_DOMAIN_PV);
	CHECK(up_unwind_cfi(f.m, &f.r, &f.table, &o, false, &f.st, NULL) == 0);
	CHECK(f.st.trunc == UP_TRUNC_NO_UNWIND_INFO && f.st.depth == 1);
	f.r.ip = 0x1010;
	CHECK(up_unwind_cfi(f.m, &f.r, &f.table, &o, false, &f.st, NULL) == 0);
	CHECK(f.st.trunc == UP_TRUNC_UNSUPPORTED && f.st.depth == 2);
	teardown(&f);
}

/* An event upcall's entry code without CFI (Mini-OS's and Unikraft's
 * hypervisor_callback2): the walk goes on from the frame Xen pushed on the
 * interrupted stack, found through the pointer to the saved registers the
 * entry code left on its IRQ stack, or on the stack itself. Xen's
 * selectors are the proof: without them, or on HVM, the walk stays cut. */
static void upcall_guest(struct fx *f, enum up_domain_type type, int how,
			 uint64_t cs, bool rbp_frame)
{
	const uint64_t regs_at = STACK + 0x1000;
	/* how 2: Unikraft's registers, a word of padding first */
	const uint64_t frame = regs_at + (how == 2 ? 136 : 128);
	const uint64_t interrupted_sp = STACK + 0x2000;

	setup(f, type);
	up_kernel_map_add_text(f->k, 0x1000, 0x4000);
	up_kernel_map_set_frame_pointers(f->k, UP_FP_OMITTED);
	row(f, 0x1000, 0x100, CFI_ROW_NORMAL, 16);    /* do_hypervisor_callback */
	row(f, 0x3000, 0x100, CFI_ROW_NORMAL, 16);    /* the interrupted code */
	if (rbp_frame)                                 /* its CFA from rbp */
		f->rows[1].cfa_reg = CFI_CFA_FP;
	tg_poke64(&f->g, frame - 96, interrupted_sp);  /* pt_regs' rbp */
	CHECK(up_kernel_map_add_entry(f->k, 0x3800, 0x3840) == 0);
	tg_poke64(&f->g, STACK + 8, 0x2011);           /* -> the entry stub */
	if (how != 1)                                  /* on an IRQ stack */
		tg_poke64(&f->g, STACK + 16, regs_at);
	/* how 1: the frame on this stack, three words up */
	uint64_t at = how != 1 ? frame : STACK + 16 + 24;
	tg_poke64(&f->g, at, 0x3020);                  /* rip */
	tg_poke64(&f->g, at + 8, cs);
	tg_poke64(&f->g, at + 16, 0x246);              /* rflags */
	tg_poke64(&f->g, at + 24, interrupted_sp);
	tg_poke64(&f->g, at + 32, 0xe02b);             /* ss */
	tg_poke64(&f->g, interrupted_sp + 8, 0x3811);  /* -> an outermost one */
	open_guest(f, 0x1010, STACK, 0x1234);
}

/* With and without the frame-pointer fallback: the handler, the entry
 * stub's return address (0x2011), the interrupted pc (0x3020) and the
 * outermost function it was called from (0x3811), whole. */
static void whole_through_entry(struct fx *f, enum up_domain_type type)
{
	struct up_unwind_opts o = opts(f, type);

	for (int fallback = 0; fallback < 2; fallback++) {
		CHECK(up_unwind_cfi(f->m, &f->r, &f->table, &o, fallback, &f->st, NULL) == 0);
		CHECK(f->st.trunc == UP_TRUNC_NONE && f->st.depth == 4);
		CHECK_U64(f->frames[1], 0x2011);
		CHECK_U64(f->frames[2], 0x3020);
		CHECK_U64(f->frames[3], 0x3811);
	}
}

static void test_upcall_frame(void)
{
	struct fx f;
	struct up_unwind_opts o;

	for (int how = 0; how < 3; how++) {
		upcall_guest(&f, UP_DOMAIN_PV, how, 0xe033, false);
		whole_through_entry(&f, UP_DOMAIN_PV);
		teardown(&f);
	}
	/* The selector as the guest's iret leaves it (RPL 3) is Xen's too. */
	upcall_guest(&f, UP_DOMAIN_PV, 0, 0xe030, false);
	o = opts(&f, UP_DOMAIN_PV);
	CHECK(up_unwind_cfi(f.m, &f.r, &f.table, &o, false, &f.st, NULL) == 0);
	CHECK(f.st.trunc == UP_TRUNC_NONE && f.st.depth == 4);
	teardown(&f);
	/* Not Xen's selector, or not a PV guest: cut, as before. */
	upcall_guest(&f, UP_DOMAIN_PV, 0, 0x10, false);
	o = opts(&f, UP_DOMAIN_PV);
	CHECK(up_unwind_cfi(f.m, &f.r, &f.table, &o, false, &f.st, NULL) == 0);
	CHECK(f.st.trunc == UP_TRUNC_NO_UNWIND_INFO && f.st.depth == 2);
	teardown(&f);
	upcall_guest(&f, UP_DOMAIN_HVM, 0, 0xe033, false);
	o = opts(&f, UP_DOMAIN_HVM);
	CHECK(up_unwind_cfi(f.m, &f.r, &f.table, &o, false, &f.st, NULL) == 0);
	CHECK(f.st.trunc == UP_TRUNC_NO_UNWIND_INFO && f.st.depth == 2);
	teardown(&f);
	/* The interrupted code's CFA from rbp: known through pt_regs; found
	 * on the stack alone, the frame does not say it, and the walk stops
	 * there rather than guess. */
	for (int how = 0; how < 3; how++) {
		upcall_guest(&f, UP_DOMAIN_PV, how, 0xe033, true);
		o = opts(&f, UP_DOMAIN_PV);
		CHECK(up_unwind_cfi(f.m, &f.r, &f.table, &o, false, &f.st, NULL) == 0);
		if (how != 1)
			CHECK(f.st.trunc == UP_TRUNC_NONE && f.st.depth == 4);
		else
			CHECK(f.st.trunc == UP_TRUNC_UNSUPPORTED && f.st.depth == 3);
		teardown(&f);
	}
}

/* A PVH/HVM guest's interrupt and exception entry code without CFI
 * (Solo5's cpu_irq_N on IST1 and cpu_trap_N on IST2, the test guest's
 * upcall on the interrupted stack): the walk goes on from the frame the
 * CPU pushed (rip, cs, rflags, rsp, ss; an error code below it for some
 * exceptions), found where only the CPU puts it: just below the
 * interrupted rsp, or at the top of an interrupt stack the TSS names.
 * Found anywhere else, it cuts the walk; it never lets the entry code's
 * pushed zeros pass for a thread's first frame. */
enum hw_shape { HW_IST_IRQ, HW_IST_TRAP_EC, HW_SAME_IRQ, HW_SAME_EC,
		HW_UNPLACED, HW_NOT_A_FRAME };

#define HW_TSS (STACK + 0x3000)
#define HW_INTERRUPTED_SP (STACK + 0x2000)

/* The stub's pushes (zeros: rbp and the last one zero, as a trampoline's
 * mark would be), then the frame; returns where its rip is. */
struct hw_poke {
	unsigned word;          /* of the frame; 5: the stub's last push,
				   7: its third (where an rbp it saved is) */
	uint64_t val;
};

static void hw_guest(struct fx *f, enum hw_shape shape, bool tss,
		     enum up_frame_pointers fp, const struct hw_poke *poke,
		     size_t npoke)
{
	/* Solo5: 9 registers; its traps push %cr2 (or two zeros) too. */
	unsigned saved = shape == HW_IST_TRAP_EC ? 10 : 9;
	bool ec = shape == HW_IST_TRAP_EC || shape == HW_SAME_EC;
	/* IST frames end at a 16-byte boundary; so do these. */
	uint64_t at = STACK + 16 + 8 * saved + (ec ? 8 : 0);
	bool ist = shape == HW_IST_IRQ || shape == HW_IST_TRAP_EC;
	uint64_t isp = HW_INTERRUPTED_SP;

	setup(f, UP_DOMAIN_HVM);
	up_kernel_map_add_text(f->k, 0x1000, 0x4000);
	up_kernel_map_set_frame_pointers(f->k, fp);
	row(f, 0x1000, 0x100, CFI_ROW_NORMAL, 16);    /* the C handler */
	row(f, 0x3000, 0x100, CFI_ROW_NORMAL, 16);    /* the interrupted code */
	CHECK(up_kernel_map_add_entry(f->k, 0x3800, 0x3840) == 0);
	tg_poke64(&f->g, STACK + 8, 0x2011);           /* -> the entry stub */
	if (ec)
		tg_poke64(&f->g, at - 8, 0xd);         /* the error code */
	if (shape == HW_SAME_IRQ || shape == HW_SAME_EC)
		isp = at + 40 + 8;                     /* 8 bytes realigned */
	else if (shape == HW_UNPLACED)
		isp = HW_INTERRUPTED_SP + 8;
	tg_poke64(&f->g, at, 0x3020);                  /* rip */
	tg_poke64(&f->g, at + 8, shape == HW_NOT_A_FRAME ? 0x13 : 0x08);
	tg_poke64(&f->g, at + 16, 0x246);              /* rflags */
	tg_poke64(&f->g, at + 24, isp);
	tg_poke64(&f->g, at + 32, 0x10);               /* ss */
	tg_poke64(&f->g, isp + 8, 0x3811);             /* -> an outermost one */
	/* IST1 for interrupts, IST2 for traps: the stack's top is the
	 * frame's end. */
	tg_poke64(&f->g, HW_TSS + 0x24 + (shape == HW_IST_TRAP_EC ? 8 : 0),
		  ist ? at + 40 : 0);
	for (size_t i = 0; i < npoke; i++)
		tg_poke64(&f->g, poke[i].word == 5 ? STACK + 16 :
			  poke[i].word == 7 ? STACK + 16 + 8 * 2 : at + 8 * poke[i].word,
			  poke[i].val);
	open_guest(f, 0x1010, STACK, 0);
	f->r.tss = tss ? HW_TSS : 0;
}

static void test_hw_interrupt_frame(void)
{
	static const enum hw_shape whole[] = { HW_IST_IRQ, HW_IST_TRAP_EC,
					       HW_SAME_IRQ, HW_SAME_EC };
	struct fx f;
	struct up_unwind_opts o;

	for (size_t i = 0; i < sizeof(whole) / sizeof(whole[0]); i++) {
		for (int fp = 0; fp < 2; fp++) {
			hw_guest(&f, whole[i], true, fp ? UP_FP_KEPT : UP_FP_OMITTED, NULL, 0);
			whole_through_entry(&f, UP_DOMAIN_HVM);
			teardown(&f);
		}
	}
	/* The interrupted code's CFA from rbp (a frame-pointer build): its
	 * rbp as the entry code left it (untouched: the walk's own), or in
	 * the frame the entry code made (push %rbp; mov %rsp,%rbp: the
	 * walk's rbp points at it among the pushes); not known, cut. */
	for (int how = 0; how < 3; how++) {
		const uint64_t made_at = STACK + 16 + 8 * 2;
		/* rbp: the interrupted sp's frame; the entry code's frame's
		 * slot; nothing the walk holds (an unexpressible rule). */
		const struct hw_poke p[] = { { 7, HW_INTERRUPTED_SP } };

		hw_guest(&f, HW_IST_IRQ, true, UP_FP_KEPT, how == 1 ? p : NULL, how == 1);
		f.rows[1].cfa_reg = CFI_CFA_FP;
		f.r.fp = how == 0 ? HW_INTERRUPTED_SP : how == 1 ? made_at : 0;
		if (how == 2)
			f.rows[0].fp_rule = CFI_FP_AT_CFA, f.rows[0].fp_off = -16;
		o = opts(&f, UP_DOMAIN_HVM);
		CHECK(up_unwind_cfi(f.m, &f.r, &f.table, &o, false, &f.st, NULL) == 0);
		if (how < 2) {
			CHECK(f.st.trunc == UP_TRUNC_NONE && f.st.depth == 4);
			CHECK_U64(f.frames[3], 0x3811);
		} else {
			CHECK(f.st.trunc != UP_TRUNC_NONE && f.st.depth == 3);
		}
		teardown(&f);
	}
	/* Paused inside the entry code itself, halfway through its pushes. */
	hw_guest(&f, HW_IST_IRQ, true, UP_FP_OMITTED, NULL, 0);
	f.r.ip = 0x2005;
	f.r.sp = STACK + 16 + 8 * 4;
	o = opts(&f, UP_DOMAIN_HVM);
	CHECK(up_unwind_cfi(f.m, &f.r, &f.table, &o, false, &f.st, NULL) == 0);
	CHECK(f.st.trunc == UP_TRUNC_NONE && f.st.depth == 3);
	CHECK_U64(f.frames[1], 0x3020);
	teardown(&f);
	/* On an interrupt stack whose TSS is not known (a core), or a frame
	 * just where the CPU would never put it: cut, though the stub's last
	 * push and rbp are zero, as a thread trampoline's are. */
	for (int shape = 0; shape < 2; shape++) {
		hw_guest(&f, shape ? HW_UNPLACED : HW_IST_IRQ, shape == 1, UP_FP_OMITTED,
			 NULL, 0);
		o = opts(&f, UP_DOMAIN_HVM);
		CHECK(up_unwind_cfi(f.m, &f.r, &f.table, &o, false, &f.st, NULL) == 0);
		CHECK(f.st.trunc == UP_TRUNC_NO_UNWIND_INFO && f.st.depth == 2);
		teardown(&f);
	}
	/* Not a ring 0 frame: no interrupt frame at all; the same words are
	 * a PV guest's too (Xen's frames are PV's): both cut or whole as a
	 * trampoline says, as before. */
	static const struct hw_poke not_zero = { 5, 0x77 };   /* no pushed zero */
	hw_guest(&f, HW_NOT_A_FRAME, true, UP_FP_OMITTED, &not_zero, 1);
	o = opts(&f, UP_DOMAIN_HVM);
	CHECK(up_unwind_cfi(f.m, &f.r, &f.table, &o, false, &f.st, NULL) == 0);
	CHECK(f.st.trunc == UP_TRUNC_NO_UNWIND_INFO && f.st.depth == 2);
	teardown(&f);
	/* The frame's fields one by one: each wrong value, no frame. */
	static const struct hw_poke bad[] = {
		{ 0, 0x9000 },               /* rip outside the code */
		{ 1, 0x0b },                 /* cs RPL 3 */
		{ 1, 0x0c },                 /* cs in the LDT */
		{ 1, 0x10008 },              /* cs wider than 16 bits */
		{ 2, 0x244 },                /* rflags without bit 1 */
		{ 2, 0x20246 },              /* rflags with VM */
		{ 2, 0x400246 },             /* reserved bit 22 */
		{ 3, HW_INTERRUPTED_SP + 4 },/* rsp unaligned */
		{ 3, 0x0000800000000000ULL },/* rsp not canonical */
		{ 4, 0x13 },                 /* ss RPL 3 */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const struct hw_poke p[] = { not_zero, bad[i] };

		hw_guest(&f, HW_IST_IRQ, true, UP_FP_OMITTED, p, 2);
		o = opts(&f, UP_DOMAIN_HVM);
		CHECK(up_unwind_cfi(f.m, &f.r, &f.table, &o, false, &f.st, NULL) == 0);
		CHECK(f.st.trunc != UP_TRUNC_NONE);
		CHECK(f.st.depth == 2);
		teardown(&f);
	}
}

/* A return address a call left: the bytes before it are a call (rel32,
 * through a register, memory with a displacement or a SIB byte,
 * RIP-relative); anything else is a stale word. Unmapped: a stale word
 * too, where a kernel map says the guest is known; without one, no
 * verdict against it. */
static void test_after_call(void)
{
	static const struct { uint8_t code[8]; unsigned len; bool call; } c[] = {
		{ { 0xe8, 1, 2, 3, 4 }, 5, true },             /* call rel32 */
		{ { 0xff, 0xd0 }, 2, true },                   /* call *%rax */
		{ { 0x41, 0xff, 0xd3 }, 3, true },             /* call *%r11 */
		{ { 0xff, 0x50, 0x08 }, 3, true },             /* call *8(%rax) */
		{ { 0xff, 0x54, 0x24, 0x08 }, 4, true },       /* call *8(%rsp) */
		{ { 0xff, 0x15, 1, 2, 3, 4 }, 6, true },       /* call *x(%rip) */
		{ { 0xff, 0x90, 1, 2, 3, 4 }, 6, true },       /* call *x(%rax) */
		{ { 0x48, 0x89, 0xe5 }, 3, false },            /* mov %rsp,%rbp */
		{ { 0xff, 0xe0 }, 2, false },                  /* jmp *%rax */
		{ { 0x90, 0x90, 0x90, 0x90, 0x90 }, 5, false },
	};
	struct fx f;

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		const uint64_t at = STACK + 0x800;

		uint8_t bytes[8];
		uint64_t w = 0;

		setup(&f, UP_DOMAIN_PV);
		memset(bytes, 0x90, sizeof(bytes));
		memcpy(bytes + 8 - c[i].len, c[i].code, c[i].len);
		for (unsigned j = 0; j < 8; j++)
			w |= (uint64_t)bytes[j] << 8 * j;
		tg_poke64(&f.g, at - 8, w);     /* the code ends at at */
		open_guest(&f, 0x1010, STACK, 0);
		CHECK(kernel_after_call(f.m, &f.r, f.k, at) == c[i].call);
		CHECK(kernel_after_call(f.m, &f.r, NULL, at) == c[i].call);
		/* Unmapped: not returned to, where the kernel is known. */
		CHECK(kernel_after_call(f.m, &f.r, NULL, 0x40) == true);
		CHECK(kernel_after_call(f.m, &f.r, f.k, 0x40) == false);
		teardown(&f);
	}
}

/* An image linked at 0 and entered there (Mini-OS's and Unikraft's
 * _start): entry 0 is an outermost function, not "no entry". */
static void test_entry_at_zero(void)
{
	struct up_kernel_map *k;
	struct up_symtab *s;
	char path[512];
	const char *b = getenv("top_builddir");
	unsigned long helper;

	snprintf(path, sizeof(path), "%s/tests/unit/fixture_entry0", b ? b : ".");
	helper = tg_elf_symbol(path, "helper");
	REQUIRE(helper != 0);
	REQUIRE(up_symtab_load(&s, path) == 0);
	REQUIRE(up_kernel_map_load(&k, path, s) == 0);
	CHECK(up_kernel_map_entries(k) == 1);
	CHECK(up_kernel_map_is_entry(k, 0));
	CHECK(up_kernel_map_is_entry(k, 1));
	CHECK(!up_kernel_map_is_entry(k, helper));
	up_kernel_map_free(k);
	up_symtab_free(s);
}

/* A thread entry without CFI (--entry) ends the walk whole. */
static void test_entry_function(void)
{
	struct fx f;
	struct up_unwind_opts o;

	setup(&f, UP_DOMAIN_HVM);
	row(&f, 0x1000, 0x100, CFI_ROW_NORMAL, 16);
	tg_poke64(&f.g, STACK + 8, 0x3011);          /* into thread_starter */
	open_guest(&f, 0x1010, STACK, 0x77);
	o = opts(&f, UP_DOMAIN_HVM);
	CHECK(up_unwind_cfi(f.m, &f.r, &f.table, &o, false, &f.st, NULL) == 0);
	CHECK(f.st.trunc == UP_TRUNC_NO_UNWIND_INFO && f.st.depth == 2);
	CHECK(up_kernel_map_add_entry(f.k, 0x3000, 0x3040) == 0);
	CHECK(up_unwind_cfi(f.m, &f.r, &f.table, &o, false, &f.st, NULL) == 0);
	CHECK(f.st.trunc == UP_TRUNC_NONE && f.st.depth == 2);
	CHECK(up_kernel_map_add_entry(f.k, 0x3040, 0x3040) < 0);   /* empty */
	teardown(&f);
}

/* The test unikernel's map: its code segment, its entry function, its
 * hypercall page (the note), frame pointers per build; and the stubs'
 * names in its symbol table. */
static void test_kernel_map_of_guest(void)
{
	struct up_kernel_map *k;
	struct up_symtab *s;
	struct up_cfi_table *fp, *nofp;
	unsigned long hc = tg_elf_symbol(guest_nofp, "hypercall_page");
	unsigned long pv_start = tg_elf_symbol(guest_nofp, "pv_start");
	unsigned long tg_main = tg_elf_symbol(guest_nofp, "tg_main");
	char name[128];

	REQUIRE(hc && pv_start && tg_main);
	REQUIRE(up_symtab_load(&s, guest_nofp) == 0);
	REQUIRE(up_kernel_map_load(&k, guest_nofp, s) == 0);
	CHECK_U64(up_kernel_map_hypercall_page(k), hc);
	CHECK(up_kernel_map_text_ranges(k) >= 1);
	CHECK(up_kernel_map_in_text(k, tg_main));
	CHECK(!up_kernel_map_in_text(k, 0x10));
	CHECK(up_kernel_map_is_entry(k, pv_start));
	CHECK(!up_kernel_map_is_entry(k, tg_main));
	CHECK(up_kernel_map_add_entry_symbol(k, s, "tg_main") == 0);
	CHECK(up_kernel_map_is_entry(k, tg_main + 4));
	CHECK(up_kernel_map_add_entry_symbol(k, s, "no_such_fn") == UP_ENOENT);
	/* Its code segment as readelf reads the program header. */
	REQUIRE(up_kernel_map_segments(k) == 1);
	CHECK_U64(up_kernel_map_segment(k, 0)->start, tg_shell_hex(
		"readelf -lW '%s' | awk '$1 == \"LOAD\" && $0 ~ /E +0x[0-9a-f]+$/ { print $3 }'%s%s",
		guest_nofp, "", ""));
	CHECK_U64(up_kernel_map_segment(k, 0)->file_offset, tg_shell_hex(
		"readelf -lW '%s' | awk '$1 == \"LOAD\" && $0 ~ /E +0x[0-9a-f]+$/ { print $2 }'%s%s",
		guest_nofp, "", ""));
	CHECK_U64(up_kernel_map_segment(k, 0)->limit - up_kernel_map_segment(k, 0)->start,
		  tg_shell_hex("readelf -lW '%s' | awk '$1 == \"LOAD\" && $0 ~ /E +0x[0-9a-f]+$/ { print $6 }'%s%s",
			       guest_nofp, "", ""));
	CHECK(up_kernel_map_segment(k, 1) == NULL);
	CHECK_STR(up_kernel_map_image(k), guest_nofp);
	up_kernel_map_free(k);

	CHECK(up_symtab_name_hypercalls(s, hc) == 0);
	up_symtab_format(s, hc + 29 * 32 + 10, false, name, sizeof(name));
	CHECK_STR(name, "hypercall_page [sched_op]");
	up_symtab_format(s, hc, false, name, sizeof(name));
	CHECK_STR(name, "hypercall_page [set_trap_table]");
	up_symtab_format(s, hc + 60 * 32, false, name, sizeof(name));
	CHECK_STR(name, "hypercall_page [#60]");
	up_symtab_format(s, tg_main, false, name, sizeof(name));
	CHECK_STR(name, "tg_main");
	up_symtab_free(s);

	REQUIRE(up_cfi_table_load(&fp, guest_fp) == 0);
	REQUIRE(up_cfi_table_load(&nofp, guest_nofp) == 0);
	CHECK(up_cfi_frame_pointers(fp) == UP_FP_KEPT);
	CHECK(up_cfi_frame_pointers(nofp) == UP_FP_OMITTED);
	up_cfi_table_free(fp);
	up_cfi_table_free(nofp);
}

/* Blocked stacks are counted apart; the views leave them out unless asked,
 * then show them under [idle]. */
static void test_idle_in_profile(void)
{
	struct up_profile *p;
	uint64_t busy[] = { 0x10, 0x20 }, idle[] = { 0x30, 0x20 };
	struct up_output_opts on_cpu = UP_OUTPUT_OPTS_INIT;
	struct up_output_opts all = { .version = UP_OUTPUT_OPTS_VERSION,
				      .vcpu = -1, .with_idle = true };
	char buf[1024] = "";
	FILE *f;

	REQUIRE(up_profile_new(&p, 1) == 0);
	for (int i = 0; i < 3; i++)
		CHECK(up_profile_add_activity(p, 0, busy, 2, UP_TRUNC_NONE,
					      UP_VCPU_BUSY, 1) == 0);
	CHECK(up_profile_add_activity(p, 0, idle, 2, UP_TRUNC_NONE,
				      UP_VCPU_BLOCKED, 5) == 0);   /* 5 periods */
	CHECK(up_profile_add_activity(p, 0, idle, 2, UP_TRUNC_NONE,
				      UP_VCPU_BLOCKED, 2) == 0);
	CHECK(up_profile_add_activity(p, 0, idle, 2, UP_TRUNC_NONE,
				      UP_VCPU_BLOCKED, 0) == UP_EINVAL);
	CHECK_U64(up_profile_vcpu_busy(p, 0), 3);
	CHECK_U64(up_profile_vcpu_blocked(p, 0), 7);
	CHECK_U64(up_profile_kept_samples(p, &on_cpu), 3);
	CHECK_U64(up_profile_kept_samples(p, &all), 10);
	f = fmemopen(buf, sizeof(buf), "w");
	up_profile_write_folded(p, NULL, &on_cpu, f);
	fclose(f);
	CHECK_STR(buf, "0x20;0x10 3\n");
	f = fmemopen(buf, sizeof(buf), "w");
	up_profile_write_folded(p, NULL, &all, f);
	fclose(f);
	CHECK_STR(buf, "0x20;0x10 3\n[idle];0x20;0x30 7\n");
	up_profile_free(p);
}

/* The sampler asks each vCPU's state inside the pause (image target:
 * the blocked flag), or not at all when told not to. */
static void test_sampler_activity(void)
{
	struct test_guest g;
	struct up_target *t;
	struct up_profile *p;
	struct up_sampler_config c;
	struct up_sampler_stats st;
	struct up_regs r;

	tg_init(&g, UP_DOMAIN_HVM);
	tg_map_fresh(&g, STACK, 1);
	r = tg_regs(&g, 0x1000, STACK, 0);
	up_image_add_vcpu(g.img, &r);
	up_image_add_vcpu(g.img, &r);
	up_image_set_blocked(g.img, 1, true);
	t = tg_open(&g);
	up_sampler_config_init(&c, UP_SAMPLER_CONFIG_VERSION);
	c.unwinder = UP_UNWINDER_FP;
	c.hz = 10000;
	c.max_samples = 5;
	c.drop_late = true;
	REQUIRE(up_profile_new(&p, 2) == 0);
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	CHECK_U64(up_profile_vcpu_busy(p, 0), 5);
	CHECK_U64(up_profile_vcpu_blocked(p, 1), 5);
	/* Time paused by us, per vCPU, and while blocked. */
	REQUIRE(st.nr_vcpus == 2);
	CHECK(st.vcpu_paused_ns[0] > 0 && st.vcpu_paused_blocked_ns[0] == 0);
	CHECK_U64(st.vcpu_paused_blocked_ns[1], st.vcpu_paused_ns[1]);
	/* The run clock (the image's runs a vCPU not blocked whenever the
	 * domain is not paused): vCPU 0 ran nearly all of the time between
	 * our pauses, vCPU 1 none of it. */
	CHECK(up_sampler_running_pct(&st, 0) > 50);
	CHECK(up_sampler_running_pct(&st, 0) <= 100);
	CHECK(up_sampler_running_pct(&st, 1) == 0);
	CHECK(up_sampler_running_pct(&st, 2) == -1);
	up_sampler_stats_release(&st);
	up_profile_free(p);
	c.no_activity = true;
	REQUIRE(up_profile_new(&p, 2) == 0);
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	CHECK_U64(up_profile_vcpu_blocked(p, 1), 0);
	CHECK_U64(up_profile_vcpu_busy(p, 1), 0);
	CHECK_U64(up_profile_vcpu_samples(p, 1), 5);
	CHECK(up_sampler_running_pct(&st, 0) == -1);   /* not asked */
	up_sampler_stats_release(&st);
	up_profile_free(p);
	up_target_close(t);
	tg_release(&g);
}

/* The sampler's defaults with the FP unwinder and a kernel map that knows
 * the hypercall page (its block points): the block-point tests' set-up. */
static void fp_sampler_with_stubs(struct up_sampler_config *c,
				  struct up_kernel_map **k)
{
	REQUIRE(up_kernel_map_new(k) == 0);
	up_kernel_map_set_hypercall_page(*k, HC);
	up_sampler_config_init(c, UP_SAMPLER_CONFIG_VERSION);
	c->unwinder = UP_UNWINDER_FP;
	c->unwind.kernel = *k;
}

/* A vCPU stopped just after SCHEDOP_block's trap that was blocked just
 * is blocked or, when Xen no longer has it blocked, waiting (woken and
 * not back in its code); yield from the same stub is CPU time. Paused and
 * relaxed alike. Paused, Xen is asked only about vCPUs at a block point,
 * in the pause (in its very trap about those the last sample found
 * there); a vCPU elsewhere is busy whatever Xen would say. */
static void test_sampler_at_block(void)
{
	for (int relaxed = 0; relaxed < 2; relaxed++) {
		struct test_guest g;
		struct up_target *t;
		struct up_profile *p;
		struct up_sampler_config c;
		struct up_sampler_stats st;
		struct up_kernel_map *k;
		struct up_regs r;

		tg_init(&g, UP_DOMAIN_HVM);
		tg_map_fresh(&g, STACK, 1);
		tg_poke64(&g, STACK, 0x1035);             /* the stub's caller */
		r = tg_regs(&g, SCHED_OP_HVM, STACK, 0);
		r.arg0 = 1;                               /* SCHEDOP_block */
		up_image_add_vcpu(g.img, &r);             /* woken in the pause */
		up_image_add_vcpu(g.img, &r);             /* woken before it */
		r.arg0 = 0;                               /* SCHEDOP_yield */
		up_image_add_vcpu(g.img, &r);
		r = tg_regs(&g, 0x1000, STACK, 0);        /* no block point */
		up_image_add_vcpu(g.img, &r);
		up_image_set_blocked(g.img, 0, true);
		t = tg_open(&g);
		/* Relaxed: its state's second read (after the walk) finds it
		 * woken. Paused: the fourth (in the first pause, the run
		 * clock's and its check's after it, in the second pause): the
		 * second sample finds it woken, waiting. */
		up_target_image_block_on_read(t, 0, relaxed ? 2 : 4);
		fp_sampler_with_stubs(&c, &k);
		c.consistency = relaxed ? UP_CONSISTENCY_RELAXED : UP_CONSISTENCY_PAUSED;
		c.max_samples = relaxed ? 1 : 2;
		c.hz = 10000;
		c.drop_late = true;
		REQUIRE(up_profile_new(&p, 4) == 0);
		CHECK(up_sample(t, &c, p, NULL, &st) == 0);
		/* Relaxed, blocked at the first read and woken by the last,
		 * its registers at the block point: no walk again (the
		 * sample would date from later), blocked as of its first
		 * read. */
		if (relaxed) {
			CHECK_U64(up_profile_vcpu_blocked(p, 0), 1);
			CHECK_U64(st.relaxed_retried, 0);
		} else {
			CHECK_U64(up_profile_vcpu_blocked(p, 0), 1);
			CHECK_U64(up_profile_vcpu_waiting(p, 0), 1);
			CHECK(st.vcpu_paused_blocked_ns[0] > 0);
			CHECK(st.vcpu_paused_blocked_ns[0] < st.vcpu_paused_ns[0]);
		}
		/* Woken before the pause, not back in its code: waiting. */
		CHECK_U64(up_profile_vcpu_waiting(p, 1), c.max_samples);
		CHECK_U64(up_profile_vcpu_busy(p, 2), c.max_samples);
		CHECK_U64(up_profile_vcpu_busy(p, 3), c.max_samples);
		up_sampler_stats_release(&st);
		up_profile_free(p);
		up_kernel_map_free(k);
		up_target_close(t);
		tg_release(&g);
	}
}

/* A vCPU Xen has blocked with registers at no block point the kernel map
 * knows (a guest that blocks its own way): the run-clock read sees it and
 * from then on Xen is asked in every window, so it counts as blocked. */
static void test_sampler_unknown_block_point(void)
{
	struct test_guest g;
	struct up_target *t;
	struct up_profile *p;
	struct up_sampler_config c;
	struct up_sampler_stats st;
	struct up_kernel_map *k;
	struct up_regs r;

	tg_init(&g, UP_DOMAIN_HVM);
	tg_map_fresh(&g, STACK, 1);
	r = tg_regs(&g, 0x1000, STACK, 0);
	up_image_add_vcpu(g.img, &r);
	up_image_set_blocked(g.img, 0, true);
	t = tg_open(&g);
	fp_sampler_with_stubs(&c, &k);
	c.max_samples = 3;
	c.hz = 10000;
	c.drop_late = true;
	REQUIRE(up_profile_new(&p, 1) == 0);
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	/* The first sample's verdict is the registers'; the clock read
	 * after it finds the vCPU blocked elsewhere. */
	CHECK_U64(up_profile_vcpu_busy(p, 0), 1);
	CHECK_U64(up_profile_vcpu_blocked(p, 0), 2);
	up_sampler_stats_release(&st);
	up_profile_free(p);
	up_kernel_map_free(k);
	up_target_close(t);
	tg_release(&g);
}

/* An I/O guest's vCPU is blocked at a block point at nearly every run
 * clock read (every 50 ms): its block point is confirmed by reading its
 * registers again (a trap each on Xen) only 16 times, then once a
 * second, not at every read. */
static void test_sampler_block_checks_bounded(void)
{
	struct test_guest g;
	struct up_target *t;
	struct up_profile *p;
	struct up_sampler_config c;
	struct up_sampler_stats st;
	struct up_kernel_map *k;
	struct up_image_pause_counts pc;
	struct up_regs r;

	tg_init(&g, UP_DOMAIN_HVM);
	tg_map_fresh(&g, STACK, 1);
	tg_poke64(&g, STACK, 0x1035);
	r = tg_regs(&g, SCHED_OP_HVM, STACK, 0);
	r.arg0 = 1;                                 /* SCHEDOP_block */
	up_image_add_vcpu(g.img, &r);
	up_image_set_blocked(g.img, 0, true);
	t = tg_open(&g);
	fp_sampler_with_stubs(&c, &k);
	c.hz = 200;
	c.duration_s = 1.5;         /* ~30 clock reads: 16 checks, none after */
	REQUIRE(up_profile_new(&p, 1) == 0);
	CHECK(up_sample(t, &c, p, NULL, &st) == 0);
	up_target_image_pause_counts(t, &pc);
	/* Each clock read of a blocked vCPU reads its state; each check
	 * reads its registers and its state once more. */
	CHECK(pc.state_reads > 20 + pc.unpaused_reg_reads);
	CHECK_U64(pc.unpaused_reg_reads, 16);
	CHECK(up_profile_vcpu_blocked(p, 0) >= st.samples);
	CHECK_U64(up_profile_vcpu_busy(p, 0), 0);
	up_sampler_stats_release(&st);
	up_profile_free(p);
	up_kernel_map_free(k);
	up_target_close(t);
	tg_release(&g);
}

int main(void)
{
	const char *b = getenv("top_builddir");

	snprintf(guest_fp, sizeof(guest_fp), "%s/tests/guest/tg-fp.elf", b ? b : ".");
	snprintf(guest_nofp, sizeof(guest_nofp), "%s/tests/guest/tg-nofp.elf", b ? b : ".");
	RUN(test_hypercall_pv_cfi);
	RUN(test_hypercall_hvm_cfi);
	RUN(test_hypercall_bad_positions);
	RUN(test_hypercall_fp_keeps_caller);
	RUN(test_hypercall_libunwind);
	RUN(test_rbp_zero_without_frame_pointers);
	RUN(test_return_outside_text);
	RUN(test_trampoline_rbp_zero);
	RUN(test_upcall_frame);
	RUN(test_hw_interrupt_frame);
	RUN(test_after_call);
	RUN(test_entry_at_zero);
	RUN(test_entry_function);
	RUN(test_kernel_map_of_guest);
	RUN(test_idle_in_profile);
	RUN(test_sampler_activity);
	RUN(test_sampler_at_block);
	RUN(test_sampler_unknown_block_point);
	RUN(test_sampler_block_checks_bounded);
	TEST_MAIN_END();
}
