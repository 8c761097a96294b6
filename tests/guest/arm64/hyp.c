/* Xen services for the AArch64 test guest: the PV console (its frame and
 * event channel from HVM parameters, as on any Xen/Arm guest), the virtual
 * counter as clock, the command line from the device tree, shutdown. */
#include <stdarg.h>
#include <stdint.h>

#include <xen/event_channel.h>
#include <xen/hvm/hvm_op.h>
#include <xen/hvm/params.h>
#include <xen/io/console.h>
#include <xen/sched.h>

#include "hyp.h"
#include "lib.h"

static struct xencons_interface *cons;
static uint32_t cons_port;
static uint64_t cnt_hz;

static void notify(void)
{
	struct evtchn_send send = { .port = cons_port };

	HYPERVISOR_event_channel_op(EVTCHNOP_send, &send);
}

void console_write(const char *s, size_t n)
{
	if (!cons)
		return;
	while (n > 0) {
		XENCONS_RING_IDX prod = cons->out_prod, c;

		__asm__ volatile("dmb ish" ::: "memory");
		c = cons->out_cons;
		if (prod - c >= sizeof(cons->out)) {
			notify();
			HYPERVISOR_sched_op(SCHEDOP_yield, NULL);
			continue;
		}
		while (n > 0 && prod - c < sizeof(cons->out)) {
			cons->out[MASK_XENCONS_IDX(prod, cons->out)] = *s++;
			prod++;
			n--;
		}
		__asm__ volatile("dmb ishst" ::: "memory");
		cons->out_prod = prod;
	}
	notify();
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

uint64_t now_ns(void)
{
	uint64_t t;

	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(t));
	return (t / cnt_hz) * 1000000000ULL + (t % cnt_hz) * 1000000000ULL / cnt_hz;
}

int hyp_on_xen(void)
{
	return 1;
}

_Noreturn void hyp_shutdown(unsigned reason)
{
	struct sched_shutdown sd = { .reason = reason };

	for (;;)
		HYPERVISOR_sched_op(SCHEDOP_shutdown, &sd);
}

/* Any exception: the guest takes none on purpose, so report it and crash. */
_Noreturn void tg_exception(uint64_t kind, uint64_t esr, uint64_t elr, uint64_t far);

_Noreturn void tg_exception(uint64_t kind, uint64_t esr, uint64_t elr, uint64_t far)
{
	console_printf("tg: exception vector=%lu esr=%#lx elr=%#lx far=%#lx\n",
		       (unsigned long)kind, (unsigned long)esr, (unsigned long)elr,
		       (unsigned long)far);
	hyp_shutdown(SHUTDOWN_crash);
}

static uint64_t hvm_param(uint32_t index)
{
	struct xen_hvm_param p = { .domid = DOMID_SELF, .index = index };

	if (HYPERVISOR_hvm_op(HVMOP_get_param, &p))
		return 0;
	return p.value;
}

/* The device tree (big-endian, flattened): /chosen's bootargs. Bounded by
 * the header's sizes; anything malformed gives an empty command line. */
static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int str_eq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

static const char *fdt_bootargs(const uint8_t *fdt)
{
	enum { BEGIN_NODE = 1, END_NODE = 2, PROP = 3, NOP = 4, END = 9 };
	uint32_t size, off, end, strings, depth = 0, chosen = 0;

	if (be32(fdt) != 0xd00dfeed)
		return "";
	size = be32(fdt + 4);
	off = be32(fdt + 8);
	strings = be32(fdt + 12);
	end = off + be32(fdt + 36);   /* size_dt_struct */
	if (size > (1u << 20) || end > size || strings > size || off > end)
		return "";
	while (off + 4 <= end) {
		uint32_t tok = be32(fdt + off);

		off += 4;
		if (tok == BEGIN_NODE) {
			const char *name = (const char *)fdt + off;
			uint32_t len = 0;

			while (off + len < end && name[len])
				len++;
			depth++;
			if (depth == 2 && (str_eq(name, "chosen")))
				chosen = 1;
			off = (off + len + 1 + 3) & ~3u;
		} else if (tok == END_NODE) {
			if (depth == 2)
				chosen = 0;
			if (depth-- == 0)
				return "";
		} else if (tok == PROP) {
			uint32_t len, name;

			if (off + 8 > end)
				return "";
			len = be32(fdt + off);
			name = be32(fdt + off + 4);
			off += 8;
			if (len > end - off || name >= size - strings)
				return "";
			if (chosen && depth == 2 &&
			    str_eq((const char *)fdt + strings + name, "bootargs") &&
			    len > 0 && fdt[off + len - 1] == '\0')
				return (const char *)fdt + off;
			off = (off + len + 3) & ~3u;
		} else if (tok == NOP) {
			continue;
		} else {
			return "";
		}
	}
	return "";
}

const char *hyp_init(uintptr_t dtb)
{
	uint64_t pfn = hvm_param(HVM_PARAM_CONSOLE_PFN);

	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(cnt_hz));
	if (!cnt_hz)
		cnt_hz = 62500000;
	/* Xen's magic pages sit in the low GiB, which mmu.c maps. */
	if (pfn && pfn < (1ULL << 18)) {
		cons = (struct xencons_interface *)(uintptr_t)(pfn << 12);
		cons_port = (uint32_t)hvm_param(HVM_PARAM_CONSOLE_EVTCHN);
	}
	return dtb ? fdt_bootargs((const uint8_t *)dtb) : "";
}
