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

#endif
