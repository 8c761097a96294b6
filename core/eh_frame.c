/* A bounds-checked walk over CIEs and FDEs (DWARF 4 §6.4.1, LSB's .eh_frame
 * with its pointer encodings). Only what is needed to list FDE ranges. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eh_frame.h"
#include "error_impl.h"
#include "grow.h"

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
	uint8_t fde_enc;
	bool has_z;
	bool usable;
};

static struct cie_info parse_cie(struct cursor c, bool is_eh)
{
	struct cie_info ci = { .fde_enc = PE_ABSPTR };
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
		get(&c, 1);
	else
		uleb(&c);               /* return address register */
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
	} else if (aug[0] && strcmp(aug, "eh") != 0) {
		return ci;      /* augmentation we cannot size: skip its FDEs */
	}
	(void)is_eh;
	ci.usable = !c.bad;
	return ci;
}

static int fde_cmp(const void *a, const void *b)
{
	const struct fde_ref *x = a, *y = b;

	return x->pc_begin < y->pc_begin ? -1 : x->pc_begin > y->pc_begin;
}

static int push(struct fde_list *l, size_t *cap, const struct fde_ref *f)
{
	if (grow_array(&l->fdes, cap, l->count + 1, sizeof(*l->fdes), 256) < 0)
		return UP_ENOMEM;
	l->fdes[l->count++] = *f;
	return 0;
}

static void stop(struct fde_list *l, size_t off, const char *why)
{
	l->truncated = true;
	snprintf(l->error, sizeof(l->error), "malformed entry at offset %#zx: %s",
		 off, why);
}

int eh_frame_list_fdes(const uint8_t *sec, size_t len, uint64_t sec_addr,
		       bool is_eh, struct fde_list *out)
{
	size_t off = 0, cap = 0;

	memset(out, 0, sizeof(*out));
	while (off < len) {
		struct cursor c = { sec + off, sec + len, false };
		uint64_t length = get(&c, 4), id, id_pos;
		bool dwarf64 = false;
		const uint8_t *body;
		size_t next;

		if (c.bad) {
			stop(out, off, "truncated length");
			break;
		}
		if (length == 0) {
			if (is_eh)
				break;          /* .eh_frame terminator */
			stop(out, off, "zero length");
			break;
		}
		if (length == 0xffffffffu) {
			length = get(&c, 8);
			dwarf64 = true;
		}
		body = c.p;
		if (c.bad || length > (uint64_t)(sec + len - body)) {
			stop(out, off, "length runs past the section");
			break;
		}
		next = (size_t)(body - sec) + (size_t)length;
		c.end = body + length;
		id_pos = (uint64_t)(c.p - sec);
		id = get(&c, dwarf64 ? 8 : 4);
		if (c.bad) {
			stop(out, off, "truncated id");
			break;
		}
		if ((is_eh && id == 0) ||
		    (!is_eh && id == (dwarf64 ? ~0ULL : 0xffffffffu))) {
			off = next;             /* a CIE: parsed when used */
			continue;
		}
		{
			/* .eh_frame: CIE pointer relative to this field;
			 * .debug_frame: section offset. */
			uint64_t cie_off = is_eh ? id_pos - id : id;
			struct cursor cc;
			uint64_t clen, cie_id;
			bool cie64;
			struct cie_info ci;
			struct fde_ref f;
			bool ok1, ok2;
			uint64_t field;

			if (cie_off >= len || (is_eh && id > id_pos)) {
				stop(out, off, "CIE pointer out of the section");
				break;
			}
			cc = (struct cursor){ sec + cie_off, sec + len, false };
			clen = get(&cc, 4);
			cie64 = clen == 0xffffffffu;
			if (cie64)
				clen = get(&cc, 8);
			if (cc.bad || clen < 4 || clen > (uint64_t)(sec + len - cc.p)) {
				stop(out, off, "bad CIE");
				break;
			}
			cc.end = cc.p + clen;
			cie_id = get(&cc, cie64 ? 8 : 4);
			if (is_eh ? cie_id != 0 : cie_id != (cie64 ? ~0ULL : 0xffffffffu)) {
				stop(out, off, "CIE pointer does not lead to a CIE");
				break;
			}
			ci = parse_cie(cc, is_eh);
			if (!ci.usable) {
				out->skipped++;
				off = next;
				continue;
			}
			field = sec_addr + (uint64_t)(c.p - sec);
			f.pc_begin = encoded(&c, ci.fde_enc, field, &ok1);
			f.pc_end = encoded(&c, ci.fde_enc & 0x0f, 0, &ok2);
			if (c.bad) {
				stop(out, off, "truncated FDE");
				break;
			}
			if (!ok1 || !ok2 || f.pc_begin + f.pc_end < f.pc_begin) {
				out->skipped++;
				off = next;
				continue;
			}
			f.pc_end += f.pc_begin;
			f.fde_offset = off;
			if (f.pc_end > f.pc_begin && push(out, &cap, &f) < 0) {
				fde_list_release(out);
				return UP_ENOMEM;
			}
		}
		off = next;
	}
	if (out->count)
		qsort(out->fdes, out->count, sizeof(*out->fdes), fde_cmp);
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

		if (l->fdes[mid].pc_end <= pc)
			lo = mid + 1;
		else if (l->fdes[mid].pc_begin > pc)
			hi = mid;
		else
			return &l->fdes[mid];
	}
	return NULL;
}
