/* Xen's idle clock of each pCPU (see pcpu_clock.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xenctrl.h>

#include "pcpu_clock.h"
#include "util/clock.h"

void tk_pcpu_clock_read(struct tk_pcpu_clock *c)
{
	xc_interface *xch;
	xc_cpuinfo_t *info;
	int nr = 0;

	memset(c, 0, sizeof(*c));
	info = calloc(TK_MAX_CPUS, sizeof(*info));
	xch = info ? xc_interface_open(NULL, NULL, 0) : NULL;
	if (xch && xc_getcpuinfo(xch, TK_MAX_CPUS, info, &nr) == 0 && nr > 0) {
		c->at_ns = mono_ns();
		c->nr = nr > TK_MAX_CPUS ? TK_MAX_CPUS : (unsigned)nr;
		for (unsigned i = 0; i < c->nr; i++)
			c->idle_ns[i] = info[i].idletime;
		c->ok = true;
	}
	if (xch)
		xc_interface_close(xch);
	free(info);
}

double tk_pcpu_others_pct(const struct tk_pcpu_clock *a,
			   const struct tk_pcpu_clock *b,
			   const struct tk_cpuset *may_run,
			   double guest_running_pct)
{
	double wall, least = -1;
	unsigned n = 0;

	if (!a->ok || !b->ok || b->at_ns <= a->at_ns)
		return -1;
	wall = (double)(b->at_ns - a->at_ns);
	for (unsigned p = 0; p < a->nr && p < b->nr; p++) {
		double idle, busy;

		if (!tk_cpuset_has(may_run, p))
			continue;
		idle = b->idle_ns[p] >= a->idle_ns[p] ?
		       (double)(b->idle_ns[p] - a->idle_ns[p]) : 0;
		busy = 100.0 * (wall - idle) / wall;
		if (busy < 0)
			busy = 0;
		if (least < 0 || busy < least)
			least = busy;
		n++;
	}
	if (!n)
		return -1;
	if (n == 1 && guest_running_pct > 0)
		least -= guest_running_pct;
	return least < 0 ? 0 : least;
}
