/* Small ELF images with hostile DWARF, made in memory for the source-line
 * tests (test_srcinfo.c) and as fuzz seeds (gen_seeds.c): one compile
 * unit over CODE..CODE+0x100 with .debug_aranges (libdw finds units by
 * them), a line table and one function, shaped by the case asked for. */
#ifndef UP_TEST_HOSTILE_DWARF_H
#define UP_TEST_HOSTILE_DWARF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HD_CODE 0x1000u

struct hd_buf {
	uint8_t *p;
	size_t n, cap;
};

static void hd_put(struct hd_buf *b, const void *d, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 256;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	if (n)
		memcpy(b->p + b->n, d, n);
	b->n += n;
}

/* v in n <= 8 bytes, little-endian. */
static void hd_le(struct hd_buf *b, uint64_t v, unsigned n)
{
	uint8_t x[8];

	if (n > 8)
		abort();
	for (unsigned i = 0; i < n; i++)
		x[i] = (uint8_t)(v >> (8 * i));
	hd_put(b, x, n);
}

static void hd_uleb(struct hd_buf *b, uint64_t v)
{
	do {
		uint8_t c = v & 0x7f;

		v >>= 7;
		hd_le(b, c | (v ? 0x80 : 0), 1);
	} while (v);
}

static void hd_str(struct hd_buf *b, const char *s)
{
	hd_put(b, s, strlen(s) + 1);
}

/* What to make hostile. */
struct hd_case {
	const char *altlink;      /* .gnu_debugaltlink to this path; the
				   * function's name a DW_FORM_GNU_strp_alt */
	size_t dir_len, files;    /* one include directory, files in it */
	size_t rows;              /* DW_LNS_copy rows in the line program */
	size_t fn_attrs;          /* the function's abbreviation: this many
				   * more attributes (DW_FORM_flag_present) */
	size_t fns;               /* functions (at least 1), all alike */
};

/* The image for c, malloc'ed, its size in *len. */
static uint8_t *hd_image(const struct hd_case *c, size_t *len)
{
	struct hd_buf abbrev = { 0 }, info = { 0 }, line = { 0 }, aranges = { 0 },
		      alt = { 0 }, text = { 0 }, shstr = { 0 }, elf = { 0 },
		      sym = { 0 }, symstr = { 0 };
	size_t hdr_at, prog_at, fns = c->fns ? c->fns : 1;

	/* 1: the unit; 2: a function. */
	hd_uleb(&abbrev, 1); hd_uleb(&abbrev, 0x11); hd_le(&abbrev, 1, 1);
	hd_uleb(&abbrev, 0x10); hd_uleb(&abbrev, 0x17);   /* stmt_list */
	hd_uleb(&abbrev, 0x11); hd_uleb(&abbrev, 0x01);   /* low_pc */
	hd_uleb(&abbrev, 0x12); hd_uleb(&abbrev, 0x06);   /* high_pc data4 */
	hd_uleb(&abbrev, 0); hd_uleb(&abbrev, 0);
	hd_uleb(&abbrev, 2); hd_uleb(&abbrev, 0x2e); hd_le(&abbrev, 0, 1);
	hd_uleb(&abbrev, 0x03);                           /* name */
	hd_uleb(&abbrev, c->altlink ? 0x1f21 : 0x08);     /* strp_alt / string */
	hd_uleb(&abbrev, 0x11); hd_uleb(&abbrev, 0x01);
	hd_uleb(&abbrev, 0x12); hd_uleb(&abbrev, 0x06);
	for (size_t i = 0; i < c->fn_attrs; i++) {
		hd_uleb(&abbrev, 0x3f);                   /* external */
		hd_uleb(&abbrev, 0x19);                   /* flag_present */
	}
	hd_uleb(&abbrev, 0); hd_uleb(&abbrev, 0);
	hd_uleb(&abbrev, 0);

	hd_le(&info, 0, 4);                               /* length, below */
	hd_le(&info, 4, 2); hd_le(&info, 0, 4); hd_le(&info, 8, 1);
	hd_uleb(&info, 1); hd_le(&info, 0, 4); hd_le(&info, HD_CODE, 8);
	hd_le(&info, 0x100, 4);
	for (size_t i = 0; i < fns; i++) {
		hd_uleb(&info, 2);
		if (c->altlink)
			hd_le(&info, 0, 4);
		else
			hd_str(&info, "fn");
		hd_le(&info, HD_CODE, 8); hd_le(&info, 0x100, 4);
	}
	hd_le(&info, 0, 1);
	for (unsigned i = 0; i < 4; i++)
		info.p[i] = (uint8_t)((info.n - 4) >> (8 * i));

	/* Line table, DWARF 4. */
	hd_le(&line, 0, 4); hd_le(&line, 4, 2);
	hdr_at = line.n;
	hd_le(&line, 0, 4);                               /* header_length */
	hd_put(&line, "\x01\x01\x01\xfb\x0e\x0d", 6);
	hd_put(&line, "\x00\x01\x01\x01\x01\x00\x00\x00\x01\x00\x00\x01", 12);
	if (c->dir_len) {
		char *d = malloc(c->dir_len + 1);

		if (!d)
			abort();
		memset(d, 'd', c->dir_len);
		d[0] = '/';
		d[c->dir_len] = '\0';
		hd_str(&line, d);
		free(d);
	}
	hd_le(&line, 0, 1);
	hd_str(&line, "f.c"); hd_uleb(&line, 0); hd_uleb(&line, 0); hd_uleb(&line, 0);
	for (size_t i = 0; i < c->files; i++) {
		hd_str(&line, "a"); hd_uleb(&line, 1); hd_uleb(&line, 0); hd_uleb(&line, 0);
	}
	hd_le(&line, 0, 1);
	prog_at = line.n;
	for (unsigned i = 0; i < 4; i++)
		line.p[hdr_at + i] = (uint8_t)((prog_at - hdr_at - 4) >> (8 * i));
	hd_put(&line, "\x00\x09\x02", 3); hd_le(&line, HD_CODE, 8);
	hd_le(&line, 0x01, 1);
	for (size_t i = 0; i < c->rows; i++)
		hd_le(&line, 0x01, 1);
	hd_le(&line, 0x02, 1); hd_uleb(&line, 0x100);
	hd_put(&line, "\x00\x01\x01", 3);
	for (unsigned i = 0; i < 4; i++)
		line.p[i] = (uint8_t)((line.n - 4) >> (8 * i));

	hd_le(&aranges, 44, 4); hd_le(&aranges, 2, 2); hd_le(&aranges, 0, 4);
	hd_le(&aranges, 8, 1); hd_le(&aranges, 0, 1); hd_le(&aranges, 0, 4);
	hd_le(&aranges, HD_CODE, 8); hd_le(&aranges, 0x100, 8);
	hd_le(&aranges, 0, 8); hd_le(&aranges, 0, 8);

	if (c->altlink) {
		hd_str(&alt, c->altlink);
		hd_put(&alt, "0123456789abcdefghij", 20);   /* a build-id */
	}
	for (unsigned i = 0; i < 0x100; i++)
		hd_le(&text, 0x90, 1);
	/* The function in the symbol table too (the fuzz target looks up
	 * its symbols' addresses). */
	hd_put(&sym, (const uint8_t[24]){ 0 }, 24);
	hd_le(&symstr, 0, 1);
	hd_le(&sym, symstr.n, 4); hd_le(&sym, 0x12, 1); hd_le(&sym, 0, 1);
	hd_le(&sym, 1, 2); hd_le(&sym, HD_CODE, 8); hd_le(&sym, 0x100, 8);
	hd_str(&symstr, "fn");

	{
		struct { const char *name; uint32_t type; uint64_t flags, addr;
			 struct hd_buf *b; uint32_t link, info; uint64_t entsize; } s[] = {
			{ "", 0, 0, 0, NULL, 0, 0, 0 },
			{ ".text", 1, 6, HD_CODE, &text, 0, 0, 0 },
			{ ".debug_abbrev", 1, 0, 0, &abbrev, 0, 0, 0 },
			{ ".debug_info", 1, 0, 0, &info, 0, 0, 0 },
			{ ".debug_line", 1, 0, 0, &line, 0, 0, 0 },
			{ ".debug_aranges", 1, 0, 0, &aranges, 0, 0, 0 },
			{ ".gnu_debugaltlink", 1, 0, 0, &alt, 0, 0, 0 },
			{ ".symtab", 2, 0, 0, &sym, 8, 1, 24 },
			{ ".strtab", 3, 0, 0, &symstr, 0, 0, 0 },
			{ ".shstrtab", 3, 0, 0, &shstr, 0, 0, 0 },
		};
		size_t ns = sizeof(s) / sizeof(s[0]), names[10], offs[10], shoff;

		for (size_t i = 0; i < ns; i++) {
			names[i] = shstr.n;
			hd_str(&shstr, s[i].name);
		}
		hd_put(&elf, "\177ELF\2\1\1", 7);
		hd_le(&elf, 0, 8);
		hd_le(&elf, 0, 1);
		hd_le(&elf, 2, 2); hd_le(&elf, 62, 2); hd_le(&elf, 1, 4);
		hd_le(&elf, HD_CODE, 8); hd_le(&elf, 0, 8);
		hd_le(&elf, 0, 8);                        /* e_shoff, below */
		hd_le(&elf, 0, 4); hd_le(&elf, 64, 2); hd_le(&elf, 56, 2);
		hd_le(&elf, 0, 2); hd_le(&elf, 64, 2); hd_le(&elf, ns, 2);
		hd_le(&elf, ns - 1, 2);
		for (size_t i = 1; i < ns; i++) {
			offs[i] = elf.n;
			hd_put(&elf, s[i].b->p, s[i].b->n);
		}
		while (elf.n % 8)
			hd_le(&elf, 0, 1);
		shoff = elf.n;
		for (size_t i = 0; i < 8; i++)
			elf.p[40 + i] = (uint8_t)(shoff >> (8 * i));
		for (size_t i = 0; i < ns; i++) {
			bool skip = !s[i].b || (s[i].b == &alt && !c->altlink);

			hd_le(&elf, names[i], 4);
			hd_le(&elf, skip && i ? 8 /* NOBITS */ : s[i].type, 4);
			hd_le(&elf, s[i].flags, 8); hd_le(&elf, s[i].addr, 8);
			hd_le(&elf, i ? offs[i] : 0, 8);
			hd_le(&elf, s[i].b ? s[i].b->n : 0, 8);
			hd_le(&elf, s[i].link, 4); hd_le(&elf, s[i].info, 4);
			hd_le(&elf, 1, 8); hd_le(&elf, s[i].entsize, 8);
		}
	}
	free(abbrev.p); free(info.p); free(line.p); free(aranges.p);
	free(alt.p); free(text.p); free(shstr.p); free(sym.p); free(symstr.p);
	*len = elf.n;
	return elf.p;
}

#endif
