/* Xen's AArch64 vCPU context record (what XEN_DOMCTL_getvcpucontext returns
 * on Arm) into our register view. Its layout comes from Xen's own
 * xen/foreign/arm64.h, so it is decoded, and tested, on any host. */
#ifndef UP_TARGET_XEN_CONTEXT_ARM64_H
#define UP_TARGET_XEN_CONTEXT_ARM64_H

#include <stdint.h>
#include <xen/foreign/arm64.h>

#include "uniprof/target.h"
#include "private.h"

/* 0, or UP_EUNSUPP for a vCPU in AArch32 state (not supported). */
int xen_context_arm64_regs(const struct vcpu_guest_context_arm64 *c,
			   struct up_regs *r);

/* Every register the record keeps, by name, for crash reports. */
void xen_context_arm64_named_regs(const struct vcpu_guest_context_arm64 *c,
				  struct up_named_regs *out);

#endif
