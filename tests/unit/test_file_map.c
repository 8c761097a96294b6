/* Files mapped rather than copied (core/util/file_map.c): the bytes are
 * the file's, each mapping again is private, a file shortened under a
 * mapping reads as zeros past its new end (not SIGBUS), a later mapping
 * is refused once the file changed, and the loaders take mapped images
 * as they took copies. */
#include "config.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/file_map.h"
#include "util/file_read.h"
#include "test.h"
#include "private.h"
#include "uniprof/uniprof.h"

TEST_GLOBALS;

#define LEN (64 * 4096 + 100)

/* A temporary file of LEN bytes, byte i = i * 7; its descriptor. */
static int make_file(char *path)
{
	int fd;
	uint8_t *b = malloc(LEN);

	strcpy(path, "/tmp/uniprof-test-file-map-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || !b) {
		free(b);
		return -1;
	}
	for (size_t i = 0; i < LEN; i++)
		b[i] = (uint8_t)(i * 7);
	if (write(fd, b, LEN) != LEN) {
		close(fd);
		fd = -1;
	}
	free(b);
	return fd;
}

static bool holds_pattern(const uint8_t *p, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		if (p[i] != (uint8_t)(i * 7))
			return false;
	return true;
}

static void test_mapped_private(void)
{
	char path[64];
	int fd = make_file(path);
	uint8_t *a, *b;

	REQUIRE(fd >= 0);
	unlink(path);
	REQUIRE(file_map(fd, LEN, &a) == 0);
	CHECK(file_map_owns(a));
	CHECK(holds_pattern(a, 0, LEN));
	REQUIRE(file_map_again(a, LEN, &b) == 1);
	CHECK(b != a && file_map_owns(b));
	/* A write (libelf's) is the writer's alone. */
	b[5] ^= 0xff;
	CHECK(a[5] == 35);
	CHECK(file_map_again(a, LEN - 1, &b) == 0);     /* not the same bytes */
	{
		uint8_t heap[4];

		CHECK(!file_map_owns(heap));
		CHECK(file_map_again(heap, sizeof(heap), &b) == 0);
	}
	file_map_release(b);
	file_map_release(a);
	CHECK(!file_map_owns(a));
	close(fd);
}

static void test_shortened_reads_zeros(void)
{
	char path[64];
	int fd = make_file(path);
	uint8_t *a;

	REQUIRE(fd >= 0);
	unlink(path);
	REQUIRE(file_map(fd, LEN, &a) == 0);
	REQUIRE(ftruncate(fd, 8192) == 0);
	CHECK(holds_pattern(a, 0, 8192));
	/* Past the new end: zeros where the kernel would raise SIGBUS. */
	CHECK(a[LEN - 1] == 0 && a[40000] == 0);
	CHECK(file_map_was_cut(a));
	file_map_release(a);
	close(fd);
}

static volatile sig_atomic_t theirs;

static void their_handler(int sig)
{
	(void)sig;
	theirs++;
}

/* A SIGBUS that is not a read past a mapped file's end (one sent with
 * kill, here raise) goes to the handler the program had; and a handler
 * the program sets after the first mapping is chained to by the next. */
static void test_other_sigbus_chained(void)
{
	char path[64];
	int fd = make_file(path);
	struct sigaction sa = { .sa_handler = their_handler }, before;
	uint8_t *a, *b;

	REQUIRE(fd >= 0);
	unlink(path);
	sigemptyset(&sa.sa_mask);
	REQUIRE(sigaction(SIGBUS, NULL, &before) == 0);
	REQUIRE(file_map(fd, LEN, &a) == 0);
	REQUIRE(sigaction(SIGBUS, &sa, NULL) == 0);    /* set after ours */
	REQUIRE(file_map_again(a, LEN, &b) == 1);      /* ours again, chaining */
	theirs = 0;
	raise(SIGBUS);
	CHECK(theirs == 1);
	REQUIRE(ftruncate(fd, 4096) == 0);
	CHECK(b[LEN - 1] == 0 && file_map_was_cut(b));   /* still ours */
	CHECK(theirs == 1);
	file_map_release(b);
	file_map_release(a);
	sigaction(SIGBUS, &before, NULL);
	close(fd);
}

static void test_stamp_refuses_changed(void)
{
	char path[64];
	int fd = make_file(path);
	struct file_stamp st;
	uint8_t *a, *again;

	REQUIRE(fd >= 0);
	unlink(path);
	REQUIRE(file_map(fd, LEN, &a) == 0);
	REQUIRE(file_map_stamp(a, &st) == 0);
	file_map_release(a);
	REQUIRE(file_map_stamped(&st, &again) == 0);
	CHECK(holds_pattern(again, 0, LEN));
	file_map_release(again);
	/* Rewritten in place: a new modification time. */
	{
		struct timespec t[2] = { { 0, UTIME_OMIT }, { 12345, 0 } };

		REQUIRE(futimens(fd, t) == 0);
	}
	CHECK(file_map_stamped(&st, &again) < 0);
	close(st.fd);
	close(fd);
}

/* The file readers: a plain file mapped, gzip data read into memory, and
 * each given back the way it came. */
static void test_read_mapped(void)
{
	static const struct file_read_caps caps = { .noun = "test file", .max = 1 << 30,
						    .gzip_ratio = 32, .gzip_min = 1 << 20 };
	char path[64];
	int fd = make_file(path);
	uint8_t *buf;
	size_t len;

	REQUIRE(fd >= 0);
	close(fd);
	REQUIRE(file_read_mapped(path, &caps, &buf, &len) == 0);
	CHECK(len == LEN && file_map_owns(buf) && holds_pattern(buf, 0, LEN));
	file_read_release(buf);
	REQUIRE(file_read(path, &caps, &buf, &len) == 0);
	CHECK(len == LEN && !file_map_owns(buf) && holds_pattern(buf, 0, LEN));
	file_read_release(buf);
	unlink(path);
}

/* The test unikernel's symbols and CFI rows from its mapped bytes: the
 * same as from a copy. */
static void test_loaders_same(void)
{
	const char *top = getenv("top_builddir");
	char img[4096];
	const uint8_t *mapped;
	uint8_t *copy;
	size_t len, len2;
	struct up_symtab *a = NULL, *b = NULL;
	struct up_cfi_table *ca = NULL, *cb = NULL;

	snprintf(img, sizeof(img), "%s/tests/guest/tg-nofp.elf", top ? top : ".");
	REQUIRE(up_file_map(img, &mapped, &len) == 0);
	REQUIRE(up_file_read(img, &copy, &len2) == 0);
	CHECK(len == len2 && memcmp(mapped, copy, len) == 0);
	REQUIRE(up_symtab_load_mem(&a, mapped, len, img) == 0);
	REQUIRE(up_symtab_load_mem(&b, copy, len, img) == 0);
	CHECK(up_symtab_count(a) == up_symtab_count(b) && up_symtab_count(a) > 100);
	for (size_t i = 0; i < up_symtab_count(a) && i < up_symtab_count(b); i++)
		CHECK(up_symtab_symbol(a, i)->addr == up_symtab_symbol(b, i)->addr &&
		      strcmp(up_symtab_symbol(a, i)->name, up_symtab_symbol(b, i)->name) == 0);
	REQUIRE(up_cfi_table_load_mem(&ca, mapped, len, img) == 0);
	REQUIRE(up_cfi_table_load_mem(&cb, copy, len, img) == 0);
	CHECK(up_cfi_table_info(ca)->rows == up_cfi_table_info(cb)->rows);
	/* The caller's mapping is untouched by the loaders' writes. */
	CHECK(memcmp(mapped, copy, len) == 0);
	up_cfi_table_free(ca);
	up_cfi_table_free(cb);
	up_symtab_free(a);
	up_symtab_free(b);
	free(copy);
	up_file_release(mapped);
}

int main(void)
{
	RUN(test_mapped_private);
	RUN(test_shortened_reads_zeros);
	RUN(test_other_sigbus_chained);
	RUN(test_stamp_refuses_changed);
	RUN(test_read_mapped);
	RUN(test_loaders_same);
	TEST_MAIN_END();
}
