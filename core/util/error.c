#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/error_impl.h"
#include "private.h"

static _Thread_local char last_error[512];

const char *up_error_last(void)
{
	return last_error;
}

void up_error_clear(void)
{
	last_error[0] = '\0';
}

int up_fail(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return code;
}

int up_error_set(int code, const char *message)
{
	return up_fail(code, "%s", message ? message : "");
}

void warning_append(char *buf, size_t cap, const char *fmt, va_list ap)
{
	size_t n = strnlen(buf, cap);

	if (n >= cap)
		return;
	if (n && n + 2 < cap) {
		memcpy(buf + n, "; ", 3);
		n += 2;
	}
	vsnprintf(buf + n, cap - n, fmt, ap);
}
