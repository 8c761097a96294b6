/* libFuzzer target: compiling the CFI table from an untrusted ELF image's
 * .eh_frame and .debug_frame (unwind/eh_frame.c lists the FDEs, libdw evaluates
 * them, unwind/cfi_table.c turns them into rows and indexes them). The table must
 * come out sorted, its counts must agree, and a lookup at each row's first
 * and last address must find a row holding it; the same again after the
 * image is added to its own table as a second file (a debug file's CFI
 * for the code not covered yet), which must not add an FDE twice. The
 * table is compiled twice, from libelf's whole copy of the image and from
 * the copy of its headers and .eh_frame that images past 1 MiB get
 * (core/util/elf_copy.c, its limits lowered for these small inputs),
 * the second time with libdw asked for every plain FDE rather than once
 * per CIE (cfi_table_share_plain_rules): both must refuse it or give the
 * same rows. */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unwind/cfi_table.h"
#include "known_open.h"
#include "util/elf_copy.h"
#include "uniprof/uniprof.h"
#include "private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Does some row start before an earlier one ends? */
static bool overlapping(const struct up_cfi_table *t)
{
	uint64_t end = 0;

	for (size_t i = 0; i < t->count; i++) {
		if (i && t->rows[i].start < end)
			return true;
		if (t->rows[i].start + t->rows[i].len > end)
			end = t->rows[i].start + t->rows[i].len;
	}
	return false;
}

static void check_table(const struct up_cfi_table *t)
{
	const struct up_cfi_info *info = up_cfi_table_info(t);
	bool lookups = !(KNOWN_OPEN_H3_OVERLAP && overlapping(t));
	size_t unsupported = 0;

	if (info->rows != t->count || !t->count)
		abort();
	for (size_t i = 0; i < t->count; i++) {
		const struct cfi_row *r = &t->rows[i];

		if (r->len == 0 || r->kind > CFI_ROW_UNSUPPORTED_ELSEWHERE)
			abort();
		unsupported += r->kind >= CFI_ROW_UNSUPPORTED;
		if (i && r->start < t->rows[i - 1].start)
			abort();
		/* A row's first and last address find a row holding them. */
		for (int k = 0; lookups && k < 2; k++) {
			uint64_t pc = k ? r->start + r->len - 1 : r->start;
			const struct cfi_row *hit = cfi_table_find(t, pc);

			if (!hit || pc < hit->start || pc - hit->start >= hit->len)
				abort();
		}
		cfi_table_find(t, r->start - 1);
		cfi_table_find(t, r->start + r->len);
	}
	/* info counts unsupported rows before contiguous ones are merged. */
	if (unsupported > info->unsupported || !unsupported != !info->unsupported)
		abort();
}

/* The table, checked; NULL when refused (saying why). */
static struct up_cfi_table *load(const uint8_t *data, size_t size, int *rc)
{
	struct up_cfi_table *t;

	up_error_clear();
	*rc = up_cfi_table_load_mem(&t, data, size, "fuzz input");
	if (*rc == 0) {
		size_t fdes, added = 0;

		check_table(t);
		fdes = up_cfi_table_info(t)->fdes;
		up_cfi_table_add_mem(t, data, size, "fuzz input again", &added);
		if (added != up_cfi_table_info(t)->fdes - fdes)
			abort();
		check_table(t);
		return t;
	}
	if (!up_error_last()[0])
		abort();                      /* a failure always says why */
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct elf_copy_limits whole = { SIZE_MAX, false }, parts = { 0, true };
	struct up_cfi_table *a, *b;
	int ra, rb;

	elf_copy_limits = whole;
	cfi_table_share_plain_rules = true;
	cfi_table_stream = true;
	a = load(data, size, &ra);
	elf_copy_limits = parts;
	cfi_table_share_plain_rules = false;
	cfi_table_stream = false;
	b = load(data, size, &rb);
	cfi_table_stream = true;
	/* The part copy reads what the whole does, libdw gives every plain
	 * FDE the rule it gave the first of its CIE, and an .eh_frame
	 * compiled as its walk vets it is compiled as from its list: the
	 * same rows. */
	if (ra != rb)
		abort();
	if (a) {
		const struct up_cfi_info *x = up_cfi_table_info(a), *y = up_cfi_table_info(b);

		if (a->count != b->count ||
		    memcmp(a->rows, b->rows, a->count * sizeof(*a->rows)) != 0 ||
		    x->fdes != y->fdes || x->unsupported != y->unsupported ||
		    strcmp(x->warning, y->warning) != 0)
			abort();
	}
	up_cfi_table_free(a);
	up_cfi_table_free(b);
	return 0;
}
