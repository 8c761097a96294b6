#ifndef TG_SMP_H
#define TG_SMP_H

#include "hyp.h"

/* Start vCPU 1 on the tg_ap_* workload; 0, or Xen's error (the domain
 * has one vCPU: -ENOENT). Only on Xen. */
int tg_start_vcpu1(enum tg_mode mode, unsigned long boot_info);

#endif
