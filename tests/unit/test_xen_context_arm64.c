/* Xen's AArch64 vCPU context into registers, on records laid out by Xen's
 * own xen/foreign/arm64.h: the exception level picks the stack pointer,
 * SCTLR_EL1.M the paging, TTBR0/TTBR1/TCR and x29/x30 carried through;
 * AArch32 refused by name; every register named for crash reports. */
#include "target/xen_context_arm64.h"
#include "test.h"
#include "uniprof/error.h"
#include "private.h"

TEST_GLOBALS;

static struct vcpu_guest_context_arm64 context(uint64_t cpsr, uint64_t sctlr)
{
	struct vcpu_guest_context_arm64 c;

	memset(&c, 0, sizeof(c));
	c.flags = 1;                                  /* online */
	c.user_regs.pc64 = 0xffff000000081234ULL;
	c.user_regs.x29 = 0xffff000000207f00ULL;
	c.user_regs.x30 = 0xffff000000080abcULL;
	c.user_regs.sp_el1 = 0xffff000000207ee0ULL;
	c.user_regs.sp_el0 = 0x0000ffffee001000ULL;
	c.user_regs.cpsr = cpsr;
	c.sctlr = sctlr;
	c.ttbr0 = 0x40001000;
	c.ttbr1 = 0x0001000040002000ULL;              /* ASID 1 */
	c.ttbcr = 0x00000000b5103510ULL;
	return c;
}

static void test_el1h(void)
{
	struct vcpu_guest_context_arm64 c = context(0x3c5, 0x30d0199d);
	struct up_regs r;

	CHECK(xen_context_arm64_regs(&c, &r) == 0);
	CHECK(r.arch == UP_ARCH_AARCH64 && r.paging == UP_PAGING_AARCH64);
	CHECK(r.frame_kind == UP_FRAME_GFN && r.guest_width == 8);
	CHECK(r.online && r.kernel_mode);
	CHECK_U64(r.ip, 0xffff000000081234ULL);
	CHECK_U64(r.sp, 0xffff000000207ee0ULL);      /* SP_EL1 */
	CHECK_U64(r.fp, 0xffff000000207f00ULL);
	CHECK_U64(r.lr, 0xffff000000080abcULL);
	CHECK_U64(r.cr3, 0x40001000);
	CHECK_U64(r.ttbr1, 0x0001000040002000ULL);
	CHECK_U64(r.tcr, 0xb5103510ULL);
}

static void test_el1t_el0_mmu_off(void)
{
	struct vcpu_guest_context_arm64 c = context(0x3c4, 0x30d0199d);
	struct up_regs r;

	CHECK(xen_context_arm64_regs(&c, &r) == 0);       /* EL1t */
	CHECK(r.kernel_mode);
	CHECK_U64(r.sp, 0x0000ffffee001000ULL);      /* SP_EL0 */
	c = context(0x0, 0x30d0199d);                 /* EL0t: user code */
	CHECK(xen_context_arm64_regs(&c, &r) == 0);
	CHECK(!r.kernel_mode);
	CHECK_U64(r.sp, 0x0000ffffee001000ULL);
	c = context(0x3c5, 0x30d00800);               /* MMU off: early boot */
	c.flags = 0;
	CHECK(xen_context_arm64_regs(&c, &r) == 0);
	CHECK(r.paging == UP_PAGING_NONE && !r.online);
}

static void test_aarch32_refused(void)
{
	struct vcpu_guest_context_arm64 c = context(0x1d3, 0x30d0199d);  /* SVC32 */
	struct up_regs r;

	CHECK(xen_context_arm64_regs(&c, &r) == UP_EUNSUPP);
	CHECK(strstr(up_error_last(), "AArch32") != NULL);
}

static void test_named(void)
{
	struct vcpu_guest_context_arm64 c = context(0x3c5, 0x30d0199d);
	struct up_named_regs n;
	bool pc = false, x30 = false, ttbr1 = false;

	xen_context_arm64_named_regs(&c, &n);
	CHECK(n.count == 41);
	for (unsigned i = 0; i < n.count; i++) {
		pc |= strcmp(n.reg[i].name, "pc") == 0 && n.reg[i].value == c.user_regs.pc64;
		x30 |= strcmp(n.reg[i].name, "x30") == 0 && n.reg[i].value == c.user_regs.x30;
		ttbr1 |= strcmp(n.reg[i].name, "ttbr1") == 0 && n.reg[i].value == c.ttbr1;
	}
	CHECK(pc && x30 && ttbr1);
}

int main(void)
{
	RUN(test_el1h);
	RUN(test_el1t_el0_mmu_off);
	RUN(test_aarch32_refused);
	RUN(test_named);
	TEST_MAIN_END();
}
