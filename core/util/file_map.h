/* A file's bytes as a private mapping of the file rather than a copy.
 *
 * In a PV dom0 the first touch of a fresh anonymous page costs a fault
 * bounced through Xen (~140 us under emulation, ~3 us on the host), so a
 * 30 MiB image read into memory, and each loader's private copy of it,
 * cost seconds before the first sample. A mapping of the page cache is
 * faulted in 16 pages at a time, and only where a loader reads. Each
 * loader that may write (libelf) gets its own private mapping of the
 * same file (file_map_again), which copies only the pages written.
 *
 * A mapping reads a file another program may shorten while it is read: a
 * read past the new end would raise SIGBUS. The first mapping installs a
 * handler that puts zero pages there instead (the loaders read untrusted
 * bytes anyway) and marks the mapping cut; other SIGBUSes go on to the
 * handler that was there before.
 *
 * A file rewritten in place (not shortened) while a loader parses it can
 * change bytes between two reads of them, which a copy could not. The
 * symbol names, read in their string table, are bounded by its end; the
 * other parsers (eh_frame.c, dwarf_prescan.c, libelf, libdw) have not
 * been audited for reading one field twice. The source lines refuse a
 * file whose size or mtime changed since the load. Kernels replaced by a
 * new file and a rename (install(1), package managers) are never
 * affected. */
#ifndef UP_FILE_MAP_H
#define UP_FILE_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Map len bytes of fd (a regular file, len > 0) privately, writable
 * (copy-on-write). 0 with *out set, or -1 (errno) when it cannot be
 * mapped or registered: the caller then reads the file instead. fd stays
 * the caller's; the mapping keeps its own duplicate. */
int file_map(int fd, size_t len, uint8_t **out);

/* Whether p is the start of a mapping made here. */
bool file_map_owns(const void *p);

/* A new private mapping of the file p maps (p from file_map, len its
 * length): 1 with *out set, 0 when p is not such a mapping (or the
 * mapping cannot be made: copy instead), -1 never. */
int file_map_again(const void *p, size_t len, uint8_t **out);

/* What a file held when it was mapped: a later mapping of it (after the
 * first is gone) is made only if it still holds that. */
struct file_stamp {
	int fd;                  /* a duplicate, the holder's to close; -1: none */
	uint64_t size;
	int64_t mtime_s, mtime_ns;
};

/* The file p maps (p from file_map), kept for mapping it again later:
 * 0 with *st set (the holder closes st->fd), -1 when p is not such a
 * mapping. */
int file_map_stamp(const void *p, struct file_stamp *st);

/* Map the file of st privately again, if its size and modification time
 * are still those of st: 0 with *out set (release with file_map_release),
 * -1 if it changed (errno ESTALE) or cannot be mapped (another errno). */
int file_map_stamped(const struct file_stamp *st, uint8_t **out);

/* The same file read into memory (malloc'ed), for when it cannot be
 * mapped: 0, or -1 (errno ESTALE if it changed). */
int file_read_stamped(const struct file_stamp *st, uint8_t **out);

/* Unmap (and forget) a mapping made here. */
void file_map_release(void *p);

/* Whether a read past the file's end (it was shortened while mapped) was
 * turned into zeros in mapping p. */
bool file_map_was_cut(const void *p);

#endif
