/* Folded stacks: symbolize each distinct raw stack once, merge stacks
 * that resolve to the same labels into "root;...;leaf" -> count, and
 * print them. Runs after sampling, never while the domain is paused. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/error_impl.h"
#include "util/grow.h"
#include "output/fold.h"
#include "output/frame_labels.h"
#include "util/strmap.h"
#include "uniprof/profile.h"

struct agg {
	const struct up_symtab *symtab;
	const struct up_output_opts *opts;
	struct strmap *keys;
	uint64_t *counts;
	size_t cap;
	char *line;
	size_t line_cap;
	char (*names)[PROFILE_NAME_MAX];   /* one frame's labels */
	int err;
	/* profile_fold_ids: the key of each record kept, by id. */
	bool want_ids;
	struct profile_fold_id *ids;
	size_t nids, ids_cap;
};

/* Room for n counts, the new ones zero. */
static int ensure(struct agg *a, size_t n)
{
	size_t old = a->cap;

	if (grow_array(&a->counts, &a->cap, n, sizeof(*a->counts), 256) < 0)
		return UP_ENOMEM;
	memset(a->counts + old, 0, (a->cap - old) * sizeof(*a->counts));
	return 0;
}

static int line_append_n(struct agg *a, size_t *len, const char *s, size_t n)
{
	if (*len + n + 2 > a->line_cap) {
		size_t cap = a->line_cap ? a->line_cap * 2 : 4096;
		char *l;

		while (cap < *len + n + 2)
			cap *= 2;
		l = realloc(a->line, cap);
		if (!l)
			return up_fail(UP_ENOMEM, "out of memory");
		a->line = l;
		a->line_cap = cap;
	}
	if (*len)
		a->line[(*len)++] = ';';
	memcpy(a->line + *len, s, n);
	*len += n;
	a->line[*len] = '\0';
	return 0;
}

static int line_append(struct agg *a, size_t *len, const char *s)
{
	return line_append_n(a, len, s, strlen(s));
}

static int visit_folded(const struct up_stack_record *s, void *arg)
{
	struct agg *a = arg;
	char name[PROFILE_NAME_MAX];
	size_t len = 0;
	long idx;
	int rc = 0;

	if (!profile_kept(a->opts, s))
		return 0;
	if (a->opts->vcpu_root) {
		snprintf(name, sizeof(name), "vcpu%u", s->vcpu);
		rc = line_append(a, &len, name);
	}
	if (rc == 0 && s->activity == UP_VCPU_BLOCKED)
		rc = line_append(a, &len, "[idle]");
	else if (rc == 0 && s->activity == UP_VCPU_WAITING)
		rc = line_append(a, &len, "[waiting]");
	if (rc == 0 && s->trunc != UP_TRUNC_NONE)
		rc = line_append(a, &len, "[truncated]");
	if (rc == 0 && s->depth == 0)   /* [dropped] or [unseen] */
		rc = line_append(a, &len, up_stack_record_pseudo(s));
	for (unsigned i = s->depth; rc == 0 && i-- > 0;) {
		/* The outermost frame is never folded away: a stack keeps
		 * at least one frame whatever its names say. */
		struct up_output_opts o = *a->opts;
		size_t tlen;
		unsigned n;
		const char *text = profile_frame_labels_text(a->symtab, s->frames[i],
							     i > 0, i == 0, &o,
							     a->names, &tlen, &n);

		if (n == 0 && i + 1 == s->depth) {
			o.no_inline = false;
			text = profile_frame_labels_text(a->symtab, s->frames[i],
							 i > 0, i == 0, &o,
							 a->names, &tlen, &n);
		}
		/* An empty label adds no ';' to an empty line: labels
		 * hold none, so the leading ones are those. */
		while (n && len == 0 && tlen && *text == ';') {
			text++;
			tlen--;
		}
		if (n)
			rc = line_append_n(a, &len, text, tlen);
	}
	if (rc < 0)
		return a->err = rc;
	idx = strmap_intern(a->keys, a->line);
	if (idx < 0 || ensure(a, (size_t)idx + 1) < 0)
		return a->err = UP_ENOMEM;
	a->counts[idx] += s->count;
	if (a->want_ids) {
		if (grow_array(&a->ids, &a->ids_cap, a->nids + 1,
			       sizeof(*a->ids), 256) < 0)
			return a->err = UP_ENOMEM;
		a->ids[a->nids++] = (struct profile_fold_id){ s->id, (size_t)idx };
	}
	return 0;
}

static const struct strmap *sort_keys;

static int key_cmp(const void *x, const void *y)
{
	return strcmp(strmap_key(sort_keys, *(const size_t *)x),
		      strmap_key(sort_keys, *(const size_t *)y));
}

static void agg_release(struct agg *a)
{
	strmap_free(a->keys);
	free(a->counts);
	free(a->line);
	free(a->names);
	free(a->ids);
}

int profile_fold(const struct up_profile *p, const struct up_symtab *symtab,
		 const struct up_output_opts *opts, struct strmap **keys,
		 uint64_t **counts)
{
	return profile_fold_ids(p, symtab, opts, keys, counts, NULL, NULL);
}

int profile_fold_ids(const struct up_profile *p,
		     const struct up_symtab *symtab,
		     const struct up_output_opts *opts, struct strmap **keys,
		     uint64_t **counts, struct profile_fold_id **ids,
		     size_t *nr_ids)
{
	struct agg a = { .symtab = symtab,
			 .opts = opts ? opts : &profile_default_opts,
			 .want_ids = ids != NULL,
			 .names = profile_labels_alloc() };
	int rc = a.names ? 0 : UP_ENOMEM;

	if (rc == 0)
		rc = strmap_new(&a.keys);
	if (rc == 0)
		profile_warm_labels(p, symtab, a.opts, a.names);
	if (rc == 0)
		rc = up_profile_foreach(p, visit_folded, &a);
	if (rc == 0 && a.err)
		rc = a.err;
	if (rc == 0 && ensure(&a, 1) < 0)
		rc = UP_ENOMEM;
	if (rc < 0) {
		agg_release(&a);
		return rc;
	}
	*keys = a.keys;
	*counts = a.counts;
	if (ids) {
		*ids = a.ids;
		*nr_ids = a.nids;
		a.ids = NULL;
	}
	a.keys = NULL;
	a.counts = NULL;
	agg_release(&a);
	return 0;
}

int up_profile_write_folded(const struct up_profile *p,
			    const struct up_symtab *symtab,
			    const struct up_output_opts *opts, FILE *out)
{
	struct strmap *keys;
	uint64_t *counts;
	size_t *order, n;
	int rc = profile_check_opts(opts);

	if (rc == 0)
		rc = profile_fold(p, symtab, opts, &keys, &counts);
	if (rc < 0)
		return rc;
	n = strmap_count(keys);
	order = malloc((n ? n : 1) * sizeof(*order));
	if (!order) {
		rc = up_fail(UP_ENOMEM, "out of memory");
	} else {
		for (size_t i = 0; i < n; i++)
			order[i] = i;
		sort_keys = keys;     /* output is single-threaded */
		qsort(order, n, sizeof(*order), key_cmp);
		for (size_t i = 0; i < n; i++)
			fprintf(out, "%s %" PRIu64 "\n",
				strmap_key(keys, order[i]), counts[order[i]]);
		if (ferror(out))
			rc = up_fail(UP_EIO, "write error");
	}
	free(order);
	free(counts);
	strmap_free(keys);
	return rc;
}

int up_profile_folded_count(const struct up_profile *p,
			    const struct up_symtab *symtab,
			    const struct up_output_opts *opts, size_t *count)
{
	struct strmap *keys;
	uint64_t *counts;
	int rc = profile_check_opts(opts);

	if (rc == 0)
		rc = profile_fold(p, symtab, opts, &keys, &counts);
	if (rc < 0)
		return rc;
	*count = strmap_count(keys);
	free(counts);
	strmap_free(keys);
	return 0;
}
