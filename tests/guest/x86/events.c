/* Blocking the way unikernels do: event channels, the timer's VIRQ and
 * the xenstore ring's port, and a wait in Xen through the hypercall page
 * until an event or a deadline. The wait is SCHEDOP_poll on those ports
 * with the deadline as its timeout, not a one-shot timer and then
 * SCHEDOP_block: Xen arms the poll's timeout and looks at the ports'
 * pending bits inside the one hypercall, so nothing can slip in between.
 * With SCHEDOP_block the timer's event could come (a long pause by a
 * profiler is enough) after it was armed and before the block, be taken
 * by our handler, and leave the vCPU blocked for good: Xen stops a
 * periodic timer while its vCPU is descheduled, so no backstop of that
 * kind wakes a blocked one (sched/core.c, sched_context_switch). The
 * profiler sees the same block point either way (just after sched_op's
 * trap). */
#include <stdint.h>

#include <xen/event_channel.h>
#include <xen/callback.h>
#include <xen/hvm/hvm_op.h>
#include <xen/hvm/params.h>
#include <xen/memory.h>
#include <xen/sched.h>
#include <xen/vcpu.h>

#include "events.h"
#include "hyp.h"
#include "idt.h"
#include "p2m.h"

#define TG_FN __attribute__((noinline, noipa, used))
#define AFTER_CALL() __asm__ volatile("" ::: "memory")
#define UPCALL_VECTOR 0xf3

extern char tg_shared_info_page[];
extern void tg_pv_upcall(void);
extern void tg_pv_failsafe(void);
extern void tg_hvm_upcall(void);

static volatile struct shared_info *shared;
static uint32_t timer_port, watched_port;
static int watching;
unsigned long tg_upcalls;

static long set_hvm_param(uint32_t index, uint64_t value)
{
	struct xen_hvm_param p = { .domid = DOMID_SELF, .index = index,
				   .value = value };

	return hypercall(__HYPERVISOR_hvm_op, HVMOP_set_param, (unsigned long)&p);
}

long tg_shared_info_map(enum tg_mode mode, unsigned long boot_info)
{
	unsigned long va = (unsigned long)tg_shared_info_page;

	if (shared)
		return 0;
	if (mode == TG_PV) {
		/* PV: the frame is given as a machine address; put it in
		 * place of our reserved page (present, writable, accessed). */
		const start_info_t *si = (const start_info_t *)boot_info;

		long rc = hypercall3(__HYPERVISOR_update_va_mapping, va,
				     (si->shared_info & ~0xfffUL) | 0x23, UVMF_INVLPG);
		if (rc)
			return rc;
		tg_p2m_publish(si, (volatile struct shared_info *)va);
	} else {
		/* PVH: Xen puts it at a guest frame of our choosing. */
		struct xen_add_to_physmap xatp = {
			.domid = DOMID_SELF, .space = XENMAPSPACE_shared_info,
			.idx = 0, .gpfn = va >> 12,
		};
		long rc = hypercall(__HYPERVISOR_memory_op, XENMEM_add_to_physmap,
				    (unsigned long)&xatp);
		if (rc)
			return rc;
	}
	shared = (volatile struct shared_info *)va;
	return 0;
}

/* vCPU 0's run states as Xen keeps them in our memory at each of its
 * changes (VCPUOP_register_runstate_memory_area): read without a
 * hypercall, so that measuring the wait does not change it. */
static struct vcpu_runstate_info runstate_area;
static int runstate_mapped;

uint64_t tg_blockrun_ns, tg_blockresume_ns;

/* Our running time so far, current stint included; 0 if unknown. Read
 * while we run, when Xen does not write the area. */
static uint64_t running_now(void)
{
	volatile struct vcpu_runstate_info *r = &runstate_area;
	uint64_t entry = r->state_entry_time & ~XEN_RUNSTATE_UPDATE;

	if (!runstate_mapped)
		return 0;
	return r->time[RUNSTATE_running] + (tg_xen_time() - entry);
}

long tg_events_init(enum tg_mode mode, unsigned long boot_info)
{
	struct evtchn_bind_virq bind = { .virq = VIRQ_TIMER, .vcpu = 0 };
	struct evtchn_unmask unmask;
	long rc = tg_shared_info_map(mode, boot_info);

	if (rc)
		return rc;
	/* PV vCPUs start with a 100 Hz tick; we want only our timer. */
	hypercall3(__HYPERVISOR_vcpu_op, VCPUOP_stop_periodic_timer, 0, 0);
	{
		struct vcpu_register_runstate_memory_area area;

		area.addr.v = &runstate_area;
		runstate_mapped = hypercall3(__HYPERVISOR_vcpu_op,
					     VCPUOP_register_runstate_memory_area,
					     0, (unsigned long)&area) == 0;
	}
	if (mode == TG_PV) {
		struct callback_register ev = { .type = CALLBACKTYPE_event,
						.flags = CALLBACKF_mask_events,
						.address = (unsigned long)tg_pv_upcall };
		struct callback_register fs = { .type = CALLBACKTYPE_failsafe,
						.address = (unsigned long)tg_pv_failsafe };

		rc = hypercall(__HYPERVISOR_callback_op, CALLBACKOP_register,
			       (unsigned long)&ev);
		if (!rc)
			rc = hypercall(__HYPERVISOR_callback_op, CALLBACKOP_register,
				       (unsigned long)&fs);
	} else {
		/* Callback type 2: a vector, taken through our IDT, on
		 * the interrupted stack (idt.c says why not on IST1). */
		tg_idt_set(UPCALL_VECTOR, tg_hvm_upcall, 0);
		rc = set_hvm_param(HVM_PARAM_CALLBACK_IRQ,
				   (2ULL << 56) | UPCALL_VECTOR);
	}
	if (rc)
		return rc;
	rc = hypercall(__HYPERVISOR_event_channel_op, EVTCHNOP_bind_virq,
		       (unsigned long)&bind);
	if (rc)
		return rc;
	timer_port = bind.port;
	unmask.port = timer_port;
	rc = hypercall(__HYPERVISOR_event_channel_op, EVTCHNOP_unmask,
		       (unsigned long)&unmask);
	/* Xen fills the time info in at the next reschedule: yield until
	 * it is there, or a timer would be set against a zero clock. */
	for (int i = 0; !rc && i < 1000 && !shared->vcpu_info[0].time.tsc_to_system_mul; i++)
		hypercall(__HYPERVISOR_sched_op, SCHEDOP_yield, 0);
	if (!rc && !shared->vcpu_info[0].time.tsc_to_system_mul)
		rc = -1;
	if (!rc && mode == TG_PVH)
		__asm__ volatile("sti");
	return rc;
}

int tg_runstate(uint64_t *busy, uint64_t *blocked)
{
	struct vcpu_runstate_info r;
	long rc = hypercall3(__HYPERVISOR_vcpu_op, VCPUOP_get_runstate_info, 0,
			     (unsigned long)&r);

	if (rc)
		return (int)rc;
	*busy = r.time[RUNSTATE_running] + r.time[RUNSTATE_runnable];
	*blocked = r.time[RUNSTATE_blocked];
	return 0;
}

uint64_t tg_running(void)
{
	struct vcpu_runstate_info r;

	if (hypercall3(__HYPERVISOR_vcpu_op, VCPUOP_get_runstate_info, 0,
		       (unsigned long)&r))
		return 0;
	return r.time[RUNSTATE_running];
}

uint64_t tg_xen_time(void)
{
	volatile struct vcpu_time_info *t = &shared->vcpu_info[0].time;
	uint32_t version;
	uint64_t now;

	do {
		uint64_t delta;
		uint32_t lo, hi;

		version = t->version;
		__asm__ volatile("" ::: "memory");
		__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
		delta = ((uint64_t)hi << 32 | lo) - t->tsc_timestamp;
		if (t->tsc_shift < 0)
			delta >>= -t->tsc_shift;
		else
			delta <<= t->tsc_shift;
		now = t->system_time +
		      (uint64_t)(((unsigned __int128)delta * t->tsc_to_system_mul) >> 32);
		__asm__ volatile("" ::: "memory");
	} while ((version & 1) || version != t->version);
	return now;
}

void tg_upcall(void)
{
	volatile struct vcpu_info *vi = &shared->vcpu_info[0];

	tg_upcalls++;
	vi->evtchn_upcall_pending = 0;
	__atomic_exchange_n(&vi->evtchn_pending_sel, 0, __ATOMIC_SEQ_CST);
	__atomic_and_fetch(&shared->evtchn_pending[timer_port / 64],
			   ~(1UL << (timer_port % 64)), __ATOMIC_SEQ_CST);
	/* A bit left set would swallow the port's next event. */
	if (watching)
		__atomic_and_fetch(&shared->evtchn_pending[watched_port / 64],
				   ~(1UL << (watched_port % 64)), __ATOMIC_SEQ_CST);
}

/* The callback vector delivered again at its handler's first
 * instruction, where interrupts are off: only a hypervisor's (or its
 * emulator's) second delivery of one event lands there. Counted, for the
 * reports (io.c). */
unsigned long tg_upcall_reentries;

void tg_hvm_event(const uint64_t *frame);
void tg_hvm_event(const uint64_t *frame)
{
	if (frame[0] == (uint64_t)tg_hvm_upcall)
		tg_upcall_reentries++;
	tg_upcall();
}

long tg_events_watch(uint32_t port)
{
	struct evtchn_unmask unmask = { .port = port };

	watched_port = port;
	watching = 1;
	return hypercall(__HYPERVISOR_event_channel_op, EVTCHNOP_unmask,
			 (unsigned long)&unmask);
}

void tg_notify(uint32_t port)
{
	struct evtchn_send send = { .port = port };

	hypercall(__HYPERVISOR_event_channel_op, EVTCHNOP_send,
		  (unsigned long)&send);
}

/* The frame a blocked vCPU's stack shows under the hypercall page: wait
 * for an event on the timer's or the watched port, or for Xen's system
 * time to reach deadline (ns, never 0: 0 would mean no timeout). A bit
 * already pending on those ports returns at once. */
TG_FN void tg_block(uint64_t deadline)
{
	evtchn_port_t ports[2] = { timer_port, watched_port };
	struct sched_poll poll = { .nr_ports = watching ? 2 : 1,
				   .timeout = deadline ? deadline : 1 };

	uint64_t ran = running_now(), called = tg_xen_time();

	set_xen_guest_handle(poll.ports, ports);
	hypercall(__HYPERVISOR_sched_op, SCHEDOP_poll, (unsigned long)&poll);
	/* Running but inside the wait: Xen entering it and resuming us, its
	 * registers at the block point all along. The resuming is from the
	 * stint's start, if it began inside the call (we blocked, or were
	 * preempted); else the whole call ran without blocking. A sample in
	 * the entering finds us blocked, in the resuming not: waiting. */
	if (ran) {
		uint64_t now = tg_xen_time(), in = running_now() - ran;
		uint64_t stint = runstate_area.state_entry_time & ~XEN_RUNSTATE_UPDATE;

		tg_blockrun_ns += in;
		tg_blockresume_ns += stint > called && now > stint &&
				     now - stint < in ? now - stint : in;
	}
	AFTER_CALL();
}

/* The events are taken after the wait, not before: an answer that came
 * after the caller looked keeps its bit, and the poll returns at once. */
void tg_block_for(uint64_t ns)
{
	tg_block(tg_xen_time() + ns);
	tg_upcall();
}

void tg_sleep_until(uint64_t deadline)
{
	while (tg_xen_time() < deadline) {
		tg_block(deadline);
		tg_upcall();
	}
}
