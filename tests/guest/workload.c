/* The known workload: per round, a 10-deep call chain whose leaf spins 50
 * units, then two hot functions spinning 35 and 15 units. Every spin loop
 * is the same three instructions, so the split by work is 50/35/15; the
 * guest also times each part (cycle counter: TSC, or the Arm virtual counter), as under emulation the time a loop
 * takes varies from run to run and a profile is checked against time. Each function is a distinct,
 * non-inlined symbol (but one call of the chain, inlined on purpose); the
 * barrier after each call keeps it from becoming a tail call, so the chain
 * stays whole on the stack. */
#include <stdint.h>

#include "lib.h"
#include "tg_arch.h"
#include "workload.h"

#define TG_FN __attribute__((noinline, noipa, used))
#define AFTER_CALL() __asm__ volatile("" ::: "memory")

/* gcc 12 sets up no frame in a leaf that uses no stack, even with
 * -mno-omit-leaf-frame-pointer; asking for the frame address forces one.
 * Only in the frame-pointer build: the other one must have none. */
#ifdef TG_FRAME_POINTERS
#define FRAME_ANCHOR() __asm__ volatile("" : : "r"(__builtin_frame_address(0)))
#else
#define FRAME_ANCHOR() do { } while (0)
#endif

#define SPIN(units)                                                       \
	FRAME_ANCHOR();                                                   \
	for (unsigned long i_ = 0; i_ < (units) * tg_unit_iters; i_++)    \
		__asm__ volatile("")

unsigned long tg_unit_iters = 2000;
/* Units of the three parts of a round (cmdline chain=, hot35=, hot15=):
 * a run with another split gives profiles to compare (xl profile diff). */
unsigned long tg_part_units[3] = { 50, 35, 15 };
/* Another split from switch_s= seconds on (then_chain=, then_hot35=,
 * then_hot15=; default the chain and tg_hot_15 trade places): a run whose
 * profile changes at a known time, for the time views. */
static unsigned long switch_s, then_units[3] = { 15, 35, 50 };
unsigned long long tg_spin_ticks[TG_SPIN_PARTS];

TG_FN void tg_chain_10(void) { SPIN(tg_part_units[0]); }
TG_FN void tg_chain_09(void) { tg_chain_10(); AFTER_CALL(); }
TG_FN void tg_chain_08(void) { tg_chain_09(); AFTER_CALL(); }
TG_FN void tg_chain_07(void) { tg_chain_08(); AFTER_CALL(); }
TG_FN void tg_chain_06(void) { tg_chain_07(); AFTER_CALL(); }
/* A call the compiler inlines, as unikernels' helpers are: a frame of its
 * own in the profile only through the image's DWARF ("tg_chain_step
 * (inlined)" between tg_chain_05 and tg_chain_06); mid-chain, so the
 * split by leaf is the same with it or without. */
static inline __attribute__((always_inline)) void tg_chain_step(void)
{
	tg_chain_06();
	AFTER_CALL();
}

TG_FN void tg_chain_05(void) { tg_chain_step(); AFTER_CALL(); }
TG_FN void tg_chain_04(void) { tg_chain_05(); AFTER_CALL(); }
TG_FN void tg_chain_03(void) { tg_chain_04(); AFTER_CALL(); }
TG_FN void tg_chain_02(void) { tg_chain_03(); AFTER_CALL(); }
TG_FN void tg_chain_01(void) { tg_chain_02(); AFTER_CALL(); }

TG_FN void tg_hot_35(void) { SPIN(tg_part_units[1]); }
TG_FN void tg_hot_15(void) { SPIN(tg_part_units[2]); }

/* How a round enters its third part: a plain call, or (x86 PVH, trap=1)
 * through an exception on an interrupt stack of its own (idt.c). */
void (*tg_hot_15_call)(void) = tg_hot_15;

TG_FN void tg_round(void)
{
	unsigned long long t0 = tg_cycles(), t1, t2, t3;

	tg_chain_01();
	t1 = tg_cycles();
	tg_hot_35();
	t2 = tg_cycles();
	tg_hot_15_call();
	t3 = tg_cycles();
	tg_spin_ticks[TG_SPIN_CHAIN] += t1 - t0;
	tg_spin_ticks[TG_SPIN_HOT35] += t2 - t1;
	tg_spin_ticks[TG_SPIN_HOT15] += t3 - t2;
	AFTER_CALL();
}

/* vCPU 1's workload: its own chain, 80/20 between two leaves. */
TG_FN void tg_ap_leaf_80(void) { SPIN(80); }
TG_FN void tg_ap_leaf_20(void) { SPIN(20); }
TG_FN void tg_ap_mid(void) { tg_ap_leaf_80(); AFTER_CALL(); }

TG_FN void tg_ap_round(void)
{
	unsigned long long t0 = tg_cycles(), t1, t2;

	tg_ap_mid();
	t1 = tg_cycles();
	tg_ap_leaf_20();
	t2 = tg_cycles();
	tg_spin_ticks[TG_SPIN_AP80] += t1 - t0;
	tg_spin_ticks[TG_SPIN_AP20] += t2 - t1;
	AFTER_CALL();
}

void tg_ap_main(void);

TG_FN _Noreturn void tg_ap_main(void)
{
	for (;;)
		tg_ap_round();
}

/* The blocking workload's requests (io.c): 60/40 between two leaves by
 * work. The guest also times them (cycle counter: TSC, or the Arm virtual counter), so a profile can be checked
 * against the time each really took on this (emulated) machine. */
TG_FN void tg_req_parse(void) { SPIN(60); }
TG_FN void tg_req_crc(void) { SPIN(40); }

unsigned long long tg_req_ticks[2];

TG_FN void tg_req_handle(void)
{
	unsigned long long t0 = tg_cycles(), t1, t2;

	tg_req_parse();
	t1 = tg_cycles();
	tg_req_crc();
	t2 = tg_cycles();
	tg_req_ticks[0] += t1 - t0;
	tg_req_ticks[1] += t2 - t1;
	AFTER_CALL();
}

/* A crash on purpose (crash=SECONDS): a short chain that panics the way
 * unikernels do, SCHEDOP_shutdown(SHUTDOWN_crash) through the hypercall
 * page; with on_crash = "preserve" the stack stays for xl profile --once. */
TG_FN _Noreturn void tg_panic(void)
{
	hyp_crash();
}

TG_FN _Noreturn void tg_crash_02(void) { tg_panic(); }
TG_FN _Noreturn void tg_crash_01(void) { tg_crash_02(); }

/* The spinning workload: rounds until run_ns, a report every report_ns
 * (the guest's own clock: rounds, and each part's cycles / 1000), a crash
 * on purpose after crash_ns. */
TG_FN void tg_workload(uint64_t run_ns, uint64_t report_ns, uint64_t crash_ns)
{
	uint64_t start = now_ns(), next_report = start + report_ns;
	unsigned long rounds = 0, last_rounds = 0;

	for (;;) {
		uint64_t now;

		tg_round();
		rounds++;
		/* Reading the clock can trap to Xen: not every round. */
		if (rounds % 64)
			continue;
		now = now_ns();
		if (report_ns && now >= next_report) {
			console_printf("tg: work t_ms=%lu rounds=%lu delta=%lu chain_t=%lu hot35_t=%lu hot15_t=%lu ap80_t=%lu ap20_t=%lu\n",
				       (unsigned long)((now - start) / 1000000),
				       rounds, rounds - last_rounds,
				       (unsigned long)(tg_spin_ticks[TG_SPIN_CHAIN] / 1000),
				       (unsigned long)(tg_spin_ticks[TG_SPIN_HOT35] / 1000),
				       (unsigned long)(tg_spin_ticks[TG_SPIN_HOT15] / 1000),
				       (unsigned long)(tg_spin_ticks[TG_SPIN_AP80] / 1000),
				       (unsigned long)(tg_spin_ticks[TG_SPIN_AP20] / 1000));
			last_rounds = rounds;
			next_report += report_ns;
		}
		if (switch_s && now - start >= switch_s * 1000000000ULL) {
			for (int i = 0; i < 3; i++)
				tg_part_units[i] = then_units[i];
			switch_s = 0;
			console_printf("tg: switch t_ms=%lu chain_t=%lu hot35_t=%lu hot15_t=%lu\n",
				       (unsigned long)((now - start) / 1000000),
				       (unsigned long)(tg_spin_ticks[TG_SPIN_CHAIN] / 1000),
				       (unsigned long)(tg_spin_ticks[TG_SPIN_HOT35] / 1000),
				       (unsigned long)(tg_spin_ticks[TG_SPIN_HOT15] / 1000));
		}
		if (run_ns && now - start >= run_ns)
			break;
		if (crash_ns && now - start >= crash_ns) {
			console_printf("tg: crashing on purpose\n");
			tg_crash_01();
		}
	}
	console_printf("tg: done rounds=%lu\n", rounds);
}

/* The workload's knobs from the command line: unit=, chain=, hot35=,
 * hot15=, switch_s=, then_chain=, then_hot35=, then_hot15=. */
void tg_workload_knobs(const char *cmdline)
{
	tg_unit_iters = tg_cmdline_u64(cmdline, "unit", 2000);
	tg_part_units[0] = tg_cmdline_u64(cmdline, "chain", 50);
	tg_part_units[1] = tg_cmdline_u64(cmdline, "hot35", 35);
	tg_part_units[2] = tg_cmdline_u64(cmdline, "hot15", 15);
	switch_s = tg_cmdline_u64(cmdline, "switch_s", 0);
	then_units[0] = tg_cmdline_u64(cmdline, "then_chain", 15);
	then_units[1] = tg_cmdline_u64(cmdline, "then_hot35", 35);
	then_units[2] = tg_cmdline_u64(cmdline, "then_hot15", 50);
}
