/* Direct domctl hypercalls through libxencall with buffers that live across
 * samples (see target/xen_domctl.h for why). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xencall.h>

#include "util/error_impl.h"
#include "target/xen_domctl.h"

struct xen_domctl_path {
	xencall_handle *xcall;
	uint32_t domid;
	uint32_t version;                 /* domctl interface version we speak */
	struct xen_domctl *dc;            /* hypercall buffer, reused */
	vcpu_guest_context_any_t *vcpu;   /* hypercall buffer, reused */
#ifdef XEN_DOMCTL_HVM_CPU
	struct hvm_hw_cpu *cpu;           /* hypercall buffer, reused */
#endif
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
	if (!ok) {
		rc = up_fail(UP_ENOMEM, "cannot allocate hypercall buffers: %s",
			     strerror(errno));
		goto fail;
	}
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
	return domctl(p, XEN_DOMCTL_pausedomain) < 0 ? fail_errno("pause", p) : 0;
}

int xen_domctl_unpause(struct xen_domctl_path *p)
{
	return domctl(p, XEN_DOMCTL_unpausedomain) < 0 ?
		fail_errno("unpause", p) : 0;
}

int xen_domctl_vcpu_context(struct xen_domctl_path *p, unsigned vcpu,
			    const vcpu_guest_context_any_t **ctx)
{
	p->dc->u.vcpucontext.vcpu = vcpu;
	set_xen_guest_handle_raw(p->dc->u.vcpucontext.ctxt,
			     (vcpu_guest_context_t *)p->vcpu);
	if (domctl(p, XEN_DOMCTL_getvcpucontext) < 0)
		return up_fail(UP_EIO, "cannot read vCPU %u registers: %s",
			       vcpu, strerror(errno));
	*ctx = p->vcpu;
	return 0;
}

int xen_domctl_vcpu_info(struct xen_domctl_path *p, unsigned vcpu,
			 bool *online, bool *blocked, uint64_t *run_ns)
{
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
