/* The sampler's placement: the backends' interrupts counted per dom0 CPU
 * from /proc/interrupts as Linux 6.1 writes it in a Xen dom0, and the
 * choice of a dom0 vCPU from them and the vCPUs' affinities. */
#include "config.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/test.h"
#include "toolkit/sampler_cpu.h"
#include "uniprof/error.h"

TEST_GLOBALS;

/* A dom0 with two vCPUs, the production shape: the guest's xenstore
 * ring (evtchn:oxenstored) on CPU 1, its disk (blkif-backend) on CPU 0,
 * dom0's own per-CPU interrupts and the frontend xenbus left out. */
static const char interrupts_2[] =
	"           CPU0       CPU1       \n"
	"  1:          0          9  xen-pirq    -ioapic-edge  i8042\n"
	" 24:       4502          0  xen-percpu    -virq      timer0\n"
	" 30:          0       4352  xen-percpu    -virq      timer1\n"
	" 36:          0        107   xen-dyn    -event     xenbus\n"
	" 39:          0          0   xen-dyn    -virq      hvc_console\n"
	" 40:          0          0  xen-dyn-lateeoi    -event     evtchn:oxenstored\n"
	" 42:          1       1505  xen-dyn-lateeoi    -event     evtchn:oxenstored\n"
	" 43:         10          0  xen-dyn-lateeoi    -event     evtchn:xenconsoled\n"
	" 47:        300          0  xen-dyn-lateeoi    -event     blkif-backend\n"
	" 48:          0         20  xen-dyn    -event     vif3.0-q0-tx\n"
	"NMI:          0          0   Non-maskable interrupts\n"
	"ERR:          0\n";

static void test_parse(void)
{
	struct tk_backend_load b;

	memset(&b, 0, sizeof(b));

	tk_backend_irqs_parse(interrupts_2, &b);
	CHECK(b.irqs_ok);
	CHECK_U64(b.nr, 2);
	CHECK_U64(b.irqs[0], 1 + 10 + 300);
	CHECK_U64(b.irqs[1], 1505 + 20);

	/* Offline CPUs have no column: the header says which is which. */
	tk_backend_irqs_parse("       CPU0       CPU2\n"
			       " 40:  5  7  xen-dyn -event blkif-backend\n", &b);
	CHECK(b.irqs_ok);
	CHECK_U64(b.nr, 3);
	CHECK_U64(b.irqs[0], 5);
	CHECK_U64(b.irqs[1], 0);
	CHECK_U64(b.irqs[2], 7);

	/* Not /proc/interrupts, cut lines, a CPU number out of range. */
	tk_backend_irqs_parse("", &b);
	CHECK(!b.irqs_ok);
	tk_backend_irqs_parse("hello\n", &b);
	CHECK(!b.irqs_ok);
	tk_backend_irqs_parse("  CPU0 CPU99999\n 40: 5", &b);
	CHECK(b.irqs_ok);
	CHECK_U64(b.irqs[0], 0);
	tk_backend_irqs_parse("  CPU0\n 40: 5 xen-dyn -event blkif-backend", &b);
	CHECK(b.irqs_ok);
	CHECK_U64(b.irqs[0], 5);
}

/* Backend threads from /proc/PID/task/TID/stat lines; other threads, odd
 * names and cut lines left out; between two reads each thread's ticks go
 * to the CPU it ran on last, wherever it was before. */
static void test_tasks(void)
{
	static struct tk_backend_load a, b;
	uint64_t ticks[4];
	/* utime 14th, stime 15th, processor 39th field. */
	const char *blkback = "312 (blkback.3.hda-0) S 2 0 0 0 -1 2129984 0 0 0 0 40 60 0 0 20 0 1 0 900 0 0 18446744073709551615 0 0 0 0 0 0 0 2147483647 0 0 0 0 17 1 0 0 0 0 0";
	const char *xs = "201 (oxenstored) S 1 201 201 0 -1 4194560 500 0 0 0 7 3 0 0 20 0 1 0 400 30000000 1000 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0";
	const char *xs_moved = "201 (oxenstored) S 1 201 201 0 -1 4194560 500 0 0 0 9 4 0 0 20 0 1 0 400 30000000 1000 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 2 0 0 0 0 0";
	const char *sh = "99 (sh) S 1 99 99 0 -1 4194560 500 0 0 0 1000 1000 0 0 20 0 1 0 400 30000000 1000 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0";
	const char *paren = "77 (vif) (x) S 1 99 99 0 -1 4194560 500 0 0 0 5 5 0 0 20 0 1 0 400 30000000 1000 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0";

	memset(&a, 0, sizeof(a));
	tk_backend_task_parse(blkback, &a);
	tk_backend_task_parse(xs, &a);
	tk_backend_task_parse(sh, &a);
	tk_backend_task_parse(paren, &a);
	tk_backend_task_parse("5 (blkback.1.x) S 1 2 3", &a);
	tk_backend_task_parse("6 (blkback.1.x", &a);
	tk_backend_task_parse("x (blkback.1.x) S 2 0 0 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 900 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0", &a);
	tk_backend_task_parse("7 (vif1.0-q0-guest-rx) S 2 0 0 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 900 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 17 99999 0 0 0 0 0", &a);
	tk_backend_task_parse("9 (2.hda-0) S 2 0 0 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 900 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0", &a);
	tk_backend_task_parse("10 (2.-0) S 2 0 0 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 900 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0", &a);
	tk_backend_task_parse("11 (12.xvda-) S 2 0 0 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 900 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0", &a);
	tk_backend_task_parse("12 (kworker/0:1) S 2 0 0 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 900 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0", &a);
	CHECK_U64(a.nr_threads, 4);
	CHECK_U64(a.nr, 2);
	/* Since a: oxenstored ran 3 ticks more and is on CPU 2 now; a new
	 * netback thread ran 6; blkback is gone. */
	memset(&b, 0, sizeof(b));
	tk_backend_task_parse(xs_moved, &b);
	tk_backend_task_parse(paren, &b);
	tk_backend_task_parse("8 (vif1.0-q0-dealloc) S 2 0 0 0 -1 0 0 0 0 0 2 4 0 0 20 0 1 0 900 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0", &b);
	tk_backend_ticks_between(&a, &b, ticks, 4);
	CHECK_U64(ticks[0], 0);
	CHECK_U64(ticks[1], 0);
	CHECK_U64(ticks[2], 3);
	CHECK_U64(ticks[3], 6);
}

/* n dom0 vCPUs, vCPU i pinned to pCPU i, the guest on gpcpu. */
static void view(struct tk_cpu_view *v, unsigned n, int gpcpu)
{
	memset(v, 0, sizeof(*v));
	v->nr_dom0 = n;
	v->pcpus_known = true;
	for (unsigned c = 0; c < n; c++) {
		tk_cpuset_add(&v->dom0_pcpus[c], c);
		tk_cpuset_add(&v->allowed, c);
	}
	if (gpcpu >= 0)
		tk_cpuset_add(&v->guest_pcpus, (unsigned)gpcpu);
	v->irqs_known = v->ticks_known = true;
	v->ticks_hz = 100;
	v->window_s = 0.2;
}

static void test_choose(void)
{
	struct tk_cpu_view *v = calloc(1, sizeof(*v));
	struct tk_sampler_cpu s;

	REQUIRE(v);
	/* Production shape: the ring's interrupts on CPU 1, the guest on
	 * pCPU 2: CPU 0 it is. */
	view(v, 2, 2);
	v->irqs[0] = 2;
	v->irqs[1] = 300;
	CHECK(tk_sampler_cpu_choose(v, -1, &s) == 0);
	CHECK(s.cpu == 0 && s.fit && !s.forced);
	CHECK(strstr(s.why, "dom0 CPU 0") && strstr(s.why, "pCPU 2"));

	/* No backend traffic: the highest-numbered one. */
	view(v, 4, 7);
	CHECK(tk_sampler_cpu_choose(v, -1, &s) == 0);
	CHECK(s.cpu == 3 && s.fit);

	/* The guest may run on pCPU 3: not there. */
	view(v, 4, 3);
	CHECK(tk_sampler_cpu_choose(v, -1, &s) == 0);
	CHECK(s.cpu == 2 && s.fit);

	/* taskset left CPU 1 only: that one, and it is not free. */
	view(v, 2, 1);
	memset(&v->allowed, 0, sizeof(v->allowed));
	tk_cpuset_add(&v->allowed, 1);
	CHECK(tk_sampler_cpu_choose(v, -1, &s) == 0);
	CHECK(s.cpu == 1 && !s.fit);
	CHECK(strstr(s.why, "no dom0 vCPU is free") && strstr(s.why, "dom0_max_vcpus"));

	/* Every vCPU serves backends: the one serving least, flagged. */
	view(v, 2, 2);
	v->irqs[0] = 100;
	v->irqs[1] = 40;
	CHECK(tk_sampler_cpu_choose(v, -1, &s) == 0);
	CHECK(s.cpu == 1 && !s.fit);
	CHECK(strstr(s.why, "CPU 0 serves backends"));

	/* blkback's thread on CPU 1, the ring's few interrupts on CPU 0:
	 * both serve, CPU 1 most. */
	view(v, 3, 3);
	v->irqs[0] = 15;
	v->ticks[1] = 40;
	CHECK(tk_sampler_cpu_choose(v, -1, &s) == 0);
	CHECK(s.cpu == 2 && s.fit);
	view(v, 2, 3);
	v->irqs[0] = 15;
	v->ticks[1] = 40;
	CHECK(tk_sampler_cpu_choose(v, -1, &s) == 0);
	CHECK(s.cpu == 0 && !s.fit);

	/* A few console interrupts do not make a CPU a backend's, neither
	 * as a share nor as a rate. */
	view(v, 2, 2);
	v->irqs[0] = 1000;
	v->irqs[1] = 3;
	CHECK(tk_sampler_cpu_choose(v, -1, &s) == 0);
	CHECK(s.cpu == 1 && s.fit);
	view(v, 2, 2);
	v->irqs[0] = 1;
	v->irqs[1] = 2;
	CHECK(tk_sampler_cpu_choose(v, -1, &s) == 0);
	CHECK(s.cpu == 0 && s.fit);

	/* dom0's vCPUs not pinned: each may run where the guest does. */
	view(v, 2, 1);
	for (unsigned c = 0; c < 2; c++)
		for (unsigned p = 0; p < 4; p++)
			tk_cpuset_add(&v->dom0_pcpus[c], p);
	CHECK(tk_sampler_cpu_choose(v, -1, &s) == 0);
	CHECK(!s.fit);
	CHECK(strstr(s.why, "may run where the guest does (pCPUs 0-3)"));

	/* One dom0 vCPU: nothing to move, said with the remedy. */
	view(v, 1, 1);
	CHECK(tk_sampler_cpu_choose(v, -1, &s) == 0);
	CHECK(s.cpu == -1 && !s.fit);
	CHECK(strstr(s.why, "dom0 has one vCPU") && strstr(s.why, "dom0_vcpus_pin"));

	/* Affinities unknown: never called free. */
	view(v, 2, 2);
	v->pcpus_known = false;
	CHECK(tk_sampler_cpu_choose(v, -1, &s) == 0);
	CHECK(!s.fit);

	/* --sampler-cpu: taken as said, checked against dom0's CPUs. */
	view(v, 2, 1);
	CHECK(tk_sampler_cpu_choose(v, 1, &s) == 0);
	CHECK(s.cpu == 1 && s.forced && !s.fit);
	CHECK(tk_sampler_cpu_choose(v, 5, &s) < 0);
	CHECK(strstr(s.why, "invalid --sampler-cpu '5'") && strstr(s.why, "0 to 1"));
	free(v);
}

/* Applying and restoring the calling thread's CPUs. */
static void test_apply(void)
{
	struct tk_sampler_cpu s = { .cpu = -1 };
	cpu_set_t before, saved, now;

	REQUIRE(sched_getaffinity(0, sizeof(before), &before) == 0);
	CHECK(tk_sampler_cpu_apply(&s, &saved) == 0);
	CHECK(CPU_COUNT(&saved) == 0);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &before)) {
			s.cpu = c;
			break;
		}
	CHECK(tk_sampler_cpu_apply(&s, &saved) == 0);
	REQUIRE(sched_getaffinity(0, sizeof(now), &now) == 0);
	CHECK(CPU_COUNT(&now) == 1 && CPU_ISSET(s.cpu, &now));
	tk_sampler_cpu_restore(&s, &saved);
	REQUIRE(sched_getaffinity(0, sizeof(now), &now) == 0);
	CHECK(CPU_EQUAL(&now, &before));
}

int main(void)
{
	RUN(test_parse);
	RUN(test_tasks);
	RUN(test_choose);
	RUN(test_apply);
	TEST_MAIN_END();
}
