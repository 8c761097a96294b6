#ifndef TG_WORKLOAD_H
#define TG_WORKLOAD_H

#include <stdint.h>

extern unsigned long tg_unit_iters;
extern unsigned long tg_part_units[3];   /* chain, hot35, hot15: 50/35/15 */

/* One round of the workload (100 spin units), and the cycles its parts
 * took so far: the chain to tg_chain_10, tg_hot_35, tg_hot_15; vCPU 1's
 * round, tg_ap_mid (to tg_ap_leaf_80) and tg_ap_leaf_20. */
void tg_round(void);
void tg_hot_15(void);
extern void (*tg_hot_15_call)(void);  /* tg_hot_15 unless trap=1 (idt.h) */
enum { TG_SPIN_CHAIN, TG_SPIN_HOT35, TG_SPIN_HOT15, TG_SPIN_AP80,
       TG_SPIN_AP20, TG_SPIN_PARTS };
extern unsigned long long tg_spin_ticks[TG_SPIN_PARTS];

/* One request of the blocking workload (100 spin units, 60/40), and the
 * cycles its two leaves took so far (parse, crc). */
void tg_req_handle(void);
extern unsigned long long tg_req_ticks[2];

/* The spinning workload (report lines "tg: work ..."), for run_ns (0:
 * forever), crashing on purpose after crash_ns if not 0. */
void tg_workload(uint64_t run_ns, uint64_t report_ns, uint64_t crash_ns);

/* Set the knobs above from a command line (unit=, chain=, hot35=, hot15=). */
void tg_workload_knobs(const char *cmdline);

/* Crash the domain from a known chain. */
_Noreturn void tg_crash_01(void);

#endif
