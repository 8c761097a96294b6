/* UTF-8 validation and replacement (see utf8.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error_impl.h"
#include "uniprof/text.h"
#include "util/utf8.h"

size_t utf8_decode(const char *s, size_t len, uint32_t *cp, bool *valid)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned need;
	unsigned char lo = 0x80, hi = 0xBF;   /* range of the second byte */
	uint32_t c;
	size_t i;

	if (valid)
		*valid = false;
	*cp = UTF8_REPLACEMENT;
	if (u[0] < 0x80) {
		*cp = u[0];
		if (valid)
			*valid = true;
		return 1;
	}
	if (u[0] >= 0xC2 && u[0] <= 0xDF) {
		need = 1;
		c = u[0] & 0x1F;
	} else if (u[0] >= 0xE0 && u[0] <= 0xEF) {
		need = 2;
		c = u[0] & 0x0F;
		if (u[0] == 0xE0)
			lo = 0xA0;            /* overlong */
		else if (u[0] == 0xED)
			hi = 0x9F;            /* surrogates */
	} else if (u[0] >= 0xF0 && u[0] <= 0xF4) {
		need = 3;
		c = u[0] & 0x07;
		if (u[0] == 0xF0)
			lo = 0x90;            /* overlong */
		else if (u[0] == 0xF4)
			hi = 0x8F;            /* beyond U+10FFFF */
	} else {
		return 1;                     /* C0, C1, F5..FF, continuation */
	}
	/* A sequence cut short or broken is one replacement for the bytes
	 * that could still have been its prefix. */
	for (i = 1; i <= need; i++) {
		if (i >= len || u[i] < lo || u[i] > hi)
			return i;
		c = c << 6 | (u[i] & 0x3F);
		lo = 0x80;
		hi = 0xBF;
	}
	*cp = c;
	if (valid)
		*valid = true;
	return i;
}

bool utf8_shown_escaped(uint32_t cp)
{
	/* Ranges of Default_Ignorable_Code_Point, Bidi_Control and the
	 * separators (Unicode 15), in order. */
	static const uint32_t r[][2] = {
		{ 0x0000, 0x001F }, { 0x007F, 0x009F }, { 0x00AD, 0x00AD },
		{ 0x034F, 0x034F }, { 0x061C, 0x061C }, { 0x115F, 0x1160 },
		{ 0x17B4, 0x17B5 }, { 0x180B, 0x180F }, { 0x200B, 0x200F },
		{ 0x2028, 0x202E }, { 0x2060, 0x206F }, { 0x3164, 0x3164 },
		{ 0xFE00, 0xFE0F }, { 0xFEFF, 0xFEFF }, { 0xFFA0, 0xFFA0 },
		{ 0xFFF0, 0xFFFB }, { 0xFFFE, 0xFFFF }, { 0x1BCA0, 0x1BCA3 },
		{ 0x1D173, 0x1D17A }, { 0xE0000, 0xE0FFF },
	};

	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]) && cp >= r[i][0]; i++)
		if (cp <= r[i][1])
			return true;
	return false;
}

size_t utf8_escape(uint32_t cp, char out[UTF8_ESCAPE_MAX])
{
	int n;

	if (cp < 0x20 || cp == 0x7F)
		n = snprintf(out, UTF8_ESCAPE_MAX, "\\x%02x", (unsigned)cp);
	else if (cp <= 0xFFFF)
		n = snprintf(out, UTF8_ESCAPE_MAX, "\\u%04x", (unsigned)cp);
	else
		n = snprintf(out, UTF8_ESCAPE_MAX, "\\U%08x", (unsigned)cp);
	return n > 0 ? (size_t)n : 0;
}

size_t utf8_encode(uint32_t cp, char out[4])
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | cp >> 12);
		out[1] = (char)(0x80 | (cp >> 6 & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | cp >> 18);
	out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
	out[2] = (char)(0x80 | (cp >> 6 & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* The character at src as it is written: itself, or U+FFFD for bytes
 * that are not valid UTF-8 or a character not written. Its bytes in enc,
 * their count in *m; returns the bytes of src it stands for. */
static size_t written_char(const char *src, size_t left, char enc[4], size_t *m)
{
	uint32_t cp;
	bool valid;
	size_t n = utf8_decode(src, left, &cp, &valid);

	if (valid && utf8_writable(cp)) {
		memcpy(enc, src, n);
		*m = n;
	} else {
		*m = utf8_encode(UTF8_REPLACEMENT, enc);
	}
	return n;
}

bool utf8_valid_prefix(char *dst, size_t cap, const char *src, size_t len)
{
	size_t in = 0, out = 0;

	while (in < len) {
		char enc[4];
		size_t m, n;

		/* ASCII is itself: copied without decoding (names are). */
		while (in < len && (unsigned char)src[in] < 0x80 && out + 1 < cap)
			dst[out++] = src[in++];
		if (in == len || (unsigned char)src[in] < 0x80)
			break;
		n = written_char(src + in, len - in, enc, &m);
		if (out + m >= cap)
			break;
		memcpy(dst + out, enc, m);
		out += m;
		in += n;
	}
	dst[out] = '\0';
	return in == len;
}

size_t utf8_valid_copy(char *dst, size_t cap, const char *src, size_t len)
{
	size_t in = 0, need = 0, out = 0;
	bool full = false;

	while (in < len) {
		char enc[4];
		size_t m;

		/* ASCII is itself: copied without decoding (names are). */
		if (!full) {
			size_t run = 0;

			while (in + run < len && (unsigned char)src[in + run] < 0x80 &&
			       out + run + 1 < cap)
				run++;
			memcpy(dst + out, src + in, run);
			out += run;
			in += run;
			need += run;
			if (in == len)
				break;
		}
		in += written_char(src + in, len - in, enc, &m);
		need += m;
		/* Once a character does not fit, none after it is written:
		 * the copy is a prefix of the whole. */
		if (!full && out + m < cap) {
			memcpy(dst + out, enc, m);
			out += m;
		} else {
			full = true;
		}
	}
	dst[out] = '\0';
	return need;
}

char *up_text_valid_utf8(const char *s)
{
	size_t len = strlen(s);
	size_t need = utf8_valid_copy((char[1]){ 0 }, 1, s, len);
	char *out = malloc(need + 1);

	if (!out) {
		up_fail(UP_ENOMEM, "out of memory");
		return NULL;
	}
	utf8_valid_copy(out, need + 1, s, len);
	return out;
}
