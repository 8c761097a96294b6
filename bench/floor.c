/* uniprof-floor: what any pause-and-walk sampler must spend, measured with
 * Xen's own interfaces and nothing of uniprof's, so `make bench` can put
 * uniprof's figures beside it as ratios taken in the same boot.
 *
 *   uniprof-floor DOMID [-f HZ | -w] [-n SAMPLES] [-k FRAMES] [-g US] [--style S]
 *
 * --style floor (default): per sample, one domctl each to pause, read
 *   vCPU 0's context and unpause, through libxencall on buffers allocated
 *   once, and an rbp walk of FRAMES frames over foreign mappings cached
 *   across samples. -f HZ paces it on absolute deadlines with SCHED_FIFO
 *   and locked memory (the "paced floor"); -w runs it back to back (the
 *   "warm floor").
 * --style uniprof2017: the sampling loop of the 2017 uniprof's default
 *   build, done the way it does it (pause, context read and unpause, each
 *   a domctl through libxencall on a struct on the stack; a page-table
 *   walk mapping and unmapping each level for a page not yet mapped, the
 *   page then mapped for good; each frame's address written to a file;
 *   the domain's state asked once a second), back to back: the sampler
 *   users compare us with, reproduced so the bench needs no network.
 * --style fused: the floor with pause and context read in one multicall,
 *   and unpause with the domain's state in another (two traps a sample).
 *
 * --state in|after|none (fused only): the domain's state read in the
 *   unpausing multicall (in, the default: after the unpause entry, but
 *   inside the window measured), by a domctl of its own after the window
 *   (after), or not at all (none).
 * -g US: spin that long after each sample, as a sampler's own work between
 *   samples: back to back, how long the guest runs between two pauses
 *   decides what the next pause costs (whether it finds the vCPU running).
 *
 * Prints one line: "window_p50_us=… window_p99_us=… sample_us=… hz=…
 * samples=… frames=…", window being pause to unpause and sample the wall
 * time per sample. x86-64 PV guests only (the bench's guest). */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <xencall.h>
#include <xenctrl.h>
#include <xenforeignmemory.h>

#include "bench_time.h"

#define PAGE 4096ULL
#define CACHE 64
#define MAX_SAMPLES 1000000

enum style { FLOOR, UNIPROF2017, FUSED };

struct floor {
	uint32_t domid;
	enum style style;
	unsigned frames;
	xencall_handle *xcall;
	xenforeignmemory_handle *fmem;
	struct xen_domctl *dc, *dc2;   /* hypercall buffers, reused */
	vcpu_guest_context_any_t *ctx;
	multicall_entry_t *mc;
	struct { uint64_t key; const uint8_t *page; } cache[CACHE];
	unsigned cached;
	FILE *out;                     /* uniprof2017: its trace file */
	uint64_t frames_read;
};

static uint64_t pct(uint64_t *v, size_t n, double p)
{
	size_t r;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	r = (size_t)(p / 100.0 * (double)n + 0.999999);
	return v[(r ? r : 1) - 1];
}

static int domctl(struct floor *f, struct xen_domctl *dc, uint32_t cmd)
{
	dc->cmd = cmd;
	dc->interface_version = XEN_DOMCTL_INTERFACE_VERSION;
	dc->domain = (domid_t)f->domid;
	return xencall1(f->xcall, __HYPERVISOR_domctl, (uint64_t)(uintptr_t)dc);
}

static const uint8_t *map_frame(struct floor *f, uint64_t key, uint64_t mfn)
{
	const uint8_t *p;

	for (unsigned i = 0; i < f->cached; i++)
		if (f->cache[i].key == key)
			return f->cache[i].page;
	if (f->cached == CACHE)
		return NULL;
	{
		xen_pfn_t pfn = mfn;
		int err = 0;

		p = xenforeignmemory_map(f->fmem, f->domid, PROT_READ, 1, &pfn,
					 &err);
		if (p && err)
			p = NULL;
	}
	if (!p)
		return NULL;
	f->cache[f->cached].key = key;
	f->cache[f->cached++].page = p;
	return p;
}

/* The machine frame of a guest virtual page: a 4-level walk from cr3. */
static int translate(struct floor *f, uint64_t cr3_mfn, uint64_t va,
		     uint64_t *mfn)
{
	uint64_t table = cr3_mfn;

	if (f->style == UNIPROF2017) {
		/* It walks the tables anew for each page it has not
		 * mapped, mapping and unmapping every level. */
		for (int level = 3; level >= 0; level--) {
			xen_pfn_t pfn = table;
			int err = 0;
			void *p = xenforeignmemory_map(f->fmem, f->domid,
						       PROT_READ, 1, &pfn, &err);
			uint64_t e;

			if (!p || err)
				return -1;
			memcpy(&e, (uint8_t *)p + ((va >> (12 + 9 * level)) & 511) * 8, 8);
			xenforeignmemory_unmap(f->fmem, p, 1);
			if (!(e & 1) || (level && (e & 0x80)))
				return -1;
			table = (e & 0x000ffffffffff000ULL) >> 12;
		}
		*mfn = table;
		return 0;
	}
	for (int level = 3; level >= 0; level--) {
		/* Page-table frames keyed apart from data pages. */
		const uint8_t *p = map_frame(f, (table << 1) | 1, table);
		uint64_t e;

		if (!p)
			return -1;
		memcpy(&e, p + ((va >> (12 + 9 * level)) & 511) * 8, 8);
		if (!(e & 1))
			return -1;
		table = (e & 0x000ffffffffff000ULL) >> 12;
		if (level && (e & 0x80))        /* large page */
			return -1;
	}
	*mfn = table;
	return 0;
}

static int read_word(struct floor *f, uint64_t cr3_mfn, uint64_t va,
		     uint64_t *w)
{
	uint64_t mfn = 0;
	const uint8_t *p = NULL;

	if (va & 7)
		return -1;
	for (unsigned i = 0; i < f->cached; i++)
		if (f->cache[i].key == ((va & ~(PAGE - 1)) << 1)) {
			p = f->cache[i].page;
			break;
		}
	if (!p) {
		if (translate(f, cr3_mfn, va, &mfn) < 0)
			return -1;
		p = map_frame(f, (va & ~(PAGE - 1)) << 1, mfn);
		if (!p)
			return -1;
	}
	memcpy(w, p + (va & (PAGE - 1)), 8);
	return 0;
}

/* rbp chain of at most f->frames frames. */
static void walk(struct floor *f, const vcpu_guest_context_any_t *c)
{
#if defined(__x86_64__)
	uint64_t bp = c->x64.user_regs.rbp, ip = c->x64.user_regs.rip;
	uint64_t cr3 = xen_cr3_to_pfn_x86_64(c->x64.ctrlreg[3]);
#else
	/* The bench's floor is an x86-64 PV guest's; main refuses others. */
	uint64_t bp = 0, ip = 0, cr3 = 0;

	(void)c;
#endif

	for (unsigned i = 0; i < f->frames && bp; i++) {
		uint64_t next, ra;

		if (f->out)
			fprintf(f->out, "%#" PRIx64 "\n", ip);
		if (read_word(f, cr3, bp, &next) < 0 ||
		    read_word(f, cr3, bp + 8, &ra) < 0)
			break;
		f->frames_read++;
		if (next <= bp)
			break;
		bp = next;
		ip = ra;
	}
	if (f->out)
		fputs("1\n\n", f->out);
}

static int sample_floor(struct floor *f)
{
	int rc;

	if (domctl(f, f->dc, XEN_DOMCTL_pausedomain) < 0)
		return -1;
	f->dc->u.vcpucontext.vcpu = 0;
	set_xen_guest_handle_raw(f->dc->u.vcpucontext.ctxt,
				 (vcpu_guest_context_t *)f->ctx);
	rc = domctl(f, f->dc, XEN_DOMCTL_getvcpucontext);
	if (rc == 0)
		walk(f, f->ctx);
	for (int i = 0; i < 5; i++)       /* never leave it paused */
		if (domctl(f, f->dc, XEN_DOMCTL_unpausedomain) == 0)
			return rc;
	return -1;
}

#define NOT_RUN 0x5a5a5a5aULL   /* no domctl returns it */

static void mc_domctl(struct floor *f, multicall_entry_t *e,
		      struct xen_domctl *dc, uint32_t cmd)
{
	dc->cmd = cmd;
	dc->interface_version = XEN_DOMCTL_INTERFACE_VERSION;
	dc->domain = (domid_t)f->domid;
	memset(e, 0, sizeof(*e));
	e->op = __HYPERVISOR_domctl;
	e->args[0] = (uint64_t)(uintptr_t)dc;
	e->result = NOT_RUN;
}

enum state_read { STATE_IN, STATE_AFTER, STATE_NONE };

static int sample_fused(struct floor *f, enum state_read state)
{
	int rc;

	mc_domctl(f, &f->mc[0], f->dc, XEN_DOMCTL_pausedomain);
	mc_domctl(f, &f->mc[1], f->dc2, XEN_DOMCTL_getvcpucontext);
	f->dc2->u.vcpucontext.vcpu = 0;
	set_xen_guest_handle_raw(f->dc2->u.vcpucontext.ctxt,
				 (vcpu_guest_context_t *)f->ctx);
	rc = xencall2(f->xcall, __HYPERVISOR_multicall,
		      (uint64_t)(uintptr_t)f->mc, 2);
	/* Paused only if the pause entry ran and succeeded. */
	if (f->mc[0].result != 0)
		return -1;
	if (rc == 0 && f->mc[1].result == 0)
		walk(f, f->ctx);
	mc_domctl(f, &f->mc[0], f->dc, XEN_DOMCTL_unpausedomain);
	mc_domctl(f, &f->mc[1], f->dc2, XEN_DOMCTL_getdomaininfo);
	f->dc2->u.getdomaininfo.domain = (domid_t)f->domid;
	xencall2(f->xcall, __HYPERVISOR_multicall, (uint64_t)(uintptr_t)f->mc,
		 state == STATE_IN ? 2 : 1);
	if (f->mc[0].result == 0)
		return 0;
	/* The unpause did not run, or failed: once more, plainly (never
	 * twice after one that ran: Xen's pause is a count). */
	return domctl(f, f->dc, XEN_DOMCTL_unpausedomain) < 0 ? -1 : -2;
}

/* The 2017 uniprof's default build (libxencall): each domctl on a struct
 * on its stack, the context into another, no buffers kept. */
static int domctl_2017(struct floor *f, struct xen_domctl *dc, uint32_t cmd)
{
	dc->cmd = cmd;
	dc->interface_version = XEN_DOMCTL_INTERFACE_VERSION;
	dc->domain = (domid_t)f->domid;
	return xencall1(f->xcall, __HYPERVISOR_domctl, (uint64_t)(uintptr_t)dc);
}

static int sample_2017(struct floor *f, uint64_t *last_state)
{
	struct xen_domctl dc = { 0 };
	vcpu_guest_context_any_t ctx;
	uint64_t t = mono_ns();
	int rc;

	/* Its outer loop asks the domain's state once a second. */
	if (t - *last_state >= 1000000000ULL) {
		dc.u.getdomaininfo.domain = (domid_t)f->domid;
		if (domctl_2017(f, &dc, XEN_DOMCTL_getdomaininfo) < 0 ||
		    (dc.u.getdomaininfo.flags & XEN_DOMINF_dying))
			return -1;
		*last_state = t;
	}
	if (domctl_2017(f, &dc, XEN_DOMCTL_pausedomain) < 0)
		return -1;
	dc.u.vcpucontext.vcpu = 0;
	set_xen_guest_handle_raw(dc.u.vcpucontext.ctxt,
				 (vcpu_guest_context_t *)&ctx);
	rc = domctl_2017(f, &dc, XEN_DOMCTL_getvcpucontext);
	if (rc == 0)
		walk(f, &ctx);
	if (domctl_2017(f, &dc, XEN_DOMCTL_unpausedomain) < 0)
		return -1;
	return 0;
}

static int usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s DOMID [-f HZ | -w] [-n SAMPLES] [-k FRAMES] [-g US] [--style floor|uniprof2017|fused] [--state in|after|none]\n",
		argv0);
	return 2;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "style", required_argument, NULL, 's' },
		{ "state", required_argument, NULL, 'S' }, { 0 }
	};
	struct floor f = { .frames = 12 };
	double hz = 97;
	bool warm = false;
	unsigned long n = 1000;
	uint64_t *win, period, deadline, t_start, last_state = 0, total;
	uint64_t cpu_start, cpu, gap_ns = 0;
	enum state_read state = STATE_IN;
	struct sched_param sp = { .sched_priority = 1 };
	unsigned long done = 0;
	int opt, rc = 0;

	while ((opt = getopt_long(argc, argv, "f:wn:k:g:", lo, NULL)) != -1) {
		switch (opt) {
		case 'f': hz = strtod(optarg, NULL); break;
		case 'w': warm = true; break;
		case 'n': n = strtoul(optarg, NULL, 0); break;
		case 'k': f.frames = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'g': gap_ns = strtoull(optarg, NULL, 0) * 1000; break;
		case 'S':
			if (!strcmp(optarg, "in"))
				state = STATE_IN;
			else if (!strcmp(optarg, "after"))
				state = STATE_AFTER;
			else if (!strcmp(optarg, "none"))
				state = STATE_NONE;
			else
				return usage(argv[0]);
			break;
		case 's':
			if (!strcmp(optarg, "floor"))
				f.style = FLOOR;
			else if (!strcmp(optarg, "uniprof2017"))
				f.style = UNIPROF2017;
			else if (!strcmp(optarg, "fused"))
				f.style = FUSED;
			else
				return usage(argv[0]);
			break;
		default:
			return usage(argv[0]);
		}
	}
	if (optind + 1 != argc || !(hz > 0) || n == 0 || n > MAX_SAMPLES)
		return usage(argv[0]);
#if !defined(__x86_64__)
	fprintf(stderr, "uniprof-floor: measures x86-64 PV guests only\n");
	return 2;
#endif
	f.domid = (uint32_t)strtoul(argv[optind], NULL, 0);
	f.xcall = xencall_open(NULL, 0);
	f.fmem = xenforeignmemory_open(NULL, 0);
	win = calloc(n, sizeof(*win));
	if (!f.xcall || !f.fmem || !win) {
		fprintf(stderr, "uniprof-floor: cannot open Xen's interfaces: %s\n",
			strerror(errno));
		return 1;
	}
	f.dc = xencall_alloc_buffer(f.xcall, sizeof(*f.dc));
	f.dc2 = xencall_alloc_buffer(f.xcall, sizeof(*f.dc2));
	f.ctx = xencall_alloc_buffer(f.xcall, sizeof(*f.ctx));
	f.mc = xencall_alloc_buffer(f.xcall, 2 * sizeof(*f.mc));
	if (!f.dc || !f.dc2 || !f.ctx || !f.mc) {
		fprintf(stderr, "uniprof-floor: cannot allocate hypercall buffers\n");
		return 1;
	}
	memset(f.dc, 0, sizeof(*f.dc));
	memset(f.dc2, 0, sizeof(*f.dc2));
	if (f.style == UNIPROF2017) {
		f.out = fopen("/tmp/uniprof-floor.trace", "w");
		if (!f.out) {
			perror("uniprof-floor: /tmp/uniprof-floor.trace");
			return 1;
		}
	}
	if (!warm && f.style != UNIPROF2017) {
		if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0 ||
		    sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
			fprintf(stderr, "uniprof-floor: not real-time: %s\n",
				strerror(errno));
	}
	period = warm || f.style == UNIPROF2017 ? 0 :
		 (uint64_t)(1e9 / hz);
	cpu_start = cpu_ns();
	t_start = deadline = mono_ns();
	while (done < n) {
		uint64_t t0;

		if (period) {
			struct timespec ts;

			deadline += period;
			ts.tv_sec = (time_t)(deadline / 1000000000ULL);
			ts.tv_nsec = (long)(deadline % 1000000000ULL);
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
					       &ts, NULL) == EINTR)
				;
		}
		t0 = mono_ns();
		rc = f.style == FLOOR ? sample_floor(&f) :
		     f.style == FUSED ? sample_fused(&f, state) :
		     sample_2017(&f, &last_state);
		if (rc < 0) {
			fprintf(stderr, "uniprof-floor: sample %lu failed: %s\n",
				done, strerror(errno));
			break;
		}
		win[done++] = mono_ns() - t0;
		if (f.style == FUSED && state == STATE_AFTER) {
			f.dc2->u.getdomaininfo.domain = (domid_t)f.domid;
			domctl(&f, f.dc2, XEN_DOMCTL_getdomaininfo);
		}
		for (uint64_t t1 = mono_ns(); gap_ns && mono_ns() - t1 < gap_ns;)
			;
	}
	total = mono_ns() - t_start;
	cpu = cpu_ns() - cpu_start;
	if (f.out)
		fclose(f.out);
	if (done == 0)
		return 1;
	printf("window_p50_us=%.1f window_p99_us=%.1f sample_us=%.1f hz=%.1f samples=%lu frames=%.1f cpu_us=%.1f\n",
	       (double)pct(win, done, 50) / 1e3, (double)pct(win, done, 99) / 1e3,
	       (double)total / 1e3 / (double)done,
	       (double)done * 1e9 / (double)total, done,
	       (double)f.frames_read / (double)done,
	       (double)cpu / 1e3 / (double)done);
	return rc < 0 ? 1 : 0;
}
