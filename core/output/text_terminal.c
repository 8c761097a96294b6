/* Names on a terminal: whatever a kernel image calls its functions, it
 * cannot move the cursor, recolour, retitle or reverse what we print. */
#include "config.h"

#include <string.h>

#include "uniprof/text.h"
#include "util/utf8.h"

/* The text shown for the character at s[*i]: a pointer into s, or the
 * escape in esc; advances *i. Bytes that are not UTF-8 are \xHH each. */
static const char *shown(const char *s, size_t len, size_t *i,
			 char esc[UTF8_ESCAPE_MAX], size_t *n)
{
	uint32_t cp;
	bool valid;
	size_t k = utf8_decode(s + *i, len - *i, &cp, &valid);
	const char *at = s + *i;

	*i += k;
	if (!valid) {
		/* one byte at a time: a cut sequence is its bytes */
		*i -= k - 1;
		*n = (size_t)snprintf(esc, UTF8_ESCAPE_MAX, "\\x%02x", (unsigned char)*at);
		return esc;
	}
	if (utf8_shown_escaped(cp)) {
		*n = utf8_escape(cp, esc);
		return esc;
	}
	*n = k;
	return at;
}

void up_text_print_escaped(FILE *out, const char *s)
{
	size_t len = strlen(s);
	char esc[UTF8_ESCAPE_MAX];

	for (size_t i = 0; i < len;) {
		size_t n;
		const char *t = shown(s, len, &i, esc, &n);

		fwrite(t, 1, n, out);
	}
}

size_t up_text_escape(char *dst, size_t cap, const char *s, size_t len)
{
	char esc[UTF8_ESCAPE_MAX];
	size_t out = 0, whole = 0;

	if (cap == 0)
		return 0;
	for (size_t i = 0; i < len;) {
		size_t n;

		shown(s, len, &i, esc, &n);
		whole += n;
	}
	for (size_t i = 0; i < len;) {
		size_t n;
		const char *t = shown(s, len, &i, esc, &n);

		/* Cut: keep room for the "..." that says so. */
		if (whole >= cap && out + n + 3 >= cap) {
			size_t dots = cap - 1 - out < 3 ? cap - 1 - out : 3;

			memcpy(dst + out, "...", dots);
			out += dots;
			break;
		}
		memcpy(dst + out, t, n);
		out += n;
	}
	dst[out] = '\0';
	return out;
}
