/* Unwind tables from where the build left them (issue 24): an image
 * whose own CFI covers only its assembly (Unikraft's: C's CFI went to
 * .debug_frame, which stripping removed) gets the rest from the symbol
 * file found for it; a text map or another architecture's file adds
 * nothing; the table stays sorted and without overlaps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../unit/guest.h"
#include "../unit/test.h"
#include "unwind/cfi_table.h"
#include "toolkit/unwind_load.h"
#include "uniprof/uniprof.h"
#include "private.h"

TEST_GLOBALS;

static char image[512], dbg[512], nofp[512], arm64[512];

static bool sorted_apart(const struct up_cfi_table *t)
{
	for (size_t i = 1; i < t->count; i++)
		if (t->rows[i - 1].start + t->rows[i - 1].len > t->rows[i].start)
			return false;
	return true;
}

/* The stripped image alone: two FDEs (the entry's assembly), too few to
 * tell whether frame pointers are kept, nothing for the C code. */
static void test_image_alone(void)
{
	struct tk_unwind u;
	unsigned long hot = tg_elf_symbol(dbg, "tg_hot_35");

	REQUIRE(hot != 0);
	REQUIRE(tk_unwind_load(UP_UNWINDER_AUTO, image, NULL, 0, &u) == 0);
	REQUIRE(u.cfi != NULL);
	CHECK(up_cfi_table_info(u.cfi)->fdes == 2);
	CHECK(up_cfi_frame_pointers(u.cfi) == UP_FP_UNKNOWN);
	CHECK(cfi_table_find(u.cfi, hot) == NULL);
	tk_unwind_release(&u);
}

/* With its .dbg as the symbol file: every C function has its rows, and
 * the table says frame pointers are omitted. */
static void test_debug_file_fills(void)
{
	struct tk_unwind u;
	const struct cfi_row *r;
	unsigned long hot = tg_elf_symbol(dbg, "tg_hot_35");

	REQUIRE(tk_unwind_load(UP_UNWINDER_AUTO, image, dbg, 1, &u) == 0);
	REQUIRE(u.cfi != NULL);
	CHECK(up_cfi_table_info(u.cfi)->fdes > 40);
	CHECK(up_cfi_frame_pointers(u.cfi) == UP_FP_OMITTED);
	r = cfi_table_find(u.cfi, hot);
	REQUIRE(r != NULL);
	CHECK(r->kind == CFI_ROW_NORMAL && r->cfa_reg == CFI_CFA_SP && r->cfa_off == 8);
	CHECK(sorted_apart(u.cfi));
	CHECK(u.cfi->index != NULL);
	tk_unwind_release(&u);
}

/* A file whose CFI covers what the table has already adds nothing; a
 * text map is no ELF file (nothing to add, no error); another
 * architecture's file is refused and leaves the table as it was. */
static void test_nothing_to_add(void)
{
	struct up_cfi_table *t;
	size_t added = 99, rows;
	char map[] = "/tmp/uniprof-map-XXXXXX", cmd[1200];
	int fd = mkstemp(map);
	struct tk_unwind u;

	REQUIRE(up_cfi_table_load(&t, nofp) == 0);
	rows = t->count;
	{
		FILE *f = fopen(nofp, "rb");
		static char buf[1 << 21];
		size_t n = f ? fread(buf, 1, sizeof(buf), f) : 0;

		if (f)
			fclose(f);
		REQUIRE(n > 0 && n < sizeof(buf));
		CHECK(up_cfi_table_add_mem(t, buf, n, nofp, &added) == 0);
		CHECK(added == 0 && t->count == rows);
		CHECK(up_cfi_table_add_mem(t, "not elf", 7, "x", &added) == UP_EFORMAT);
	}
	up_cfi_table_free(t);

	close(fd);
	snprintf(cmd, sizeof(cmd), "nm -n '%s' > '%s'", dbg, map);
	REQUIRE(system(cmd) == 0);
	REQUIRE(tk_unwind_load(UP_UNWINDER_AUTO, image, map, 0, &u) == 0);
	CHECK(up_cfi_table_info(u.cfi)->fdes == 2);
	tk_unwind_release(&u);
	unlink(map);

	if (access(arm64, R_OK) == 0) {
		REQUIRE(tk_unwind_load(UP_UNWINDER_AUTO, image, arm64, 0, &u) == 0);
		CHECK(up_cfi_table_info(u.cfi)->fdes == 2);
		tk_unwind_release(&u);
	}
}

int main(void)
{
	const char *b = getenv("top_builddir");

	b = b ? b : ".";
	snprintf(image, sizeof(image), "%s/tests/guest/tg-split.elf", b);
	snprintf(dbg, sizeof(dbg), "%s/tests/guest/tg-split.elf.dbg", b);
	snprintf(nofp, sizeof(nofp), "%s/tests/guest/tg-nofp.elf", b);
	snprintf(arm64, sizeof(arm64), "%s/tests/unit/fixture_arm64.elf", b);
	RUN(test_image_alone);
	RUN(test_debug_file_fills);
	RUN(test_nothing_to_add);
	TEST_MAIN_END();
}
