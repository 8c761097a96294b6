/* Remote unwinding with the stock libunwind: an address space whose
 * accessors read the stack through our page walker and the registers from
 * the sampled vCPU, and whose unwind tables come from the kernel ELF.
 * find_proc_info searches a binary search table over .eh_frame, as Linux
 * perf does with dwarf_search_unwind_table: the image's own .eh_frame_hdr
 * when it has a usable one, else (static unikernel links often have none)
 * a table we build from the FDE list. */
#include "config.h"

#include <gelf.h>
#include <libunwind.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "unwind/eh_frame.h"
#include "util/error_impl.h"
#include "util/elf_copy.h"
#include "util/image_file.h"
#include "unwind/kernel_map.h"
#include "uniprof/sys/unwind.h"
#include "mem/memory.h"

/* libunwind is built for one architecture, its host's. */
#if defined(__aarch64__)
#define UNW_FP_REG UNW_AARCH64_X29
#else
#define UNW_FP_REG UNW_X86_64_RBP
#endif

extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip,
					       unw_dyn_info_t *di, unw_proc_info_t *pi,
					       int need_unwind_info, void *arg);

/* Where the search table appears in the address space libunwind sees: a
 * non-canonical address, so it can never be mistaken for guest memory. */
#define TABLE_VADDR 0x8000000000000000ULL

struct table_entry {
	int32_t start_ip_offset;   /* relative to segbase (.eh_frame) */
	int32_t fde_offset;
};

struct up_libunwind {
	uint8_t *eh_frame;
	size_t eh_len;
	uint64_t eh_addr;
	struct table_entry *table;   /* ours, or a copy of the image's */
	size_t entries;
	uint64_t segbase;            /* entries are relative to this */
	uint64_t table_vaddr;        /* where libunwind reads the table */
	uint8_t *hdr;                /* the image's .eh_frame_hdr, if used */
	size_t hdr_len;
	uint64_t hdr_addr;
	uint64_t text_lo, text_hi;
	unw_addr_space_t as;
};

struct walk_arg {
	const struct up_libunwind *lu;
	struct up_mem *m;
	const struct up_regs *regs;
	/* Accessor calls left for the current unw_step: hostile unwind
	 * information (a DWARF expression that jumps back on itself) can
	 * keep libunwind evaluating forever, inside our paused window. Every
	 * evaluation step reads memory or a register, so counting those
	 * calls bounds it; once spent, every call fails and libunwind gives
	 * up. */
	unsigned step_left, walk_left;
	bool exhausted;
};

/* Accessor calls per frame, and per walk (per frame of the depth limit,
 * at least WALK_BUDGET_MIN). A frame of the test unikernel costs 79-115
 * calls (search table, CIE and FDE read a byte at a time, the caller's
 * words), so a step's budget leaves room for FDEs with ~7 KB of CFI
 * instructions. Spending the whole walk budget on "DW_OP_skip -3" takes
 * about 1.5 ms in the sanitizer build (43 ns a call) and ~15 ms in an
 * emulated dom0 (measured: 32768 calls in 15 ms), inside the paused
 * window's 50 ms limit either way. */
#define STEP_BUDGET 8192
#define WALK_BUDGET_PER_FRAME 256
#define WALK_BUDGET_MIN 32768

static bool spend(struct walk_arg *w)
{
	if (w->step_left == 0 || w->walk_left == 0) {
		w->exhausted = true;
		return false;
	}
	w->step_left--;
	w->walk_left--;
	return true;
}

/* A fresh allowance for one unw_init_remote or unw_step. */
static void next_step(struct walk_arg *w)
{
	w->step_left = STEP_BUDGET;
}

static int find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			  int need_unwind_info, void *arg)
{
	const struct up_libunwind *lu = ((struct walk_arg *)arg)->lu;
	unw_dyn_info_t di;

	if (!spend(arg))
		return -UNW_EINVAL;
	if (ip < lu->text_lo || ip >= lu->text_hi)
		return -UNW_ENOINFO;
	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = lu->text_lo;
	di.end_ip = lu->text_hi;
	di.u.rti.segbase = lu->segbase;
	di.u.rti.table_data = lu->table_vaddr;
	di.u.rti.table_len = lu->entries * sizeof(struct table_entry) / sizeof(unw_word_t);
	return UNW_OBJ(dwarf_search_unwind_table)(as, ip, &di, pi, need_unwind_info, arg);
}

static void put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	(void)as;
	(void)pi;
	(void)arg;
}

static int get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *addr, void *arg)
{
	(void)as;
	(void)addr;
	(void)arg;
	return -UNW_ENOINFO;
}

/* The table and .eh_frame from the image; everything else is guest memory. */
/* An 8-byte read that touches [base, base+len) of the image: libunwind
 * reads whole aligned words, which may hang over a section's edges. */
static bool from_image(uint64_t addr, const void *bytes, uint64_t base,
		       size_t len, unw_word_t *val)
{
	uint8_t word[8] = { 0 };

	if (!bytes || addr + 8 <= base || addr >= base + len)
		return false;
	for (unsigned i = 0; i < 8; i++)
		if (addr + i >= base && addr + i < base + len)
			word[i] = ((const uint8_t *)bytes)[addr + i - base];
	memcpy(val, word, 8);
	return true;
}

/* The table and .eh_frame from the image; everything else is guest memory. */
static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val,
		      int write, void *arg)
{
	struct walk_arg *w = arg;
	const struct up_libunwind *lu = w->lu;
	uint64_t v;

	(void)as;
	if (!spend(w))
		return -UNW_EINVAL;
	if (write)
		return -UNW_EREADONLYREG;
	if (lu->hdr ? from_image(addr, lu->hdr, lu->hdr_addr, lu->hdr_len, val) :
		      from_image(addr, lu->table, lu->table_vaddr,
				 lu->entries * sizeof(struct table_entry), val))
		return 0;
	if (from_image(addr, lu->eh_frame, lu->eh_addr, lu->eh_len, val))
		return 0;
	if (up_mem_read_u64(w->m, w->regs, addr, &v) < 0)
		return -UNW_EINVAL;
	*val = v;
	return 0;
}

static int access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *val,
		      int write, void *arg)
{
	const struct up_regs *r = ((struct walk_arg *)arg)->regs;

	(void)as;
	if (!spend(arg))
		return -UNW_EINVAL;
	if (write)
		return -UNW_EREADONLYREG;
	switch (reg) {
#if defined(__aarch64__)
	case UNW_AARCH64_PC: *val = r->ip; break;
	case UNW_AARCH64_SP: *val = r->sp; break;
	case UNW_AARCH64_X29: *val = r->fp; break;
	case UNW_AARCH64_X30: *val = r->lr; break;
#else
	case UNW_X86_64_RIP: *val = r->ip; break;
	case UNW_X86_64_RSP: *val = r->sp; break;
	case UNW_X86_64_RBP: *val = r->fp; break;
#endif
	default: *val = 0; break;    /* not sampled: CFI rarely needs them */
	}
	return 0;
}

static int access_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val,
			int write, void *arg)
{
	(void)as;
	(void)reg;
	(void)val;
	(void)write;
	(void)arg;
	return -UNW_EBADREG;
}

static int resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
	(void)as;
	(void)c;
	(void)arg;
	return -UNW_EINVAL;
}

static int get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf,
			 size_t len, unw_word_t *off, void *arg)
{
	(void)as;
	(void)addr;
	(void)buf;
	(void)len;
	(void)off;
	(void)arg;
	return -UNW_EINVAL;
}

static unw_accessors_t accessors = {
	.find_proc_info = find_proc_info,
	.put_unwind_info = put_unwind_info,
	.get_dyn_info_list_addr = get_dyn_info_list_addr,
	.access_mem = access_mem,
	.access_reg = access_reg,
	.access_fpreg = access_fpreg,
	.resume = resume,
	.get_proc_name = get_proc_name,
};

void up_libunwind_free(struct up_libunwind *lu)
{
	if (!lu)
		return;
	if (lu->as)
		unw_destroy_addr_space(lu->as);
	free(lu->eh_frame);
	free(lu->table);
	free(lu->hdr);
	free(lu);
}

/* The image's .eh_frame_hdr, if it is the usual kind: version 1, a count
 * in udata4 and the table in datarel|sdata4 (relative to the header). */
static bool use_eh_frame_hdr(struct up_libunwind *lu, Elf *elf, size_t shstrndx)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const uint8_t *h;
		const char *n;
		Elf_Data *d;
		uint32_t count;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type == SHT_NOBITS)
			continue;
		n = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (!n || strcmp(n, ".eh_frame_hdr") != 0 ||
		    !(d = elf_getdata(scn, NULL)) || !d->d_buf || d->d_size < 12)
			continue;
		h = d->d_buf;
		if (h[0] != 1 || h[2] != 0x03 || h[3] != 0x3b || (h[1] & 0x0f) != 0x0b)
			return false;
		memcpy(&count, h + 8, 4);
		if (count == 0 || (size_t)count > (d->d_size - 12) / sizeof(struct table_entry))
			return false;
		lu->hdr = malloc(d->d_size);
		if (!lu->hdr)
			return false;
		memcpy(lu->hdr, h, d->d_size);
		lu->hdr_len = d->d_size;
		lu->hdr_addr = shdr.sh_addr;
		lu->entries = count;
		lu->segbase = shdr.sh_addr;
		lu->table_vaddr = shdr.sh_addr + 12;
		return true;
	}
	return false;
}

static int build(struct up_libunwind *lu, Elf *elf, const char *what)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	size_t shstrndx;
	struct fde_list fdes;
	int rc;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return up_fail(UP_EFORMAT, "%s: not a valid ELF file", what);
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *n;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type == SHT_NOBITS)
			continue;
		n = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (!n || strcmp(n, ".eh_frame") != 0 || !(d = elf_getdata(scn, NULL)) || !d->d_buf)
			continue;
		lu->eh_frame = malloc(d->d_size ? d->d_size : 1);
		if (!lu->eh_frame)
			return up_fail(UP_ENOMEM, "out of memory");
		memcpy(lu->eh_frame, d->d_buf, d->d_size);
		lu->eh_len = d->d_size;
		lu->eh_addr = shdr.sh_addr;
		break;
	}
	if (!lu->eh_frame)
		return up_fail(UP_ENOENT, "%s has no .eh_frame for libunwind", what);
	rc = eh_frame_list_fdes(lu->eh_frame, lu->eh_len, lu->eh_addr, true, &fdes);
	if (rc < 0)
		return rc;
	lu->text_lo = UINT64_MAX;
	for (size_t i = 0; i < fdes.count; i++) {
		if (fdes.fdes[i].pc_begin < lu->text_lo)
			lu->text_lo = fdes.fdes[i].pc_begin;
		if (fde_end(&fdes.fdes[i]) > lu->text_hi)
			lu->text_hi = fde_end(&fdes.fdes[i]);
	}
	if (!use_eh_frame_hdr(lu, elf, shstrndx)) {
		lu->table = calloc(fdes.count ? fdes.count : 1, sizeof(*lu->table));
		if (!lu->table) {
			fde_list_release(&fdes);
			return up_fail(UP_ENOMEM, "out of memory");
		}
		lu->segbase = lu->eh_addr;
		lu->table_vaddr = TABLE_VADDR;
		for (size_t i = 0; i < fdes.count; i++) {
			int64_t ip = (int64_t)(fdes.fdes[i].pc_begin - lu->eh_addr);
			int64_t fo = (int64_t)fdes.fdes[i].fde_offset;

			if (ip < INT32_MIN || ip > INT32_MAX || fo > INT32_MAX)
				continue;       /* out of reach of the table format */
			lu->table[lu->entries].start_ip_offset = (int32_t)ip;
			lu->table[lu->entries].fde_offset = (int32_t)fo;
			lu->entries++;
		}
	}
	fde_list_release(&fdes);
	if (!lu->entries)
		return up_fail(UP_ENOENT, "%s: .eh_frame holds no usable FDE", what);
	lu->as = unw_create_addr_space(&accessors, 0);
	if (!lu->as)
		return up_fail(UP_ENOMEM, "libunwind: cannot create an address space");
	unw_set_caching_policy(lu->as, UNW_CACHE_GLOBAL);
	return 0;
}

int up_libunwind_load_mem(struct up_libunwind **out, const void *image,
			  size_t len, const char *what)
{
	struct up_libunwind *lu = calloc(1, sizeof(*lu));
	struct elf_copy copy;           /* libelf may write to the image */
	Elf *elf = NULL;
	int rc;

	if (!lu || elf_copy_all(&copy, image, len) < 0) {
		free(lu);
		return up_fail(UP_ENOMEM, "out of memory");
	}
	elf_version(EV_CURRENT);
	elf = elf_memory(copy.bytes, len);
	rc = elf && elf_kind(elf) == ELF_K_ELF ? build(lu, elf, what) :
		up_fail(UP_EFORMAT, "%s: not a valid ELF file", what);
	if (elf)
		elf_end(elf);
	elf_copy_release(&copy);
	if (rc < 0) {
		up_libunwind_free(lu);
		return rc;
	}
	*out = lu;
	return 0;
}

static int load_mem(const uint8_t *buf, size_t len, const char *path,
		    void *out)
{
	return up_libunwind_load_mem(out, buf, len, path);
}

int up_libunwind_load(struct up_libunwind **out, const char *path)
{
	return image_file_parse(path, load_mem, out);
}

int up_unwind_libunwind(struct up_mem *m, const struct up_regs *regs,
			const struct up_libunwind *lu,
			const struct up_unwind_opts *opts, struct up_stack *out)
{
	unsigned max_depth = opts && opts->max_depth ? opts->max_depth :
			     UP_UNWIND_DEFAULT_MAX_DEPTH;
	uint64_t max_stack = opts && opts->max_stack_bytes ?
			     opts->max_stack_bytes : UP_UNWIND_DEFAULT_MAX_STACK;
	const struct up_kernel_map *k = opts ? opts->kernel : NULL;
	struct up_regs start = *regs;
	struct walk_arg arg = { lu, m, &start, STEP_BUDGET, WALK_BUDGET_MIN, false };
	uint64_t prev_sp = regs->sp, hi = regs->sp + max_stack;
	const struct arch *a = arch_get(regs->arch);
	/* A leaf that keeps its return address in the link register may
	 * leave sp where it was: the first step alone may stay in place. */
	bool may_stay = a && a->ra_in_register;
	unw_cursor_t c;

	if (max_depth > out->capacity || max_depth > UP_UNWIND_MAX_DEPTH_LIMIT)
		return up_fail(UP_EINVAL, "depth limit %u above the stack buffer (%u)",
			       max_depth, out->capacity);
	if (hi < prev_sp)
		hi = UINT64_MAX;
	if (max_depth * WALK_BUDGET_PER_FRAME > arg.walk_left)
		arg.walk_left = max_depth * WALK_BUDGET_PER_FRAME;
	out->depth = 0;
	out->trunc = UP_TRUNC_NONE;
	out->frames[out->depth++] = regs->ip;
	/* This libunwind unwinds its host's architecture only (Xen's guests
	 * share it: an x86 build given AArch64 registers, from an image). */
	if (regs->arch != UP_ARCH_HOST) {
		out->trunc = UP_TRUNC_UNSUPPORTED;
		return 0;
	}
	if (up_kernel_map_is_entry(k, regs->ip))
		return 0;
	if (kernel_in_hypercall(m, regs, k, regs->ip)) {
		/* libunwind knows no hypercall page: step out of the stub
		 * first and start from its caller, at the call instruction. */
		if (kernel_hypercall_step(m, regs, k, opts->domain_type,
					  &start.ip, &start.sp, &out->trunc) < 0 ||
		    kernel_keep_return(k, out, max_depth, start.ip))
			return 0;
		start.ip--;
		prev_sp = start.sp;
		may_stay = false;
	}
	if (unw_init_remote(&c, lu->as, &arg) < 0) {
		out->trunc = arg.exhausted ? UP_TRUNC_BUDGET : UP_TRUNC_NO_UNWIND_INFO;
		return 0;
	}
	for (;;) {
		unw_word_t ip, sp, fp;
		int rc;

		/* The frame pointer of the frame being left, for the end
		 * mark below (libunwind may not report it after a failure). */
		next_step(&arg);
		if (unw_get_reg(&c, UNW_FP_REG, &fp) < 0)
			fp = 1;
		rc = unw_step(&c);
		if (arg.exhausted) {
			out->trunc = UP_TRUNC_BUDGET;
			return 0;
		}
		if (rc == 0)
			return 0;                        /* outermost frame */
		if (rc < 0) {
			/* No FDE here (libunwind then tries the frame pointer
			 * and fails on 0): with the ABI's end mark, rbp = 0,
			 * the stack is whole, where frame pointers are kept. */
			if (fp != 0 || up_kernel_map_frame_pointers(k) == UP_FP_OMITTED)
				out->trunc = rc == -UNW_ENOINFO || rc == -UNW_EBADFRAME ?
					     UP_TRUNC_NO_UNWIND_INFO : UP_TRUNC_UNREADABLE;
			return 0;
		}
		unw_get_reg(&c, UNW_REG_IP, &ip);
		unw_get_reg(&c, UNW_REG_SP, &sp);
		if (sp < prev_sp || (sp == prev_sp && !may_stay)) {
			out->trunc = UP_TRUNC_BAD_CFA;
			return 0;
		}
		if (sp > hi) {
			out->trunc = UP_TRUNC_BOUNDS;
			return 0;
		}
		if (kernel_keep_return(k, out, max_depth, ip))
			return 0;
		prev_sp = sp;
		may_stay = false;
	}
}

int up_libunwind_step(struct up_mem *m, const struct up_regs *regs,
		      const struct up_libunwind *lu, bool first,
		      uint64_t *ip, uint64_t *sp, uint64_t *fp,
		      enum up_trunc *trunc)
{
	struct up_regs frame = *regs;
	struct walk_arg arg = { lu, m, &frame, STEP_BUDGET, STEP_BUDGET, false };
	unw_cursor_t c;
	unw_word_t nip, nsp, nfp;
	int rc;

	/* libunwind looks the first frame up by its IP as is: a caller's
	 * return address is moved back into its call instruction, whose
	 * unwind rule is the one in force at the return. */
	frame.ip = first ? *ip : *ip - 1;
	frame.sp = *sp;
	frame.fp = *fp;
	if (regs->arch != UP_ARCH_HOST) {
		*trunc = UP_TRUNC_UNSUPPORTED;
		return -1;
	}
	if (unw_init_remote(&c, lu->as, &arg) < 0) {
		*trunc = arg.exhausted ? UP_TRUNC_BUDGET : UP_TRUNC_NO_UNWIND_INFO;
		return -1;
	}
	rc = unw_step(&c);
	if (arg.exhausted) {
		*trunc = UP_TRUNC_BUDGET;
		return -1;
	}
	if (rc == 0)
		return 1;
	if (rc < 0) {
		*trunc = rc == -UNW_ENOINFO || rc == -UNW_EBADFRAME ?
			 UP_TRUNC_NO_UNWIND_INFO : UP_TRUNC_UNREADABLE;
		return -1;
	}
	unw_get_reg(&c, UNW_REG_IP, &nip);
	unw_get_reg(&c, UNW_REG_SP, &nsp);
	if (unw_get_reg(&c, UNW_FP_REG, &nfp) < 0)
		nfp = *fp;
	*ip = nip;
	*sp = nsp;
	*fp = nfp;
	return 0;
}
