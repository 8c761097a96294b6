/* libFuzzer target: compiling the CFI table from an untrusted ELF image's
 * .eh_frame and .debug_frame (unwind/eh_frame.c lists the FDEs, libdw evaluates
 * them, unwind/cfi_table.c turns them into rows and indexes them). The table must
 * come out sorted, its counts must agree, and a lookup at each row's first
 * and last address must find a row holding it; the same again after the
 * image is added to its own table as a second file (a debug file's CFI
 * for the code not covered yet), which must not add an FDE twice. */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "unwind/cfi_table.h"
#include "known_open.h"
#include "uniprof/uniprof.h"

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct up_cfi_table *t;

	up_error_clear();
	if (up_cfi_table_load_mem(&t, data, size, "fuzz input") == 0) {
		size_t fdes, added = 0;

		check_table(t);
		fdes = up_cfi_table_info(t)->fdes;
		up_cfi_table_add_mem(t, data, size, "fuzz input again", &added);
		if (added != up_cfi_table_info(t)->fdes - fdes)
			abort();
		check_table(t);
		up_cfi_table_free(t);
	} else if (!up_error_last()[0]) {
		abort();                      /* a failure always says why */
	}
	return 0;
}
