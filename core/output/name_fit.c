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
#include "util/utf8.h"

static uint64_t fnv1a64(const char *s, size_t len)
{
	uint64_t h = 14695981039346656037ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

/* The hash of the last long names: a report fits the same few names at
 * every frame of every stack, and a name can be as long as the symbol
 * table keeps (4 KiB), so hashing it each time costs more than all else.
 * Entries are checked by content, never by address alone. */
#define HASH_MEMO_ENTRIES 4
#define HASH_MEMO_MAX 4096

static _Thread_local struct {
	size_t len;
	uint64_t hash;
	char name[HASH_MEMO_MAX];
} memo[HASH_MEMO_ENTRIES];
static _Thread_local unsigned memo_next;

static uint64_t name_hash(const char *name, size_t len)
{
	uint64_t h;

	if (len > HASH_MEMO_MAX)
		return fnv1a64(name, len);
	for (unsigned i = 0; i < HASH_MEMO_ENTRIES; i++)
		if (memo[i].len == len && memcmp(memo[i].name, name, len) == 0)
			return memo[i].hash;
	h = fnv1a64(name, len);
	memo[memo_next].len = len;
	memo[memo_next].hash = h;
	memcpy(memo[memo_next].name, name, len);
	memo_next = (memo_next + 1) % HASH_MEMO_ENTRIES;
	return h;
}

void name_fit(char *dst, size_t cap, const char *name)
{
	size_t len = strlen(name);
	size_t kept;

	if (utf8_valid_prefix(dst, cap, name, len))
		return;
	/* Cut again with room for the suffix: dst is valid UTF-8, so back
	 * off to the start of a character rather than copy the name twice. */
	kept = cap - NAME_FIT_SUFFIX_LEN - 1;
	if (kept > strlen(dst))
		kept = strlen(dst);
	while (kept > 0 && ((unsigned char)dst[kept] & 0xC0) == 0x80)
		kept--;
	snprintf(dst + kept, cap - kept, "...#%016" PRIx64, name_hash(name, len));
}
