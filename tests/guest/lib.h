/* The few libc pieces the freestanding test guest needs. */
#ifndef TG_LIB_H
#define TG_LIB_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

size_t tg_strlen(const char *s);
size_t tg_vsnprintf(char *buf, size_t len, const char *fmt, va_list ap);

/* The value of KEY=NUMBER in a command line, or dflt. */
uint64_t tg_cmdline_u64(const char *cmdline, const char *key, uint64_t dflt);

/* gcc may emit calls to these even in freestanding code. */
void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);

#endif
