/* A writer's output in a buffer of its own, flushed to the FILE in large
 * blocks, and numbers formatted without printf: the SVG writes a dozen
 * fields per frame, and printf's floating point took a third of writing
 * a flame graph of 160,000 frames. Every number is formatted exactly as
 * printf's "%.Nf" and "%" PRIu64 would. */
#ifndef UP_OUT_BUF_H
#define UP_OUT_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define OUT_BUF_SIZE 16384

struct out_buf {
	FILE *out;
	size_t n;
	char b[OUT_BUF_SIZE];
};

static inline void out_buf_init(struct out_buf *o, FILE *out)
{
	o->out = out;
	o->n = 0;
}

void out_buf_flush(struct out_buf *o);
void out_buf_put(struct out_buf *o, const char *s, size_t len);

static inline void out_buf_str(struct out_buf *o, const char *s)
{
	while (*s) {
		if (o->n == OUT_BUF_SIZE)
			out_buf_flush(o);
		o->b[o->n++] = *s++;
	}
}

void out_buf_u64(struct out_buf *o, uint64_t v);

/* v as printf's "%" PRIu64 (room for 20 digits) and "%" PRIx64 (16)
 * write it, at out; return the digits' count. No NUL. For keys built
 * per frame. */
size_t text_u64(char *out, uint64_t v);
size_t text_hex(char *out, uint64_t v);

/* v as printf's "%.*f" (decimals <= 3) writes it, byte for byte. */
void out_buf_fixed(struct out_buf *o, double v, unsigned decimals);

#endif
