/* Growing arrays (see grow.h). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/error_impl.h"
#include "util/grow.h"

/* The capacity for need elements: cap (or first) doubled until it holds
 * them. 0, or UP_ENOMEM when that many bytes cannot be counted. */
static int doubled(size_t cap, size_t need, size_t size, size_t first, size_t *n)
{
	*n = cap ? cap : first;
	while (*n < need) {
		if (*n > SIZE_MAX / 2)
			return up_fail(UP_ENOMEM, "out of memory");
		*n *= 2;
	}
	if (*n > SIZE_MAX / size)
		return up_fail(UP_ENOMEM, "out of memory");
	return 0;
}

int grow_array(void *arrayp, size_t *cap, size_t need, size_t size, size_t first)
{
	size_t n;
	void *old, *p;

	if (need <= *cap)
		return 0;
	if (doubled(*cap, need, size, first, &n) < 0)
		return UP_ENOMEM;
	memcpy(&old, arrayp, sizeof(old));
	p = realloc(old, n * size);
	if (!p)
		return up_fail(UP_ENOMEM, "out of memory");
	memcpy(arrayp, &p, sizeof(p));
	*cap = n;
	return 0;
}

void fit_array(void *arrayp, size_t *cap, size_t n, size_t size)
{
	void *old, *p;

	memcpy(&old, arrayp, sizeof(old));
	if (!old || n >= *cap)
		return;
	p = realloc(old, (n ? n : 1) * size);
	if (!p)
		return;                 /* the larger array is as good */
	memcpy(arrayp, &p, sizeof(p));
	*cap = n ? n : 1;
}

void advise_filled_whole(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
	const uintptr_t huge = 2u << 20;
	uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1);
	uintptr_t hi = ((uintptr_t)p + n) & ~(huge - 1);

	if (n >= 2 * huge && hi > lo)
		madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
	(void)p;
	(void)n;
#endif
}

/* Every page [p, p + n) touches: those at the ends hold bytes of the
 * same allocation, so they are mapped and writable (and a range ending
 * mid-page, populated next from there, leaves no page between). */
static void populate_range(void *p, size_t n)
{
#ifdef MADV_POPULATE_WRITE
	const uintptr_t page = (uintptr_t)getpagesize();
	uintptr_t lo = (uintptr_t)p & ~(page - 1);
	uintptr_t hi = ((uintptr_t)p + n + page - 1) & ~(page - 1);

	if (n && hi > lo)
		madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)n;
#endif
}

void populate_filled_whole(void *p, size_t n)
{
	if (n >= POPULATE_MIN_BYTES)
		populate_range(p, n);
}

void populate_ahead(void *base, size_t size, size_t cap, size_t need,
		    size_t *done)
{
	size_t to;

	if (need <= *done || cap < POPULATE_MIN_BYTES / size)
		return;
	to = *done + POPULATE_MIN_BYTES / size;
	if (to < need)
		to = need;
	if (to > cap)
		to = cap;
	populate_range((char *)base + *done * size, (to - *done) * size);
	*done = to;
}

int grow_array_populated(void *arrayp, size_t *cap, size_t need, size_t size,
			 size_t first, size_t *done)
{
	size_t n;
	void *old, *p;

	memcpy(&old, arrayp, sizeof(old));
	if (need <= *cap) {
		populate_ahead(old, size, *cap, need, done);
		return 0;
	}
	if (doubled(*cap, need, size, first, &n) < 0)
		return UP_ENOMEM;
	/* Not realloc: its copy would fault the new pages one by one. */
	p = malloc(n * size);
	if (!p)
		return up_fail(UP_ENOMEM, "out of memory");
	*done = 0;
	populate_ahead(p, size, n, need, done);
	if (old)
		memcpy(p, old, *cap * size);
	free(old);
	memcpy(arrayp, &p, sizeof(p));
	*cap = n;
	return 0;
}
