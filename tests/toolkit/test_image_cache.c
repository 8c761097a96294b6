/* Start-up reads the kernel image once (issue 11, bounded start-up): the
 * identity, symbols, CFI table and libunwind tables of a gzip-compressed
 * image all come from one read, and a refused file (a gzip bomb) is
 * refused once, with the same line each time it is asked for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "../unit/test.h"
#include "toolkit/image_cache.h"
#include "uniprof/uniprof.h"
#include "private.h"

TEST_GLOBALS;

static char guest[512];

static void test_one_read_for_all(void)
{
	char path[] = "/tmp/uniprof-imgcache-XXXXXX", cmd[2048];
	int fd = mkstemp(path);
	struct up_elf_identity id;
	struct up_symtab *s = NULL;
	struct up_cfi_table *c = NULL;
	struct up_libunwind *lu = NULL;
	unsigned before = tk_image_cache_reads();

	close(fd);
	snprintf(cmd, sizeof(cmd), "gzip -c '%s' > '%s'", guest, path);
	REQUIRE(system(cmd) == 0);
	CHECK(tk_elf_identify(path, &id) == 0 && id.has_symtab);
	CHECK(tk_symtab_load(&s, path) == 0 && up_symtab_count(s) > 10);
	CHECK(tk_cfi_table_load(&c, path) == 0 && up_cfi_table_info(c)->rows > 10);
	CHECK(tk_libunwind_load(&lu, path) == 0);
	CHECK(tk_image_cache_reads() - before == 1);
	up_symtab_free(s);
	up_cfi_table_free(c);
	up_libunwind_free(lu);
	tk_image_cache_drop();
	/* Dropped: the next load reads again. */
	CHECK(tk_symtab_load(&s, path) == 0);
	CHECK(tk_image_cache_reads() - before == 2);
	up_symtab_free(s);
	tk_image_cache_drop();
	unlink(path);
}

static void test_bomb_refused_once(void)
{
	char path[] = "/tmp/uniprof-imgbomb-XXXXXX";
	int fd = mkstemp(path);
	gzFile gz = gzdopen(fd, "wb1");
	static char zeros[1 << 20];
	struct up_symtab *s = NULL;
	struct up_cfi_table *c = NULL;
	unsigned before = tk_image_cache_reads();

	REQUIRE(gz != NULL);
	for (int i = 0; i < 100; i++)
		gzwrite(gz, zeros, sizeof(zeros));
	gzclose(gz);
	CHECK(tk_symtab_load(&s, path) == UP_EFORMAT);
	CHECK(strstr(up_error_last(), "decompression bomb") != NULL);
	up_error_clear();
	CHECK(tk_cfi_table_load(&c, path) == UP_EFORMAT);
	CHECK(strstr(up_error_last(), "decompression bomb") != NULL);
	CHECK(tk_image_cache_reads() - before == 1);
	tk_image_cache_drop();
	unlink(path);
}

int main(void)
{
	const char *b = getenv("top_builddir");

	snprintf(guest, sizeof(guest), "%s/tests/guest/tg-nofp.elf", b ? b : ".");
	if (access(guest, R_OK) != 0) {
		fprintf(stderr, "test guest missing: %s\n", guest);
		return 99;
	}
	RUN(test_one_read_for_all);
	RUN(test_bomb_refused_once);
	TEST_MAIN_END();
}
