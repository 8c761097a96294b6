/* The daemon's log (see log.h). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "uniprof/text.h"

/* The longest line written, escapes included; longer ends in "...". */
#define LINE_MAX_BYTES 2048

void upd_log(const char *fmt, ...)
{
	struct timespec ts;
	struct tm tm;
	char when[32], raw[LINE_MAX_BYTES], line[LINE_MAX_BYTES];
	va_list ap;
	int n;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	va_start(ap, fmt);
	n = vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	if (n < 0)
		snprintf(raw, sizeof(raw), "(a log line that could not be formatted)");
	/* Whatever a line quotes (a client's URL, a server's answer, a
	 * domain's name), one line with no control character: nothing forges
	 * a line or reaches the admin's terminal as an escape sequence. */
	up_text_escape(line, sizeof(line), raw, strlen(raw));
	flockfile(stderr);
	fprintf(stderr, "%s uniprofd: %s\n", when, line);
	funlockfile(stderr);
}
