/* PVH: the guest's own IDT, and one interrupt stack (IST1) through a TSS,
 * shared by the event callback vector (events.c) and the trap below. */
#ifndef TG_IDT_H
#define TG_IDT_H

/* Point vector at handler, an interrupt gate (IF cleared on entry) on the
 * interrupted stack (ist 0) or on IST1 (ist 1); loads the IDT (and, for
 * IST1, the TSS) the first time. vCPU 0 only. */
void tg_idt_set(unsigned vector, void (*handler)(void), unsigned ist);

/* trap=1 (PVH): tg_hot_15's part of each round runs in the #BP handler
 * on IST1 (tg_hvm_trap, entry.S), entered by int3 from tg_trap_hot_15, so
 * that an exception's frame on an interrupt stack of its own lies under
 * 15 % of the samples (the profiler finds it through the TSS). */
void tg_trap_init(void);

#endif
