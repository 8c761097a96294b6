/* Unwinding out of Xen's hypercall page. A vCPU blocked in the hypervisor
 * (SCHEDOP_block: most of an idle unikernel's time) is paused with its pc
 * just after the stub's syscall/vmcall; the stub has no CFI and sets up no
 * frame, so neither the CFI table nor an rbp chain finds its caller. The
 * stub's layout is Xen's own, fixed by the domain type. */
#include "config.h"

#include <string.h>

#include "unwind/kernel_map.h"
#include "x86.h"
#include "mem/memory.h"

#define HYPERCALL_IRET 23     /* jumped to, never returns */
#define HYPERCALL_SCHED_OP 29
#define SCHEDOP_BLOCK 1
#define SCHEDOP_POLL 3

/* Where the return address is, from sp, at each offset of a 64-bit PV
 * stub: push %rcx (1 byte), push %r11 (2), mov $N,%eax (5), syscall (2),
 * pop %r11 (2), pop %rcx (1), ret (1). -1: not an instruction boundary
 * the stub can be paused at. */
static int pv_ra_offset(unsigned off)
{
	if (off == 0 || off == 13)
		return 0;
	if (off == 1 || off == 12)
		return 8;
	if (off == 3 || off == 8 || off == 10)   /* after the pushes */
		return 16;
	return -1;
}

/* HVM/PVH stub: mov $N,%eax (5), vmcall/vmmcall (3), ret (1): nothing is
 * pushed, the return address stays at sp. */
static int hvm_ra_offset(unsigned off)
{
	return off == 0 || off == 5 || off == 8 ? 0 : -1;
}

/* The stub Xen writes for hypercall nr, 32 bytes apart, by the kind of
 * guest that asked (Xen's hypercall_page_initialise and its HVM
 * vendors'): 64-bit PV push %rcx; push %r11; mov $nr,%eax; syscall;
 * pop %r11; pop %rcx; ret. HVM/PVH mov $nr,%eax; vmcall (Intel) or
 * vmmcall (AMD); ret. 32-bit PV mov $nr,%eax; int $0x82; ret. */
static bool stub_at(const uint8_t *p, unsigned nr)
{
	static const uint8_t pv64_head[] = { 0x51, 0x41, 0x53, 0xb8 };
	static const uint8_t pv64_tail[] = { 0x0f, 0x05, 0x41, 0x5b, 0x59, 0xc3 };
	const uint8_t n[4] = { (uint8_t)nr, (uint8_t)(nr >> 8),
			       (uint8_t)(nr >> 16), (uint8_t)(nr >> 24) };

	if (memcmp(p, pv64_head, 4) == 0)
		return memcmp(p + 4, n, 4) == 0 &&
		       memcmp(p + 8, pv64_tail, sizeof(pv64_tail)) == 0;
	if (p[0] != 0xb8 || memcmp(p + 1, n, 4) != 0)
		return false;
	if (p[5] == 0x0f && p[6] == 0x01 && (p[7] == 0xc1 || p[7] == 0xd9))
		return p[8] == 0xc3;
	return p[5] == 0xcd && p[6] == 0x82 && p[7] == 0xc3;
}

/* Three stubs of three numbers: no code but Xen's has that shape. */
bool x86_hypercall_page_at(struct up_mem *m, const struct up_regs *regs,
			   uint64_t va)
{
	static const unsigned probe[] = { 0, 1, HYPERCALL_SCHED_OP };
	uint8_t stub[16];

	if (va % UP_PAGE_SIZE)
		return false;
	for (size_t i = 0; i < sizeof(probe) / sizeof(probe[0]); i++)
		if (up_mem_read(m, regs, va + probe[i] * HYPERCALL_STUB_SIZE,
				stub, sizeof(stub)) < 0 ||
		    !stub_at(stub, probe[i]))
			return false;
	return true;
}

bool x86_in_hypercall(struct up_mem *m, const struct up_regs *regs,
		      const struct up_kernel_map *k, uint64_t ip)
{
	(void)m;
	(void)regs;
	return kernel_in_hypercall_page(k, ip);
}

/* Just after sched_op's trap, with block or poll asked: Xen returns there
 * when the vCPU runs again. 64-bit PV: push, push, mov, syscall (10
 * bytes); 32-bit PV: mov, int $0x82 (7); HVM/PVH: mov, vmcall (8). An
 * HVM/PVH vCPU also blocks in `hlt` (Xen steps its rip past it first). */
bool x86_at_block(struct up_mem *m, const struct up_regs *regs,
		  const struct up_kernel_map *k, enum up_domain_type type)
{
	uint64_t after_trap = type != UP_DOMAIN_PV ? 8 :
			      regs->guest_width == 4 ? 7 : 10;
	uint8_t op;

	if (kernel_in_hypercall_page(k, regs->ip))
		return regs->ip == k->hypercall_page +
				   HYPERCALL_SCHED_OP * HYPERCALL_STUB_SIZE +
				   after_trap &&
		       (regs->arg0 == SCHEDOP_BLOCK ||
			regs->arg0 == SCHEDOP_POLL);
	/* hlt runs in the kernel only: an 0xf4 byte elsewhere, or inside
	 * another instruction of a function outside the kernel's text, is
	 * not one. */
	return type != UP_DOMAIN_PV && regs->ip &&
	       up_kernel_map_in_text(k, regs->ip - 1) &&
	       up_mem_read(m, regs, regs->ip - 1, &op, 1) == 0 && op == 0xf4;
}

int x86_hypercall_step(struct up_mem *m, const struct up_regs *regs,
		       const struct up_kernel_map *k, enum up_domain_type type,
		       uint64_t *ip, uint64_t *sp, enum up_trunc *trunc)
{
	uint64_t rel = *ip - k->hypercall_page, ra;
	unsigned nr = (unsigned)(rel / HYPERCALL_STUB_SIZE);
	unsigned off = (unsigned)(rel % HYPERCALL_STUB_SIZE);
	int at = nr == HYPERCALL_IRET ? -1 :
		 type == UP_DOMAIN_PV ? pv_ra_offset(off) : hvm_ra_offset(off);

	if (at < 0) {
		*trunc = UP_TRUNC_HYPERCALL_STUB;
		return -1;
	}
	if (up_mem_read_u64(m, regs, *sp + (uint64_t)at, &ra) < 0) {
		*trunc = UP_TRUNC_UNREADABLE;
		return -1;
	}
	*sp += (uint64_t)at + 8;
	*ip = ra;
	return 0;
}
