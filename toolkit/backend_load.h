/* What dom0's backends do on each dom0 CPU: the event-channel interrupts
 * of the backends (/proc/interrupts) and the CPU time of their threads by
 * the CPU each last ran on (/proc/PID/task/TID/stat): blkback's kernel
 * thread serves a busy ring without an interrupt per request, so the
 * interrupts alone miss most of a disk's work. Read twice, the difference
 * is what the backends did in between (sampler_cpu.c). */
#ifndef XLP_BACKEND_LOAD_H
#define XLP_BACKEND_LOAD_H

#include <stdbool.h>
#include <stdint.h>

/* dom0 vCPUs looked at; a bigger dom0's others are left out. */
#define XLP_MAX_DOM0_CPUS 64

struct xlp_backend_load {
	bool irqs_ok, threads_ok;
	unsigned nr;                           /* dom0 CPUs seen */
	uint64_t irqs[XLP_MAX_DOM0_CPUS];      /* interrupts taken, in all */
	uint64_t ticks[XLP_MAX_DOM0_CPUS];     /* backend threads' clock ticks */
	uint64_t at_ns;                        /* CLOCK_MONOTONIC of the read */
};

/* Read both now. */
void xlp_backend_load_read(struct xlp_backend_load *b);

/* The parts, for tests: /proc/interrupts' text; one task's stat line
 * (its ticks added to the CPU it last ran on when it is a backend's). */
void xlp_backend_irqs_parse(const char *text, struct xlp_backend_load *b);
void xlp_backend_task_parse(const char *stat, struct xlp_backend_load *b);

#endif
