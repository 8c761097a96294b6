/* UTF-8 from untrusted bytes (symbol names from a kernel image): decoding
 * one character at a time, and copies that are valid UTF-8 whatever the
 * input. Ill-formed sequences become U+FFFD, one per maximal subpart as
 * Unicode (and the WHATWG decoder) recommend. */
#ifndef UP_UTF8_H
#define UP_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UTF8_REPLACEMENT 0xFFFDu

/* The character at s (len >= 1 bytes left): its code point in *cp and its
 * length in bytes (>= 1). Invalid bytes, overlong forms, surrogates and
 * code points beyond U+10FFFF give *cp = UTF8_REPLACEMENT and *valid =
 * false (valid may be NULL). */
size_t utf8_decode(const char *s, size_t len, uint32_t *cp, bool *valid);

/* cp encoded in out (at most 4 bytes); its length. */
size_t utf8_encode(uint32_t cp, char out[4]);

/* Whether we write cp as itself: not U+FFFE, U+FFFF (never text, and not
 * XML characters). */
static inline bool utf8_writable(uint32_t cp)
{
	return cp != 0xFFFE && cp != 0xFFFF;
}

/* Whether cp is shown as an escape (utf8_escape) wherever a name is
 * displayed: the terminal, the flame graph, the heat map, the daemon's
 * log. Controls (C0, DEL, C1), what reorders the text around it (bidi
 * controls, CVE-2021-42574), line and paragraph separators, what is
 * invisible (zero-width and other default-ignorable characters, BOM,
 * fillers, tags) and U+FFFE/U+FFFF: a name cannot hide, move or disguise
 * what is printed beside it. Every other character is shown as itself. */
bool utf8_shown_escaped(uint32_t cp);

/* The longest escape, with its NUL: "\U0010ffff". */
#define UTF8_ESCAPE_MAX 11

/* cp as visible ASCII: \xHH for C0 and DEL, \uHHHH, \UHHHHHHHH past
 * U+FFFF. NUL-terminated; returns its length. */
size_t utf8_escape(uint32_t cp, char out[UTF8_ESCAPE_MAX]);

/* src (len bytes) as valid UTF-8 in dst (cap >= 1 bytes, NUL-terminated),
 * whatever is not written as U+FFFD. Only whole characters are copied.
 * Returns the length the whole text needs (without the NUL): the copy is
 * complete when that is < cap. */
size_t utf8_valid_copy(char *dst, size_t cap, const char *src, size_t len);

/* The same copy, stopping where dst is full: true if all of src fit. Its
 * cost is bounded by cap, not by len (names are fitted per frame). */
bool utf8_valid_prefix(char *dst, size_t cap, const char *src, size_t len);

#endif
