/* What dom0's backends do on each dom0 CPU: the event-channel interrupts
 * of the backends (/proc/interrupts) and the CPU time of their threads by
 * the CPU each last ran on (/proc/PID/task/TID/stat): blkback's kernel
 * thread serves a busy ring without an interrupt per request, so the
 * interrupts alone miss most of a disk's work. Read twice, the difference
 * is what the backends did in between (sampler_cpu.c): each thread's
 * ticks since the first read go to the CPU it last ran on, as a thread
 * may move between the two. */
#ifndef TK_BACKEND_LOAD_H
#define TK_BACKEND_LOAD_H

#include <stdbool.h>
#include <stdint.h>

/* dom0 vCPUs looked at; a bigger dom0's others are left out. */
#define TK_MAX_DOM0_CPUS 64

/* Backend threads followed; a dom0 with more has them left out. */
#define TK_MAX_BACKEND_THREADS 256

struct tk_backend_thread {
	long tid;
	unsigned cpu;                          /* where it last ran */
	uint64_t ticks;                        /* user + system clock ticks */
};

struct tk_backend_load {
	bool irqs_ok, threads_ok;
	unsigned nr;                           /* dom0 CPUs seen */
	uint64_t irqs[TK_MAX_DOM0_CPUS];      /* interrupts taken, in all */
	struct tk_backend_thread threads[TK_MAX_BACKEND_THREADS];
	unsigned nr_threads;
	uint64_t at_ns;                        /* CLOCK_MONOTONIC of the read */
};

/* Each CPU's share of the backend threads' ticks from a to b. */
void tk_backend_ticks_between(const struct tk_backend_load *a,
			       const struct tk_backend_load *b,
			       uint64_t *ticks, unsigned nr_cpus);

/* Read both now. */
void tk_backend_load_read(struct tk_backend_load *b);

/* The parts, for tests: /proc/interrupts' text; one task's stat line
 * (kept when it is a backend's thread). */
void tk_backend_irqs_parse(const char *text, struct tk_backend_load *b);
void tk_backend_task_parse(const char *stat, struct tk_backend_load *b);

#endif
