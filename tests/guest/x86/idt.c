/* PVH: the guest's IDT and its interrupt stack. Synchronous exceptions go
 * on IST1 (the trap= knob); the asynchronous callback vector stays on the
 * interrupted stack: under the suite's emulated Xen it was delivered a
 * second time at its handler's first instruction, which an IST stack
 * cannot survive (the second frame overwrites the first; docs/TESTING.md,
 * "The PVH test guest"). */
#include <stdint.h>

#include "idt.h"
#include "workload.h"

/* A 64-bit interrupt gate. */
struct idt_gate {
	uint16_t off0, sel;
	uint8_t ist, type;
	uint16_t off1;
	uint32_t off2, zero;
} __attribute__((packed));

/* The 64-bit TSS: only its interrupt stack pointers are used. */
struct tss64 {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3, iomap;
} __attribute__((packed));

#define TSS_SELECTOR 0x18

extern uint64_t pvh_gdt[];      /* entry.S: slot 0x18 left for the TSS */
extern void tg_hvm_trap(void);  /* entry.S */

static struct idt_gate idt[256] __attribute__((aligned(16)));
static struct tss64 tss __attribute__((aligned(16)));
static char ist1_stack[16384] __attribute__((aligned(16)));
static int idt_loaded, tss_loaded;

static void load_tss(void)
{
	uint64_t base = (uint64_t)&tss, limit = sizeof(tss) - 1;

	tss.ist[0] = (uint64_t)(ist1_stack + sizeof(ist1_stack));
	tss.iomap = sizeof(tss);
	/* An available 64-bit TSS (type 9), present. */
	pvh_gdt[TSS_SELECTOR / 8] = (limit & 0xffff) | (base & 0xffffff) << 16 |
				    0x89ULL << 40 | ((limit >> 16) & 0xf) << 48 |
				    ((base >> 24) & 0xff) << 56;
	pvh_gdt[TSS_SELECTOR / 8 + 1] = base >> 32;
	__asm__ volatile("ltr %w0" : : "r"(TSS_SELECTOR));
	tss_loaded = 1;
}

void tg_idt_set(unsigned vector, void (*handler)(void), unsigned ist)
{
	uint64_t h = (uint64_t)handler;
	struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) d = { sizeof(idt) - 1, (uint64_t)idt };

	if (ist && !tss_loaded)
		load_tss();
	idt[vector & 0xff] = (struct idt_gate){
		.off0 = (uint16_t)h, .sel = 0x08, .ist = ist ? 1 : 0, .type = 0x8e,
		.off1 = (uint16_t)(h >> 16), .off2 = (uint32_t)(h >> 32),
	};
	if (!idt_loaded) {
		__asm__ volatile("lidt %0" : : "m"(d));
		idt_loaded = 1;
	}
}

#define TG_FN __attribute__((noinline, noipa, used))

/* The round's third part by the breakpoint exception: its handler calls
 * tg_hot_15 on IST1 and returns after the int3. */
TG_FN static void tg_trap_hot_15(void)
{
	__asm__ volatile("int3" ::: "memory");
}

void tg_trap_init(void)
{
	tg_idt_set(3, tg_hvm_trap, 1);
	tg_hot_15_call = tg_trap_hot_15;
}
