/* The PV console ring writer (console.h): bytes go in at out_prod, the
 * console daemon takes them from out_cons; a full ring waits for it. */
#include <stdarg.h>

#include "console.h"
#include "lib.h"

static struct xencons_interface *cons;
static uint32_t cons_port;

void console_attach(struct xencons_interface *ring, uint32_t port)
{
	cons = ring;
	cons_port = port;
}

void console_write(const char *s, size_t n)
{
	if (!cons) {
		hyp_console_fallback(s, n);
		return;
	}
	while (n > 0) {
		XENCONS_RING_IDX prod = cons->out_prod, c;

		/* See the consumer's progress only after our last bytes. */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		c = cons->out_cons;
		if (prod - c >= sizeof(cons->out)) {
			hyp_console_notify(cons_port);
			hyp_yield();
			continue;
		}
		while (n > 0 && prod - c < sizeof(cons->out)) {
			cons->out[MASK_XENCONS_IDX(prod, cons->out)] = *s++;
			prod++;
			n--;
		}
		/* The bytes before the index that publishes them. */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		cons->out_prod = prod;
	}
	hyp_console_notify(cons_port);
}

void console_puts(const char *s)
{
	console_write(s, tg_strlen(s));
}

void console_printf(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	n = tg_vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	console_write(buf, n < sizeof(buf) ? n : sizeof(buf) - 1);
}
