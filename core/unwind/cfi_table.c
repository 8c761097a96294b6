/* Compiling CFI into the table: our FDE list says which ranges exist,
 * libdw evaluates the CFA program of each range row by row, and each row
 * becomes a fixed-size rule (or is marked unsupported). Done once, before
 * sampling. */
#include "config.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "unwind/cfi_table.h"
#include "unwind/eh_frame.h"
#include "util/elf_copy.h"
#include "util/error_impl.h"
#include "util/image_file.h"
#include "util/grow.h"
#include "private.h"

/* libdw computes a row by interpreting the FDE's program from its start,
 * so an FDE of K rows costs K times its length: quadratic in what the
 * image says. "Work" is bytes interpreted (~5 ns each). An FDE over the
 * per-FDE cap (~0.3 s), or past the whole image's budget (~2.5 s), becomes
 * one unsupported row (libunwind, linear, takes it in -u auto). Measured on
 * real code: the costliest FDE of libclang-cpp.so.14 is 21M (1/3 of the
 * cap), the whole library 108M (1/5 of the budget); libLLVM-15 0.9M and
 * 63M; a unikernel is far smaller. */
#define CFI_MAX_FDE_WORK (1ULL << 26)
#define CFI_MAX_TOTAL_WORK (1ULL << 29)
/* 24 bytes a row: 4M rows is 96 MiB, four times a Linux kernel's table. */
#define CFI_MAX_ROWS (1u << 22)

/* One ELF file being compiled into the table; the table keeps what
 * outlives it (capacity, the work budget, the architecture). */
struct builder {
	struct up_cfi_table *t;
	uint8_t unsupported;       /* the kind of rows beyond the table */
	size_t sorted;     /* rows [0, sorted) are sorted: earlier sections */
	bool rows_capped;
	const uint8_t *img;        /* our private copy of the image */
	const uint8_t *orig;       /* the image it is a copy of */
	size_t img_len;
};

static int push_row(struct builder *b, const struct cfi_row *r)
{
	struct up_cfi_table *t = b->t;

	/* Merge with the previous row when it is the same rule, contiguous. */
	if (t->count) {
		struct cfi_row *p = &t->rows[t->count - 1];

		if (p->start + p->len == r->start && p->kind == r->kind &&
		    p->cfa_reg == r->cfa_reg && p->cfa_off == r->cfa_off &&
		    p->ra_off == r->ra_off && p->fp_rule == r->fp_rule &&
		    p->ra_rule == r->ra_rule &&
		    p->fp_off == r->fp_off && (uint64_t)p->len + r->len < UINT32_MAX) {
			p->len += r->len;
			return 0;
		}
	}
	if (t->count >= CFI_MAX_ROWS) {
		b->rows_capped = true;
		return 0;
	}
	if (grow_array_populated(&t->rows, &t->cap, t->count + 1, sizeof(*t->rows),
				 1024, &t->present) < 0)
		return UP_ENOMEM;
	t->rows[t->count++] = *r;
	return 0;
}

/* "CFA + offset" as libdw spells a register saved in the frame. */
static int at_cfa(const Dwarf_Op *ops, size_t n, int64_t *off)
{
	if (n == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		*off = 0;
		return 0;
	}
	if (n == 2 && ops[0].atom == DW_OP_call_frame_cfa &&
	    ops[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[1].number;
		return 0;
	}
	return -1;
}

/* rsp's rule: nothing said, or "the CFA itself" (libdw spells the ABI's
 * default val_offset(0) as a value expression). */
static bool sp_is_cfa(const Dwarf_Op *ops, size_t n)
{
	if (n == 0)
		return true;
	if (ops[0].atom != DW_OP_call_frame_cfa || ops[n - 1].atom != DW_OP_stack_value)
		return false;
	return n == 2 || (n == 3 && ops[1].atom == DW_OP_plus_uconst && ops[1].number == 0);
}

static void classify(const struct arch *a, Dwarf_Frame *f, int ra_reg,
		     bool signal, struct cfi_row *r)
{
	Dwarf_Op *ops, mem[3];
	size_t n;
	int64_t off;
	uint64_t reg;

	r->kind = CFI_ROW_UNSUPPORTED;
	if (signal || ra_reg < 0 || (unsigned)ra_reg != a->dwarf_ra)
		return;
	if (dwarf_frame_cfa(f, &ops, &n) != 0 || n != 1)
		return;
	if (ops[0].atom == DW_OP_bregx) {
		reg = ops[0].number;
		off = (int64_t)ops[0].number2;
	} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		reg = ops[0].atom - DW_OP_breg0;
		off = (int64_t)ops[0].number;
	} else {
		return;
	}
	if (reg == a->dwarf_sp)
		r->cfa_reg = CFI_CFA_SP;
	else if (reg == a->dwarf_fp)
		r->cfa_reg = CFI_CFA_FP;
	else
		return;
	if (off < INT32_MIN || off > INT32_MAX)
		return;
	r->cfa_off = (int32_t)off;

	if (dwarf_frame_register(f, (int)a->dwarf_ra, mem, &ops, &n) != 0)
		return;
	if (n == 0 && ops) {            /* undefined: the outermost frame */
		r->kind = CFI_ROW_OUTERMOST;
		return;
	}
	if (n == 0 && a->ra_in_register) {
		r->ra_rule = CFI_RA_IN_LR;  /* same value: not saved yet */
	} else if (at_cfa(ops, n, &off) != 0 || off < INT16_MIN || off > INT16_MAX) {
		return;
	} else {
		r->ra_off = (int16_t)off;
	}

	/* The caller's sp is the CFA; a frame that restores sp from memory
	 * (interrupt and signal frames) is beyond the table. */
	if (dwarf_frame_register(f, (int)a->dwarf_sp, mem, &ops, &n) != 0 ||
	    !sp_is_cfa(ops, n))
		return;

	if (dwarf_frame_register(f, (int)a->dwarf_fp, mem, &ops, &n) != 0)
		return;
	if (n == 0) {                   /* same value, or undefined */
		r->fp_rule = CFI_FP_SAME;
	} else if (at_cfa(ops, n, &off) == 0 && off >= INT16_MIN && off <= INT16_MAX) {
		r->fp_rule = CFI_FP_AT_CFA;
		r->fp_off = (int16_t)off;
	} else {
		return;
	}
	r->kind = CFI_ROW_NORMAL;
}

/* The start of the first covered row in (a, end), or end: rows are
 * sorted and do not overlap. */
static uint64_t covered_from(const struct up_cfi_table *done, uint64_t a,
			     uint64_t end)
{
	size_t lo = 0, hi = done->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (done->rows[mid].start <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < done->count && done->rows[lo].start < end ?
	       done->rows[lo].start : end;
}

/* The rule libdw gave a plain FDE (eh_frame.h: its CIE's, over all its
 * range) of the CIE at cie: the same for every other plain FDE of that
 * CIE, which then costs no search, interpretation or allocation in libdw
 * (most of a large image's compile, where leaf functions' FDEs are such). */
struct plain_rule {
	bool known;
	uint64_t cie;
	struct cfi_row r;          /* as classify() made it; start, len unset */
};

bool cfi_table_share_plain_rules = true;

/* Rows for every FDE range of one section's CFI. */
/* One FDE's rows. */
static int compile_fde(struct builder *b, Dwarf_CFI *cfi,
		       const struct fde_ref *fde, struct plain_rule *plain)
{
	uint64_t a = fde->pc_begin, end = fde_end(fde), work = fde_cost(fde);
	uint64_t rows_left;
	bool fp_based = false;
	int rc = 0;

	/* Ranges already covered (by .eh_frame, or by an earlier file) are
	 * not redone, and an FDE running into one stops there. */
	struct up_cfi_table done = { .rows = b->t->rows, .count = b->sorted };

	if (done.count && cfi_table_find(&done, a))
		return 0;
	end = covered_from(&done, a, end);
	if (work > CFI_MAX_FDE_WORK || work > b->t->work_left) {
		struct cfi_row r = { .start = a, .kind = b->unsupported };

		b->t->info.costly_fdes++;
		if (end - a > UINT32_MAX)
			return 0;
		r.len = (uint32_t)(end - a);
		b->t->info.unsupported++;
		return push_row(b, &r);
	}
	b->t->work_left -= work;
	b->t->info.fdes++;
	if (cfi_table_share_plain_rules && fde_plain(fde) && plain->known &&
	    plain->cie == fde->cie_offset && a < end && end - a <= UINT32_MAX) {
		struct cfi_row r = plain->r;

		r.start = a;
		r.len = (uint32_t)(end - a);
		if (r.kind == CFI_ROW_UNSUPPORTED) {
			r.kind = b->unsupported;
			b->t->info.unsupported++;
		}
		b->t->info.fp_fdes += r.kind == CFI_ROW_NORMAL && r.cfa_reg == CFI_CFA_FP;
		return push_row(b, &r);
	}
	rows_left = fde_rows_bound(fde);
	while (a < end && rc == 0 && rows_left-- > 0) {
		Dwarf_Frame *f;
		Dwarf_Addr s, e;
		bool sig = false;
		struct cfi_row r = { 0 };
		int ra;

		if (dwarf_cfi_addrframe(cfi, a, &f) != 0)
			break;
		ra = dwarf_frame_info(f, &s, &e, &sig);
		if (e > end)
			e = end;
		if (e <= a || e - a > UINT32_MAX) {
			free(f);
			break;
		}
		r.start = a;
		r.len = (uint32_t)(e - a);
		classify(b->t->arch, f, ra, sig, &r);
		free(f);
		/* libdw's one row over the whole of a plain FDE. */
		if (fde_plain(fde) && a == fde->pc_begin && e == fde_end(fde)) {
			*plain = (struct plain_rule){ true, fde->cie_offset, r };
			plain->r.start = 0;
			plain->r.len = 0;
		}
		if (r.kind == CFI_ROW_UNSUPPORTED) {
			r.kind = b->unsupported;
			b->t->info.unsupported++;
		}
		fp_based |= r.kind == CFI_ROW_NORMAL && r.cfa_reg == CFI_CFA_FP;
		rc = push_row(b, &r);
		a = e;
	}
	b->t->info.fp_fdes += fp_based;
	return rc;
}

/* Rows for every FDE range of one section's CFI. */
static int compile(struct builder *b, Dwarf_CFI *cfi, const struct fde_list *fdes)
{
	struct plain_rule plain = { .known = false };
	int rc = 0;

	for (size_t i = 0; i < fdes->count && rc == 0 && !b->rows_capped; i++)
		rc = compile_fde(b, cfi, &fdes->fdes[i], &plain);
	return rc;
}

/* An .eh_frame compiled as its one walk vets it (eh_frame_stream_fdes),
 * while its FDEs come in address order: no list of them, whose fresh
 * pages were most of a large image's unwind table load in a PV dom0. */
struct stream {
	struct builder *b;
	Dwarf_CFI *cfi;
	struct plain_rule plain;
	bool any;
	uint64_t begin, end;       /* the last FDE taken */
};

bool cfi_table_stream = true;

static int stream_take(void *arg, const struct fde_ref *f)
{
	struct stream *st = arg;
	int rc;

	/* Out of order: the list's sort is needed. Overlapping the one
	 * before: dropped, as the list's drop_overlaps would. */
	if (st->any && f->pc_begin < st->begin)
		return FDE_STOP;
	if (st->any && f->pc_begin < st->end)
		return FDE_OVERLAPS;
	st->any = true;
	st->begin = f->pc_begin;
	st->end = fde_end(f);
	if (st->b->rows_capped)
		return FDE_TAKEN;
	rc = compile_fde(st->b, st->cfi, f, &st->plain);
	return rc < 0 ? rc : FDE_TAKEN;
}

/* What a section's streaming changed, to undo when it stops. */
struct stream_undo {
	size_t count;
	struct cfi_row last;       /* a row of before may have grown */
	struct up_cfi_info info;
	uint64_t work_left;
	bool rows_capped;
};

static void stream_undo_save(const struct builder *b, struct stream_undo *u)
{
	const struct up_cfi_table *t = b->t;

	u->count = t->count;
	if (t->count)
		u->last = t->rows[t->count - 1];
	u->info = t->info;
	u->work_left = t->work_left;
	u->rows_capped = b->rows_capped;
}

static void stream_undo(struct builder *b, const struct stream_undo *u)
{
	struct up_cfi_table *t = b->t;

	t->count = u->count;
	if (t->count)
		t->rows[t->count - 1] = u->last;
	t->info = u->info;
	t->work_left = u->work_left;
	b->rows_capped = u->rows_capped;
}

static int row_cmp(const void *x, const void *y)
{
	const struct cfi_row *a = x, *b = y;

	return a->start < b->start ? -1 : a->start > b->start;
}

static Elf_Scn *section(Elf *elf, const char *name, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *n;

		if (!gelf_getshdr(scn, shdr) || shdr->sh_type == SHT_NOBITS)
			continue;
		n = elf_strptr(elf, shstrndx, shdr->sh_name);
		if (n && strcmp(n, name) == 0)
			return scn;
	}
	return NULL;
}

static size_t sections_named(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx, n = 0;
	GElf_Shdr shdr;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *sn;

		if (!gelf_getshdr(scn, &shdr))
			continue;
		sn = elf_strptr(elf, shstrndx, shdr.sh_name);
		n += sn && strcmp(sn, name) == 0;
	}
	return n;
}

/* One more cap hit for the warning line, "; "-separated. */
static void warn(struct builder *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void warn(struct builder *b, const char *fmt, ...)
{
	char *w = b->t->info.warning;
	size_t n = strlen(w);
	va_list ap;

	if (n && n + 2 < sizeof(b->t->info.warning)) {
		memcpy(w + n, "; ", 3);
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(w + n, sizeof(b->t->info.warning) - n, fmt, ap);
	va_end(ap);
}

/* libdw prefers the image's .eh_frame_hdr search table, which may point
 * at FDEs off the chain we vetted: hide it, so libdw walks the chain. */
static void hide_eh_frame_hdr(Elf *elf)
{
	GElf_Shdr shdr;
	Elf_Scn *scn = section(elf, ".eh_frame_hdr", &shdr);

	if (scn) {
		shdr.sh_type = SHT_NOBITS;
		gelf_update_shdr(scn, &shdr);
	}
}

static int add_section(struct builder *b, Elf *elf, const char *name,
		       bool is_eh, Dwarf_CFI **cfip)
{
	Dwarf_CFI *cfi = *cfip;
	GElf_Shdr shdr;
	Elf_Scn *scn = section(elf, name, &shdr);
	Elf_Data *data;
	struct fde_list fdes;
	int rc;

	if (!scn || !cfi || !(data = elf_getdata(scn, NULL)) || !data->d_buf)
		return 0;
	/* libdw must read the very bytes we vet: not a compressed copy, not
	 * a second section of the same name. */
	if ((shdr.sh_flags & SHF_COMPRESSED) || sections_named(elf, name) > 1 ||
	    (!is_eh && sections_named(elf, ".zdebug_frame") > 0)) {
		warn(b, "%s: compressed or duplicated: not compiled", name);
		return 0;
	}
	/* libdw reads the section from our copy of the image, which we
	 * sanitize; a section anywhere else (converted) is not compiled. */
	if ((const uint8_t *)data->d_buf < b->img ||
	    data->d_size > b->img_len ||
	    (const uint8_t *)data->d_buf - b->img > (ptrdiff_t)(b->img_len - data->d_size)) {
		warn(b, "%s: section not read in place: not compiled", name);
		return 0;
	}
	if (is_eh && cfi_table_stream) {
		struct stream st = { .b = b, .cfi = cfi };
		struct stream_undo u;

		stream_undo_save(b, &u);
		rc = eh_frame_stream_fdes(data->d_buf, data->d_size, shdr.sh_addr,
					  &fdes, stream_take, &st);
		if (rc <= 0)
			goto compiled;
		/* Not in address order: undone, the section's bytes as they
		 * were, a libdw that has read none of them, and listed. */
		stream_undo(b, &u);
		memcpy(data->d_buf, b->orig + ((const uint8_t *)data->d_buf - b->img),
		       data->d_size);
		dwarf_cfi_end(cfi);
		*cfip = cfi = dwarf_getcfi_elf(elf);
		if (!cfi) {
			warn(b, "%s: libdw could not read it again: not compiled", name);
			return 0;
		}
	}
	rc = eh_frame_list_fdes(data->d_buf, data->d_size, shdr.sh_addr, is_eh, &fdes);
	if (rc == 0)
		rc = eh_frame_sanitize(data->d_buf, data->d_size, is_eh, &fdes);
	if (rc < 0) {
		fde_list_release(&fdes);
		return rc;
	}
	rc = compile(b, cfi, &fdes);
compiled:
	b->t->info.skipped_fdes += fdes.skipped;
	b->t->info.refused_fdes += fdes.refused;
	b->t->info.overlapping_fdes += fdes.overlapping;
	if (fdes.truncated)
		warn(b, "%s: %.140s", name, fdes.error);
	if (fdes.refused)
		warn(b, "%s: %zu FDEs refused (first: %s)", name, fdes.refused,
		     fdes.refused_why);
	if (fdes.overlapping)
		warn(b, "%s: %zu FDEs overlapping others ignored", name,
		     fdes.overlapping);
	if (fdes.capped)
		warn(b, "%s: more than %u FDEs, the rest ignored", name,
		     EH_MAX_FDES);
	fde_list_release(&fdes);
	/* Sorted whatever happened: a table that failed to grow in a second
	 * file is still in use with the rows it has. */
	if (b->t->count)
		qsort(b->t->rows, b->t->count, sizeof(*b->t->rows), row_cmp);
	b->sorted = b->t->count;
	return rc;
}

/* Compile one ELF file's .eh_frame and .debug_frame into the table, for
 * the code it does not cover yet. */
static int add_image(struct up_cfi_table *t, const void *buf, size_t len,
		     const char *what)
{
	/* Rows after the first file's come from a file libunwind does not
	 * read (see CFI_ROW_UNSUPPORTED_ELSEWHERE). */
	struct builder b = { .t = t, .sorted = t->count,
			     .unsupported = t->count ? CFI_ROW_UNSUPPORTED_ELSEWHERE :
						       CFI_ROW_UNSUPPORTED };
	const struct arch *arch;
	static const char *const cfi_sections[] = { ".eh_frame", ".eh_frame_hdr", NULL };
	Dwarf_CFI *eh = NULL;
	Dwarf *dw = NULL;
	struct elf_copy copy;
	Elf *elf = NULL;
	GElf_Ehdr eh_hdr;
	GElf_Shdr debug_frame;
	size_t costly = t->info.costly_fdes;
	int rc = 0;

	elf_version(EV_CURRENT);
	/* libelf may write to the image, and we sanitize .eh_frame in
	 * place: a copy, of the headers and .eh_frame only unless libdw's
	 * DWARF is wanted (below). */
	rc = elf_copy_headers(&copy, buf, len, false, cfi_sections);
	if (rc < 0)
		return rc;
	b.img = (const uint8_t *)copy.bytes;
	b.orig = buf;
	b.img_len = len;
	elf = elf_memory(copy.bytes, len);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh_hdr)) {
		rc = up_fail(UP_EFORMAT, "%s: not a valid ELF file", what);
		goto out;
	}
	arch = arch_of_elf_machine(eh_hdr.e_machine);
	if (!arch) {
		rc = up_fail(UP_EUNSUPP,
			     "%s is for ELF machine %u, which uniprof cannot unwind by CFI: use -u fp",
			     what, (unsigned)eh_hdr.e_machine);
		goto out;
	}
	if (t->arch && arch != t->arch) {
		rc = up_fail(UP_EINVAL, "%s is for another architecture than the image",
			     what);
		goto out;
	}
	t->arch = arch;
	/* .debug_frame is read through libdw's DWARF, which opens every
	 * debug section: such an image is copied whole, before the copy is
	 * written to. Without one, the DWARF is not opened: add_section
	 * would not read it. */
	if (sections_named(elf, ".debug_frame") || sections_named(elf, ".zdebug_frame"))
		elf_copy_whole(&copy, buf);
	hide_eh_frame_hdr(elf);
	eh = dwarf_getcfi_elf(elf);
	rc = add_section(&b, elf, ".eh_frame", true, &eh);
	if (rc == 0 && section(elf, ".debug_frame", &debug_frame)) {
		dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
		if (dw) {
			Dwarf_CFI *df = dwarf_getcfi(dw);  /* dw's own */

			rc = add_section(&b, elf, ".debug_frame", false, &df);
		}
	}
	if (b.rows_capped)
		warn(&b, "more than %u CFI rows, the rest not compiled", CFI_MAX_ROWS);
	if (t->info.costly_fdes > costly)
		warn(&b, "%zu FDEs too costly to compile (unsupported rows)",
		     t->info.costly_fdes - costly);
out:
	if (dw)
		dwarf_end(dw);
	if (eh)
		dwarf_cfi_end(eh);
	if (elf)
		elf_end(elf);
	elf_copy_release(&copy);
	return rc;
}

/* The table's figures and lookup index after a file was added. */
static void finish(struct up_cfi_table *t)
{
	t->info.rows = t->count;
	cfi_table_index(t);
}

int up_cfi_table_load_mem(struct up_cfi_table **out, const void *buf,
			  size_t len, const char *what)
{
	struct up_cfi_table *t = calloc(1, sizeof(*t));
	int rc;

	if (!t)
		return up_fail(UP_ENOMEM, "out of memory");
	t->work_left = CFI_MAX_TOTAL_WORK;
	rc = add_image(t, buf, len, what);
	if (rc == 0 && t->count == 0 && t->info.warning[0])
		rc = up_fail(UP_ENOENT, "%s has no usable unwind information (%s): use -u fp",
			     what, t->info.warning);
	if (rc == 0 && t->count == 0)
		rc = up_fail(UP_ENOENT,
			     "%s has no unwind information (.eh_frame or .debug_frame): build it with -fasynchronous-unwind-tables, or use -u fp",
			     what);
	if (rc < 0) {
		up_cfi_table_free(t);
		return rc;
	}
	finish(t);
	*out = t;
	return 0;
}

int up_cfi_table_add_mem(struct up_cfi_table *t, const void *buf, size_t len,
			 const char *what, size_t *fdes_added)
{
	size_t fdes = t->info.fdes;
	int rc = add_image(t, buf, len, what);

	*fdes_added = t->info.fdes - fdes;
	finish(t);
	return rc;
}

static int load_mem(const uint8_t *buf, size_t len, const char *path,
		    void *out)
{
	return up_cfi_table_load_mem(out, buf, len, path);
}

int up_cfi_table_load(struct up_cfi_table **out, const char *path)
{
	return image_file_parse(path, load_mem, out);
}

void up_cfi_table_free(struct up_cfi_table *t)
{
	if (!t)
		return;
	free(t->rows);
	free(t->index);
	free(t);
}

void cfi_table_index(struct up_cfi_table *t)
{
	uint64_t end, span, blocks;
	size_t i = 0;

	free(t->index);
	t->index = NULL;
	if (!t->count || t->count > UINT32_MAX)
		return;
	t->index_base = t->rows[0].start & ~((1ULL << CFI_BLOCK_SHIFT) - 1);
	end = t->rows[t->count - 1].start + t->rows[t->count - 1].len;
	span = end - t->index_base;
	blocks = (span >> CFI_BLOCK_SHIFT) + 1;
	if (blocks > CFI_MAX_BLOCKS)
		return;
	t->index = malloc((blocks + 1) * sizeof(*t->index));
	if (!t->index)
		return;
	for (uint64_t b = 0; b <= blocks; b++) {
		uint64_t off = b << CFI_BLOCK_SHIFT;

		/* A block past the top of the address space (rows in its last
		 * block, as an image may place them): every row ends before it,
		 * where its start would wrap to 0 and find none. */
		if (off > UINT64_MAX - t->index_base)
			i = t->count;
		while (i < t->count &&
		       t->rows[i].start + t->rows[i].len <= t->index_base + off)
			i++;
		t->index[b] = (uint32_t)i;
	}
	t->blocks = blocks;
}

const struct up_cfi_info *up_cfi_table_info(const struct up_cfi_table *t)
{
	return &t->info;
}

enum up_frame_pointers up_cfi_frame_pointers(const struct up_cfi_table *t)
{
	const struct up_cfi_info *i = &t->info;

	if (i->fdes < 4)
		return UP_FP_UNKNOWN;       /* too little code to tell */
	if (i->fp_fdes * 2 >= i->fdes)
		return UP_FP_KEPT;
	return i->fp_fdes * 10 <= i->fdes ? UP_FP_OMITTED : UP_FP_UNKNOWN;
}
