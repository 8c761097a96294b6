#include "lib.h"

size_t tg_strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

void *memset(void *d, int c, size_t n)
{
	unsigned char *p = d;

	while (n--)
		*p++ = (unsigned char)c;
	return d;
}

void *memcpy(void *d, const void *s, size_t n)
{
	unsigned char *p = d;
	const unsigned char *q = s;

	while (n--)
		*p++ = *q++;
	return d;
}

static void put(char *buf, size_t len, size_t *pos, char c)
{
	if (*pos + 1 < len)
		buf[*pos] = c;
	(*pos)++;
}

/* %s, %u, %lu, %llu, %x, %lx, %llx and %% only. */
size_t tg_vsnprintf(char *buf, size_t len, const char *fmt, va_list ap)
{
	size_t pos = 0;

	for (; *fmt; fmt++) {
		unsigned long long v;
		unsigned base = 10, longs = 0;
		char digits[24];
		int nd = 0;

		if (*fmt != '%') {
			put(buf, len, &pos, *fmt);
			continue;
		}
		fmt++;
		while (*fmt == 'l') {
			longs++;
			fmt++;
		}
		switch (*fmt) {
		case 's':
			for (const char *s = va_arg(ap, const char *); *s; s++)
				put(buf, len, &pos, *s);
			continue;
		case 'x':
			base = 16;
			/* fall through */
		case 'u':
			v = longs ? va_arg(ap, unsigned long long) :
				    va_arg(ap, unsigned);
			do {
				digits[nd++] = "0123456789abcdef"[v % base];
				v /= base;
			} while (v);
			while (nd)
				put(buf, len, &pos, digits[--nd]);
			continue;
		case '%':
			put(buf, len, &pos, '%');
			continue;
		default:
			put(buf, len, &pos, '?');
			if (!*fmt)
				fmt--;
		}
	}
	if (len)
		buf[pos < len ? pos : len - 1] = '\0';
	return pos;
}

uint64_t tg_cmdline_u64(const char *cmdline, const char *key, uint64_t dflt)
{
	size_t kl = tg_strlen(key);

	for (const char *p = cmdline; *p;) {
		while (*p == ' ')
			p++;
		const char *w = p;

		while (*p && *p != ' ')
			p++;
		if ((size_t)(p - w) > kl && w[kl] == '=') {
			size_t i = 0;

			while (i < kl && w[i] == key[i])
				i++;
			if (i == kl) {
				uint64_t v = 0;

				for (const char *d = w + kl + 1; d < p && *d >= '0' && *d <= '9'; d++)
					v = v * 10 + (uint64_t)(*d - '0');
				return v;
			}
		}
	}
	return dflt;
}
