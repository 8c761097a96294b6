#ifndef TG_WORKLOAD_H
#define TG_WORKLOAD_H

extern unsigned long tg_unit_iters;

/* One round of the workload (100 spin units). */
void tg_round(void);

#endif
