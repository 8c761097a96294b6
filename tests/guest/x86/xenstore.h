#ifndef TG_XENSTORE_H
#define TG_XENSTORE_H

#include <stddef.h>

#include "hyp.h"

/* Find the xenstore ring and its event channel (start info on PV, HVM
 * parameters on PVH) and unmask the channel; events must be up
 * (tg_events_init). 0 or an error. */
long tg_xs_init(enum tg_mode mode, unsigned long boot_info);

/* One XS_READ of path (relative: under the domain's own directory),
 * blocking until xenstored in dom0 answers. The value's length, or -1. */
long tg_xs_read(const char *path, char *out, size_t outlen);

#endif
