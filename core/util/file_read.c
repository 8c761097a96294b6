#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "util/error_impl.h"
#include "util/file_map.h"
#include "util/file_read.h"
#include "util/grow.h"

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

/* A file that is not gzip data, read straight into a buffer of its size:
 * zlib's pass-through would copy it through its own buffer into one
 * doubled as it fills (a copy and twice the memory of a large image). A
 * file that grows while read is read on to its end, within the cap. */
static int read_plain(int fd, const char *path, const struct file_read_caps *c,
		      bool map, uint8_t **out, size_t *len)
{
	struct stat st;
	uint8_t *buf = NULL;
	size_t n = 0, cap;

	if (fstat(fd, &st) != 0) {
		close(fd);
		return up_fail(UP_EIO, "cannot read %s: %s", path, strerror(errno));
	}
	if ((uint64_t)st.st_size > c->max) {
		close(fd);
		return too_large(path, c, c->max);
	}
	/* Mapped where the caller can release a mapping (file_map.h); read
	 * if it cannot be mapped. */
	if (map && st.st_size > 0 && file_map(fd, (size_t)st.st_size, out) == 0) {
		close(fd);
		*len = (size_t)st.st_size;
		return 0;
	}
	/* One byte more than the size: the end is seen without a second
	 * buffer. */
	cap = (size_t)st.st_size + 1;
	for (;;) {
		ssize_t got;

		if (n == cap) {
			uint8_t *nb;

			if (cap > c->max) {
				free(buf);
				close(fd);
				return too_large(path, c, c->max);
			}
			cap = cap * 2 > c->max + 1 ? (size_t)c->max + 1 : cap * 2;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				close(fd);
				return up_fail(UP_ENOMEM, "out of memory");
			}
			buf = nb;
		} else if (!buf) {
			if (!(buf = malloc(cap))) {
				close(fd);
				return up_fail(UP_ENOMEM, "out of memory");
			}
			advise_filled_whole(buf, cap);
		}
		got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			up_fail(UP_EIO, "cannot read %s: %s", path, strerror(errno));
			free(buf);
			close(fd);
			return UP_EIO;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	if (n > c->max) {
		free(buf);
		return too_large(path, c, c->max);
	}
	if (n == 0) {
		free(buf);
		buf = NULL;
	}
	*out = buf;
	*len = n;
	return 0;
}

/* gzip data is gunzipped; anything else is read as it is (read_plain:
 * zlib would pass it through unchanged, as it did all files before). */
static int read_or_map(const char *path, const struct file_read_caps *c,
		       bool map, uint8_t **out, size_t *len)
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
	/* zlib takes a file for gzip from its first byte (0x1f): those, and
	 * a file whose first byte cannot be read, go the way they went. */
	if (pread(fd, &probe, 1, 0) == 1 && probe != 0x1f)
		return read_plain(fd, path, c, map, out, len);
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

int file_read(const char *path, const struct file_read_caps *c,
	      uint8_t **out, size_t *len)
{
	return read_or_map(path, c, false, out, len);
}

int file_read_mapped(const char *path, const struct file_read_caps *c,
		     uint8_t **out, size_t *len)
{
	return read_or_map(path, c, true, out, len);
}

void file_read_release(uint8_t *buf)
{
	if (file_map_owns(buf))
		file_map_release(buf);
	else
		free(buf);
}
