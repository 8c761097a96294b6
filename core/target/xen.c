/* The Xen target: a live domain through libxenctrl (domain info, and the
 * portable pause/registers path), libxencall (the direct path: raw domctls
 * on buffers that live across samples, see target/xen_domctl.h) and
 * libxenforeignmemory (read-only frame mappings). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <xenctrl.h>
#include <xenforeignmemory.h>
#include <xentoollog.h>
#include <xen/hvm/save.h>

#include "util/clock.h"
#include "util/error_impl.h"
#include "target/target_impl.h"
#include "target/xen_domctl.h"
#if defined(__aarch64__)
#include "target/xen_context_arm64.h"
#else
#include "target/xen_context_x86.h"
#include "private.h"
#endif

#define ONLINE_REFRESH_NS 1000000000ULL

struct xen_target {
	struct up_target base;
	xentoollog_logger *log;
	xc_interface *xch;
	xenforeignmemory_handle *fmem;
	struct xen_domctl_path *direct;   /* NULL: libxenctrl path */
	char path_note[512];              /* why not direct, if so */
	bool *online;            /* HVM: vCPU up, refreshed outside pauses */
	uint64_t online_stamp;
	bool crashed;            /* last state check: shut down by a crash */
	unsigned read_first, read_n;  /* the next pause reads these vCPUs */
	uint32_t read_state;          /* ... and these ones' state */
	bool state_with_unpause;      /* its unpause reads the state too */
	unsigned clocks_n;            /* ... and these vCPUs' run clocks */
};

static struct xen_target *to_xen(struct up_target *t)
{
	return (struct xen_target *)t;
}

/* Whether each HVM vCPU is up: one hypercall per vCPU, so done with the
 * state check the sampler makes after each sample, while the domain runs,
 * at most once a second. */
static void refresh_online(struct xen_target *x)
{
	uint64_t now = mono_ns();

	if (x->base.info.type != UP_DOMAIN_HVM ||
	    (x->online_stamp && now - x->online_stamp < ONLINE_REFRESH_NS))
		return;
	x->online_stamp = now;
	for (unsigned v = 0; v < x->base.info.max_vcpus; v++) {
		xc_vcpuinfo_t vi;

		if (xc_vcpu_getinfo(x->xch, x->base.info.domid, v, &vi) == 0)
			x->online[v] = vi.online;
	}
}

/* The next pause is a sample's: the vCPUs it reads. Its unpause also
 * reads the domain's state, which the sampler asks after each sample,
 * and, when `clocks`, these vCPUs' run clocks: Xen makes those reads
 * after the unpause, so the guest does not wait for them, and dom0 saves
 * a trap for each (the window the sampler measures ends when the
 * unpausing call returns, a few microseconds of Xen's time later). */
static void xen_will_read(struct up_target *t, unsigned first, unsigned last,
			  uint32_t ask_state, bool clocks)
{
	struct xen_target *x = to_xen(t);

	x->read_first = first;
	x->read_n = last - first + 1;
	x->read_state = ask_state;
	x->state_with_unpause = true;
	x->clocks_n = clocks ? last - first + 1 : 0;
}

static int xen_pause(struct up_target *t)
{
	struct xen_target *x = to_xen(t);

	if (x->direct) {
		unsigned n = x->read_n;

		x->read_n = 0;
#if defined(__aarch64__)
		return xen_domctl_pause_read(x->direct, x->read_first, n,
					     x->read_state, false);
#else
		return xen_domctl_pause_read(x->direct, x->read_first, n,
					     x->read_state,
					     t->info.type != UP_DOMAIN_PV);
#endif
	}
	if (xc_domain_pause(x->xch, t->info.domid) < 0)
		return up_fail(errno == ESRCH ? UP_EGONE : UP_EIO,
			       "cannot pause domain %u: %s", t->info.domid,
			       strerror(errno));
	return 0;
}

static int xen_unpause(struct up_target *t)
{
	struct xen_target *x = to_xen(t);

	if (x->direct && x->state_with_unpause) {
		unsigned n = x->clocks_n;

		x->state_with_unpause = false;
		x->clocks_n = 0;
		return xen_domctl_unpause_state(x->direct, x->read_first, n);
	}
	if (x->direct)
		return xen_domctl_unpause(x->direct);
	if (xc_domain_unpause(x->xch, t->info.domid) < 0)
		return up_fail(errno == ESRCH ? UP_EGONE : UP_EIO,
			       "cannot unpause domain %u: %s", t->info.domid,
			       strerror(errno));
	return 0;
}

#if defined(__aarch64__)
/* Xen on Arm: every guest's registers are its vCPU context record. */
static int xen_get_regs(struct up_target *t, unsigned vcpu,
			struct up_regs *r)
{
	struct xen_target *x = to_xen(t);
	vcpu_guest_context_any_t buf;
	const vcpu_guest_context_any_t *c = &buf;
	int rc;

	_Static_assert(sizeof(buf.c) == sizeof(struct vcpu_guest_context_arm64),
		       "Xen's native and foreign AArch64 context layouts differ");
	memset(r, 0, sizeof(*r));
	if (x->direct) {
		rc = xen_domctl_vcpu_context(x->direct, vcpu, &c);
		if (rc < 0)
			return rc;
	} else if (xc_vcpu_getcontext(x->xch, t->info.domid, vcpu, &buf) < 0) {
		return up_fail(UP_EIO, "cannot read vCPU %u registers: %s",
			       vcpu, strerror(errno));
	}
	return xen_context_arm64_regs((const struct vcpu_guest_context_arm64 *)&c->c, r);
}
#else
static int pv_regs(struct xen_target *x, unsigned vcpu, struct up_regs *r)
{
	vcpu_guest_context_any_t buf;
	const vcpu_guest_context_any_t *c = &buf;

	if (x->direct) {
		int rc = xen_domctl_vcpu_context(x->direct, vcpu, &c);

		if (rc < 0)
			return rc;
	} else if (xc_vcpu_getcontext(x->xch, x->base.info.domid, vcpu,
				      &buf) < 0) {
		return up_fail(UP_EIO, "cannot read vCPU %u registers: %s",
			       vcpu, strerror(errno));
	}
	xen_context_pv_regs(c, x->base.info.guest_width, r);
	return 0;
}

static int hvm_regs(struct xen_target *x, unsigned vcpu, struct up_regs *r)
{
	struct hvm_hw_cpu buf;
	const struct hvm_hw_cpu *c = &buf;

	if (x->direct) {
		int rc = xen_domctl_hvm_cpu(x->direct, vcpu, &c);

		if (rc < 0)
			return rc;
	} else if (xc_domain_hvm_getcontext_partial(x->xch,
						    x->base.info.domid,
						    HVM_SAVE_CODE(CPU), vcpu,
						    &buf, sizeof(buf)) < 0) {
		return up_fail(UP_EIO, "cannot read vCPU %u registers: %s",
			       vcpu, strerror(errno));
	}
	xen_context_hvm_cpu_regs(c, r);
	r->online = x->online[vcpu];
	return 0;
}

static int xen_get_regs(struct up_target *t, unsigned vcpu,
			struct up_regs *r)
{
	struct xen_target *x = to_xen(t);

	memset(r, 0, sizeof(*r));
	return t->info.type == UP_DOMAIN_PV ? pv_regs(x, vcpu, r) :
					      hvm_regs(x, vcpu, r);
}
#endif

/* Blocked or not, inside the pause: one getvcpuinfo per vCPU. It also
 * says whether the vCPU is up, fresher than the HVM refresh above, and
 * its run time (Xen's run-state "running" time: not runnable, blocked or
 * paused). */
static int xen_activity(struct up_target *t, unsigned vcpu,
			enum up_vcpu_activity *activity, bool *online,
			uint64_t *run_ns)
{
	struct xen_target *x = to_xen(t);
	bool blocked;

	if (x->direct) {
		int rc = xen_domctl_vcpu_info(x->direct, vcpu, online, &blocked,
					      run_ns);

		if (rc < 0)
			return rc;
	} else {
		xc_vcpuinfo_t vi;

		if (xc_vcpu_getinfo(x->xch, t->info.domid, vcpu, &vi) < 0)
			return up_fail(UP_EIO, "cannot read vCPU %u state: %s",
				       vcpu, strerror(errno));
		*online = vi.online;
		blocked = vi.blocked;
		*run_ns = vi.cpu_time;
	}
	*activity = blocked ? UP_VCPU_BLOCKED : UP_VCPU_BUSY;
	if (t->info.type == UP_DOMAIN_HVM)
		x->online[vcpu] = *online;
	return 0;
}

static bool xen_crashed(struct up_target *t)
{
	return to_xen(t)->crashed;
}

static int xen_map_frame(struct up_target *t, enum up_frame_kind kind,
			 uint64_t frame, const void **page)
{
	struct xen_target *x = to_xen(t);
	enum up_frame_kind want = t->info.type == UP_DOMAIN_PV ?
				  UP_FRAME_MFN : UP_FRAME_GFN;
	xen_pfn_t pfn = (xen_pfn_t)frame;
	int err = 0;
	void *p;

	if (kind != want)
		return up_fail(UP_EINVAL, "%s frame asked of a %s domain",
			       kind == UP_FRAME_MFN ? "machine" : "guest",
			       want == UP_FRAME_MFN ? "PV" : "HVM/PVH");
	p = xenforeignmemory_map(x->fmem, t->info.domid, PROT_READ, 1, &pfn,
				 &err);
	if (!p || err) {
		if (p)
			xenforeignmemory_unmap(x->fmem, p, 1);
		return up_fail(UP_EFAULT, "cannot map guest frame %#llx: %s",
			       (unsigned long long)frame,
			       strerror(err ? -err : errno));
	}
	*page = p;
	return 0;
}

static void xen_unmap_frame(struct up_target *t, const void *page)
{
	xenforeignmemory_unmap(to_xen(t)->fmem, (void *)page, 1);
}

/* The state the last fused unpause read in the same trap, else one bare
 * getdomaininfo on the direct path's buffers (libxenctrl's bounces). */
static bool state_from_unpause(struct xen_target *x,
			       enum up_domain_state *state)
{
	uint32_t f, reason;
	bool exists;

	if (!x->direct || (!xen_domctl_last_state(x->direct, &f, &exists) &&
			   xen_domctl_state(x->direct, &f, &exists) < 0))
		return false;
	reason = (f >> XEN_DOMINF_shutdownshift) & XEN_DOMINF_shutdownmask;
	if (!exists)
		*state = UP_STATE_GONE;
	else if (f & XEN_DOMINF_dying)
		*state = UP_STATE_DYING;
	else if (f & XEN_DOMINF_shutdown)
		*state = UP_STATE_SHUTDOWN;
	else
		*state = UP_STATE_RUNNING;
	x->crashed = exists && (f & XEN_DOMINF_shutdown) &&
		     reason == SHUTDOWN_crash;
	return true;
}

static int xen_state(struct up_target *t, enum up_domain_state *state)
{
	xc_dominfo_t info;
	int n;

	if (state_from_unpause(to_xen(t), state)) {
		if (*state == UP_STATE_RUNNING)
			refresh_online(to_xen(t));
		return 0;
	}
	n = xc_domain_getinfo(to_xen(t)->xch, t->info.domid, 1, &info);

	/* getinfo returns the next domain when ours is gone. */
	if (n != 1 || info.domid != t->info.domid)
		*state = UP_STATE_GONE;
	else if (info.dying)
		*state = UP_STATE_DYING;
	else if (info.shutdown || info.crashed)
		*state = UP_STATE_SHUTDOWN;
	else
		*state = UP_STATE_RUNNING;
	to_xen(t)->crashed = n == 1 && info.domid == t->info.domid &&
			     (info.crashed || (info.shutdown &&
					       info.shutdown_reason == SHUTDOWN_crash));
	if (*state == UP_STATE_RUNNING)
		refresh_online(to_xen(t));
	return 0;
}

static void xen_close(struct up_target *t)
{
	struct xen_target *x = to_xen(t);

	xen_domctl_close(x->direct);
	if (x->fmem)
		xenforeignmemory_close(x->fmem);
	if (x->xch)
		xc_interface_close(x->xch);
	if (x->log)
		xtl_logger_destroy(x->log);
	free(x->online);
	free(x);
}

static const struct up_target_ops xen_ops = {
	.pause = xen_pause,
	.unpause = xen_unpause,
	.get_regs = xen_get_regs,
	.map_frame = xen_map_frame,
	.unmap_frame = xen_unmap_frame,
	.state = xen_state,
	.activity = xen_activity,
	.will_read = xen_will_read,
	.crashed = xen_crashed,
	.close = xen_close,
	.live = true,
};

int up_target_open_xen(struct up_target **out, uint32_t domid)
{
	return up_target_open_xen_with(out, domid, UP_HYPERCALLS_AUTO);
}

static int open_xen(struct up_target **out, uint32_t domid,
		    enum up_hypercalls how, bool stopped_ok);

int up_target_open_xen_with(struct up_target **out, uint32_t domid,
			    enum up_hypercalls how)
{
	return open_xen(out, domid, how, false);
}

int up_target_open_xen_stopped(struct up_target **out, uint32_t domid,
			       enum up_hypercalls how)
{
	return open_xen(out, domid, how, true);
}

static int open_xen(struct up_target **out, uint32_t domid,
		    enum up_hypercalls how, bool stopped_ok)
{
	struct xen_target *x;
	xc_dominfo_t info;
	unsigned width = 0;
	int rc;

	if (domid == 0)
		return up_fail(UP_EINVAL,
			       "domain 0 is the control domain: profile a guest domain instead");
	x = calloc(1, sizeof(*x));
	if (!x)
		return up_fail(UP_ENOMEM, "out of memory");
	target_init(&x->base, &xen_ops);
	x->base.info.domid = domid;
	/* libxenctrl logs its own errors to stderr; we report one line. */
	x->log = (xentoollog_logger *)xtl_createlogger_stdiostream(
		stderr, getenv("UNIPROF_XEN_DEBUG") ? XTL_DEBUG : XTL_CRITICAL,
		0);
	x->xch = xc_interface_open(x->log, x->log, 0);
	if (!x->xch) {
		rc = up_fail(UP_EIO,
			     "cannot open the Xen control interface: run as root in dom0 with xen-privcmd loaded");
		goto fail;
	}
	x->fmem = xenforeignmemory_open(x->log, 0);
	if (!x->fmem) {
		rc = up_fail(UP_EIO, "cannot open xenforeignmemory: %s",
			     strerror(errno));
		goto fail;
	}
	if (xc_domain_getinfo(x->xch, domid, 1, &info) != 1 ||
	    info.domid != domid) {
		rc = up_fail(UP_ENOENT, "domain %u does not exist", domid);
		goto fail;
	}
	x->crashed = info.crashed ||
		     (info.shutdown && info.shutdown_reason == SHUTDOWN_crash);
	if (info.dying || (info.shutdown && !stopped_ok)) {
		rc = up_fail(UP_EGONE, "domain %u is shutting down", domid);
		goto fail;
	}
	x->base.info.type = info.hvm ? UP_DOMAIN_HVM : UP_DOMAIN_PV;
	x->base.info.max_vcpus = info.max_vcpu_id + 1;
	if (xc_domain_get_guest_width(x->xch, domid, &width) < 0) {
		rc = up_fail(UP_EIO, "cannot read the guest width of domain %u: %s",
			     domid, strerror(errno));
		goto fail;
	}
	x->base.info.guest_width = width;
	/* Xen runs guests of its own architecture, dom0's and ours. */
	x->base.info.arch = UP_ARCH_HOST;
	x->online = calloc(x->base.info.max_vcpus, sizeof(*x->online));
	if (!x->online) {
		rc = up_fail(UP_ENOMEM, "out of memory");
		goto fail;
	}
	x->base.info.hypercalls = "libxenctrl";
	if (how != UP_HYPERCALLS_LIBXENCTRL) {
		rc = xen_domctl_open(&x->direct, domid, x->log);
		if (rc == 0)
			x->base.info.hypercalls = "direct domctl";
		else if (how == UP_HYPERCALLS_DIRECT)
			goto fail;
		else {
			snprintf(x->path_note, sizeof(x->path_note),
				 "libxenctrl (direct path unavailable: %s)",
				 up_error_last());
			x->base.info.hypercalls = x->path_note;
			up_error_clear();
		}
	}
	refresh_online(x);
	*out = &x->base;
	return 0;
fail:
	xen_close(&x->base);
	return rc;
}
