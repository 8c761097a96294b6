/* Reading a whole input file (an image, a symbol map, a stored profile),
 * gunzipped when it is gzip-compressed, within caps that hold whatever
 * the file says: a bound on its size and on how far gzip data may expand. */
#ifndef UP_FILE_READ_H
#define UP_FILE_READ_H

#include <stddef.h>
#include <stdint.h>

struct file_read_caps {
	const char *noun;        /* "symbol file", "profile": for messages */
	uint64_t max;            /* bytes, after decompression */
	unsigned gzip_ratio;     /* gzip data: at most this times the file... */
	uint64_t gzip_min;       /* ...or this, whichever is larger (and max) */
};

/* *out is malloc'ed (NULL for an empty file). One error line naming the
 * file on failure: missing, unreadable, damaged gzip, over a cap. */
int file_read(const char *path, const struct file_read_caps *caps,
	      uint8_t **out, size_t *len);

/* The same, but a plain file is mapped rather than copied (file_map.h:
 * cheaper by far in a PV dom0); release *out with file_read_release. */
int file_read_mapped(const char *path, const struct file_read_caps *caps,
		     uint8_t **out, size_t *len);
void file_read_release(uint8_t *buf);

/* Open path for reading only if it is a regular file. The name is
 * untrusted (a debug link, a file beside the kernel): a FIFO or a device
 * there must not block the open or be read from. Returns the descriptor;
 * -1 with errno if it cannot be opened, FILE_NOT_REGULAR if it is not a
 * regular file. */
#define FILE_NOT_REGULAR (-2)
int file_open_regular(const char *path);

#endif
