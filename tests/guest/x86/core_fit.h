#ifndef TG_CORE_FIT_H
#define TG_CORE_FIT_H

/* PVH: make xl's core of this domain one pass over its RAM (core_fit.c). */
void tg_core_fit(unsigned long boot_info);

#endif
