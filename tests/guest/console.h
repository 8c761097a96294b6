/* The test guest's log: Xen's PV console ring (xen/io/console.h), written
 * the same way on every architecture. Each architecture finds the ring and
 * its event channel, and gives three hooks (in its hyp.c). */
#ifndef TG_CONSOLE_H
#define TG_CONSOLE_H

#include <stddef.h>
#include <stdint.h>

#include <xen/xen.h>
#include <xen/io/console.h>

/* From now on write to this ring, kicking this event channel. */
void console_attach(struct xencons_interface *ring, uint32_t port);

void console_write(const char *s, size_t n);
void console_puts(const char *s);
void console_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The architecture's hooks: send an event on the console's channel; give
 * the CPU away while the ring is full; write where there is no ring. */
void hyp_console_notify(uint32_t port);
void hyp_yield(void);
void hyp_console_fallback(const char *s, size_t n);

#endif
