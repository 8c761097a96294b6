/* A target is what the sampler needs from a guest: pause/unpause, vCPU
 * registers, read-only access to one guest frame at a time, and the domain's
 * state. The Xen target talks to a live domain, the core target reads an
 * `xl dump-core` file. Opened here, used by the sampler (up_sample). */
#ifndef UNIPROF_TARGET_H
#define UNIPROF_TARGET_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

enum up_domain_type {
	UP_DOMAIN_PV = 0,
	UP_DOMAIN_HVM = 1,   /* HVM and PVH alike: translated guests */
};

/* The guest's instruction set: which page walk, register numbering and
 * hypercall conventions apply to its registers. */
enum up_arch {
	UP_ARCH_X86_64 = 0,
	UP_ARCH_AARCH64 = 1,
};

/* The architecture this library was built for: a Xen host's guests
 * share it with dom0. */
#if defined(__aarch64__)
#define UP_ARCH_HOST UP_ARCH_AARCH64
#else
#define UP_ARCH_HOST UP_ARCH_X86_64
#endif

const char *up_arch_name(enum up_arch a);

/* Whether an ELF image of this machine (e_machine) can run on a guest of
 * this architecture: x86_64 guests take EM_X86_64 and EM_386 images (32-bit
 * PV), AArch64 guests EM_AARCH64. */
bool up_arch_runs_elf_machine(enum up_arch a, unsigned machine);

/* What a vCPU was doing when the domain was paused: Xen keeps a blocked
 * vCPU's state across a pause, so a sample can tell CPU time from idle. */
enum up_vcpu_activity {
	UP_VCPU_UNKNOWN = 0,    /* not asked, or not known */
	UP_VCPU_BUSY = 1,       /* running, or runnable (waiting for a CPU) */
	UP_VCPU_BLOCKED = 2,    /* blocked in the hypervisor: idle */
	/* Woken and not run since: runnable, its registers still at the
	 * point it blocked at, waiting for its pCPU. Not CPU time. */
	UP_VCPU_WAITING = 3,
};

const char *up_vcpu_activity_name(enum up_vcpu_activity a);

struct up_target;

struct up_target_info {
	uint32_t domid;
	enum up_domain_type type;
	unsigned max_vcpus;       /* vCPU ids are 0 .. max_vcpus-1 */
	enum up_arch arch;        /* its instruction set: Xen's guests share
				     dom0's */
	unsigned guest_width;
	/* How pause, unpause and registers reach Xen: "direct domctl"
	 * (libxencall, buffers reused), "libxenctrl", or "image". */
	const char *hypercalls;
};

/* How the Xen target makes the calls of the paused window. */
enum up_hypercalls {
	/* direct when the running Xen speaks our domctl interface version,
	 * else libxenctrl */
	UP_HYPERCALLS_AUTO = 0,
	/* raw domctls through libxencall with buffers allocated once; an
	 * interface version mismatch is an error */
	UP_HYPERCALLS_DIRECT = 1,
	/* libxenctrl's stable calls only (fresh bounce buffers per call) */
	UP_HYPERCALLS_LIBXENCTRL = 2,
};

/* Open a live Xen domain (libxenctrl + libxenforeignmemory, and libxencall
 * for the direct path). dom0 is refused: pausing it would freeze the
 * profiler itself. */
int up_target_open_xen_with(struct up_target **out, uint32_t domid,
			    enum up_hypercalls how);

/* The same for a domain that may have shut down or crashed and is kept
 * (on_crash = "preserve"): its vCPUs are stopped but their registers and
 * memory are still there, which is what a one-shot stack dump needs. */
int up_target_open_xen_stopped(struct up_target **out, uint32_t domid,
			       enum up_hypercalls how);

/* Keep the guest frames a sampling run mapped for the next run on t, until
 * up_target_close (or keep false): a domain profiled again and again (the
 * host daemon's push) is not mapped afresh each time, at several
 * hypercalls a frame. Off by default: a run unmaps what it mapped. */
void up_target_keep_frames(struct up_target *t, bool keep);

/* Open a Xen core file, as `xl dump-core` and on_crash = "coredump-destroy"
 * write them (ELF: .note.Xen, .xen_prstatus, .xen_pages, .xen_p2m or
 * .xen_pfn): a stopped domain whose registers and memory are the file's.
 * x86_64 guests, PV and HVM/PVH. The file is untrusted: a truncated or
 * malformed core gives one error, never a bad read. */
int up_target_open_core(struct up_target **out, const char *path);

/* What a core file says of itself; UP_EINVAL for another target. */
struct up_core_info {
	unsigned xen_major, xen_minor;   /* the Xen that wrote it (0: unknown) */
	char xen_extra[16];              /* its extra version, e.g. ".0" */
	uint64_t nr_pages;               /* guest pages in the file */
	uint64_t format_version;
};
int up_target_core_info(const struct up_target *t, struct up_core_info *out);

/* The GNU build-ids found in a core's pages (a kernel keeps its own note in
 * its loaded image), as hex strings, at most max of them; reads every page
 * once. UP_EINVAL for another target. */
int up_target_core_build_ids(struct up_target *t, char (*ids)[41], size_t max,
			     size_t *n);

void up_target_close(struct up_target *t);

const struct up_target_info *up_target_info(const struct up_target *t);

/* Every register a target keeps of a vCPU, by name (rip, rsp, ..., cr2),
 * for crash reports; UP_EUNSUPP where the target keeps only those the
 * sampler reads. */
#define UP_MAX_NAMED_REGS 48
struct up_named_regs {
	unsigned count;
	struct {
		char name[12];
		uint64_t value;
	} reg[UP_MAX_NAMED_REGS];
};
int up_target_get_named_regs(struct up_target *t, unsigned vcpu,
			     struct up_named_regs *out);

#ifdef __cplusplus
}
#endif
#endif
