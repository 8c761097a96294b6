/* Setting the per-thread error message (see include/uniprof/error.h). */
#ifndef UP_ERROR_IMPL_H
#define UP_ERROR_IMPL_H

#include <stdarg.h>
#include <stddef.h>

#include "uniprof/error.h"

/* Format the message and return code, so callers can `return up_fail(...)`. */
int up_fail(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Add a warning to a one-line list of them in buf (cap bytes), "; "
 * between; what does not fit is cut. */
void warning_append(char *buf, size_t cap, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

#endif
