/* libuniprof's private API: the up_* functions and types no installed
 * tool needs (xl profile, uniprofd, uniprof-guard), so the shared library
 * does not export them (tests/unit/exports.test). Core uses them across
 * its folders, and the tests, fuzzers and benchmarks reach them by
 * linking the private archive (core/libuniprof-core.la). Grouped by the
 * installed header they belong with; guest memory and guest images have
 * headers of their own (mem/memory.h, target/image.h). */
#ifndef UP_PRIVATE_H
#define UP_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "uniprof/uniprof.h"
#include "uniprof/sys/kernel.h"
#include "uniprof/sys/unwind.h"

/* error.h */
/* Clear the last error. */
void up_error_clear(void);

/* target.h */
enum up_domain_state {
	UP_STATE_RUNNING = 0,   /* running, blocked or paused: alive */
	UP_STATE_SHUTDOWN = 1,  /* shut down or crashed, not yet destroyed */
	UP_STATE_DYING = 2,     /* being destroyed */
	UP_STATE_GONE = 3,      /* no longer exists */
};

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

/* up_target_open_xen_with(..., UP_HYPERCALLS_AUTO). */
int up_target_open_xen(struct up_target **out, uint32_t domid);

/* Open a guest image file (see target/image.h for the format). */
int up_target_open_image(struct up_target **out, const char *path);

/* The same, from a buffer (copied). Used by fuzzing. */
int up_target_open_image_mem(struct up_target **out, const void *buf,
			     size_t len);

/* up_target_open_core from a buffer (copied). Used by fuzzing. */
int up_target_open_core_mem(struct up_target **out, const void *buf,
			    size_t len);

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

/* crash_guard.h */
/* Stop the watchdog (up_target_close does this). If the domain is still
 * paused by us (our last unpause failed), it is not told to quit: it
 * keeps trying to unpause on its own. */
void up_crash_guard_release(struct up_target *t);

/* t's watchdog's process id, 0 when none is installed (tests). Each
 * target has its own: one process may guard several domains at once. */
uint64_t up_crash_guard_pid(const struct up_target *t);

/* symbols.h */
/* up_file_map's bytes, always a copy: *out malloc'ed. */
int up_file_read(const char *path, uint8_t **out, size_t *len);
/* up_elf_identify_mem from a file. */
int up_elf_identify(const char *path, struct up_elf_identity *id);
/* "name", or "name+0xoff" when with_offset, or "0x..." when unknown.
 * Returns the length written (snprintf semantics). */
int up_symtab_format(const struct up_symtab *s, uint64_t addr,
		     bool with_offset, char *buf, size_t len);

/* profile.h */
/* Count one sampled stack of a vCPU. frames[0] is the IP. */
int up_profile_add(struct up_profile *p, unsigned vcpu,
		   const uint64_t *frames, unsigned depth, enum up_trunc trunc);

/* The same, saying whether the vCPU was busy or blocked (idle), counted
 * count times (a sample that stands for several sampling periods). */
int up_profile_add_activity(struct up_profile *p, unsigned vcpu,
			    const uint64_t *frames, unsigned depth,
			    enum up_trunc trunc, enum up_vcpu_activity activity,
			    uint64_t count);

/* The same, taken t_ns after the profile's start (UP_PROFILE_NO_TIME: no
 * time): the profile keeps when each sample was taken too, for views of a
 * time range (up_profile_slice) and over time (the heat map). */
#define UP_PROFILE_NO_TIME UINT64_MAX
int up_profile_add_at(struct up_profile *p, unsigned vcpu,
		      const uint64_t *frames, unsigned depth,
		      enum up_trunc trunc, enum up_vcpu_activity activity,
		      uint64_t count, uint64_t t_ns);

/* The same for periods the sampler missed (dom0 short of CPU), counted
 * as the stack it sampled just before: kept apart from the samples taken,
 * so that writers can say which counts were credited (pprof: the label
 * credited=missed) and how many (up_profile_credited). */
int up_profile_add_credited(struct up_profile *p, unsigned vcpu,
			    const uint64_t *frames, unsigned depth,
			    enum up_trunc trunc, enum up_vcpu_activity activity,
			    uint64_t count, uint64_t t_ns);

/* Bounds on the distinct stacks a profile keeps, by count and by the
 * memory they take (entry, frames, hash slots); 0 keeps a bound as it is.
 * Past either, new stacks count as [dropped]. */
#define UP_PROFILE_DEFAULT_MAX_STACKS ((size_t)1 << 20)
#define UP_PROFILE_DEFAULT_MAX_BYTES ((size_t)64 << 20)
void up_profile_set_limits(struct up_profile *p, size_t max_stacks,
			   size_t max_bytes);
size_t up_profile_max_stacks(const struct up_profile *p);
size_t up_profile_max_bytes(const struct up_profile *p);
/* Sample times are kept for at most this many records (a record: one
 * stack at one instant, 16 bytes: 64 MiB); past it samples still count,
 * their times are lost (up_profile_untimed). 0 keeps no times. */
#define UP_PROFILE_DEFAULT_MAX_TIMES ((size_t)1 << 22)
void up_profile_set_max_times(struct up_profile *p, size_t max_times);
uint64_t up_profile_untimed(const struct up_profile *p);
size_t up_profile_unique_stacks(const struct up_profile *p);

/* Visit the sample times kept, in the order taken: count samples of the
 * stack record id at t_ns. [unseen] CPU time has no time. */
typedef int (*up_profile_time_fn)(uint64_t t_ns, uint64_t id, uint64_t count,
				  void *arg);
int up_profile_foreach_time(const struct up_profile *p,
			    up_profile_time_fn fn, void *arg);
/* The same, saying which counts were credited for missed periods. */
struct up_time_record {
	uint64_t t_ns, id, count;
	bool credited;
};
typedef int (*up_profile_time_record_fn)(const struct up_time_record *r,
					 void *arg);
int up_profile_foreach_time_record(const struct up_profile *p,
				   up_profile_time_record_fn fn, void *arg);

/* stored.h */
/* up_stored_load from one buffer (fuzzing, tests). */
int up_stored_load_mem(struct up_stored **out, const void *buf, size_t len,
		       const char *what, const struct up_symtab *resymbolize);

/* sys/unwind.h: the walks (the sampler's), and the tables from a path. */
struct up_mem;

struct up_stack {
	uint64_t *frames;   /* frames[0] = IP, then return addresses */
	unsigned depth;
	unsigned capacity;  /* caller-provided storage, >= max_depth */
	enum up_trunc trunc;
};

/* The reason up_trunc_name gives this name, else UP_TRUNC_UNRECORDED. */
enum up_trunc up_trunc_from_name(const char *name);

/* From an ELF file (gzip-compressed images too). */
int up_cfi_table_load(struct up_cfi_table **out, const char *path);
int up_libunwind_load(struct up_libunwind **out, const char *path);

/* Frame-pointer walk for x86_64: IP first, then return addresses along the
 * RBP chain (after stepping out of the hypercall page). rbp == 0 ends it
 * whole: frame pointers are assumed kept. Needs out->frames with capacity
 * >= the depth limit. */
int up_unwind_fp(struct up_mem *m, const struct up_regs *regs,
		 const struct up_unwind_opts *opts, struct up_stack *out);

int up_unwind_libunwind(struct up_mem *m, const struct up_regs *regs,
			const struct up_libunwind *lu,
			const struct up_unwind_opts *opts, struct up_stack *out);

/* One frame: from the ip, sp and fp given (ip a return address unless
 * first) to the caller's. 0, 1 at the outermost frame, or -1 with *trunc
 * set. */
int up_libunwind_step(struct up_mem *m, const struct up_regs *regs,
		      const struct up_libunwind *lu, bool first,
		      uint64_t *ip, uint64_t *sp, uint64_t *fp,
		      enum up_trunc *trunc);

/* CFI walk. A stack is whole only where the CFI says the return address
 * is undefined, a return address is 0, or an outermost function of the
 * kernel map is reached. With fp_fallback (-u auto), an address without
 * CFI is unwound through the frame pointer when the kernel keeps frame
 * pointers (then rbp == 0 also ends it whole); otherwise the walk stops
 * there, truncated. */
int up_unwind_cfi(struct up_mem *m, const struct up_regs *regs,
		  const struct up_cfi_table *t, const struct up_unwind_opts *opts,
		  bool fp_fallback, struct up_stack *out,
		  struct up_unwind_counts *counts);

/* sys/kernel.h */
/* From an ELF file (gzip-compressed too). */
int up_kernel_map_load(struct up_kernel_map **out, const char *path,
		       const struct up_symtab *symtab);

/* Code lives in [lo, hi). Once any range is known, return addresses
 * outside every range end a walk as truncated. */
int up_kernel_map_add_text(struct up_kernel_map *k, uint64_t lo, uint64_t hi);

/* A function in [lo, hi) is outermost: thread entry trampolines. */
int up_kernel_map_add_entry(struct up_kernel_map *k, uint64_t lo, uint64_t hi);

bool up_kernel_map_in_text(const struct up_kernel_map *k, uint64_t addr);
/* Whether a and b lie in one function (up_kernel_map_set_functions). */
bool up_kernel_map_same_function(const struct up_kernel_map *k, uint64_t a,
				 uint64_t b);
bool up_kernel_map_is_entry(const struct up_kernel_map *k, uint64_t pc);
/* From the lowest to the highest code address ([lo, hi)); false: none. */
bool up_kernel_map_text_span(const struct up_kernel_map *k, uint64_t *lo,
			     uint64_t *hi);

/* The name of hypercall nr ("sched_op"), or NULL when it has none. */
const char *up_hypercall_name(unsigned nr);

#endif
