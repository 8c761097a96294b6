/* Direct domctl hypercalls through libxencall, for the sampling fast path.
 *
 * libxenctrl bounces every call's arguments through fresh hypercall
 * buffers (xc_vcpu_getcontext maps and clears two pages per call); here the
 * domctl and the register buffers are allocated once and reused, so a
 * sample's paused window holds little more than the hypercalls themselves.
 * Raw domctls are tied to the hypervisor's interface version: open checks
 * it against the running Xen and fails with one clear line on mismatch, and
 * the caller falls back to libxenctrl. */
#ifndef UNIPROF_XEN_DOMCTL_H
#define UNIPROF_XEN_DOMCTL_H

#include <stdbool.h>
#include <stdint.h>
#include <xenctrl.h>
#include <xen/hvm/save.h>

/* HVM save records describe x86 vCPUs; an Arm vCPU is all in its
 * context record. */
#if defined(__x86_64__) || defined(__i386__)
#define XEN_DOMCTL_HVM_CPU 1
#endif

struct xen_domctl_path;

/* Open the fast path for one domain; UP_EVERSION when the running Xen
 * speaks another domctl interface than the one we were built against. */
int xen_domctl_open(struct xen_domctl_path **out, uint32_t domid,
		    xentoollog_logger *log);
void xen_domctl_close(struct xen_domctl_path *p);

int xen_domctl_pause(struct xen_domctl_path *p);
int xen_domctl_unpause(struct xen_domctl_path *p);

/* A PV vCPU's context, in a buffer owned by p and valid until the next
 * call (native or compat layout, as the guest's width says). */
int xen_domctl_vcpu_context(struct xen_domctl_path *p, unsigned vcpu,
			    const vcpu_guest_context_any_t **ctx);

/* Whether a vCPU is up and whether it is blocked (Xen keeps that state
 * across a domain pause), and the time it has run (ns). */
int xen_domctl_vcpu_info(struct xen_domctl_path *p, unsigned vcpu,
			 bool *online, bool *blocked, uint64_t *run_ns);

/* Fused calls: one multicall (one trap into Xen) where the floor makes
 * several. A sample pauses and reads its vCPUs' registers in one trap, and
 * unpauses and asks the domain's state in another; the registers are then
 * served from the multicall's buffers until the unpause. Up to
 * XEN_DOMCTL_FUSED_VCPUS vCPUs are read in the pausing trap, the others
 * the usual way. When Xen or the kernel refuses the multicall itself, the
 * path falls back to separate domctls for good. */
#define XEN_DOMCTL_FUSED_VCPUS 16

/* Pause, reading vCPUs first.. (n of them, PV contexts or HVM CPU
 * records) and the state (xen_domctl_vcpu_info) of those in ask_state
 * (bit i: vCPU first + i): a vCPU's state is then of the pause's instant,
 * not of a moment before it. Fails only when the pause did not happen. */
int xen_domctl_pause_read(struct xen_domctl_path *p, unsigned first,
			  unsigned n, uint32_t ask_state, bool hvm);
/* Unpause, and read the domain's state (see xen_domctl_last_state) and
 * the run clocks of vCPUs first.. (n of them, up to FUSED; served once
 * each by xen_domctl_vcpu_info until the next pause). Xen makes these
 * reads after the unpause: the guest does not wait for them. */
int xen_domctl_unpause_state(struct xen_domctl_path *p, unsigned first,
			     unsigned n);
/* The state the last unpause read, once: XEN_DOMINF_* flags and whether
 * the domain still exists. False when there is none to give. */
bool xen_domctl_last_state(struct xen_domctl_path *p, uint32_t *flags,
			   bool *exists);
/* The same read on its own (one getdomaininfo). */
int xen_domctl_state(struct xen_domctl_path *p, uint32_t *flags,
		     bool *exists);

#ifdef XEN_DOMCTL_HVM_CPU
/* An HVM/PVH vCPU's CPU save record, likewise. */
int xen_domctl_hvm_cpu(struct xen_domctl_path *p, unsigned vcpu,
		       const struct hvm_hw_cpu **cpu);
#endif

#endif
