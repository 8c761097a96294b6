/* Two profiles compared function by function, matched by name (the two
 * may come from different builds, where addresses mean nothing). */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output/frame_labels.h"
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

struct inline_seen {
	const struct up_symtab *symtab;
	char (*names)[PROFILE_NAME_MAX];
};

/* 1 at the first inlined call: a frame with calls inlined at its address,
 * or one read by name as an inlined call. */
static int visit_inline(const struct up_stack_record *s, void *arg)
{
	const struct inline_seen *in = arg;
	const struct up_output_opts o = UP_OUTPUT_OPTS_INIT;

	for (unsigned i = 0; i < s->depth; i++) {
		unsigned n = profile_frame_labels(in->symtab, s->frames[i], i > 0,
						  i == 0, &o, in->names);

		if (n > 1 || (n == 1 && profile_inlined_label(in->names[0])))
			return 1;
	}
	return 0;
}

static int has_inline(const struct up_profile *p, const struct up_symtab *symtab,
		      char (*names)[PROFILE_NAME_MAX])
{
	struct inline_seen in = { symtab, names };

	return up_profile_foreach(p, visit_inline, &in);
}

int up_profile_diff_inline(const struct up_profile *before,
			   const struct up_symtab *before_symtab,
			   const struct up_profile *after,
			   const struct up_symtab *after_symtab,
			   const struct up_output_opts *opts)
{
	char (*names)[PROFILE_NAME_MAX];
	int b, a = profile_check_opts(opts);

	if (a < 0)
		return a;
	if (opts && opts->no_inline)
		return UP_DIFF_INLINE_ALIKE;
	names = malloc(UP_SRC_MAX_FRAMES * sizeof(*names));
	if (!names)
		return up_fail(UP_ENOMEM, "out of memory");
	b = has_inline(before, before_symtab, names);
	a = b < 0 ? b : has_inline(after, after_symtab, names);
	free(names);
	if (b < 0 || a < 0)
		return b < 0 ? b : a;
	return b == a ? UP_DIFF_INLINE_ALIKE :
	       b ? UP_DIFF_INLINE_ONLY_BEFORE : UP_DIFF_INLINE_ONLY_AFTER;
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
	struct up_output_opts o = profile_default_opts;
	uint64_t kept[2];
	int rc = profile_check_opts(opts);

	if (rc < 0)
		return rc;
	if (opts)
		o = *opts;
	rc = up_profile_diff_inline(before, before_symtab, after,
				    after_symtab, &o);
	if (rc < 0)
		return rc;
	o.no_inline = o.no_inline || rc != UP_DIFF_INLINE_ALIKE;
	kept[0] = up_profile_kept_samples(before, &o);
	kept[1] = up_profile_kept_samples(after, &o);
	rc = up_profile_top(before, before_symtab, &o, &top[0], &ntop[0]);
	if (rc == 0)
		rc = up_profile_top(after, after_symtab, &o, &top[1], &ntop[1]);
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
