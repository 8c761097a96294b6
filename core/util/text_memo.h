/* Text made once per (address, kind) and read back by later callers: the
 * writers' frame labels, made for each distinct frame by the first writer
 * and copied by the next ones. Bounded in entries and bytes: past a
 * bound nothing more is kept, and the caller makes the text again. */
#ifndef UP_UTIL_TEXT_MEMO_H
#define UP_UTIL_TEXT_MEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct text_memo;

/* What one entry holds: kind, tag and text length at most these. */
#define TEXT_MEMO_MAX_KIND 254u
#define TEXT_MEMO_MAX_TAG 255u
#define TEXT_MEMO_MAX_LEN 65535u

/* NULL when out of memory. Texts of max_bytes in all (at most 2 GiB) and
 * max_entries entries are kept. */
struct text_memo *text_memo_new(size_t max_entries, size_t max_bytes);
void text_memo_free(struct text_memo *m);

/* The text kept for (key, kind), *len its bytes (no NUL is kept) and *tag
 * what the caller kept beside it; NULL when none is kept. Valid until
 * the memo is freed (texts never move). */
const char *text_memo_get(const struct text_memo *m, uint64_t key,
			  unsigned kind, size_t *len, unsigned *tag);

/* Keep a copy of text[0..len) and tag for (key, kind), unless one is kept
 * already (the first stays). false: not kept (a bound, a kind, tag or
 * length past the maxima, or no memory). */
bool text_memo_put(struct text_memo *m, uint64_t key, unsigned kind,
		   const char *text, size_t len, unsigned tag);

#endif
