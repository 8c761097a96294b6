/* Strict value parsing (see value_parse.h). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "value_parse.h"
#include "uniprof/uniprof.h"

int tk_parse_unwinder(const char *s, enum up_unwinder *out)
{
	static const struct { const char *name; enum up_unwinder u; } names[] = {
		{ "auto", UP_UNWINDER_AUTO }, { "cfi", UP_UNWINDER_CFI },
		{ "libunwind", UP_UNWINDER_LIBUNWIND }, { "fp", UP_UNWINDER_FP },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(s, names[i].name) == 0) {
			*out = names[i].u;
			return 0;
		}
	return -1;
}

int tk_parse_double(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return errno || end == s || *end || !isfinite(*out) ? -1 : 0;
}

int tk_parse_max_stall(const char *s, double *out)
{
	double v;

	if (tk_parse_double(s, &v) < 0 || !(v > 0) || v > UP_SAMPLER_NO_STALL_BUDGET)
		return -1;
	*out = v;
	return 0;
}

int tk_parse_uint(const char *s, unsigned long max, unsigned *out)
{
	char *end;
	unsigned long v;

	if (*s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > max)
		return -1;
	*out = (unsigned)v;
	return 0;
}
