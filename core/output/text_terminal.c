/* Names on a terminal: whatever a kernel image calls its functions, it
 * cannot move the cursor, recolour, retitle or reverse what we print. */
#include "config.h"

#include <string.h>

#include "uniprof/text.h"
#include "output/utf8.h"

/* Bidi controls: they reorder what follows on the line (CVE-2021-42574). */
static bool is_bidi_control(uint32_t cp)
{
	return cp == 0x061C || cp == 0x200E || cp == 0x200F ||
	       (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

void up_text_print_escaped(FILE *out, const char *s)
{
	size_t len = strlen(s);

	for (size_t i = 0; i < len;) {
		uint32_t cp;
		bool valid;
		size_t n = utf8_decode(s + i, len - i, &cp, &valid);

		if (!valid)
			for (size_t k = 0; k < n; k++)
				fprintf(out, "\\x%02x", (unsigned char)s[i + k]);
		else if (cp < 0x20 || cp == 0x7F)
			fprintf(out, "\\x%02x", (unsigned)cp);
		else if ((cp >= 0x80 && cp <= 0x9F) || is_bidi_control(cp) ||
			 !utf8_writable(cp))
			fprintf(out, "\\u%04x", (unsigned)cp);
		else
			fwrite(s + i, 1, n, out);
		i += n;
	}
}
