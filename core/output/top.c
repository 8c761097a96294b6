/* The top list: samples per function, self (as the leaf) and total (on
 * the stack, once per stack however deep the recursion), over the same
 * labels as every writer; as entries, or printed as a table. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/error_impl.h"
#include "output/frame_labels.h"
#include "util/strmap.h"
#include "uniprof/profile.h"
#include "uniprof/text.h"

struct agg {
	const struct up_symtab *symtab;
	const struct up_output_opts *opts;
	struct strmap *keys;
	uint64_t *counts, *totals;   /* self, total, per name */
	size_t cap;
	unsigned *stamp;      /* last stack that counted a name */
	char (*names)[PROFILE_NAME_MAX];   /* one frame's labels */
	unsigned gen;
	int err;
};

static int ensure(struct agg *a, size_t n)
{
	if (n <= a->cap)
		return 0;
	size_t cap = a->cap ? a->cap * 2 : 256;

	while (cap < n)
		cap *= 2;
	uint64_t *c = realloc(a->counts, cap * sizeof(*c));
	if (c)
		a->counts = c;
	uint64_t *t = realloc(a->totals, cap * sizeof(*t));
	if (t)
		a->totals = t;
	unsigned *s = realloc(a->stamp, cap * sizeof(*s));
	if (s)
		a->stamp = s;
	if (!c || !t || !s)
		return up_fail(UP_ENOMEM, "out of memory");
	memset(a->counts + a->cap, 0, (cap - a->cap) * sizeof(*c));
	memset(a->totals + a->cap, 0, (cap - a->cap) * sizeof(*t));
	memset(a->stamp + a->cap, 0, (cap - a->cap) * sizeof(*s));
	a->cap = cap;
	return 0;
}

static int top_count(struct agg *a, const char *name, bool leaf,
		     uint64_t count)
{
	long idx = strmap_intern(a->keys, name);

	if (idx < 0 || ensure(a, (size_t)idx + 1) < 0)
		return a->err = UP_ENOMEM;
	if (leaf)
		a->counts[idx] += count;
	if (a->stamp[idx] != a->gen) {   /* recursion counts once */
		a->stamp[idx] = a->gen;
		a->totals[idx] += count;
	}
	return 0;
}

static int visit_top(const struct up_stack_record *s, void *arg)
{
	struct agg *a = arg;
	int rc = 0;

	if (!profile_kept(a->opts, s))
		return 0;
	a->gen++;
	if (s->depth == 0)               /* [dropped] or [unseen] */
		return top_count(a, up_stack_record_pseudo(s), true, s->count);
	bool leaf = true;   /* until a frame gave a label */

	for (unsigned i = 0; rc == 0 && i < s->depth; i++) {
		struct up_output_opts o = *a->opts;
		unsigned n;

		o.with_offsets = false;
		n = profile_frame_labels(a->symtab, s->frames[i], i > 0, i == 0,
					 &o, a->names);
		/* Innermost first: the leaf is the last inlined call. */
		for (unsigned k = n; rc == 0 && k-- > 0;)
			rc = top_count(a, a->names[k], leaf && k == n - 1,
				       s->count);
		leaf = leaf && n == 0;
	}
	return rc;
}

static int top_cmp(const void *x, const void *y)
{
	const struct up_top_entry *a = x, *b = y;

	if (a->self != b->self)
		return a->self > b->self ? -1 : 1;
	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return strcmp(a->name, b->name);
}

void up_top_free(struct up_top_entry *entries, size_t count)
{
	if (!entries)
		return;
	for (size_t i = 0; i < count; i++)
		free(entries[i].name);
	free(entries);
}

int up_profile_top(const struct up_profile *p, const struct up_symtab *symtab,
		   const struct up_output_opts *opts,
		   struct up_top_entry **entries, size_t *count)
{
	struct agg a = { .symtab = symtab,
			 .opts = opts ? opts : &profile_default_opts,
			 .names = profile_labels_alloc() };
	struct up_top_entry *e = NULL;
	size_t n = 0;
	int rc = profile_check_opts(opts);

	if (rc == 0 && !a.names)
		rc = UP_ENOMEM;
	if (rc == 0)
		rc = strmap_new(&a.keys);
	if (rc == 0)
		profile_warm(p, symtab, !a.opts->no_inline);
	if (rc == 0)
		rc = up_profile_foreach(p, visit_top, &a);
	if (rc == 0 && a.err)
		rc = a.err;
	if (rc == 0) {
		n = strmap_count(a.keys);
		e = calloc(n ? n : 1, sizeof(*e));
		if (!e)
			rc = up_fail(UP_ENOMEM, "out of memory");
	}
	for (size_t i = 0; rc == 0 && i < n; i++) {
		e[i].name = strdup(strmap_key(a.keys, i));
		e[i].self = a.counts[i];
		e[i].total = a.totals[i];
		if (!e[i].name)
			rc = up_fail(UP_ENOMEM, "out of memory");
	}
	strmap_free(a.keys);
	free(a.counts);
	free(a.totals);
	free(a.stamp);
	free(a.names);
	if (rc < 0) {
		up_top_free(e, n);
		return rc;
	}
	qsort(e, n, sizeof(*e), top_cmp);
	*entries = e;
	*count = n;
	return 0;
}

int up_profile_write_top(const struct up_profile *p,
			 const struct up_symtab *symtab,
			 const struct up_output_opts *opts, size_t n,
			 FILE *out)
{
	const struct up_output_opts *o = opts ? opts : &profile_default_opts;
	uint64_t total;
	struct up_top_entry *e;
	size_t count;
	int rc = profile_check_opts(opts);

	if (rc < 0)
		return rc;
	total = up_profile_kept_samples(p, o);
	rc = up_profile_top(p, symtab, o, &e, &count);
	if (rc < 0)
		return rc;
	fprintf(out, "%7s %7s %9s  %s\n", "self%", "total%", "samples",
		"function");
	for (size_t i = 0; i < count && i < n; i++) {
		fprintf(out, "%6.2f%% %6.2f%% %9" PRIu64 "  ",
			total ? 100.0 * (double)e[i].self / (double)total : 0.0,
			total ? 100.0 * (double)e[i].total / (double)total : 0.0,
			e[i].self);
		up_text_print_escaped(out, e[i].name);   /* often a terminal */
		fputc('\n', out);
	}
	up_top_free(e, count);
	return ferror(out) ? up_fail(UP_EIO, "write error") : 0;
}