#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "util/error_impl.h"
#include "util/file_read.h"

static uint64_t gzip_limit(const char *path, const struct file_read_caps *c)
{
	struct stat st;
	uint64_t size;

	if (stat(path, &st) != 0 || st.st_size <= 0)
		return c->gzip_min < c->max ? c->gzip_min : c->max;
	size = (uint64_t)st.st_size;
	if (size >= c->max / c->gzip_ratio)
		return c->max;
	size *= c->gzip_ratio;
	if (size < c->gzip_min)
		size = c->gzip_min;
	return size < c->max ? size : c->max;
}

static int too_large(const char *path, const struct file_read_caps *c,
		     uint64_t limit)
{
	if (limit < c->max)
		return up_fail(UP_EFORMAT,
			       "%s: gzip data expands past %llu MiB (%u times its compressed size): refused as a decompression bomb; pass the uncompressed %s",
			       path, (unsigned long long)(limit >> 20),
			       c->gzip_ratio, c->noun);
	return up_fail(UP_EFORMAT, "%s %s is larger than %llu MiB", c->noun,
		       path, (unsigned long long)(c->max >> 20));
}

int file_open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return FILE_NOT_REGULAR;
	}
	return fd;
}

/* gzread passes plain files through unchanged. */
int file_read(const char *path, const struct file_read_caps *c,
	      uint8_t **out, size_t *len)
{
	gzFile gz;
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0;
	uint64_t limit = c->max;
	uint8_t probe;
	int got, fd;

	fd = file_open_regular(path);
	if (fd == FILE_NOT_REGULAR)
		return up_fail(UP_EINVAL, "%s %s is not a regular file", c->noun, path);
	if (fd < 0)
		return up_fail(errno == ENOENT ? UP_ENOENT : UP_EIO,
			       "cannot open %s %s: %s", c->noun, path, strerror(errno));
	gz = gzdopen(fd, "rb");
	if (!gz) {
		close(fd);
		return up_fail(UP_ENOMEM, "out of memory");
	}
	gzbuffer(gz, 128 * 1024);
	for (;;) {
		if (n == cap) {
			uint8_t *nb;

			if (cap >= limit && gzread(gz, &probe, 1) == 0)
				break;          /* exactly the limit */
			if (cap >= limit) {
				free(buf);
				gzclose(gz);
				return too_large(path, c, limit);
			}
			cap = cap ? cap * 2 : 1 << 20;
			if (cap > limit)
				cap = (size_t)limit;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				gzclose(gz);
				return up_fail(UP_ENOMEM, "out of memory");
			}
			buf = nb;
		}
		got = gzread(gz, buf + n, (unsigned)(cap - n));
		if (got < 0) {
			int zerr;
			const char *msg = gzerror(gz, &zerr);

			up_fail(UP_EFORMAT, "cannot read %s: %s", path,
				zerr == Z_ERRNO ? strerror(errno) : msg);
			free(buf);
			gzclose(gz);
			return UP_EFORMAT;
		}
		if (n == 0 && got > 0 && !gzdirect(gz))
			limit = gzip_limit(path, c);
		if (got == 0)
			break;
		n += (size_t)got;
	}
	/* zlib reads a gzip stream cut short as far as it goes (a file still
	 * being written) and says so only here. */
	{
		int zerr;

		gzerror(gz, &zerr);
		if (zerr == Z_BUF_ERROR) {
			free(buf);
			gzclose(gz);
			return up_fail(UP_EFORMAT, "%s: the gzip data is cut short (a truncated or partly copied file)",
				       path);
		}
	}
	gzclose(gz);
	*out = buf;
	*len = n;
	return 0;
}
