/* Direct domctl hypercalls through libxencall with buffers that live across
 * samples (see target/xen_domctl.h for why). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xencall.h>

#include "util/error_impl.h"
#include "target/xen_domctl.h"

#define FUSED XEN_DOMCTL_FUSED_VCPUS
/* A multicall entry's result before Xen writes it: no domctl returns it. */
#define NOT_RUN 0x5a5a5a5aULL

/* The fused calls' buffers (hypercall buffers, allocated at open). */
struct fused {
	multicall_entry_t *mc;            /* 1 + 2 * FUSED entries */
	struct xen_domctl *dc;            /* one per entry */
	unsigned info_entry[FUSED];       /* vCPU first + i's getvcpuinfo, or 0 */
	vcpu_guest_context_any_t *ctx;    /* PV: one per vCPU read */
#ifdef XEN_DOMCTL_HVM_CPU
	struct hvm_hw_cpu *cpu;           /* HVM: one per vCPU read */
#endif
	unsigned first, n;                /* the vCPUs read in this pause */
	bool hvm;
	bool valid;                       /* paused, registers of this pause */
	bool broken;                      /* multicall refused: never again */
	bool have_state;                  /* the last unpause read the state */
	uint32_t state_flags;
	bool state_exists;
	/* The run clocks the last unpause read: vCPU after_first + i's
	 * getvcpuinfo entry, or 0; each served once. */
	unsigned after_first, after_n;
	unsigned after_entry[FUSED];
};

struct xen_domctl_path {
	xencall_handle *xcall;
	uint32_t domid;
	uint32_t version;                 /* domctl interface version we speak */
	struct xen_domctl *dc;            /* hypercall buffer, reused */
	vcpu_guest_context_any_t *vcpu;   /* hypercall buffer, reused */
#ifdef XEN_DOMCTL_HVM_CPU
	struct hvm_hw_cpu *cpu;           /* hypercall buffer, reused */
#endif
	struct fused f;
};

/* Our buffers are libxencall's, not libxenctrl's hypercall-buffer
 * objects: set_xen_guest_handle_raw stores the plain pointer. */

/* One domctl on the reused buffer. Only the header and the fields the
 * command reads are set: the rest is left as the last call left it. */
static int domctl(struct xen_domctl_path *p, uint32_t cmd)
{
	p->dc->cmd = cmd;
	p->dc->interface_version = p->version;
	p->dc->domain = (domid_t)p->domid;
	return xencall1(p->xcall, __HYPERVISOR_domctl,
			(uint64_t)(uintptr_t)p->dc);
}

static int fail_errno(const char *what, struct xen_domctl_path *p)
{
	return up_fail(errno == ESRCH ? UP_EGONE : UP_EIO,
		       "cannot %s domain %u: %s", what, p->domid,
		       strerror(errno));
}

int xen_domctl_open(struct xen_domctl_path **out, uint32_t domid,
		    xentoollog_logger *log)
{
	struct xen_domctl_path *p = calloc(1, sizeof(*p));
	bool ok;
	int rc;

	if (!p)
		return up_fail(UP_ENOMEM, "out of memory");
	p->domid = domid;
	/* The tests make Xen see another version, to prove the check. */
	p->version = getenv("UNIPROF_TEST_DOMCTL_VERSION") ?
		     (uint32_t)strtoul(getenv("UNIPROF_TEST_DOMCTL_VERSION"), NULL, 0) :
		     XEN_DOMCTL_INTERFACE_VERSION;
	p->xcall = xencall_open((struct xentoollog_logger *)log, 0);
	if (!p->xcall) {
		rc = up_fail(UP_EIO, "cannot open libxencall: %s",
			     strerror(errno));
		goto fail;
	}
	p->dc = xencall_alloc_buffer(p->xcall, sizeof(*p->dc));
	p->vcpu = xencall_alloc_buffer(p->xcall, sizeof(*p->vcpu));
	ok = p->dc && p->vcpu;
#ifdef XEN_DOMCTL_HVM_CPU
	p->cpu = xencall_alloc_buffer(p->xcall, sizeof(*p->cpu));
	ok = ok && p->cpu;
#endif
	p->f.mc = xencall_alloc_buffer(p->xcall, (2 * FUSED + 1) * sizeof(*p->f.mc));
	p->f.dc = xencall_alloc_buffer(p->xcall, (2 * FUSED + 1) * sizeof(*p->f.dc));
	p->f.ctx = xencall_alloc_buffer(p->xcall, FUSED * sizeof(*p->f.ctx));
	ok = ok && p->f.mc && p->f.dc && p->f.ctx;
#ifdef XEN_DOMCTL_HVM_CPU
	p->f.cpu = xencall_alloc_buffer(p->xcall, FUSED * sizeof(*p->f.cpu));
	ok = ok && p->f.cpu;
#endif
	if (!ok) {
		rc = up_fail(UP_ENOMEM, "cannot allocate hypercall buffers: %s",
			     strerror(errno));
		goto fail;
	}
	memset(p->f.dc, 0, (2 * FUSED + 1) * sizeof(*p->f.dc));
	memset(p->dc, 0, sizeof(*p->dc));
	/* Xen refuses a domctl of another interface version with EACCES
	 * before it looks at anything else: ask once, harmlessly. */
	p->dc->u.getdomaininfo.domain = (domid_t)domid;
	if (domctl(p, XEN_DOMCTL_getdomaininfo) < 0) {
		if (errno == EACCES)
			rc = up_fail(UP_EUNSUPP,
				     "the running hypervisor refuses domctl interface version 0x%x (uniprof was built against Xen %s headers): use --hypercalls libxenctrl, or rebuild uniprof against this Xen's headers",
				     p->version,
				     UP_XEN_HEADERS_VERSION);
		else
			rc = fail_errno("query", p);
		goto fail;
	}
	*out = p;
	return 0;
fail:
	xen_domctl_close(p);
	return rc;
}

void xen_domctl_close(struct xen_domctl_path *p)
{
	if (!p)
		return;
	if (p->xcall) {
		if (p->dc)
			xencall_free_buffer(p->xcall, p->dc);
		if (p->vcpu)
			xencall_free_buffer(p->xcall, p->vcpu);
		if (p->f.mc)
			xencall_free_buffer(p->xcall, p->f.mc);
		if (p->f.dc)
			xencall_free_buffer(p->xcall, p->f.dc);
		if (p->f.ctx)
			xencall_free_buffer(p->xcall, p->f.ctx);
#ifdef XEN_DOMCTL_HVM_CPU
		if (p->f.cpu)
			xencall_free_buffer(p->xcall, p->f.cpu);
#endif
#ifdef XEN_DOMCTL_HVM_CPU
		if (p->cpu)
			xencall_free_buffer(p->xcall, p->cpu);
#endif
		xencall_close(p->xcall);
	}
	free(p);
}

int xen_domctl_pause(struct xen_domctl_path *p)
{
	p->f.valid = false;
	p->f.after_n = 0;
	return domctl(p, XEN_DOMCTL_pausedomain) < 0 ? fail_errno("pause", p) : 0;
}

int xen_domctl_unpause(struct xen_domctl_path *p)
{
	/* The fused registers are of the pause that ends here. */
	p->f.valid = false;
	p->f.after_n = 0;
	return domctl(p, XEN_DOMCTL_unpausedomain) < 0 ?
		fail_errno("unpause", p) : 0;
}

/* Entry i of the multicall: a domctl on its own buffer. */
static struct xen_domctl *fused_entry(struct xen_domctl_path *p, unsigned i,
				      uint32_t cmd)
{
	struct xen_domctl *dc = &p->f.dc[i];

	dc->cmd = cmd;
	dc->interface_version = p->version;
	dc->domain = (domid_t)p->domid;
	memset(&p->f.mc[i], 0, sizeof(p->f.mc[i]));
	p->f.mc[i].op = __HYPERVISOR_domctl;
	p->f.mc[i].args[0] = (uint64_t)(uintptr_t)dc;
	p->f.mc[i].result = NOT_RUN;
	return dc;
}

/* The multicall of entries 0..n-1: 0, or -1 with errno when it failed
 * (entries whose result is still NOT_RUN did not run). */
static int multicall(struct xen_domctl_path *p, unsigned n)
{
	return xencall2(p->xcall, __HYPERVISOR_multicall,
			(uint64_t)(uintptr_t)p->f.mc, n) < 0 ? -1 : 0;
}

/* Whether Xen refused the multicall whose return was mc_rc as a whole:
 * before its first entry ran, or with ENOSYS for a domctl in a multicall.
 * Then the path takes plain domctls from now on. */
static bool fused_refused(struct xen_domctl_path *p, int mc_rc)
{
	if ((mc_rc < 0 && p->f.mc[0].result == NOT_RUN) ||
	    (int64_t)p->f.mc[0].result == -ENOSYS)
		p->f.broken = true;
	return p->f.broken;
}

int xen_domctl_pause_read(struct xen_domctl_path *p, unsigned first,
			  unsigned n, uint32_t ask_state, bool hvm)
{
	unsigned entries;
	int64_t paused;

	p->f.valid = false;
	p->f.after_n = 0;
	if (n > FUSED)
		n = FUSED;
	if (p->f.broken || n == 0)
		return xen_domctl_pause(p);
	fused_entry(p, 0, XEN_DOMCTL_pausedomain);
	for (unsigned i = 0; i < n; i++) {
		struct xen_domctl *dc;

		if (hvm) {
#ifdef XEN_DOMCTL_HVM_CPU
			dc = fused_entry(p, i + 1, XEN_DOMCTL_gethvmcontext_partial);
			dc->u.hvmcontext_partial.type = HVM_SAVE_CODE(CPU);
			dc->u.hvmcontext_partial.instance = first + i;
			dc->u.hvmcontext_partial.bufsz = sizeof(p->f.cpu[i]);
			set_xen_guest_handle_raw(dc->u.hvmcontext_partial.buffer,
						 (uint8_t *)&p->f.cpu[i]);
#else
			return xen_domctl_pause(p);
#endif
		} else {
			dc = fused_entry(p, i + 1, XEN_DOMCTL_getvcpucontext);
			dc->u.vcpucontext.vcpu = first + i;
			set_xen_guest_handle_raw(dc->u.vcpucontext.ctxt,
						 (vcpu_guest_context_t *)&p->f.ctx[i]);
		}
	}
	/* After the registers: the states, of the same paused instant. */
	entries = n + 1;
	for (unsigned i = 0; i < n; i++) {
		p->f.info_entry[i] = 0;
		if (!(ask_state & (1u << i)))
			continue;
		fused_entry(p, entries, XEN_DOMCTL_getvcpuinfo)->u.getvcpuinfo.vcpu = first + i;
		p->f.info_entry[i] = entries++;
	}
	if (fused_refused(p, multicall(p, entries)))
		return xen_domctl_pause(p);
	paused = (int64_t)p->f.mc[0].result;
	if (paused < 0) {
		errno = (int)-paused;
		return fail_errno("pause", p);
	}
	p->f.first = first;
	p->f.n = n;
	p->f.hvm = hvm;
	p->f.valid = true;
	return 0;
}

/* This pause's registers of a vCPU, when the pausing trap read them: 1
 * (entry *i), 0 when it did not read them, or -1 when Xen refused them
 * there (a vCPU that is down has none): not asked twice in one pause. */
static int fused_read(struct xen_domctl_path *p, unsigned vcpu, bool hvm,
		      unsigned *i)
{
	uint64_t r;

	if (!p->f.valid || p->f.hvm != hvm || vcpu < p->f.first ||
	    vcpu - p->f.first >= p->f.n)
		return 0;
	r = p->f.mc[vcpu - p->f.first + 1].result;
	if (r == NOT_RUN)
		return 0;
	if (r != 0) {
		errno = (int)-(int64_t)r;
		return -1;
	}
	*i = vcpu - p->f.first;
	return 1;
}

int xen_domctl_unpause_state(struct xen_domctl_path *p, unsigned first,
			     unsigned n)
{
	struct xen_domctl *dc;
	int64_t r;

	p->f.valid = false;
	p->f.have_state = false;
	p->f.after_n = 0;
	if (p->f.broken)
		return xen_domctl_unpause(p);
	if (n > FUSED)
		n = FUSED;
	fused_entry(p, 0, XEN_DOMCTL_unpausedomain);
	dc = fused_entry(p, 1, XEN_DOMCTL_getdomaininfo);
	dc->u.getdomaininfo.domain = (domid_t)p->domid;
	for (unsigned i = 0; i < n; i++) {
		p->f.after_entry[i] = 2 + i;
		fused_entry(p, 2 + i, XEN_DOMCTL_getvcpuinfo)->u.getvcpuinfo.vcpu = first + i;
	}
	if (fused_refused(p, multicall(p, 2 + n)))
		return xen_domctl_unpause(p);
	r = (int64_t)p->f.mc[0].result;
	if (r < 0) {
		errno = (int)-r;
		return fail_errno("unpause", p);
	}
	r = (int64_t)p->f.mc[1].result;
	if (r == 0 || r == -ESRCH) {
		p->f.have_state = true;
		p->f.state_exists = r == 0 &&
				    dc->u.getdomaininfo.domain == p->domid;
		p->f.state_flags = dc->u.getdomaininfo.flags;
	}
	p->f.after_first = first;
	p->f.after_n = n;
	return 0;
}

bool xen_domctl_last_state(struct xen_domctl_path *p, uint32_t *flags,
			   bool *exists)
{
	if (!p->f.have_state)
		return false;
	p->f.have_state = false;
	*flags = p->f.state_flags;
	*exists = p->f.state_exists;
	return true;
}

int xen_domctl_state(struct xen_domctl_path *p, uint32_t *flags,
		     bool *exists)
{
	p->dc->u.getdomaininfo.domain = (domid_t)p->domid;
	if (domctl(p, XEN_DOMCTL_getdomaininfo) < 0) {
		if (errno != ESRCH)
			return fail_errno("query", p);
		*exists = false;
		*flags = 0;
		return 0;
	}
	*exists = p->dc->u.getdomaininfo.domain == p->domid;
	*flags = p->dc->u.getdomaininfo.flags;
	return 0;
}

int xen_domctl_vcpu_context(struct xen_domctl_path *p, unsigned vcpu,
			    const vcpu_guest_context_any_t **ctx)
{
	unsigned i;
	int fr = fused_read(p, vcpu, false, &i);

	if (fr > 0) {
		*ctx = &p->f.ctx[i];
		return 0;
	}
	if (fr < 0)
		return up_fail(UP_EIO, "cannot read vCPU %u registers: %s",
			       vcpu, strerror(errno));
	p->dc->u.vcpucontext.vcpu = vcpu;
	set_xen_guest_handle_raw(p->dc->u.vcpucontext.ctxt,
			     (vcpu_guest_context_t *)p->vcpu);
	if (domctl(p, XEN_DOMCTL_getvcpucontext) < 0)
		return up_fail(UP_EIO, "cannot read vCPU %u registers: %s",
			       vcpu, strerror(errno));
	*ctx = p->vcpu;
	return 0;
}

/* A getvcpuinfo a fused call made for vCPU first + i (entries[i], 0 when
 * none), served once: true when it gave the vCPU's state. */
static bool served_info(struct xen_domctl_path *p, unsigned *entries,
			unsigned first, unsigned n, unsigned vcpu,
			bool *online, bool *blocked, uint64_t *run_ns)
{
	const struct xen_domctl *dc;
	unsigned e;

	if (vcpu < first || vcpu - first >= n || !entries[vcpu - first])
		return false;
	e = entries[vcpu - first];
	entries[vcpu - first] = 0;
	if (p->f.mc[e].result != 0)
		return false;
	dc = &p->f.dc[e];
	*online = dc->u.getvcpuinfo.online;
	*blocked = dc->u.getvcpuinfo.blocked;
	*run_ns = dc->u.getvcpuinfo.cpu_time;
	return true;
}

int xen_domctl_vcpu_info(struct xen_domctl_path *p, unsigned vcpu,
			 bool *online, bool *blocked, uint64_t *run_ns)
{
	/* Read in the pausing trap (of this pause), or in the unpausing one
	 * just after it (before the next pause reuses the entries). */
	if (p->f.valid ?
	    served_info(p, p->f.info_entry, p->f.first, p->f.n, vcpu, online,
			blocked, run_ns) :
	    served_info(p, p->f.after_entry, p->f.after_first, p->f.after_n,
			vcpu, online, blocked, run_ns))
		return 0;
	p->dc->u.getvcpuinfo.vcpu = vcpu;
	if (domctl(p, XEN_DOMCTL_getvcpuinfo) < 0)
		return up_fail(UP_EIO, "cannot read vCPU %u state: %s", vcpu,
			       strerror(errno));
	*online = p->dc->u.getvcpuinfo.online;
	*blocked = p->dc->u.getvcpuinfo.blocked;
	*run_ns = p->dc->u.getvcpuinfo.cpu_time;
	return 0;
}

#ifdef XEN_DOMCTL_HVM_CPU
int xen_domctl_hvm_cpu(struct xen_domctl_path *p, unsigned vcpu,
		       const struct hvm_hw_cpu **cpu)
{
	unsigned i;
	int fr = fused_read(p, vcpu, true, &i);

	if (fr > 0) {
		*cpu = &p->f.cpu[i];
		return 0;
	}
	if (fr < 0)
		return up_fail(UP_EIO, "cannot read vCPU %u registers: %s",
			       vcpu, strerror(errno));
	p->dc->u.hvmcontext_partial.type = HVM_SAVE_CODE(CPU);
	p->dc->u.hvmcontext_partial.instance = vcpu;
	p->dc->u.hvmcontext_partial.bufsz = sizeof(*p->cpu);
	set_xen_guest_handle_raw(p->dc->u.hvmcontext_partial.buffer,
			     (uint8_t *)p->cpu);
	if (domctl(p, XEN_DOMCTL_gethvmcontext_partial) < 0)
		return up_fail(UP_EIO, "cannot read vCPU %u registers: %s",
			       vcpu, strerror(errno));
	*cpu = p->cpu;
	return 0;
}
#endif
