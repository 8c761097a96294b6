#ifndef TG_WORKLOAD_H
#define TG_WORKLOAD_H

extern unsigned long tg_unit_iters;

/* One round of the workload (100 spin units). */
void tg_round(void);

/* One request of the blocking workload (100 spin units, 60/40). */
void tg_req_handle(void);

/* Crash the domain from a known chain. */
_Noreturn void tg_crash_01(void);

#endif
