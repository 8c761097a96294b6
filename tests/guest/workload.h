#ifndef TG_WORKLOAD_H
#define TG_WORKLOAD_H

extern unsigned long tg_unit_iters;

/* One round of the workload (100 spin units). */
void tg_round(void);

/* One request of the blocking workload (100 spin units, 60/40), and the
 * TSC ticks its two leaves took so far (parse, crc). */
void tg_req_handle(void);
extern unsigned long long tg_req_ticks[2];

/* Crash the domain from a known chain. */
_Noreturn void tg_crash_01(void);

#endif
