/* The xenstore ring, the way a unikernel's xenbus client uses it: write a
 * request, notify xenstored's event channel, wait in Xen (events.c) until
 * the answer comes. The round trip is dom0's work (xenstored runs there),
 * as a real unikernel's I/O is (blkback, netback, xenstored): its CPU time
 * comes in bursts right after dom0 worked. */
#include <stdint.h>

#include <xen/hvm/params.h>
#include <xen/io/xs_wire.h>

#include "events.h"
#include "xenstore.h"

#define TG_FN __attribute__((noinline, noipa, used))
#define AFTER_CALL() __asm__ volatile("" ::: "memory")
#define WAIT_NS 10000000ULL          /* backstop: a lost event costs 10 ms */

static volatile struct xenstore_domain_interface *ring;
static uint32_t port, next_id;

long tg_xs_init(enum tg_mode mode, unsigned long boot_info)
{
	uint64_t pfn;

	if (mode == TG_PV) {
		const start_info_t *si = (const start_info_t *)boot_info;

		/* A machine frame: the read-only M2P table gives our frame,
		 * mapped at VIRT_BASE (0) + pfn, as the console's. */
		pfn = ((const unsigned long *)MACH2PHYS_VIRT_START)[si->store_mfn];
		port = si->store_evtchn;
	} else {
		pfn = hvm_param(HVM_PARAM_STORE_PFN);
		port = (uint32_t)hvm_param(HVM_PARAM_STORE_EVTCHN);
	}
	if (!pfn || pfn >= (1ULL << 20))       /* outside our 4 GiB map */
		return -1;
	ring = (volatile struct xenstore_domain_interface *)(pfn << 12);
	return tg_events_watch(port);
}

/* The frame a sample finds while the request is with dom0. */
TG_FN static void tg_xs_wait(void)
{
	tg_block_for(WAIT_NS);
	AFTER_CALL();
}

static void put(const void *data, uint32_t len)
{
	const char *d = data;
	XENSTORE_RING_IDX prod = ring->req_prod;

	while (prod + len - ring->req_cons > XENSTORE_RING_SIZE)
		tg_xs_wait();                  /* full: xenstored is behind */
	for (uint32_t i = 0; i < len; i++)
		ring->req[MASK_XENSTORE_IDX(prod + i)] = d[i];
	__atomic_thread_fence(__ATOMIC_RELEASE);
	ring->req_prod = prod + len;
}

static void get(void *data, uint32_t len)
{
	char *d = data;
	XENSTORE_RING_IDX cons = ring->rsp_cons;

	while (ring->rsp_prod - cons < len)
		tg_xs_wait();
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < len; i++)
		if (d)
			d[i] = ring->rsp[MASK_XENSTORE_IDX(cons + i)];
	__atomic_thread_fence(__ATOMIC_RELEASE);
	ring->rsp_cons = cons + len;
}

TG_FN long tg_xs_read(const char *path, char *out, size_t outlen)
{
	struct xsd_sockmsg m = { .type = XS_READ, .req_id = ++next_id };
	uint32_t n = 0, len, id = m.req_id;

	while (path[n])
		n++;
	m.len = n + 1;
	put(&m, sizeof(m));
	put(path, n + 1);
	tg_notify(port);
	get(&m, sizeof(m));
	len = m.len;
	/* Not our answer, or not one xenstored gives: the ring is out of
	 * step, and the workload stops (a test guest trusts its dom0). */
	if (len > XENSTORE_PAYLOAD_MAX || m.req_id != id)
		return -1;
	for (uint32_t i = 0; i < len; i++) {
		char c;

		get(&c, 1);
		if (i + 1 < outlen)
			out[i] = c;
	}
	if (outlen)
		out[len < outlen ? len : outlen - 1] = '\0';
	tg_notify(port);                     /* space freed for its answers */
	AFTER_CALL();
	return m.type == XS_ERROR ? -1 : (long)len;
}
