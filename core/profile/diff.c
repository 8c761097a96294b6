/* Two profiles compared function by function, matched by name (the two
 * may come from different builds, where addresses mean nothing). */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/error_impl.h"
#include "util/grow.h"
#include "util/strmap.h"
#include "uniprof/diff.h"
#include "uniprof/text.h"

static double pct(uint64_t n, uint64_t of)
{
	return of ? 100.0 * (double)n / (double)of : 0;
}

static int by_change(const void *a, const void *b)
{
	const struct up_diff_entry *x = a, *y = b;
	double dx = fabs(x->delta), dy = fabs(y->delta);

	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x->name, y->name);
}

int up_profile_diff(const struct up_profile *before,
		    const struct up_symtab *before_symtab,
		    const struct up_profile *after,
		    const struct up_symtab *after_symtab,
		    const struct up_output_opts *opts,
		    struct up_diff_entry **entries, size_t *count,
		    uint64_t *kept_before, uint64_t *kept_after)
{
	struct up_top_entry *top[2] = { NULL, NULL };
	size_t ntop[2] = { 0, 0 }, cap = 0;
	struct up_diff_entry *d = NULL;
	struct strmap *names = NULL;
	uint64_t kept[2];
	int rc;

	kept[0] = up_profile_kept_samples(before, opts);
	kept[1] = up_profile_kept_samples(after, opts);
	rc = up_profile_top(before, before_symtab, opts, &top[0], &ntop[0]);
	if (rc == 0)
		rc = up_profile_top(after, after_symtab, opts, &top[1], &ntop[1]);
	if (rc == 0 && strmap_new(&names) < 0)
		rc = UP_ENOMEM;
	for (int side = 0; rc == 0 && side < 2; side++) {
		for (size_t i = 0; rc == 0 && i < ntop[side]; i++) {
			size_t known = strmap_count(names);
			long k = strmap_intern(names, top[side][i].name);

			if (k < 0 || grow_array(&d, &cap, (size_t)k + 1, sizeof(*d), 64) < 0) {
				rc = up_fail(UP_ENOMEM, "out of memory");
				break;
			}
			if ((size_t)k >= known) {
				memset(&d[k], 0, sizeof(d[k]));
				d[k].name = strdup(top[side][i].name);
				if (!d[k].name) {
					rc = up_fail(UP_ENOMEM, "out of memory");
					break;
				}
			}
			if (side == 0) {
				d[k].self_before = top[0][i].self;
				d[k].total_before = top[0][i].total;
			} else {
				d[k].self_after = top[1][i].self;
				d[k].total_after = top[1][i].total;
			}
		}
	}
	*count = names ? strmap_count(names) : 0;
	for (size_t i = 0; rc == 0 && i < *count; i++) {
		d[i].self_before_pct = pct(d[i].self_before, kept[0]);
		d[i].self_after_pct = pct(d[i].self_after, kept[1]);
		d[i].total_before_pct = pct(d[i].total_before, kept[0]);
		d[i].total_after_pct = pct(d[i].total_after, kept[1]);
		d[i].delta = d[i].self_after_pct - d[i].self_before_pct;
	}
	up_top_free(top[0], ntop[0]);
	up_top_free(top[1], ntop[1]);
	strmap_free(names);
	if (rc < 0) {
		up_diff_free(d, *count);
		*count = 0;
		return rc;
	}
	if (*count)
		qsort(d, *count, sizeof(*d), by_change);
	*entries = d;
	*kept_before = kept[0];
	*kept_after = kept[1];
	return 0;
}

void up_diff_free(struct up_diff_entry *entries, size_t count)
{
	for (size_t i = 0; entries && i < count; i++)
		free(entries[i].name);
	free(entries);
}

int up_diff_write_table(const struct up_diff_entry *e, size_t count, size_t n,
			uint64_t kept_before, uint64_t kept_after, FILE *out)
{
	fprintf(out, "self%% of %" PRIu64 " samples before -> of %" PRIu64
		" after, by the size of the change\n", kept_before, kept_after);
	fprintf(out, "%8s %8s %8s %8s %8s  %s\n", "before", "after", "change",
		"total-b", "total-a", "function");
	for (size_t i = 0; i < count && i < n; i++) {
		fprintf(out, "%7.2f%% %7.2f%% %+7.2f  %7.2f%% %7.2f%%  ",
			e[i].self_before_pct, e[i].self_after_pct, e[i].delta,
			e[i].total_before_pct, e[i].total_after_pct);
		up_text_print_escaped(out, e[i].name);
		fputc('\n', out);
	}
	return ferror(out) ? up_fail(UP_EIO, "write error") : 0;
}
