#ifndef TG_P2M_H
#define TG_P2M_H

#include <xen/xen.h>

/* PV only: make the pfn-to-mfn table findable (xl dump-core needs it). */
void tg_p2m_publish(const start_info_t *si, volatile struct shared_info *shared);

#endif
