/* The copy of an image libelf parses (it may write to a memory image, so
 * never the caller's bytes), holding only what the loaders that read
 * headers, notes, string and symbol tables look at. */
#ifndef UP_ELF_COPY_H
#define UP_ELF_COPY_H

#include <stdbool.h>
#include <stddef.h>

struct elf_copy {
	char *bytes;     /* len bytes at the image's offsets */
	size_t len;
	bool mapped;     /* an anonymous mapping (else malloc'ed) */
	bool file;       /* a private mapping of the image's file, whole */
};

/* A copy of buf[0..len) in which these hold the image's bytes: the ELF
 * header, the program and section header tables, the PT_NOTE segments,
 * the SHT_NOTE sections, the section names' table, .gnu_debuglink and
 * the section holding the entry point; with tables, every section but
 * code and data too (not SHT_PROGBITS: the symbol and string tables);
 * the sections named in also (NULL-terminated; NULL: none).
 * The rest reads as zeros and costs no memory: an anonymous mapping of
 * which only those pages are touched. A small image, one whose parts are
 * most of it, or one they cannot be found in by a plain reading of its
 * headers (not a little-endian ELF64, extended section numbering) is
 * copied whole. Bytes that file_map mapped are not copied at all: the
 * copy is a private mapping of the same file, whole. 0 or UP_ENOMEM. */
int elf_copy_headers(struct elf_copy *c, const void *buf, size_t len,
		     bool tables, const char *const *also);

/* The rest of buf copied in too, for a reader that turns out to need it
 * (the parts' bytes, and libelf's view of them, stay as they were). */
void elf_copy_whole(struct elf_copy *c, const void *buf);

/* The whole image, for a reader of any part (libunwind's tables): a
 * private mapping of its file when buf is one (file_map.h), else a whole
 * copy. 0 or UP_ENOMEM. */
int elf_copy_all(struct elf_copy *c, const void *buf, size_t len);

void elf_copy_release(struct elf_copy *c);

/* When the parts are copied rather than the whole: images of at least
 * parts_from bytes (1 MiB), whose parts are less than half of them unless
 * any_share. Variables so that the fuzzers and tests, whose inputs are a
 * few KiB, can take that path too. */
struct elf_copy_limits {
	size_t parts_from;
	bool any_share;
};
extern struct elf_copy_limits elf_copy_limits;

#endif
