/* Text from untrusted sources (symbol names from a kernel image, paths and
 * names from a guest's configuration) made safe to write out. */
#ifndef UNIPROF_TEXT_H
#define UNIPROF_TEXT_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* s as valid UTF-8, in a new string (free it): ill-formed bytes
 * (invalid, overlong, surrogates) and U+FFFE/U+FFFF become U+FFFD. NULL
 * when out of memory. */
char *up_text_valid_utf8(const char *s);

/* Write s for a terminal: printable UTF-8 as itself; control characters
 * (C0, DEL) and bytes that are not UTF-8 as \xHH; C1 controls, bidi
 * controls, line separators, invisible characters (zero-width, BOM,
 * other default-ignorables) and U+FFFE/U+FFFF as \uHHHH (\UHHHHHHHH past
 * U+FFFF). No escape sequence reaches the terminal, no text can be made
 * to display reversed, broken or with characters hidden. */
void up_text_print_escaped(FILE *out, const char *s);

/* The same text in dst (cap bytes with the NUL), from len bytes of s: a
 * whole character or escape at a time, "..." in place of what does not
 * fit. Returns the length written. For a log line from what a client
 * sent. */
size_t up_text_escape(char *dst, size_t cap, const char *s, size_t len);

#ifdef __cplusplus
}
#endif
#endif
