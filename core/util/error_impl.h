/* Setting the per-thread error message (see include/uniprof/error.h). */
#ifndef UP_ERROR_IMPL_H
#define UP_ERROR_IMPL_H

#include "uniprof/error.h"

/* Format the message and return code, so callers can `return up_fail(...)`. */
int up_fail(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
