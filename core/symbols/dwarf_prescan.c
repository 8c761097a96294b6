/* Bounded reads of line-table headers and programs and of abbreviation
 * tables, before libdw expands them (see dwarf_prescan.h). Every read is
 * checked against the section's end; counts are checked against the
 * limit before any loop runs over them. */
#include "config.h"

#include <dwarf.h>
#include <stdbool.h>
#include <string.h>

#include "symbols/dwarf_prescan.h"

#define REFUSE UINT64_MAX

struct rd {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > REFUSE - b ? REFUSE : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	return b && a > REFUSE / b ? REFUSE : a * b;
}

static uint64_t fixed(struct rd *r, unsigned n)
{
	uint64_t v = 0;

	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = true;
		return 0;
	}
	for (unsigned i = 0; i < n; i++)   /* little-endian, as libdw on x86/arm64 */
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

static void skip(struct rd *r, uint64_t n)
{
	if (r->bad || (uint64_t)(r->end - r->p) < n)
		r->bad = true;
	else
		r->p += n;
}

/* ULEB128 or SLEB128 (the value of the latter is not needed); values
 * past 64 bits saturate. */
static uint64_t leb(struct rd *r)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (!r->bad) {
		uint8_t b;

		if (r->p >= r->end) {
			r->bad = true;
			break;
		}
		b = *r->p++;
		if (shift < 64)
			v |= shift == 63 && (b & 0x7e) ? REFUSE : (uint64_t)(b & 0x7f) << shift;
		else if (b & 0x7f)
			v = REFUSE;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	return v;
}

/* An inline string's length; the reader moves past its NUL. */
static size_t string(struct rd *r)
{
	size_t len;

	if (r->bad)
		return 0;
	len = strnlen((const char *)r->p, (size_t)(r->end - r->p));
	if (len == (size_t)(r->end - r->p)) {
		r->bad = true;
		return 0;
	}
	r->p += len + 1;
	return len;
}

/* The length of the string at off in a string section; bad when off is
 * past it or the string has no end there. */
static size_t string_at(struct rd *r, struct prescan_sec sec, uint64_t off)
{
	size_t len;

	if (r->bad || !sec.p || off >= sec.len) {
		r->bad = true;
		return 0;
	}
	len = strnlen((const char *)sec.p + off, sec.len - (size_t)off);
	if (len == sec.len - off)
		r->bad = true;
	return len;
}

/* A DWARF 5 entry-format field: moves past its value; for a string, its
 * length in *len. Forms libdw's line reader takes, and no others. */
static void form_value(struct rd *r, const struct line_prescan_in *in,
		       uint64_t form, unsigned offset_size, size_t *len)
{
	*len = 0;
	switch (form) {
	case DW_FORM_string:
		*len = string(r);
		break;
	case DW_FORM_line_strp:
		*len = string_at(r, in->line_str, fixed(r, offset_size));
		break;
	case DW_FORM_strp:
		*len = string_at(r, in->str, fixed(r, offset_size));
		break;
	case DW_FORM_udata:
		leb(r);
		break;
	case DW_FORM_data1: skip(r, 1); break;
	case DW_FORM_data2: skip(r, 2); break;
	case DW_FORM_data4: skip(r, 4); break;
	case DW_FORM_data8: skip(r, 8); break;
	case DW_FORM_data16: skip(r, 16); break;
	case DW_FORM_block:
		skip(r, leb(r));
		break;
	default:
		r->bad = true;
	}
}

/* A DWARF 5 directory or file table: its entries and their longest
 * DW_LNCT_path. Counts are judged against the limit before the loop. */
static uint64_t entry_table(struct rd *r, const struct line_prescan_in *in,
			    unsigned offset_size, uint64_t per_entry,
			    uint64_t limit, size_t *longest)
{
	uint64_t ct[255], form[255], count;
	unsigned nfmt = (unsigned)fixed(r, 1);

	for (unsigned i = 0; i < nfmt && !r->bad; i++) {
		ct[i] = leb(r);
		form[i] = leb(r);
	}
	count = leb(r);
	if (r->bad || sat_mul(count, per_entry) > limit) {
		r->bad = true;
		return 0;
	}
	for (uint64_t k = 0; k < count && !r->bad; k++)
		for (unsigned i = 0; i < nfmt && !r->bad; i++) {
			size_t len;

			form_value(r, in, form[i], offset_size, &len);
			if (ct[i] == DW_LNCT_path && len > *longest)
				*longest = len;
		}
	return count;
}

/* What the line program can make libdw allocate, read without running
 * it (so without depending on how libdw decodes a hostile one): every
 * row needs an opcode byte of its own, and every DW_LNE_define_file (a
 * file libdw adds, its path joined like the header's) a byte of value
 * DW_LNE_define_file and a name no longer than the longest run of bytes
 * without a NUL. */
static void program(struct rd *r, uint64_t *rows, uint64_t *defined,
		    size_t *longest)
{
	size_t run = 0;

	*rows = (uint64_t)(r->end - r->p);
	for (; r->p < r->end; r->p++) {
		*defined += *r->p == DW_LNE_define_file;
		run = *r->p ? run + 1 : 0;
		if (run > *longest)
			*longest = run;
	}
}

uint64_t line_prescan_cost(const struct line_prescan_in *in, uint64_t off,
			   uint64_t limit, uint64_t *read)
{
	struct rd r;
	uint64_t len, header_len, ndirs = 0, nfiles = 0, rows = 0, defined = 0, cost;
	unsigned offset_size = 4, version, opcode_base;
	size_t longest_dir = in->comp_dir_len, longest_name = 0;
	const uint8_t *unit_start;

	if (!in->line.p || off >= in->line.len)
		return REFUSE;
	r = (struct rd){ in->line.p + off, in->line.p + in->line.len, false };
	unit_start = r.p;
	len = fixed(&r, 4);
	if (len == 0xffffffffu) {
		len = fixed(&r, 8);
		offset_size = 8;
	} else if (len >= 0xfffffff0u) {
		return REFUSE;
	}
	if (r.bad || len > (uint64_t)(r.end - r.p))
		return REFUSE;
	r.end = r.p + len;
	version = (unsigned)fixed(&r, 2);
	if (version < 2 || version > 5)
		return REFUSE;
	if (version >= 5)
		skip(&r, 2);                   /* address and selector sizes */
	header_len = fixed(&r, offset_size);
	if (r.bad || header_len > (uint64_t)(r.end - r.p))
		return REFUSE;
	{
		const uint8_t *prog = r.p + header_len;

		skip(&r, version >= 4 ? 5 : 4);   /* up to line_range */
		opcode_base = (unsigned)fixed(&r, 1);
		skip(&r, opcode_base ? opcode_base - 1 : 0);
		if (r.bad || opcode_base == 0)
			return REFUSE;
		if (version < 5) {
			/* Strings until an empty one, then entries until a 0. */
			while (!r.bad && r.p < r.end && *r.p) {
				size_t n = string(&r);

				longest_dir = n > longest_dir ? n : longest_dir;
				ndirs++;
			}
			skip(&r, 1);
			while (!r.bad && r.p < r.end && *r.p) {
				size_t n = string(&r);

				longest_name = n > longest_name ? n : longest_name;
				leb(&r);
				leb(&r);
				leb(&r);
				nfiles++;
			}
			skip(&r, 1);
		} else {
			ndirs = entry_table(&r, in, offset_size, LINE_DIR_COST,
					    limit, &longest_dir);
			nfiles = entry_table(&r, in, offset_size, LINE_FILE_COST,
					     limit, &longest_name);
		}
		if (r.bad || prog < r.p || prog > r.end)
			return REFUSE;
		r.p = prog;
	}
	program(&r, &rows, &defined, &longest_name);
	*read = sat_add(*read, (uint64_t)(r.p - unit_start));
	/* Every file's path is its directory and name joined: charged at
	 * the longest of each, which is what a hostile header uses. */
	cost = sat_mul(ndirs, LINE_DIR_COST);
	cost = sat_add(cost, sat_mul(sat_add(nfiles, defined),
				     LINE_FILE_COST + 2 + (uint64_t)longest_dir +
				     longest_name));
	cost = sat_add(cost, sat_mul(rows, LINE_ROW_COST));
	return cost > limit ? REFUSE : cost;
}

int abbrev_prescan(struct prescan_sec sec, uint64_t off, uint64_t max_attrs,
		   struct abbrev_prescan *out, uint64_t *read)
{
	struct rd r;
	int rc = 0;

	*out = (struct abbrev_prescan){ 0 };
	if (!sec.p || off >= sec.len)
		return 0;                      /* libdw finds no table there */
	r = (struct rd){ sec.p + off, sec.p + sec.len, false };
	while (!r.bad && rc == 0) {
		uint64_t attrs = 0;

		if (leb(&r) == 0 || r.bad)     /* the table's end */
			break;
		leb(&r);                       /* tag */
		skip(&r, 1);                   /* has children */
		while (!r.bad) {
			uint64_t name = leb(&r), form = leb(&r);

			if (form == DW_FORM_implicit_const)
				leb(&r);
			if (name == 0 && form == 0)
				break;
			if (++attrs > max_attrs) {
				rc = -1;
				break;
			}
		}
		out->entries++;
		if (attrs > out->max_attrs)
			out->max_attrs = attrs;
	}
	*read = sat_add(*read, (uint64_t)(r.p - (sec.p + off)));
	return rc;
}
