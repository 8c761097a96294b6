/* Profile files are written whole (a temporary name, then a rename) and
 * with mode 0640 less the umask: never readable by others, a stricter
 * umask honoured; an aborted write leaves nothing behind. */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../unit/test.h"
#include "toolkit/output_files.h"

TEST_GLOBALS;

static char dir[] = "/tmp/uniprof-test-output-XXXXXX";

static mode_t written_mode(mode_t mask, const char *suffix)
{
	struct tk_file f;
	char stem[128];
	struct stat st;
	mode_t old = umask(mask);

	snprintf(stem, sizeof(stem), "%s/p", dir);
	CHECK(tk_file_open(&f, stem, suffix) == 0);
	umask(old);
	if (!f.f)
		return 07777;
	fputs("a;b 1\n", f.f);
	CHECK(tk_file_commit(&f) == 0);
	CHECK(stat(f.path, &st) == 0);
	free(f.path);
	return st.st_mode & 07777;
}

static void test_modes(void)
{
	CHECK_U64(written_mode(022, ".a"), 0640);
	CHECK_U64(written_mode(0, ".b"), TK_FILE_MODE);
	CHECK_U64(written_mode(027, ".c"), 0640);
	CHECK_U64(written_mode(077, ".d"), 0600);
	/* The process's umask is as it was. */
	CHECK_U64(umask(022), 022);
}

static void test_abort_leaves_nothing(void)
{
	struct tk_file f;
	char stem[128];
	DIR *d;
	struct dirent *e;
	unsigned left = 0;

	snprintf(stem, sizeof(stem), "%s/gone", dir);
	CHECK(tk_file_open(&f, stem, ".svg") == 0);
	if (f.f)
		tk_file_abort(&f);
	d = opendir(dir);
	CHECK(d != NULL);
	while (d && (e = readdir(d)))
		left += strncmp(e->d_name, "gone", 4) == 0;
	if (d)
		closedir(d);
	CHECK_U64(left, 0);
}

int main(void)
{
	umask(022);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(test_modes);
	RUN(test_abort_leaves_nothing);
	/* Remove what the tests wrote. */
	{
		DIR *d = opendir(dir);
		struct dirent *e;
		char path[300];

		while (d && (e = readdir(d)))
			if (e->d_name[0] != '.') {
				snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
				unlink(path);
			}
		if (d)
			closedir(d);
		rmdir(dir);
	}
	TEST_MAIN_END();
}
