/* Growing arrays (see grow.h). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "util/error_impl.h"
#include "util/grow.h"

int grow_array(void *arrayp, size_t *cap, size_t need, size_t size, size_t first)
{
	size_t n = *cap ? *cap : first;
	void *old, *p;

	if (need <= *cap)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return up_fail(UP_ENOMEM, "out of memory");
		n *= 2;
	}
	if (n > SIZE_MAX / size)
		return up_fail(UP_ENOMEM, "out of memory");
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
