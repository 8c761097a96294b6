/* Xen's x86 vCPU context record (vcpu_guest_context, as
 * XEN_DOMCTL_getvcpucontext returns it) into our register views. The live
 * Xen target reads it for PV vCPUs; a Xen core file (.xen_prstatus) holds
 * one per vCPU, PV and HVM. The layouts are Xen's xen/foreign ones, so this
 * builds, and reads x86 cores, on any host. */
#ifndef UP_TARGET_XEN_CONTEXT_X86_H
#define UP_TARGET_XEN_CONTEXT_X86_H

#include <stdbool.h>
#include <stdint.h>
#include <xen/foreign/x86_32.h>
#include <xen/foreign/x86_64.h>

#include "uniprof/target.h"
#include "private.h"

/* A PV vCPU, in the guest's own layout: a vcpu_guest_context_x86_64 (width
 * 8) or _x86_32 (4). */
void xen_context_pv_regs(const void *ctx, unsigned width, struct up_regs *r);

/* The page-table format of an HVM/PVH vCPU from its control registers and
 * whether it runs in long mode (EFER.LMA). */
enum up_paging xen_paging_mode(uint64_t cr0, uint64_t cr4, bool long_mode);

/* An HVM/PVH vCPU as getvcpucontext reports it: control registers 0, 3 and
 * 4 but no EFER, so paging with PAE on is taken for long mode (4-level). */
void xen_context_hvm_regs(const struct vcpu_guest_context_x86_64 *c,
			  struct up_regs *r);

#if defined(__x86_64__) || defined(__i386__)
#include <xen/hvm/save.h>

/* An HVM/PVH vCPU from its HVM save record (XEN_DOMCTL_gethvmcontext_partial,
 * HVM_SAVE_CODE(CPU)), which has EFER and the code segment's attributes;
 * r->online is the caller's to set. */
void xen_context_hvm_cpu_regs(const struct hvm_hw_cpu *c, struct up_regs *r);
#endif

/* Every register the record keeps, by name, for crash reports. */
void xen_context_named_regs(const struct vcpu_guest_context_x86_64 *c,
			    struct up_named_regs *out);

#endif
