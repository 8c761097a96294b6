/* Xen services for the AArch64 test guest: the PV console (its frame and
 * event channel from HVM parameters, as on any Xen/Arm guest), the virtual
 * counter as clock, the command line from the device tree, shutdown. */
#include <stdint.h>

#include <xen/event_channel.h>
#include <xen/hvm/hvm_op.h>
#include <xen/hvm/params.h>
#include <xen/sched.h>

#include "hyp.h"
#include "lib.h"

static uint64_t cnt_hz;

void hyp_console_notify(uint32_t port)
{
	struct evtchn_send send = { .port = port };

	HYPERVISOR_event_channel_op(EVTCHNOP_send, &send);
}

void hyp_yield(void)
{
	HYPERVISOR_sched_op(SCHEDOP_yield, NULL);
}

/* No ring, no log: Xen on Arm gives every guest one. */
void hyp_console_fallback(const char *s, size_t n)
{
	(void)s;
	(void)n;
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
	if (pfn && pfn < (1ULL << 18))
		console_attach((struct xencons_interface *)(uintptr_t)(pfn << 12),
			       (uint32_t)hvm_param(HVM_PARAM_CONSOLE_EVTCHN));
	return dtb ? fdt_bootargs((const uint8_t *)dtb) : "";
}
