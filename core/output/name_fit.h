/* An untrusted symbol name fitted into the writers' bounded name buffer. */
#ifndef UP_NAME_FIT_H
#define UP_NAME_FIT_H

#include <stddef.h>

/* "...#" and 16 hex digits */
#define NAME_FIT_SUFFIX_LEN 20

/* name as valid UTF-8 (see utf8.h) in dst, cap bytes with the NUL, cap >
 * NAME_FIT_SUFFIX_LEN. A name that does not fit is cut on a character
 * boundary and ends in "...#" and a hash of the whole name. */
void name_fit(char *dst, size_t cap, const char *name);

#endif
