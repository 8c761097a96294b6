/* Growing arrays: one way to make room, instead of a realloc block at every
 * site. */
#ifndef UP_GROW_H
#define UP_GROW_H

#include <stddef.h>

/* Make *arrayp (a pointer to any array pointer) hold at least `need`
 * elements of `size` bytes; *cap is its capacity, doubled from `first`.
 * 0, or UP_ENOMEM (error set) with the array and *cap untouched. */
int grow_array(void *arrayp, size_t *cap, size_t need, size_t size, size_t first);

/* Give back what *arrayp holds past its first n elements, once it is
 * done growing (doubling leaves up to half of it unused). */
void fit_array(void *arrayp, size_t *cap, size_t n, size_t size);

/* A large buffer about to be filled whole (a file's bytes): asks the
 * kernel for huge pages under it, so that filling it takes a fault per
 * 2 MiB rather than per 4 KiB page. Only advice: nothing if refused. */
void advise_filled_whole(void *p, size_t n);

/* A large buffer about to be written whole (a table filled to its size):
 * its pages faulted in by one call rather than one trap each. In a PV
 * dom0 a first touch is a fault through Xen, 132-159 us a page under
 * emulation against 47 us populated at once (docs/BENCHMARKS.md); on
 * hardware it saves less but costs nothing: the pages would be touched
 * anyway. Only advice: nothing where the kernel lacks it (before 5.14),
 * and nothing below POPULATE_MIN_BYTES. */
#define POPULATE_MIN_BYTES (128u << 10)
void populate_filled_whole(void *p, size_t n);

/* The same for an array filled an element at a time, of which only some
 * may be used (a table reserved for every symbol of a file, filled with
 * its functions): elements [0, need) of base (cap elements of size
 * bytes) made present, [0, *done) being so already, a POPULATE_MIN_BYTES
 * chunk at a time. Nothing for an array smaller than one chunk. */
void populate_ahead(void *base, size_t size, size_t cap, size_t need,
		    size_t *done);

/* grow_array for an array filled an element at a time to a large size
 * (a table of every function or FDE): [0, need) made present with
 * populate_ahead, *done tracking it; a larger array is populated before
 * the old one is copied into it. */
int grow_array_populated(void *arrayp, size_t *cap, size_t need, size_t size,
			 size_t first, size_t *done);

#endif
