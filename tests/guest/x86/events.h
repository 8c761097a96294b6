#ifndef TG_EVENTS_H
#define TG_EVENTS_H

#include <stdint.h>

#include "hyp.h"

/* Map the shared info page (once) and, on PV, publish the pfn-to-mfn
 * table in it, as real PV kernels do at boot. 0 or Xen's error. */
long tg_shared_info_map(enum tg_mode mode, unsigned long boot_info);

/* Map the shared info page, bind VIRQ_TIMER to an event channel and, on
 * PV, register the event upcall: what a unikernel does to block. 0 or
 * Xen's error. */
long tg_events_init(enum tg_mode mode, unsigned long boot_info);

/* Xen's system time (ns since boot), from the shared info's pvclock. */
uint64_t tg_xen_time(void);

/* vCPU 0's time, from Xen's accounting of its run states: running or
 * runnable (busy), blocked (idle). Time paused by the toolstack counts as
 * neither ("offline"). 0 or Xen's error. */
int tg_runstate(uint64_t *busy, uint64_t *blocked);

/* vCPU 0's time running alone (not waiting for a CPU): CPU time, what an
 * on-CPU profile samples. 0 if unknown. */
uint64_t tg_running(void);

/* The running time vCPU 0 spent inside its waits (entering them, and
 * resumed after them, before its own code ran again): with its registers
 * at the block point, a profiler's sample there is not its own code. Under
 * emulation it is a good part of an I/O guest's running time. */
extern uint64_t tg_blockrun_ns;
/* Of that, the time from being scheduled again to back in its own code
 * (or the whole of a wait that did not block): a sample there finds it
 * not blocked, at the block point. */
extern uint64_t tg_blockresume_ns;
/* PVH: events delivered twice (the second at the handler's entry). */
extern unsigned long tg_upcall_reentries;

/* Wait in Xen (SCHEDOP_poll) until Xen's system time reaches deadline;
 * events may wake us earlier, and we wait again. */
void tg_sleep_until(uint64_t deadline);

/* Called by the PV upcall (entry.S) and after waking: clear the pending
 * events. */
void tg_upcall(void);

/* Unmask port and clear its event with the timer's at each upcall (the
 * xenstore ring's). 0 or Xen's error. */
long tg_events_watch(uint32_t port);

/* Wait in Xen until an event on the timer's or the watched port or, at
 * the latest, for ns; then take the events. */
void tg_block_for(uint64_t ns);

/* Notify the other end of port. */
void tg_notify(uint32_t port);

#endif
