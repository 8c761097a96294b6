/* What every writer shows of a profile's stacks: which stack records the
 * output options keep, and the labels of each frame (the function, the
 * calls inlined in it, a line), resolved in one warm-up walk first. Runs
 * after sampling, never while the domain is paused. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/error_impl.h"
#include "util/grow.h"
#include "util/radix_order.h"
#include "util/text_memo.h"
#include "util/utf8.h"
#include "output/frame_labels.h"
#include "output/name_fit.h"
#include "symbols/lookup_cache.h"
#include "uniprof/profile.h"
#include "util/layout_version.h"

const struct up_output_opts profile_default_opts = UP_OUTPUT_OPTS_INIT;

static int check_version(unsigned int version)
{
	return layout_version_check(version, UP_OUTPUT_OPTS_VERSION, "output options",
				    "set them up with up_output_opts_init or UP_OUTPUT_OPTS_INIT");
}

int profile_check_opts(const struct up_output_opts *o)
{
	return o ? check_version(o->version) : 0;
}

int up_output_opts_init(struct up_output_opts *o, unsigned int version)
{
	int rc = check_version(version);

	if (rc < 0)
		return rc;
	*o = profile_default_opts;
	return 0;
}

/* Whether the output options keep a stack: its vCPU, and idle or not. */
bool profile_kept(const struct up_output_opts *o,
		  const struct up_stack_record *s)
{
	if (o->vcpu >= 0 && (unsigned)o->vcpu != s->vcpu)
		return false;
	if (s->unseen)
		return o->raw || !o->with_idle;
	return o->with_idle || (s->activity != UP_VCPU_BLOCKED &&
				s->activity != UP_VCPU_WAITING);
}

struct kept_count {
	const struct up_output_opts *opts;
	uint64_t n;
};

static int visit_kept(const struct up_stack_record *s, void *arg)
{
	struct kept_count *k = arg;

	if (profile_kept(k->opts, s))
		k->n += s->count;
	return 0;
}

uint64_t up_profile_kept_samples(const struct up_profile *p,
				 const struct up_output_opts *opts)
{
	struct kept_count k = { opts ? opts : &profile_default_opts, 0 };

	if (profile_check_opts(opts) < 0)
		return 0;
	up_profile_foreach(p, visit_kept, &k);
	return k.n;
}

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

static void frame_name(const struct up_symtab *s, uint64_t addr,
		       bool is_return, bool with_offset, char *buf)
{
	profile_frame_label(s, addr, is_return, with_offset, buf);
	frame_safe(buf);
}

/* The labels of one frame, made: what the memo keeps. */
static unsigned make_labels(const struct up_symtab *s, uint64_t addr,
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

/* What a frame's labels depend on beside its address (and the table):
 * the memo's kind. */
static unsigned labels_kind(bool is_return, bool leaf,
			    const struct up_output_opts *o)
{
	return (unsigned)is_return | (unsigned)(o->lines && leaf) << 1 |
	       (unsigned)o->with_offsets << 2 | (unsigned)o->no_inline << 3;
}

/* Whether the labels used source frames: then they are kept only once
 * the source cache has settled that address's answer. */
static bool labels_use_source(const struct up_symtab *s, bool leaf,
			      const struct up_output_opts *o)
{
	return up_symtab_has_source(s) && (!o->no_inline || (o->lines && leaf));
}

/* Labels joined in place in names: label k moves to the end of the
 * ones before it, never past its own start (each is shorter than
 * PROFILE_NAME_MAX), so it overwrites only what was already moved. */
static size_t join_in_place(char (*names)[PROFILE_NAME_MAX], unsigned n)
{
	char *text = names[0];
	size_t len = 0;

	for (unsigned k = 0; k < n; k++) {
		size_t l = strlen(names[k]);

		if (k)
			text[len++] = ';';
		memmove(text + len, names[k], l);
		len += l;
	}
	text[len] = '\0';
	return len;
}

const char *profile_frame_labels_text(const struct up_symtab *s, uint64_t addr,
				      bool is_return, bool leaf,
				      const struct up_output_opts *opts,
				      char (*names)[PROFILE_NAME_MAX],
				      size_t *len, unsigned *n)
{
	struct text_memo *memo = s ? symtab_label_memo(s) : NULL;
	unsigned kind = labels_kind(is_return, leaf, opts), tag;
	const char *kept = text_memo_get(memo, addr, kind, len, &tag);

	if (kept) {
		*n = tag;
		return kept;
	}
	*n = make_labels(s, addr, is_return, leaf, opts, names);
	*len = join_in_place(names, *n);
	if (memo && (!labels_use_source(s, leaf, opts) ||
		     symtab_source_settled(s, addr, is_return)))
		text_memo_put(memo, addr, kind, names[0], *len, *n);
	return names[0];
}

unsigned profile_frame_labels(const struct up_symtab *s, uint64_t addr,
			      bool is_return, bool leaf,
			      const struct up_output_opts *opts,
			      char (*names)[PROFILE_NAME_MAX])
{
	size_t len, at;
	unsigned n;
	const char *text = profile_frame_labels_text(s, addr, is_return, leaf,
						     opts, names, &len, &n);

	/* Split again, last first: each label moves to its own place, at
	 * or past where it is (text may be names[0] itself). */
	at = len;
	for (unsigned k = n; k-- > 0;) {
		size_t start = at;

		while (k > 0 && start > 0 && text[start - 1] != ';')
			start--;
		if (k == 0)
			start = 0;
		memmove(names[k], text + start, at - start);
		names[k][at - start] = '\0';
		at = start ? start - 1 : 0;
	}
	return n;
}

/* A frame whose labels the memo lacks: made in the order of the address
 * looked up (pc: a return address less one, the sort's key). */
struct label_want {
	uint64_t pc, addr;
	unsigned kind;
};

struct label_warm {
	const struct up_output_opts *opts;
	const struct text_memo *memo;
	struct label_want *want;
	size_t n, cap;
	bool failed;
};

static int visit_label_warm(const struct up_stack_record *s, void *arg)
{
	struct label_warm *w = arg;

	if (!profile_kept(w->opts, s))
		return 0;
	for (unsigned i = 0; i < s->depth && !w->failed; i++) {
		uint64_t addr = s->frames[i];
		unsigned kind = labels_kind(i > 0, i == 0, w->opts), tag;
		size_t len;

		if (text_memo_get(w->memo, addr, kind, &len, &tag))
			continue;
		if (w->n >= WARM_MAX ||
		    grow_array(&w->want, &w->cap, w->n + 1, sizeof(*w->want), 4096) < 0) {
			w->failed = true;
			break;
		}
		w->want[w->n++] = (struct label_want){
			i > 0 && addr ? addr - 1 : addr, addr, kind };
	}
	return 0;
}

/* Distinct pcs resolved at a time before their frames' labels are made:
 * what resolving read (the caches' slots, the source frames, their
 * strings) is then still in the CPU's caches, a few 100 KiB. */
#define WARM_CHUNK 512

/* The wanted frames in order, a chunk of pcs at a time: their pcs
 * resolved in one walk of the table (symbols, and source frames unless
 * no_inline), then each frame's labels made once. */
static void make_wanted(const struct up_symtab *s, const struct label_want *want,
			const uint32_t *order, size_t n,
			const struct up_output_opts *opts,
			char (*names)[PROFILE_NAME_MAX])
{
	bool source = !opts->no_inline && up_symtab_has_source(s);
	uint64_t pcs[WARM_CHUNK];
	uint32_t seen = 0;   /* in a run of one pc: bit (addr - pc) * 16 + kind */

	for (size_t i = 0, end; i < n; i = end) {
		size_t npcs = 0;

		/* A pc's frames all in one chunk. */
		for (end = i; end < n; end++) {
			uint64_t pc = want[order[end]].pc;

			if (npcs && pcs[npcs - 1] == pc)
				continue;
			if (npcs == WARM_CHUNK)
				break;
			pcs[npcs++] = pc;
		}
		symtab_warm(s, pcs, npcs, source);
		for (size_t k = i; k < end; k++) {
			const struct label_want *w = &want[order[k]];
			uint32_t bit = 1u << ((w->addr - w->pc) * 16 + w->kind);
			size_t len;
			unsigned nl;

			if (k == 0 || want[order[k - 1]].pc != w->pc)
				seen = 0;
			if (seen & bit)
				continue;
			seen |= bit;
			/* The kind's bits are the arguments: leaf matters
			 * only with lines, where its bit is set. */
			profile_frame_labels_text(s, w->addr, w->kind & 1, w->kind & 2,
						  opts, names, &len, &nl);
		}
	}
}

void profile_warm_labels(const struct up_profile *p, const struct up_symtab *s,
			 const struct up_output_opts *opts,
			 char (*names)[PROFILE_NAME_MAX])
{
	struct label_warm w = { .opts = opts };
	uint32_t *order;

	if (!p || !s)
		return;
	if (!(w.memo = symtab_label_memo(s))) {
		profile_warm(p, s, !opts->no_inline);
		return;
	}
	up_profile_foreach(p, visit_label_warm, &w);
	if (w.n && (order = radix_order_u64(w.want, w.n, sizeof(*w.want)))) {
		make_wanted(s, w.want, order, w.n, opts, names);
		free(order);
	} else if (w.n) {
		profile_warm(p, s, !opts->no_inline);
	}
	free(w.want);
}

char (*profile_labels_alloc(void))[PROFILE_NAME_MAX]
{
	char (*names)[PROFILE_NAME_MAX] = malloc(UP_SRC_MAX_FRAMES * sizeof(*names));

	if (!names)
		up_fail(UP_ENOMEM, "out of memory");
	return names;
}
