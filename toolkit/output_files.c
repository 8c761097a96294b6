#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "output_files.h"

static int mkdir_p(const char *dir, mode_t mode)
{
	char buf[4096];
	size_t len = strlen(dir);

	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, dir, len + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, mode) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

char *tk_output_stem(const char *output, const char *domain_name)
{
	char stamp[32], *stem;
	const char *dir = output;
	struct stat st;
	time_t now = time(NULL);
	struct tm tm;
	size_t n;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	if (!output) {
		dir = XEN_LOG_DIR "/profile";
		if (mkdir_p(dir, 0750) < 0) {
			fprintf(stderr, "xl profile: cannot create %s: %s (use -o to write elsewhere)\n",
				dir, strerror(errno));
			return NULL;
		}
	} else if (stat(output, &st) < 0 || !S_ISDIR(st.st_mode)) {
		return strdup(output);      /* a stem of the caller's choice */
	}
	n = strlen(dir) + strlen(domain_name) + strlen(stamp) + 3;
	stem = malloc(n);
	if (stem)
		snprintf(stem, n, "%s/%s-%s", dir, domain_name, stamp);
	return stem;
}

/* Profiles show a guest's code layout and what it runs: owner and group
 * may read them, others never (perf writes perf.data 0600), and a
 * stricter umask is honoured. Read without a lasting change: xl profile
 * writes its files from one thread. */
static mode_t file_mode(void)
{
	mode_t mask = umask(0077);

	umask(mask);
	return TK_FILE_MODE & ~mask;
}

int tk_file_open(struct tk_file *out, const char *stem, const char *suffix)
{
	size_t n = strlen(stem) + strlen(suffix) + 16;
	int fd;

	memset(out, 0, sizeof(*out));
	out->path = malloc(n);
	out->tmp = malloc(n);
	if (!out->path || !out->tmp)
		goto fail;
	snprintf(out->path, n, "%s%s", stem, suffix);
	snprintf(out->tmp, n, "%s.XXXXXX", out->path);
	fd = mkstemp(out->tmp);
	if (fd < 0)
		goto fail;
	if (fchmod(fd, file_mode()) < 0 || !(out->f = fdopen(fd, "w"))) {
		int e = errno;

		close(fd);
		unlink(out->tmp);
		errno = e;
		goto fail;
	}
	return 0;
fail:
	fprintf(stderr, "xl profile: cannot write %s%s: %s\n", stem, suffix,
		strerror(errno));
	free(out->path);
	free(out->tmp);
	memset(out, 0, sizeof(*out));
	return -1;
}

int tk_file_commit(struct tk_file *f)
{
	int rc = 0;

	if (fflush(f->f) != 0 || ferror(f->f) || fsync(fileno(f->f)) != 0)
		rc = -1;
	if (fclose(f->f) != 0)
		rc = -1;
	if (rc == 0 && rename(f->tmp, f->path) != 0)
		rc = -1;
	if (rc < 0) {
		fprintf(stderr, "xl profile: cannot write %s: %s\n", f->path,
			strerror(errno));
		unlink(f->tmp);
	}
	free(f->tmp);
	f->tmp = NULL;
	f->f = NULL;
	return rc;
}

void tk_file_abort(struct tk_file *f)
{
	if (f->f)
		fclose(f->f);
	if (f->tmp)
		unlink(f->tmp);
	free(f->tmp);
	free(f->path);
	memset(f, 0, sizeof(*f));
}
