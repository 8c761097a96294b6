/* Growing arrays (see grow.h). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
