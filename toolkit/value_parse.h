/* Strict parsing of the values settings take, wherever they are written:
 * xl profile's options (xl-plugin/options.c) and uniprofd's settings take
 * the same names and numbers. Nothing here knows a command line. */
#ifndef TK_VALUE_PARSE_H
#define TK_VALUE_PARSE_H

#include "uniprof/sampler.h"

/* auto, cfi, libunwind, fp: 0, or -1 for another name. */
int tk_parse_unwinder(const char *s, enum up_unwinder *out);
/* Strict number parsing: 0, or -1 when s is not one (for doubles: the
 * whole string, finite). */
int tk_parse_uint(const char *s, unsigned long max, unsigned *out);
int tk_parse_double(const char *s, double *out);
/* A stall budget: a share above 0 and at most 100 (100: no budget): 0,
 * or -1. */
int tk_parse_max_stall(const char *s, double *out);

#endif
