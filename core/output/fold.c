/* Writing a profile: symbolize each distinct raw stack once, merge stacks
 * that resolve to the same functions, and print folded stacks or a top
 * table. Runs after sampling, never while the domain is paused. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/error_impl.h"
#include "util/grow.h"
#include "output/name_fit.h"
#include "util/utf8.h"
#include "output/fold.h"
#include "util/strmap.h"
#include "symbols/lookup_cache.h"
#include "uniprof/profile.h"
#include "uniprof/text.h"

/* Return addresses point after the call; look up the call itself so a
 * call that ends its function is not credited to the next one. */
bool profile_frame_label(const struct up_symtab *s, uint64_t addr,
			 bool is_return, bool with_offset, char *buf)
{
	uint64_t look = is_return && addr ? addr - 1 : addr;
	const struct up_symbol *sym = s ? symtab_lookup_cached(s, look) : NULL;
	char off[24] = "";

	if (!sym) {
		snprintf(buf, PROFILE_NAME_MAX, "0x%" PRIx64, addr);
		return false;
	}
	/* The name is the image's: valid UTF-8, cut on a character and
	 * kept distinct (output/name_fit.c); the offset stays whole. */
	if (with_offset && addr != sym->addr)
		snprintf(off, sizeof(off), "+0x%" PRIx64, addr - sym->addr);
	name_fit(buf, PROFILE_NAME_MAX - strlen(off), sym->name);
	strcat(buf, off);
	return true;
}

/* The addresses to resolve, collected: at most WARM_MAX (the cache's
 * bound); the rest are looked up one by one. */
#define WARM_MAX (1u << 19)

struct warm {
	const struct up_symtab *symtab;
	uint64_t *pcs;
	size_t n, cap;
	bool failed;
};

static int visit_warm(const struct up_stack_record *s, void *arg)
{
	struct warm *w = arg;

	for (unsigned i = 0; i < s->depth && !w->failed; i++) {
		uint64_t pc = i > 0 && s->frames[i] ? s->frames[i] - 1 : s->frames[i];

		if (symtab_cached(w->symtab, pc))
			continue;
		if (w->n >= WARM_MAX ||
		    grow_array(&w->pcs, &w->cap, w->n + 1, sizeof(*w->pcs), 4096) < 0) {
			w->failed = true;
			break;
		}
		w->pcs[w->n++] = pc;
	}
	return 0;
}

static int pc_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void profile_warm(const struct up_profile *p, const struct up_symtab *s,
		  bool source)
{
	struct warm w = { .symtab = s };
	size_t n = 0;

	if (!p || !s || up_symtab_count(s) == 0)
		return;
	up_profile_foreach(p, visit_warm, &w);
	if (w.n) {
		qsort(w.pcs, w.n, sizeof(*w.pcs), pc_cmp);
		for (size_t i = 0; i < w.n; i++)
			if (n == 0 || w.pcs[n - 1] != w.pcs[i])
				w.pcs[n++] = w.pcs[i];
		symtab_warm(s, w.pcs, n, source && up_symtab_has_source(s));
	}
	free(w.pcs);
}

static void frame_name(const struct up_symtab *s, uint64_t addr,
		       bool is_return, bool with_offset, char *buf)
{
	profile_frame_label(s, addr, is_return, with_offset, buf);
	/* ';' separates frames and a newline ends a record in folded files. */
	for (char *c = buf; *c; c++)
		if (*c == ';' || *c == '\n' || *c == '\r')
			*c = '_';
}


bool profile_inlined_label(const char *b)
{
	size_t n = strlen(b), m = sizeof(PROFILE_INLINED_MARK) - 1;

	return n > m && strcmp(b + n - m, PROFILE_INLINED_MARK) == 0;
}

/* ';' separates frames and a newline ends a record in folded files. */
static void frame_safe(char *b)
{
	for (char *c = b; *c; c++)
		if (*c == ';' || *c == '\n' || *c == '\r')
			*c = '_';
}

unsigned profile_frame_labels(const struct up_symtab *s, uint64_t addr,
			      bool is_return, bool leaf,
			      const struct up_output_opts *opts,
			      char (*names)[PROFILE_NAME_MAX])
{
	struct up_src_frame src[UP_SRC_MAX_FRAMES];
	size_t nsrc = 0;
	unsigned n = 1;

	frame_name(s, addr, is_return, opts->with_offsets, names[0]);
	/* A stored profile's inlined frame (read by name: a table of names),
	 * folded back into its caller. */
	if (opts->no_inline && up_symtab_format_of(s) == UP_SYMTAB_NM &&
	    profile_inlined_label(names[0]))
		return 0;
	if (up_symtab_has_source(s) && (!opts->no_inline || (opts->lines && leaf)))
		nsrc = up_symtab_source(s, addr, is_return, src,
					UP_SRC_MAX_FRAMES);
	for (size_t i = nsrc; !opts->no_inline && i-- > 0 &&
	     n < UP_SRC_MAX_FRAMES;) {
		char *b = names[n];

		if (!src[i].inlined || !src[i].function)
			continue;
		name_fit(b, PROFILE_NAME_MAX - sizeof(PROFILE_INLINED_MARK),
			 src[i].function);
		strcat(b, PROFILE_INLINED_MARK);
		frame_safe(b);
		n++;
	}
	if (opts->lines && leaf && nsrc > 0 && src[0].file) {
		char *b = names[n - 1], at[160], file[128], name[PROFILE_NAME_MAX];
		const char *base = strrchr(src[0].file, '/');

		/* The file's last component, cut on a character; the name
		 * fitted again (its distinguishing hash kept) to leave room. */
		utf8_valid_copy(file, sizeof(file), base ? base + 1 : src[0].file,
				strlen(base ? base + 1 : src[0].file));
		snprintf(at, sizeof(at), " %s:%u", file, src[0].line);
		frame_safe(at);
		memcpy(name, b, PROFILE_NAME_MAX);
		name_fit(b, PROFILE_NAME_MAX - strlen(at), name);
		strcat(b, at);
	}
	return n;
}

struct agg {
	const struct up_symtab *symtab;
	const struct up_output_opts *opts;
	struct strmap *keys;
	uint64_t *counts, *totals;
	size_t cap;
	char *line;
	size_t line_cap;
	unsigned *stamp;      /* top: last stack that counted a name */
	char (*names)[PROFILE_NAME_MAX];   /* one frame's labels */
	unsigned gen;
	int err;
	/* profile_fold_ids: the key of each record kept, by id. */
	bool want_ids;
	struct profile_fold_id *ids;
	size_t nids, ids_cap;
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

static int line_append(struct agg *a, size_t *len, const char *s)
{
	size_t n = strlen(s);

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
	memcpy(a->line + *len, s, n + 1);
	*len += n;
	return 0;
}

/* Whether the output options keep a stack: its vCPU, and idle or not. */
static bool kept(const struct up_output_opts *o, const struct up_stack_record *s)
{
	if (o->vcpu >= 0 && (unsigned)o->vcpu != s->vcpu)
		return false;
	if (s->unseen)
		return o->raw || !o->with_idle;
	return o->with_idle || (s->activity != UP_VCPU_BLOCKED &&
				s->activity != UP_VCPU_WAITING);
}

static int visit_folded(const struct up_stack_record *s, void *arg)
{
	struct agg *a = arg;
	char name[PROFILE_NAME_MAX];
	size_t len = 0;
	long idx;
	int rc = 0;

	if (!kept(a->opts, s))
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
		unsigned n = profile_frame_labels(a->symtab, s->frames[i], i > 0,
						  i == 0, &o, a->names);

		if (n == 0 && i + 1 == s->depth) {
			o.no_inline = false;
			n = profile_frame_labels(a->symtab, s->frames[i], i > 0,
						 i == 0, &o, a->names);
		}

		for (unsigned k = 0; rc == 0 && k < n; k++)
			rc = line_append(a, &len, a->names[k]);
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
	free(a->totals);
	free(a->stamp);
	free(a->line);
	free(a->names);
	free(a->ids);
}

static const struct up_output_opts default_opts = { .vcpu = -1 };

static int agg_names(struct agg *a)
{
	a->names = malloc(UP_SRC_MAX_FRAMES * sizeof(*a->names));
	return a->names ? 0 : up_fail(UP_ENOMEM, "out of memory");
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
	struct agg a = { .symtab = symtab, .opts = opts ? opts : &default_opts,
			 .want_ids = ids != NULL };
	int rc = agg_names(&a);

	if (rc == 0)
		rc = strmap_new(&a.keys);
	if (rc == 0)
		profile_warm(p, symtab, !a.opts->no_inline);
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
	int rc = profile_fold(p, symtab, opts, &keys, &counts);

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
	int rc = profile_fold(p, symtab, opts, &keys, &counts);

	if (rc < 0)
		return rc;
	*count = strmap_count(keys);
	free(counts);
	strmap_free(keys);
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

	if (!kept(a->opts, s))
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
	struct agg a = { .symtab = symtab, .opts = opts ? opts : &default_opts };
	struct up_top_entry *e = NULL;
	size_t n = 0;
	int rc;

	rc = agg_names(&a);
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
	agg_release(&a);
	if (rc < 0) {
		up_top_free(e, n);
		return rc;
	}
	qsort(e, n, sizeof(*e), top_cmp);
	*entries = e;
	*count = n;
	return 0;
}

struct kept_count {
	const struct up_output_opts *opts;
	uint64_t n;
};

static int visit_kept(const struct up_stack_record *s, void *arg)
{
	struct kept_count *k = arg;

	if (kept(k->opts, s))
		k->n += s->count;
	return 0;
}

uint64_t up_profile_kept_samples(const struct up_profile *p,
				 const struct up_output_opts *opts)
{
	struct kept_count k = { opts ? opts : &default_opts, 0 };

	up_profile_foreach(p, visit_kept, &k);
	return k.n;
}

int up_profile_write_top(const struct up_profile *p,
			 const struct up_symtab *symtab,
			 const struct up_output_opts *opts, size_t n,
			 FILE *out)
{
	const struct up_output_opts *o = opts ? opts : &default_opts;
	uint64_t total = up_profile_kept_samples(p, o);
	struct up_top_entry *e;
	size_t count;
	int rc = up_profile_top(p, symtab, o, &e, &count);

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
