/* A bounds-checked walk over CIEs and FDEs (DWARF 4 §6.4.1, LSB's .eh_frame
 * with its pointer encodings). Only what is needed to list FDE ranges. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/eh_frame.h"
#include "util/error_impl.h"
#include "util/grow.h"

#define PE_OMIT 0xff
#define PE_ABSPTR 0x00
#define PE_ULEB128 0x01
#define PE_UDATA2 0x02
#define PE_UDATA4 0x03
#define PE_UDATA8 0x04
#define PE_SLEB128 0x09
#define PE_SDATA2 0x0a
#define PE_SDATA4 0x0b
#define PE_SDATA8 0x0c
#define PE_PCREL 0x10
#define PE_INDIRECT 0x80

struct cursor {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t get(struct cursor *c, unsigned n)
{
	uint64_t v = 0;

	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = true;
		return 0;
	}
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += n;
	return v;
}

static uint64_t uleb(struct cursor *c)
{
	uint64_t v = 0;
	unsigned shift = 0;

	for (;;) {
		uint8_t b = (uint8_t)get(c, 1);

		if (c->bad)
			return 0;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
		if (shift > 70) {       /* no valid value is this long */
			c->bad = true;
			return 0;
		}
	}
}

static int64_t sleb(struct cursor *c)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		b = (uint8_t)get(c, 1);
		if (c->bad)
			return 0;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (shift > 70) {
			c->bad = true;
			return 0;
		}
	} while (b & 0x80);
	if (shift < 64 && (b & 0x40))
		v |= ~0ULL << shift;
	return (int64_t)v;
}

/* Read an encoded pointer; *ok is false for encodings we cannot apply. */
static uint64_t encoded(struct cursor *c, uint8_t enc, uint64_t field_addr,
			bool *ok)
{
	uint64_t v;

	*ok = true;
	switch (enc & 0x0f) {
	case PE_ABSPTR: v = get(c, 8); break;
	case PE_ULEB128: v = uleb(c); break;
	case PE_UDATA2: v = get(c, 2); break;
	case PE_UDATA4: v = get(c, 4); break;
	case PE_UDATA8: v = get(c, 8); break;
	case PE_SLEB128: v = (uint64_t)sleb(c); break;
	case PE_SDATA2: v = (uint64_t)(int64_t)(int16_t)get(c, 2); break;
	case PE_SDATA4: v = (uint64_t)(int64_t)(int32_t)get(c, 4); break;
	case PE_SDATA8: v = get(c, 8); break;
	default: *ok = false; return 0;
	}
	switch (enc & 0x70) {
	case 0: break;
	case PE_PCREL: v += field_addr; break;
	default: *ok = false;        /* textrel/datarel/funcrel: not for pc */
	}
	if (enc & PE_INDIRECT)
		*ok = false;
	return v;
}

/* Skip a pointer of the given encoding (personality) without applying it. */
static void skip_encoded(struct cursor *c, uint8_t enc)
{
	bool ok;

	encoded(c, enc & 0x0f, 0, &ok);
	if (!ok)
		c->bad = true;
}

struct cie_info {
	uint64_t offset;        /* of the CIE in the section */
	uint8_t fde_enc;
	bool has_z;
	bool usable;            /* we can decode its FDEs */
	bool refused;           /* names what libdw must not see (caps) */
	bool used;              /* by a listed FDE */
	struct cfa_scan scan;   /* of its initial instructions */
};

/* DWARF call frame instructions (DWARF 4 §6.4.2, plus the GNU ones GCC
 * emits): only operand sizes, register numbers and row boundaries. */
enum {
	CFA_advance_loc = 0x40, CFA_offset = 0x80, CFA_restore = 0xc0,
	CFA_nop = 0x00, CFA_set_loc = 0x01, CFA_advance_loc1 = 0x02,
	CFA_advance_loc2 = 0x03, CFA_advance_loc4 = 0x04,
	CFA_offset_extended = 0x05, CFA_restore_extended = 0x06,
	CFA_undefined = 0x07, CFA_same_value = 0x08, CFA_register = 0x09,
	CFA_remember_state = 0x0a, CFA_restore_state = 0x0b,
	CFA_def_cfa = 0x0c, CFA_def_cfa_register = 0x0d,
	CFA_def_cfa_offset = 0x0e, CFA_def_cfa_expression = 0x0f,
	CFA_expression = 0x10, CFA_offset_extended_sf = 0x11,
	CFA_def_cfa_sf = 0x12, CFA_def_cfa_offset_sf = 0x13,
	CFA_val_offset = 0x14, CFA_val_offset_sf = 0x15,
	CFA_val_expression = 0x16, CFA_MIPS_advance_loc8 = 0x1d,
	CFA_GNU_window_save = 0x2d, CFA_GNU_args_size = 0x2e,
	CFA_GNU_negative_offset_extended = 0x2f,
};

static void note_reg(struct cfa_scan *s, uint64_t reg)
{
	if (reg > s->max_reg)
		s->max_reg = reg;
}

/* Walk one instruction sequence; s accumulates (a CIE's scan is the start
 * of each of its FDEs'). Unknown opcodes make it bad: libdw would refuse
 * them too, and we could not size their operands. */
static void scan_cfa(const uint8_t *p, const uint8_t *end, uint8_t addr_enc,
		     struct cfa_scan *s)
{
	struct cursor c = { p, end, false };
	bool ok;

	s->bytes += (uint64_t)(end - p);
	while (c.p < c.end && !c.bad) {
		uint8_t op = (uint8_t)get(&c, 1);

		s->ops += op != CFA_nop;
		switch (op & 0xc0) {
		case CFA_advance_loc: s->rows++; continue;
		case CFA_offset: uleb(&c); continue;
		case CFA_restore: continue;
		}
		switch (op) {
		case CFA_nop: case CFA_GNU_window_save: break;
		case CFA_set_loc:
			encoded(&c, addr_enc, 0, &ok);
			s->rows++;
			break;
		case CFA_advance_loc1: get(&c, 1); s->rows++; break;
		case CFA_advance_loc2: get(&c, 2); s->rows++; break;
		case CFA_advance_loc4: get(&c, 4); s->rows++; break;
		case CFA_MIPS_advance_loc8: get(&c, 8); s->rows++; break;
		case CFA_offset_extended: case CFA_val_offset:
		case CFA_GNU_negative_offset_extended: case CFA_def_cfa:
			note_reg(s, uleb(&c));
			uleb(&c);
			break;
		case CFA_offset_extended_sf: case CFA_val_offset_sf:
		case CFA_def_cfa_sf:
			note_reg(s, uleb(&c));
			sleb(&c);
			break;
		case CFA_restore_extended: case CFA_undefined:
		case CFA_same_value: case CFA_def_cfa_register:
			note_reg(s, uleb(&c));
			break;
		case CFA_register:
			note_reg(s, uleb(&c));
			note_reg(s, uleb(&c));
			break;
		case CFA_remember_state:
			s->remembers++;
			if (++s->depth > s->max_depth)
				s->max_depth = s->depth;
			break;
		case CFA_restore_state:
			if (s->depth)
				s->depth--;
			break;
		case CFA_def_cfa_offset: case CFA_GNU_args_size: uleb(&c); break;
		case CFA_def_cfa_offset_sf: sleb(&c); break;
		case CFA_expression: case CFA_val_expression:
			note_reg(s, uleb(&c));
			/* fall through */
		case CFA_def_cfa_expression: {
			uint64_t n = uleb(&c);

			if (c.bad || n > (uint64_t)(c.end - c.p))
				c.bad = true;
			else
				c.p += n;
			break;
		}
		default: c.bad = true; break;
		}
	}
	if (c.bad)
		s->bad = true;
}

/* What libdw may be given: a program within the caps. */
static bool scan_acceptable(const struct cfa_scan *s)
{
	return !s->bad && s->max_reg <= EH_MAX_REGISTER &&
	       s->max_depth <= EH_MAX_REMEMBER_DEPTH;
}

static struct cie_info parse_cie(struct cursor c, uint64_t offset)
{
	struct cie_info ci = { .offset = offset, .fde_enc = PE_ABSPTR };
	const char *aug;
	size_t alen;
	uint8_t version = (uint8_t)get(&c, 1);

	if (c.bad || (version != 1 && version != 3 && version != 4))
		return ci;
	aug = (const char *)c.p;
	alen = strnlen(aug, (size_t)(c.end - c.p));
	if (alen == (size_t)(c.end - c.p))
		return ci;              /* unterminated */
	c.p += alen + 1;
	if (version == 4) {
		get(&c, 1);             /* address size */
		get(&c, 1);             /* segment selector size */
	}
	if (strstr(aug, "eh"))
		get(&c, 8);             /* old GNU eh_ptr */
	uleb(&c);                       /* code alignment */
	sleb(&c);                       /* data alignment */
	if (version == 1)
		note_reg(&ci.scan, get(&c, 1));
	else
		note_reg(&ci.scan, uleb(&c));   /* return address register */
	if (aug[0] == 'z') {
		uint64_t zlen = uleb(&c);
		struct cursor z = { c.p, c.p, c.bad };

		if (c.bad || zlen > (uint64_t)(c.end - c.p))
			return ci;
		z.end = c.p + zlen;
		ci.has_z = true;
		for (const char *a = aug + 1; *a; a++) {
			switch (*a) {
			case 'R': ci.fde_enc = (uint8_t)get(&z, 1); break;
			case 'L': get(&z, 1); break;
			case 'P': skip_encoded(&z, (uint8_t)get(&z, 1)); break;
			case 'S': case 'B': break;
			default: return ci;     /* unknown: cannot trust the rest */
			}
		}
		if (z.bad)
			return ci;
		c.p = z.end;
	} else if (aug[0] && strcmp(aug, "eh") != 0) {
		return ci;      /* augmentation we cannot size: skip its FDEs */
	}
	if (c.bad)
		return ci;
	ci.usable = true;
	scan_cfa(c.p, c.end, ci.fde_enc, &ci.scan);
	ci.refused = !scan_acceptable(&ci.scan);
	return ci;
}

static int fde_cmp(const void *a, const void *b)
{
	const struct fde_ref *x = a, *y = b;

	if (x->pc_begin != y->pc_begin)
		return x->pc_begin < y->pc_begin ? -1 : 1;
	return x->fde_offset < y->fde_offset ? -1 : x->fde_offset > y->fde_offset;
}

static void stop(struct fde_list *l, size_t off, const char *why)
{
	l->truncated = true;
	snprintf(l->error, sizeof(l->error), "malformed entry at offset %#zx: %s",
		 off, why);
}

/* One entry of the chain: a CIE, an FDE, the end, or a malformed entry. */
enum entry_kind { ENTRY_END, ENTRY_BAD, ENTRY_CIE, ENTRY_FDE };

struct entry {
	enum entry_kind kind;
	const char *why;        /* ENTRY_BAD */
	size_t next;            /* offset of the next entry */
	struct cursor body;     /* after the id (CIE: at the version) */
	uint64_t id, id_pos;
	size_t id_size;
};

static struct entry next_entry(const uint8_t *sec, size_t len, size_t off,
			       bool is_eh)
{
	struct entry e = { .kind = ENTRY_BAD };
	struct cursor c = { sec + off, sec + len, false };
	uint64_t length;
	const uint8_t *body;

	if (off >= len) {
		e.kind = ENTRY_END;
		return e;
	}
	length = get(&c, 4);
	if (c.bad) {
		e.why = "truncated length";
		return e;
	}
	if (length == 0) {
		if (is_eh)
			e.kind = ENTRY_END;     /* .eh_frame terminator */
		else
			e.why = "zero length";
		return e;
	}
	e.id_size = 4;
	if (length == 0xffffffffu) {
		length = get(&c, 8);
		e.id_size = 8;
	}
	body = c.p;
	if (c.bad || length > (uint64_t)(sec + len - body)) {
		e.why = "length runs past the section";
		return e;
	}
	e.next = (size_t)(body - sec) + (size_t)length;
	c.end = body + length;
	e.id_pos = (uint64_t)(c.p - sec);
	e.id = get(&c, (unsigned)e.id_size);
	if (c.bad) {
		e.why = "truncated id";
		return e;
	}
	e.body = c;
	if ((is_eh && e.id == 0) ||
	    (!is_eh && e.id == (e.id_size == 8 ? ~0ULL : 0xffffffffu)))
		e.kind = ENTRY_CIE;
	else
		e.kind = ENTRY_FDE;
	return e;
}

static struct cie_info *find_cie(struct cie_info *cies, size_t n, uint64_t off)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cies[mid].offset < off)
			lo = mid + 1;
		else if (cies[mid].offset > off)
			hi = mid;
		else
			return &cies[mid];
	}
	return NULL;
}

/* A .debug_frame's CIEs, whose FDEs may point forward: every CIE on the
 * chain parsed once (in offset order), and where the chain ends; FDEs then
 * find theirs by binary search, so a section of many FDEs sharing one long
 * CIE costs its length once. The FDEs are counted, so that their list is
 * allocated once at its size. (An .eh_frame's point back only: its CIEs
 * are parsed as the one walk meets them.) */
static int list_cies(const uint8_t *sec, size_t len, bool is_eh,
		     struct cie_info **out, size_t *count, size_t *fdes,
		     struct fde_list *l)
{
	size_t off = 0, cap = 0;

	*out = NULL;
	*count = *fdes = 0;
	for (;;) {
		struct entry e = next_entry(sec, len, off, is_eh);

		if (e.kind == ENTRY_END)
			break;
		if (e.kind == ENTRY_BAD) {
			stop(l, off, e.why);
			break;
		}
		if (e.kind == ENTRY_CIE) {
			if (grow_array(out, &cap, *count + 1, sizeof(**out), 64) < 0) {
				free(*out);
				*out = NULL;
				return UP_ENOMEM;
			}
			(*out)[(*count)++] = parse_cie(e.body, off);
		} else
			(*fdes)++;
		off = e.next;
	}
	l->end = off;
	return 0;
}

/* One FDE: its range and its program's scan (added to its CIE's). 1 when
 * listed, 0 when skipped or refused (counted), -1 when malformed. */
static int parse_fde(const uint8_t *sec, uint64_t sec_addr, size_t off,
		     struct entry *e, const struct cie_info *ci,
		     struct fde_list *l, struct fde_ref *f)
{
	struct cursor c = e->body;
	struct cfa_scan s = ci->scan;
	uint64_t field = sec_addr + (uint64_t)(c.p - sec);
	uint64_t pc_len, rows, work, cost;
	bool ok1, ok2;

	if (!ci->usable) {
		l->skipped++;
		return 0;
	}
	if (ci->fde_enc == (PE_PCREL | PE_SDATA4) && c.end - c.p >= 8 && !c.bad) {
		/* What GCC and Clang write, read without the general decoder:
		 * most of a large section's walk. The same values. */
		f->pc_begin = field + (uint64_t)(int64_t)(int32_t)get(&c, 4);
		pc_len = (uint64_t)(int64_t)(int32_t)get(&c, 4);
		ok1 = ok2 = true;
	} else {
		f->pc_begin = encoded(&c, ci->fde_enc, field, &ok1);
		pc_len = encoded(&c, ci->fde_enc & 0x0f, 0, &ok2);
	}
	if (c.bad) {
		stop(l, off, "truncated FDE");
		return -1;
	}
	if (!ok1 || !ok2 || f->pc_begin + pc_len < f->pc_begin) {
		l->skipped++;
		return 0;
	}
	if (ci->has_z) {                /* augmentation data: not ours */
		uint64_t n = uleb(&c);

		if (c.bad || n > (uint64_t)(c.end - c.p)) {
			stop(l, off, "augmentation data runs past the FDE");
			return -1;
		}
		c.p += n;
	}
	scan_cfa(c.p, c.end, ci->fde_enc, &s);
	if (ci->refused || !scan_acceptable(&s)) {
		l->skipped++;
		if (!s.bad) {
			l->refused++;
			if (!l->refused_why[0])
				snprintf(l->refused_why, sizeof(l->refused_why),
					 s.max_reg > EH_MAX_REGISTER ?
					 "DWARF register %llu (above %u)" :
					 "remember_state nested %llu deep (above %u)",
					 (unsigned long long)(s.max_reg > EH_MAX_REGISTER ?
							      s.max_reg : s.max_depth),
					 s.max_reg > EH_MAX_REGISTER ?
					 EH_MAX_REGISTER : EH_MAX_REMEMBER_DEPTH);
		}
		return 0;
	}
	if (pc_len > UINT32_MAX) {
		l->skipped++;           /* no row holds it: see fde_ref */
		return 0;
	}
	if (off > UINT32_MAX || ci->offset > UINT32_MAX) {
		stop(l, off, "section past 4 GiB");
		return -1;
	}
	f->len = (uint32_t)pc_len;
	f->fde_offset = (uint32_t)off;
	f->cie_offset = (uint32_t)ci->offset;
	rows = s.rows + 1;
	work = s.bytes + s.remembers * (s.max_reg + 1);
	/* Saturated rather than wrapped (rows >= 1). */
	cost = work > FDE_COST_MAX / rows ? FDE_COST_MAX : rows * work;
	f->cost = (uint32_t)cost | (s.ops == ci->scan.ops && rows == 1 ? FDE_PLAIN : 0);
	return f->len > 0;
}

uint64_t fde_rows_bound(const struct fde_ref *f)
{
	/* floor(sqrt(cost)), a bit of the root at a time. */
	uint32_t c = (uint32_t)fde_cost(f), r = 0;

	for (uint32_t bit = 1u << 30; bit; bit >>= 2) {
		if (c >= r + bit) {
			c -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
	}
	return (uint64_t)r + 1;
}

/* Drop FDEs overlapping an earlier one (by address, then section order):
 * duplicates would multiply rows, and libdw must find the one we vetted. */
static void drop_overlaps(struct fde_list *l)
{
	size_t n = 0;

	for (size_t i = 0; i < l->count; i++) {
		if (n && l->fdes[i].pc_begin < fde_end(&l->fdes[n - 1])) {
			l->overlapping++;
			continue;
		}
		l->fdes[n++] = l->fdes[i];
	}
	l->count = n;
}

/* The smallest FDE: its length, CIE pointer and two one-byte addresses. */
#define FDE_MIN_BYTES 10

/* A zero length at end, where the vetted part ends: libdw reads nothing
 * after it. */
static void terminate(uint8_t *sec, size_t len, size_t end)
{
	if (end < len && len - end >= 4)
		memset(sec + end, 0, 4);
}

/* Hide one entry from libdw: it becomes a CIE of an unknown version,
 * which libdw skips. */
static void hide(uint8_t *sec, const struct entry *e, bool is_eh)
{
	if (e->body.end > e->body.p) {
		uint8_t *id = sec + e->id_pos;

		memset(id, is_eh ? 0 : 0xff, e->id_size);
		id[e->id_size] = 0;
	}
}

/* One walk over the chain, each FDE it can list handed to take (in
 * section order), which says FDE_TAKEN (counted in out), FDE_OVERLAPS
 * (counted, dropped) or FDE_STOP, or fails (< 0). *cies: the CIEs listed
 * first (.debug_frame), or those the walk parses as it meets them
 * (.eh_frame: its FDEs point back only); the caller frees them. With
 * hide_in (the section, writable), every entry not taken is hidden from
 * libdw as it is met: a CIE only when its FDEs cannot be (undecodable,
 * refused), as those are then skipped. out->end: where it stopped.
 * *met: the FDEs walked. 0, FDE_STOP, or < 0. */
static int walk(const uint8_t *sec, uint8_t *hide_in, size_t len,
		uint64_t sec_addr, bool is_eh, struct cie_info **cies,
		size_t *ncies, struct fde_list *out, size_t *met,
		int (*take)(void *arg, const struct fde_ref *f), void *arg)
{
	size_t off = 0, ciecap = *ncies;
	int rc = FDE_TAKEN;

	*met = 0;
	while (off < out->end) {
		struct entry e = next_entry(sec, len, off, is_eh);
		struct cie_info *ci;
		struct fde_ref f;
		uint64_t cie_off;
		int got;

		if (e.kind == ENTRY_END)        /* .eh_frame's walk only */
			break;
		if (e.kind == ENTRY_BAD) {
			stop(out, off, e.why);
			break;
		}
		if (e.kind == ENTRY_CIE) {      /* .debug_frame's are listed */
			if (is_eh) {
				if (grow_array(cies, &ciecap, *ncies + 1, sizeof(**cies), 64) < 0)
					return UP_ENOMEM;
				ci = &(*cies)[(*ncies)++];
				*ci = parse_cie(e.body, off);
				if (hide_in && (!ci->usable || ci->refused))
					hide(hide_in, &e, is_eh);
			}
			off = e.next;
			continue;
		}
		(*met)++;
		/* .eh_frame: CIE pointer relative to this field, back only;
		 * .debug_frame: section offset. */
		cie_off = is_eh ? e.id_pos - e.id : e.id;
		if ((is_eh && e.id > e.id_pos) || cie_off >= len) {
			stop(out, off, "CIE pointer out of the section");
			break;
		}
		/* Most FDEs follow their CIE: the last one met, no search. */
		ci = *ncies && (*cies)[*ncies - 1].offset == cie_off ?
		     &(*cies)[*ncies - 1] : find_cie(*cies, *ncies, cie_off);
		if (!ci) {
			stop(out, off, "CIE pointer does not lead to a CIE");
			break;
		}
		got = parse_fde(sec, sec_addr, off, &e, ci, out, &f);
		if (got < 0)
			break;
		if (got > 0 && out->count >= EH_MAX_FDES) {
			out->capped = true;
			break;
		}
		if (got > 0) {
			rc = take(arg, &f);
			if (rc < 0 || rc == FDE_STOP)
				return rc;
		}
		if (got > 0 && rc == FDE_TAKEN) {
			out->count++;
			ci->used = true;
		} else {
			out->overlapping += got > 0;
			if (hide_in)
				hide(hide_in, &e, is_eh);
		}
		off = e.next;
	}
	out->end = off;         /* what follows was not vetted */
	return 0;
}

struct lister {
	struct fde_list *out;
	size_t cap, present;
};

static int list_take(void *arg, const struct fde_ref *f)
{
	struct lister *ls = arg;
	struct fde_list *l = ls->out;

	if (grow_array_populated(&l->fdes, &ls->cap, l->count + 1,
				 sizeof(*l->fdes), 256, &ls->present) < 0)
		return UP_ENOMEM;
	l->fdes[l->count] = *f;
	return FDE_TAKEN;
}

int eh_frame_list_fdes(const uint8_t *sec, size_t len, uint64_t sec_addr,
		       bool is_eh, struct fde_list *out)
{
	struct lister ls = { .out = out };
	struct cie_info *cies = NULL;
	size_t ncies = 0, nfdes, met;
	int rc = UP_ENOMEM;

	memset(out, 0, sizeof(*out));
	if (is_eh) {
		/* The list is reserved for as many FDEs as the section can
		 * hold and only its filled part made present: it never
		 * moves. */
		nfdes = len / FDE_MIN_BYTES + 1;
		out->end = len;
	} else if (list_cies(sec, len, is_eh, &cies, &ncies, &nfdes, out) < 0) {
		return UP_ENOMEM;
	}
	if (grow_array(&out->fdes, &ls.cap, nfdes < EH_MAX_FDES ? nfdes : EH_MAX_FDES,
		       sizeof(*out->fdes), 256) < 0)
		goto out;
	rc = walk(sec, NULL, len, sec_addr, is_eh, &cies, &ncies, out, &met,
		  list_take, &ls);
	if (rc < 0)
		goto out;
	/* A linker writes them in address order: checked, not sorted again. */
	for (size_t i = 1; i < out->count; i++) {
		if (fde_cmp(&out->fdes[i - 1], &out->fdes[i]) > 0) {
			qsort(out->fdes, out->count, sizeof(*out->fdes), fde_cmp);
			break;
		}
	}
	drop_overlaps(out);
	/* Every FDE listed and every CIE one's: sanitizing has nothing to
	 * hide (the usual section, one the linker wrote). */
	out->all_listed = met == out->count;
	for (size_t i = 0; i < ncies && out->all_listed; i++)
		out->all_listed = cies[i].used;
	rc = 0;
out:
	if (rc < 0)
		fde_list_release(out);
	free(cies);
	return rc;
}

int eh_frame_stream_fdes(uint8_t *sec, size_t len, uint64_t sec_addr,
			 struct fde_list *out,
			 int (*take)(void *arg, const struct fde_ref *f), void *arg)
{
	struct cie_info *cies = NULL;
	size_t ncies = 0, met;
	int rc;

	memset(out, 0, sizeof(*out));
	out->end = len;
	rc = walk(sec, sec, len, sec_addr, true, &cies, &ncies, out, &met, take, arg);
	free(cies);
	if (rc == 0)
		terminate(sec, len, out->end);
	return rc == FDE_STOP ? 1 : rc;
}

int eh_frame_sanitize(uint8_t *sec, size_t len, bool is_eh,
		      const struct fde_list *l)
{
	/* One bit per byte of the section: the entries kept start there
	 * (every listed offset is within it). */
	uint8_t *keep;
	size_t off = 0;

	if (l->all_listed)
		goto terminate;
	if (!(keep = calloc(len / 8 + 1, 1)))
		return UP_ENOMEM;
	for (size_t i = 0; i < l->count; i++) {
		uint64_t f = l->fdes[i].fde_offset, c = l->fdes[i].cie_offset;

		if (f < len)
			keep[f / 8] |= (uint8_t)(1u << (f % 8));
		if (c < len)
			keep[c / 8] |= (uint8_t)(1u << (c % 8));
	}
	while (off < l->end && off < len) {
		struct entry e = next_entry(sec, len, off, is_eh);

		if (e.kind != ENTRY_CIE && e.kind != ENTRY_FDE)
			break;
		if (!(keep[off / 8] & (1u << (off % 8))))
			hide(sec, &e, is_eh);
		off = e.next;
	}
	free(keep);
terminate:
	terminate(sec, len, l->end);
	return 0;
}

void fde_list_release(struct fde_list *l)
{
	free(l->fdes);
	memset(l, 0, sizeof(*l));
}

const struct fde_ref *fde_list_find(const struct fde_list *l, uint64_t pc)
{
	size_t lo = 0, hi = l->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (fde_end(&l->fdes[mid]) <= pc)
			lo = mid + 1;
		else if (l->fdes[mid].pc_begin > pc)
			hi = mid;
		else
			return &l->fdes[mid];
	}
	return NULL;
}
