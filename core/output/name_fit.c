/* Long names: cut, but never merged. Distinct names can share a long
 * prefix (C++ template instances, or an image that wants its functions
 * confused), so a cut name ends in "...#" and 16 hex digits of a 64-bit
 * FNV-1a hash of all its bytes. The suffix is stable (the same name gives
 * the same text on every run and host, so profiles compare), two names
 * merge only if their hashes collide (about 2^32 long names by chance; a
 * deliberate collision only merges names of the image that made it). */
#include "config.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "output/name_fit.h"
#include "output/utf8.h"

static uint64_t fnv1a64(const char *s, size_t len)
{
	uint64_t h = 14695981039346656037ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

void name_fit(char *dst, size_t cap, const char *name)
{
	size_t len = strlen(name);
	size_t kept;

	if (utf8_valid_copy(dst, cap, name, len) < cap)
		return;
	/* Cut again with room for the suffix: whole characters only. */
	utf8_valid_copy(dst, cap - NAME_FIT_SUFFIX_LEN, name, len);
	kept = strlen(dst);
	snprintf(dst + kept, cap - kept, "...#%016" PRIx64, fnv1a64(name, len));
}
