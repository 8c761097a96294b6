/* A target is what the sampler needs from a guest: pause/unpause, vCPU
 * registers, read-only access to one guest frame at a time, and the domain's
 * state. The Xen target talks to a live domain; the image target serves a
 * guest snapshot from a file, for tests and fuzzing. */
#ifndef UNIPROF_TARGET_H
#define UNIPROF_TARGET_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#define UP_PAGE_SHIFT 12
#define UP_PAGE_SIZE (1u << UP_PAGE_SHIFT)

/* How the guest translates virtual addresses. */
enum up_paging {
	UP_PAGING_NONE = 0,     /* paging off: virtual == guest physical */
	UP_PAGING_X86_64 = 1,   /* 4-level long mode */
	UP_PAGING_X86_PAE = 2,  /* 3-level PAE: not yet supported */
	UP_PAGING_X86_32 = 3,   /* 2-level: not yet supported */
	UP_PAGING_X86_64_LA57 = 4, /* 5-level: not yet supported */
	/* AArch64 stage 1 (EL1&0): TTBR0_EL1/TTBR1_EL1 and TCR_EL1 say the
	 * rest; 4 KiB granule only so far */
	UP_PAGING_AARCH64 = 5,
};

/* What a frame number in the guest's page tables names. PV guests hold
 * machine frames; PVH/HVM guests hold guest frames (the hypervisor's p2m
 * translates them). */
enum up_frame_kind {
	UP_FRAME_GFN = 0,
	UP_FRAME_MFN = 1,
};

enum up_domain_type {
	UP_DOMAIN_PV = 0,
	UP_DOMAIN_HVM = 1,   /* HVM and PVH alike: translated guests */
};

enum up_domain_state {
	UP_STATE_RUNNING = 0,   /* running, blocked or paused: alive */
	UP_STATE_SHUTDOWN = 1,  /* shut down or crashed, not yet destroyed */
	UP_STATE_DYING = 2,     /* being destroyed */
	UP_STATE_GONE = 3,      /* no longer exists */
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

struct up_regs {
	uint64_t ip;
	uint64_t sp;
	uint64_t fp;
	uint64_t cr3;             /* page-table root, as a byte address
				     (x86 CR3; AArch64 TTBR0_EL1) */
	enum up_paging paging;
	enum up_frame_kind frame_kind;
	unsigned guest_width;     /* 4 or 8 bytes */
	bool online;
	bool kernel_mode;
	enum up_arch arch;        /* zero: x86_64 */
	/* AArch64 only: the upper half's table (TTBR1_EL1), the translation
	 * control (TCR_EL1), and x30, a leaf's return address */
	uint64_t ttbr1;
	uint64_t tcr;
	uint64_t lr;
	/* A hypercall's first argument register (rdi, 32-bit PV's ebx,
	 * AArch64's x0) and AArch64's hypercall number register (x16): on
	 * x86, a vCPU stopped just after SCHEDOP_block's trap blocked there
	 * (Xen preserves rdi/ebx, returns in rax). */
	uint64_t arg0;
	uint64_t x16;
	/* x86 HVM/PVH: the task state segment's address (TR's base), where
	 * the interrupt stacks' tops are; 0 when unknown (PV, cores). */
	uint64_t tss;
};

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
int up_target_open_xen(struct up_target **out, uint32_t domid);
int up_target_open_xen_with(struct up_target **out, uint32_t domid,
			    enum up_hypercalls how);

/* The same for a domain that may have shut down or crashed and is kept
 * (on_crash = "preserve"): its vCPUs are stopped but their registers and
 * memory are still there, which is what a one-shot stack dump needs. */
int up_target_open_xen_stopped(struct up_target **out, uint32_t domid,
			       enum up_hypercalls how);

/* Open a guest image file (see up_image_* in image.h for the format). */
int up_target_open_image(struct up_target **out, const char *path);

/* The same, from a buffer (copied). Used by fuzzing. */
int up_target_open_image_mem(struct up_target **out, const void *buf,
			     size_t len);

/* Open a Xen core file, as `xl dump-core` and on_crash = "coredump-destroy"
 * write them (ELF: .note.Xen, .xen_prstatus, .xen_pages, .xen_p2m or
 * .xen_pfn): a stopped domain whose registers and memory are the file's.
 * x86_64 guests, PV and HVM/PVH. The file is untrusted: a truncated or
 * malformed core gives one error, never a bad read. */
int up_target_open_core(struct up_target **out, const char *path);

/* The same, from a buffer (copied). Used by fuzzing. */
int up_target_open_core_mem(struct up_target **out, const void *buf,
			    size_t len);

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

int up_target_pause(struct up_target *t);
int up_target_unpause(struct up_target *t);

/* Registers of one vCPU; only meaningful while paused. */
int up_target_get_regs(struct up_target *t, unsigned vcpu,
		       struct up_regs *out);

/* Map one guest frame read-only. The mapping stays valid until
 * up_target_unmap_frame; its contents are live guest memory. */
int up_target_map_frame(struct up_target *t, enum up_frame_kind kind,
			uint64_t frame, const void **page);
void up_target_unmap_frame(struct up_target *t, const void *page);

/* Every register a target keeps of a vCPU, by name (rip, rsp, ..., cr2),
 * for crash reports; UP_EUNSUPP where the target has only up_regs. */
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

int up_target_state(struct up_target *t, enum up_domain_state *state);

/* Whether a domain that shut down did so by crashing (SHUTDOWN_crash);
 * false while it runs or where the target cannot tell. */
bool up_target_crashed(struct up_target *t);

/* What one vCPU is doing, and whether it is up; only meaningful while
 * paused (one more hypercall per vCPU on Xen). UP_EUNSUPP where the target
 * cannot tell. *run_ns (if run_ns is not NULL): the time the vCPU has run
 * so far by the hypervisor's accounting, UP_RUN_NS_UNKNOWN where the
 * target keeps none. */
#define UP_RUN_NS_UNKNOWN UINT64_MAX
int up_target_get_activity(struct up_target *t, unsigned vcpu,
			   enum up_vcpu_activity *activity, bool *online,
			   uint64_t *run_ns);

/* Longest one pause of ours may last (default 50 ms) before the crash
 * guard, when installed, ends it itself; 0: no limit. up_sample sets it
 * from its configuration. */
void up_target_set_max_pause(struct up_target *t, uint64_t ns);

/* Is the domain currently paused by us? Used by crash handlers. */
bool up_target_paused_by_us(const struct up_target *t);

#ifdef __cplusplus
}
#endif
#endif
