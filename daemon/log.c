/* The daemon's log (see log.h). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "log.h"

void upd_log(const char *fmt, ...)
{
	struct timespec ts;
	struct tm tm;
	char when[32];
	va_list ap;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	flockfile(stderr);
	fprintf(stderr, "%s uniprofd: ", when);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	funlockfile(stderr);
}
