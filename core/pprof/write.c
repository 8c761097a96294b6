/* Writing a profile as pprof: the protobuf is built with protoc-c's code
 * for our profile.proto and encoded by libprotobuf-c, then gzip'ed with
 * zlib as pprof files are. Runs after sampling, like every writer. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "util/error_impl.h"
#include "util/grow.h"
#include "pprof/profile.pb-c.h"
#include "output/frame_labels.h"
#include "output/out_buf.h"
#include "symbols/lookup_cache.h"
#include "util/strmap.h"
#include "uniprof/stored.h"
#include "uniprof/text.h"
#include "private.h"
#include "util/layout_version.h"

typedef Perftools__Profiles__Profile PbProfile;
typedef Perftools__Profiles__ValueType PbValueType;
typedef Perftools__Profiles__Sample PbSample;
typedef Perftools__Profiles__Label PbLabel;
typedef Perftools__Profiles__Mapping PbMapping;
typedef Perftools__Profiles__Location PbLocation;
typedef Perftools__Profiles__Line PbLine;
typedef Perftools__Profiles__Function PbFunction;

#define MAX_LABELS 5   /* vcpu, state, truncated, elapsed, credited */

/* One sample as collected: its location ids live in the ids arena. */
struct rec {
	uint64_t id;          /* the stack record's: rising in visit order */
	uint64_t timed;       /* of count, in samples written with a time */
	size_t ids_off;
	unsigned nids, vcpu;
	enum up_vcpu_activity act;
	enum up_trunc trunc;
	uint64_t count;
	bool unseen;
};

/* count samples of record rec taken t_ns after the start (credited: for
 * periods the sampler missed). */
struct timed {
	size_t rec;
	uint64_t t_ns, count;
	bool credited;
};

struct loc {
	uint64_t addr;
	int32_t func;   /* function index, -1: unsymbolized */
	uint32_t nlines;
	uint32_t lines_off;   /* with source: its lines in the lines arena */
	bool synthetic; /* [truncated], [dropped]: no mapping */
};

/* A pprof Line: a function and a line in it (0: unknown). */
struct line_rec {
	int32_t func;
	uint32_t line;
};

/* A location's key: its address, function and whether it is a return
 * address, and the location it stands for (v: (index + 1) << 1 | ret,
 * 0: an empty slot). Open addressing, at most 3/4 full. */
struct loc_slot {
	uint64_t addr;
	int32_t func;
	uint32_t v;
};

/* What DWARF says of a function: where it is defined. */
struct func_src {
	long file;          /* string index, 0: unknown */
	int64_t start_line;
};

struct writer {
	const struct up_symtab *symtab;
	bool names_only;
	bool no_inline;           /* inlined calls folded into their callers */
	struct strmap *strings;
	/* Each string's function + 1 (0: none), by string index: a
	 * function is known by its name's string. */
	uint32_t *str_func;
	size_t str_func_len, str_func_cap, nfuncs;
	struct loc_slot *slots;   /* the locations by key (loc_idx) */
	size_t nslots, nkeys;
	struct loc *loc;
	size_t nloc, loc_cap;
	long *func_name;     /* string index of each function's name */
	struct func_src *func_src;
	size_t func_cap, func_src_cap;
	/* Each symbol's function + 1 (0: not met yet), by the symbol's
	 * index in the table; NULL when frames are named one by one. */
	uint32_t *sym_func;
	struct line_rec *lines;   /* locations' lines, innermost first */
	size_t nlines, lines_cap;
	bool source;              /* the symbol table has DWARF lines */
	uint64_t *ids;
	size_t nids, ids_cap;
	struct rec *recs;
	size_t nrecs, recs_cap;
	struct timed *timed;      /* the samples' times, by record */
	size_t ntimed, timed_cap;
	uint64_t timed_cost;      /* their cost to decode, estimated */
	int err;
};

static long str_idx(struct writer *w, const char *s)
{
	long i = strmap_intern(w->strings, s);

	if (i < 0)
		w->err = UP_ENOMEM;
	return i;
}

/* Strings from the guest's configuration (comments, paths): valid UTF-8,
 * as protobuf strings must be. */
static long text_idx(struct writer *w, const char *s)
{
	char *valid = up_text_valid_utf8(s ? s : "");
	long i;

	if (!valid) {
		w->err = UP_ENOMEM;
		return -1;
	}
	i = str_idx(w, valid);
	free(valid);
	return i;
}

static long func_idx(struct writer *w, const char *name)
{
	long s = str_idx(w, name), i;

	if (s < 0 || grow_array(&w->str_func, &w->str_func_cap, (size_t)s + 1,
				sizeof(*w->str_func), 256) < 0)
		return -1;
	while (w->str_func_len <= (size_t)s)
		w->str_func[w->str_func_len++] = 0;
	if (w->str_func[s])
		return (long)w->str_func[s] - 1;
	i = (long)w->nfuncs;
	if (i >= INT32_MAX ||
	    grow_array(&w->func_name, &w->func_cap, (size_t)i + 1,
		       sizeof(*w->func_name), 64) < 0)
		return -1;
	w->func_name[i] = s;
	if (grow_array(&w->func_src, &w->func_src_cap, (size_t)i + 1,
		       sizeof(*w->func_src), 64) < 0)
		return -1;
	w->func_src[i] = (struct func_src){ 0, 0 };
	w->str_func[s] = (uint32_t)i + 1;
	w->nfuncs++;
	return i;
}

/* A function's file and first line, from the first frame that knew. */
static void func_source(struct writer *w, long f, const struct up_src_frame *sf)
{
	/* Assembly has no declaration: the file its line is in. */
	const char *file = sf->decl_file ? sf->decl_file : sf->file;

	if (f < 0 || w->func_src[f].file || !file)
		return;
	w->func_src[f].file = text_idx(w, file);
	w->func_src[f].start_line = sf->decl_file ? sf->decl_line : 0;
}

/* A location's lines, as pprof wants them: the calls inlined at its
 * address innermost first, the function holding the code (f) last. */
static int loc_lines(struct writer *w, long loc, long f, uint64_t addr,
		     bool is_return)
{
	struct up_src_frame src[UP_SRC_MAX_FRAMES];
	size_t n = up_symtab_source(w->symtab, addr, is_return, src,
				    UP_SRC_MAX_FRAMES);
	size_t first = w->nlines;

	if (n == 0)
		return 0;
	/* n lines, and the function's when DWARF found none around. */
	if (w->nlines + n + 1 > UINT32_MAX ||
	    grow_array(&w->lines, &w->lines_cap, w->nlines + n + 1,
		       sizeof(*w->lines), 256) < 0)
		return UP_ENOMEM;
	for (size_t k = 0; k < n; k++) {
		const struct up_src_frame *sf = &src[k];
		long g = f;

		if (sf->inlined) {
			if (!sf->function || w->no_inline)
				continue;
			g = func_idx(w, sf->function);
			if (g < 0)
				return UP_ENOMEM;
		} else if (k != n - 1) {
			continue;
		}
		func_source(w, g, sf);
		w->lines[w->nlines++] = (struct line_rec){ (int32_t)g, sf->line };
	}
	/* The function itself, when DWARF found no subprogram around. */
	if (src[n - 1].inlined)
		w->lines[w->nlines++] = (struct line_rec){ (int32_t)f, 0 };
	w->loc[loc].lines_off = (uint32_t)first;
	w->loc[loc].nlines = (uint32_t)(w->nlines - first);
	return 0;
}

/* The key of a frame's location: one per address, and per function where
 * one address names two (a return address just past a call that ends its
 * function names the caller, the same address as an IP the next one);
 * with source lines an IP and a return address at one address are two
 * keys (the return address is looked up at the call). */
static struct loc_slot *loc_slot(const struct writer *w, uint64_t addr,
				 long f, bool ret)
{
	uint64_t h = (addr ^ ((uint64_t)(uint32_t)f << 1 | ret) *
		      0xff51afd7ed558ccdULL) * 0x9e3779b97f4a7c15ULL;
	size_t i = (size_t)(h >> 24) & (w->nslots - 1);

	while (w->slots[i].v && (w->slots[i].addr != addr ||
				 w->slots[i].func != (int32_t)f ||
				 (w->slots[i].v & 1) != ret))
		i = (i + 1) & (w->nslots - 1);
	return &w->slots[i];
}

static int slots_room(struct writer *w)
{
	struct loc_slot *old = w->slots;
	size_t n = w->nslots;

	if (n && (w->nkeys + 1) * 4 < n * 3)
		return 0;
	w->nslots = n ? n * 2 : 1024;
	w->slots = calloc(w->nslots, sizeof(*w->slots));
	if (!w->slots) {
		w->slots = old;
		w->nslots = n;
		return UP_ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		if (old[i].v)
			*loc_slot(w, old[i].addr, old[i].func, old[i].v & 1) = old[i];
	free(old);
	return 0;
}

static long slot_loc(const struct loc_slot *k)
{
	return (long)(k->v >> 1) - 1;
}

/* The location of a frame in function f (-1: none); *made when it is
 * new (its lines to add). */
static long loc_of_func(struct writer *w, uint64_t addr, bool is_return,
			long f, bool synthetic, bool *made)
{
	bool ret = w->source && is_return;
	struct loc_slot *k;

	*made = false;
	if (slots_room(w) < 0 || w->nloc >= UINT32_MAX / 2 - 1)
		return -1;
	k = loc_slot(w, addr, f, ret);
	if (k->v)
		return slot_loc(k);
	if (grow_array(&w->loc, &w->loc_cap, w->nloc + 1, sizeof(*w->loc), 256) < 0)
		return -1;
	*k = (struct loc_slot){ addr, (int32_t)f,
				(uint32_t)(w->nloc + 1) << 1 | ret };
	w->nkeys++;
	w->loc[w->nloc] = (struct loc){ addr, (int32_t)f, 0, 0, synthetic };
	*made = true;
	return (long)w->nloc++;
}

/* The location of a frame named name (named: else unsymbolized). */
static long loc_idx(struct writer *w, uint64_t addr, bool is_return,
		    const char *name, bool named, bool synthetic, bool *made)
{
	long f = named ? func_idx(w, name) : -1;

	*made = false;
	if (named && f < 0)
		return -1;
	return loc_of_func(w, addr, is_return, f, synthetic, made);
}

/* A frame's function (-1: no symbol has it; *named says which), by its
 * symbol: the name is fitted and looked up once per symbol, not once
 * per frame. name: room for it (PROFILE_NAME_MAX), set when made. */
static long frame_func(struct writer *w, uint64_t addr, bool is_return,
		       char *name, bool *named)
{
	const struct up_symbol *sym;
	size_t k;
	long f;

	/* As profile_frame_label looks it up: a return address at the call. */
	sym = w->sym_func ? symtab_lookup_cached(w->symtab,
						 is_return && addr ? addr - 1 : addr)
			  : NULL;
	if (!sym) {
		*named = profile_frame_label(w->symtab, addr, is_return, false, name);
		return *named ? func_idx(w, name) : -1;
	}
	*named = true;
	k = (size_t)(sym - up_symtab_symbol(w->symtab, 0));
	if (w->sym_func[k])
		return (long)w->sym_func[k] - 1;
	profile_frame_label(w->symtab, addr, is_return, false, name);
	f = func_idx(w, name);
	if (f >= 0)
		w->sym_func[k] = (uint32_t)f + 1;
	return f;
}

static bool same_lines(const struct writer *w, const struct loc *a,
		       const struct loc *b)
{
	return a->nlines == b->nlines &&
	       memcmp(&w->lines[a->lines_off], &w->lines[b->lines_off],
		      a->nlines * sizeof(*w->lines)) == 0;
}

/* A location just made (the last) whose address is known as the other
 * kind (IP or return address) with the very same lines is that one:
 * pprof tools take two Locations of one address and lines for two
 * places. Returns the location to use. */
static long loc_dedup(struct writer *w, long loc, bool is_return)
{
	const struct loc *l = &w->loc[loc];
	const struct loc_slot *other = loc_slot(w, l->addr, l->func, !is_return);
	long o = other->v ? slot_loc(other) : -1;

	if (o < 0 || !same_lines(w, &w->loc[o], l))
		return loc;
	loc_slot(w, l->addr, l->func, is_return)->v =
		(uint32_t)(o + 1) << 1 | is_return;
	w->nlines = l->lines_off;
	w->nloc--;
	return o;
}

static int add_id(struct writer *w, long loc)
{
	if (loc < 0 || grow_array(&w->ids, &w->ids_cap, w->nids + 1,
				  sizeof(*w->ids), 1024) < 0)
		return UP_ENOMEM;
	w->ids[w->nids++] = (uint64_t)loc + 1;
	return 0;
}

/* With no_inline, an inlined call read by name folds into its caller, as
 * in the folded file; the outermost frame stays. */
static bool inline_folded(const struct writer *w, const char *name,
			  bool outermost)
{
	return w->no_inline && w->names_only && !outermost &&
	       profile_inlined_label(name);
}

static int visit(const struct up_stack_record *s, void *arg)
{
	struct writer *w = arg;
	char name[PROFILE_NAME_MAX];
	struct rec r = { s->id, 0, w->nids, 0, s->vcpu, s->activity, s->trunc,
			 s->count, s->unseen };
	bool made_pseudo;
	int rc = 0;

	for (unsigned i = 0; rc == 0 && i < s->depth; i++) {
		bool named, made = false;
		long loc;

		if (w->names_only) {
			named = profile_frame_label(w->symtab, s->frames[i], i > 0,
						    false, name);
			if (inline_folded(w, name, i + 1 == s->depth))
				continue;
			loc = loc_idx(w, 0, i > 0, name, named, true, &made);
		} else {
			long f = frame_func(w, s->frames[i], i > 0, name, &named);

			loc = named && f < 0 ? -1 :
			      loc_of_func(w, s->frames[i], i > 0, f, false, &made);
		}

		if (loc >= 0 && made && named && w->source) {
			w->loc[loc].lines_off = (uint32_t)w->nlines;
			if (loc_lines(w, loc, w->loc[loc].func, s->frames[i], i > 0) < 0)
				loc = -1;
			else
				loc = loc_dedup(w, loc, i > 0);
		}
		rc = add_id(w, loc);
	}
	/* The folded writer's pseudo-frames, at the root, as flame graph
	 * views of pprof files show them. */
	if (rc == 0 && s->depth == 0)
		rc = add_id(w, loc_idx(w, 0, false, up_stack_record_pseudo(s),
				       true, true, &made_pseudo));
	else if (rc == 0 && s->trunc != UP_TRUNC_NONE)
		rc = add_id(w, loc_idx(w, 0, false, "[truncated]", true, true,
				       &made_pseudo));
	if (rc == 0 && grow_array(&w->recs, &w->recs_cap, w->nrecs + 1,
				  sizeof(*w->recs), 256) < 0)
		rc = UP_ENOMEM;
	if (rc < 0)
		return w->err = up_fail(UP_ENOMEM, "out of memory");
	r.nids = (unsigned)(w->nids - r.ids_off);
	w->recs[w->nrecs++] = r;
	return 0;
}

static void writer_release(struct writer *w)
{
	strmap_free(w->strings);
	free(w->str_func);
	free(w->sym_func);
	free(w->slots);
	free(w->loc);
	free(w->func_name);
	free(w->func_src);
	free(w->lines);
	free(w->ids);
	free(w->recs);
	free(w->timed);
}

/* Records rise by id (visit order): bsearch finds a time's record. */
static int rec_id_cmp(const void *key, const void *elem)
{
	uint64_t id = *(const uint64_t *)key, rid = ((const struct rec *)elem)->id;

	return id < rid ? -1 : id > rid;
}

/* What a sample with a time costs the reader to decode (read.c's budget
 * is 512 MiB): past TIMED_DECODE_BUDGET the rest are written without
 * their times, so that the file reads back whatever the run kept. */
#define TIMED_DECODE_BUDGET (256ULL << 20)

static uint64_t timed_cost(const struct rec *r)
{
	return sizeof(PbSample) + sizeof(PbSample *) + 2 * sizeof(int64_t) +
	       r->nids * sizeof(uint64_t) +
	       MAX_LABELS * (sizeof(PbLabel) + sizeof(PbLabel *));
}

/* Each time the profile kept, by its record: a sample of its own. */
static int visit_time(const struct up_time_record *t, void *arg)
{
	struct writer *w = arg;
	const struct rec *found = w->nrecs ? bsearch(&t->id, w->recs, w->nrecs,
						      sizeof(*w->recs), rec_id_cmp) : NULL;
	size_t r;

	if (!found)
		return 0;
	r = (size_t)(found - w->recs);
	if (w->recs[r].count - w->recs[r].timed < t->count)
		return 0;
	w->timed_cost += timed_cost(&w->recs[r]);
	if (w->timed_cost > TIMED_DECODE_BUDGET)
		return 0;
	if (grow_array(&w->timed, &w->timed_cap, w->ntimed + 1,
		       sizeof(*w->timed), 1024) < 0)
		return w->err = up_fail(UP_ENOMEM, "out of memory");
	w->timed[w->ntimed++] = (struct timed){ r, t->t_ns, t->count, t->credited };
	w->recs[r].timed += t->count;
	return 0;
}

/* The protobuf, deflated as gzip as libprotobuf-c encodes it, straight
 * to the file: never the whole encoding in memory (5.8 MiB of the peak
 * for 160,000 locations). Input is deflated in blocks of IN_BLOCK: with
 * Z_NO_FLUSH, zlib's output does not depend on how its input is cut (the
 * files are those the whole buffer gave). */
#define IN_BLOCK (64 * 1024)

struct gzip_sink {
	ProtobufCBuffer base;     /* first: libprotobuf-c's view */
	z_stream z;
	FILE *out;
	bool failed;
	size_t n;
	uint8_t in[IN_BLOCK];
	uint8_t chunk[64 * 1024];
};

static void deflate_some(struct gzip_sink *g, const uint8_t *data, size_t len,
			 int flush)
{
	int zrc = Z_OK;

	g->z.next_in = (uint8_t *)data;
	g->z.avail_in = (unsigned)len;
	do {
		g->z.next_out = g->chunk;
		g->z.avail_out = sizeof(g->chunk);
		zrc = deflate(&g->z, flush);
		if (zrc == Z_STREAM_ERROR)
			g->failed = true;
		fwrite(g->chunk, 1, sizeof(g->chunk) - g->z.avail_out, g->out);
	} while (g->z.avail_out == 0 && !g->failed);
	if (flush == Z_FINISH && zrc != Z_STREAM_END)
		g->failed = true;
}

static void gzip_append(ProtobufCBuffer *buf, size_t len, const uint8_t *data)
{
	struct gzip_sink *g = (struct gzip_sink *)buf;

	while (len && !g->failed) {
		size_t step = IN_BLOCK - g->n < len ? IN_BLOCK - g->n : len;

		memcpy(g->in + g->n, data, step);
		g->n += step;
		data += step;
		len -= step;
		if (g->n == IN_BLOCK) {
			deflate_some(g, g->in, g->n, Z_NO_FLUSH);
			g->n = 0;
		}
	}
}

static int gzip_open(struct gzip_sink **out, FILE *file)
{
	struct gzip_sink *g = calloc(1, sizeof(*g));

	*out = NULL;
	if (!g)
		return up_fail(UP_ENOMEM, "out of memory");
	/* Go's runtime/pprof writes its profiles at gzip.BestSpeed: every
	 * pprof tool reads any level, and this one deflates in a fraction
	 * of the default's time for a file a few percent larger (8 % for
	 * the lines bench's 160,000 locations). */
	if (deflateInit2(&g->z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		free(g);
		return up_fail(UP_ENOMEM, "out of memory (zlib)");
	}
	g->base.append = gzip_append;
	g->out = file;
	*out = g;
	return 0;
}

/* One piece of the Profile message: a Profile holding some of the
 * fields (or some of one repeated field's elements) and nothing else.
 * Protobuf's encoding of a message is its fields' in turn, a repeated
 * field's elements each as a field of its own: pieces packed in the
 * fields' order, and each field's elements in theirs, are the bytes the
 * whole message would pack to, which is never held whole. */
static void gzip_piece(struct gzip_sink *g, const PbProfile *piece)
{
	if (!g->failed)
		perftools__profiles__profile__pack_to_buffer(piece, &g->base);
}

/* Finish the file (ok: every piece given) and free the sink. */
static int gzip_close(struct gzip_sink *g, bool ok)
{
	int rc = 0;

	if (!g)
		return 0;
	if (ok && !g->failed)
		deflate_some(g, g->in, g->n, Z_FINISH);
	deflateEnd(&g->z);
	if (ok && g->failed)
		rc = up_fail(UP_EIO, "gzip compression failed");
	else if (ok && ferror(g->out))
		rc = up_fail(UP_EIO, "write error");
	free(g);
	return rc;
}

/* The mappings that hold code, by start, for the location's lookup:
 * reach[i] is the farthest limit of the first i + 1. */
struct map_at {
	uint64_t start, limit, reach;
	uint64_t id;
};

static int map_at_cmp(const void *a, const void *b)
{
	const struct map_at *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The id of the innermost mapping that holds addr (the latest start), or
 * 0 when none does. */
static uint64_t mapping_of(const struct map_at *v, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Those starting at or below addr, latest first, while any of them
	 * reaches past it. */
	for (size_t i = lo; i-- > 0 && v[i].reach > addr;)
		if (addr < v[i].limit)
			return v[i].id;
	return 0;
}

/* Elements packed in a piece at once: the messages of a few thousand
 * samples or locations at a time, never of all (25 MiB for 160,000
 * locations and their lines). */
#define PIECE 2048

struct pb {
	PbValueType types[2], period_type;
	PbValueType *type_ptrs[2];
	PbMapping *mappings;
	PbMapping **mapping_ptrs;
	struct map_at *map_at;
	size_t nmap_at, nm;
	int64_t period;
	int64_t *comments;
	/* One piece's messages. */
	PbSample samples[PIECE];
	PbSample *sample_ptrs[PIECE];
	int64_t values[2 * PIECE];
	PbLabel labels[PIECE * MAX_LABELS];
	PbLabel *label_ptrs[PIECE * MAX_LABELS];
	PbLocation locs[PIECE];
	PbLocation *loc_ptrs[PIECE];
	PbLine *lines;            /* the most one piece of locations has */
	PbLine **line_ptrs;
	PbFunction funcs[PIECE];
	PbFunction *func_ptrs[PIECE];
	char *strings[PIECE];
};

static void pb_release(struct pb *b)
{
	free(b->mappings);
	free(b->mapping_ptrs);
	free(b->map_at);
	free(b->lines);
	free(b->line_ptrs);
	free(b->comments);
}

static PbLabel label(struct writer *w, const char *k, const char *v)
{
	PbLabel l = PERFTOOLS__PROFILES__LABEL__INIT;

	l.key = str_idx(w, k);
	l.str = str_idx(w, v);
	return l;
}

/* A number, in unit (NULL: none), which pprof's -tagfocus takes as a
 * range (vcpu=1, elapsed=2s:5s). */
static PbLabel num_label(struct writer *w, const char *k, int64_t v,
			 const char *unit)
{
	PbLabel l = PERFTOOLS__PROFILES__LABEL__INIT;

	l.key = str_idx(w, k);
	l.num = v;
	l.num_unit = unit ? str_idx(w, unit) : 0;
	return l;
}

/* Sample i of the file's (those with a time first, one each, then what
 * each stack has left without one): its record and count, 0 for none. */
static const struct rec *sample_at(const struct writer *w, size_t i,
				   uint64_t *count)
{
	bool with_time = i < w->ntimed;
	const struct rec *r = &w->recs[with_time ? w->timed[i].rec :
					     i - w->ntimed];

	*count = with_time ? w->timed[i].count : r->count - r->timed;
	return r;
}

/* Sample i's labels into l (at most MAX_LABELS): label elapsed is ns
 * since the profile's time_nanos, the run's start; credited=missed on
 * periods the sampler missed. Returns how many. */
static size_t sample_labels(struct writer *w, size_t i, const struct rec *r,
			    PbLabel *l)
{
	size_t n = 0;

	l[n++] = num_label(w, "vcpu", r->vcpu, "count");
	if (r->act != UP_VCPU_UNKNOWN)
		l[n++] = label(w, "state", r->unseen ? "unseen" :
				  r->act == UP_VCPU_BLOCKED ? "idle" :
				  r->act == UP_VCPU_WAITING ? "waiting" : "busy");
	if (r->trunc != UP_TRUNC_NONE)
		l[n++] = label(w, "truncated", up_trunc_name(r->trunc));
	if (i < w->ntimed) {
		l[n++] = num_label(w, "elapsed", (int64_t)w->timed[i].t_ns,
				   "nanoseconds");
		if (w->timed[i].credited)
			l[n++] = label(w, "credited", "missed");
	}
	return n;
}

/* The mappings as given, ids in their order; without any, none: a
 * profile without its image's layout says nothing of one. Each says it is
 * symbolized (tools then leave it be) when some location in it has a
 * name, and lines. */
static int prepare_mappings(struct writer *w, struct pb *b,
			    const struct up_pprof_meta *m)
{
	size_t nm = m->mappings ? m->nr_mappings : 0;

	b->nm = nm;
	b->mappings = calloc(nm + 1, sizeof(*b->mappings));
	b->mapping_ptrs = calloc(nm + 1, sizeof(*b->mapping_ptrs));
	b->map_at = calloc(nm + 1, sizeof(*b->map_at));
	if (!b->mappings || !b->mapping_ptrs || !b->map_at)
		return up_fail(UP_ENOMEM, "out of memory");
	for (size_t i = 0; i < nm; i++) {
		const struct up_pprof_mapping *mi = &m->mappings[i];
		PbMapping *pm = &b->mappings[i];

		perftools__profiles__mapping__init(pm);
		pm->id = i + 1;
		pm->memory_start = mi->start;
		pm->memory_limit = mi->limit;
		pm->file_offset = mi->file_offset;
		pm->filename = mi->file ? text_idx(w, mi->file) : 0;
		pm->build_id = mi->build_id ? text_idx(w, mi->build_id) : 0;
		b->mapping_ptrs[i] = pm;
		if (mi->limit > mi->start)
			b->map_at[b->nmap_at++] = (struct map_at){
				mi->start, mi->limit, 0, i + 1 };
	}
	qsort(b->map_at, b->nmap_at, sizeof(*b->map_at), map_at_cmp);
	for (size_t i = 0; i < b->nmap_at; i++)
		b->map_at[i].reach = i && b->map_at[i - 1].reach > b->map_at[i].limit ?
				     b->map_at[i - 1].reach : b->map_at[i].limit;
	for (size_t i = 0; i < w->nloc; i++) {
		uint64_t id = w->loc[i].synthetic ? 0 :
			mapping_of(b->map_at, b->nmap_at, w->loc[i].addr);
		PbMapping *pm = id ? &b->mappings[id - 1] : NULL;

		if (pm) {
			pm->has_functions |= w->loc[i].func >= 0;
			if (w->loc[i].nlines)
				pm->has_filenames = pm->has_line_numbers =
					pm->has_inline_frames = true;
		}
	}
	return 0;
}

/* The strings of every sample's labels. */
static void prepare_labels(struct writer *w)
{
	PbLabel l[MAX_LABELS];

	for (size_t i = 0; i < w->ntimed + w->nrecs; i++) {
		uint64_t count;
		const struct rec *r = sample_at(w, i, &count);

		if (count)
			sample_labels(w, i, r, l);
	}
}

/* The header: the value types (samples, and cpu time at a rate), the
 * period, the comments. */
static int prepare_header(struct writer *w, struct pb *b,
			  const struct up_pprof_meta *m)
{
	b->period = m->hz > 0 ? (int64_t)llround(1e9 / m->hz) : 0;
	b->comments = calloc(m->nr_comments + 1, sizeof(*b->comments));
	if (!b->comments)
		return up_fail(UP_ENOMEM, "out of memory");
	for (int i = 0; i < 2; i++) {
		perftools__profiles__value_type__init(&b->types[i]);
		b->type_ptrs[i] = &b->types[i];
	}
	b->types[0].type = str_idx(w, "samples");
	b->types[0].unit = str_idx(w, "count");
	if (m->hz > 0) {
		b->types[1].type = str_idx(w, "cpu");
		b->types[1].unit = str_idx(w, "nanoseconds");
	}
	perftools__profiles__value_type__init(&b->period_type);
	b->period_type.type = b->types[1].type;
	b->period_type.unit = b->types[1].unit;
	for (size_t i = 0; i < m->nr_comments; i++)
		b->comments[i] = text_idx(w, m->comments[i]);
	return 0;
}

/* Room for the lines of the most any piece of locations has. */
static int prepare_lines(struct writer *w, struct pb *b)
{
	size_t most = 1;

	for (size_t i = 0; i < w->nloc; i += PIECE) {
		size_t n = 0;

		for (size_t k = i; k < w->nloc && k < i + PIECE; k++)
			n += w->loc[k].nlines ? w->loc[k].nlines : w->loc[k].func >= 0;
		most = n > most ? n : most;
	}
	b->lines = calloc(most, sizeof(*b->lines));
	b->line_ptrs = calloc(most, sizeof(*b->line_ptrs));
	if (!b->lines || !b->line_ptrs)
		return up_fail(UP_ENOMEM, "out of memory");
	return 0;
}

/* Before any piece: every string the pieces use, in the order the whole
 * message was always built in (mappings', samples' labels, types,
 * comments), the mappings and what they say of their locations. */
static int prepare(struct writer *w, struct pb *b, const struct up_pprof_meta *m)
{
	int rc = prepare_mappings(w, b, m);

	if (rc == 0) {
		prepare_labels(w);
		rc = prepare_header(w, b, m);
	}
	if (rc == 0)
		rc = prepare_lines(w, b);
	return rc < 0 ? rc : w->err;
}

static void pack_samples(struct writer *w, struct pb *b,
			 const struct up_pprof_meta *m, struct gzip_sink *g)
{
	size_t ns = w->ntimed + w->nrecs, i = 0;

	while (i < ns) {
		PbProfile piece = PERFTOOLS__PROFILES__PROFILE__INIT;
		size_t nsamples = 0, nlabels = 0;

		for (; i < ns && nsamples < PIECE; i++) {
			uint64_t count;
			const struct rec *r = sample_at(w, i, &count);
			PbSample *s = &b->samples[nsamples];
			size_t first = nlabels;

			if (count == 0)
				continue;
			perftools__profiles__sample__init(s);
			s->n_location_id = r->nids;
			s->location_id = w->ids + r->ids_off;
			s->n_value = m->hz > 0 ? 2 : 1;  /* no rate: no CPU time */
			s->value = &b->values[2 * nsamples];
			s->value[0] = (int64_t)count;
			/* count periods: tools that take value = count *
			 * period find it exact */
			s->value[1] = (int64_t)count * b->period;
			nlabels += sample_labels(w, i, r, &b->labels[nlabels]);
			for (size_t j = first; j < nlabels; j++)
				b->label_ptrs[j] = &b->labels[j];
			s->n_label = nlabels - first;
			s->label = &b->label_ptrs[first];
			b->sample_ptrs[nsamples++] = s;
		}
		piece.n_sample = nsamples;
		piece.sample = b->sample_ptrs;
		if (nsamples)
			gzip_piece(g, &piece);
	}
}

static void pack_locations(struct writer *w, struct pb *b, struct gzip_sink *g)
{
	for (size_t i = 0; i < w->nloc; i += PIECE) {
		PbProfile piece = PERFTOOLS__PROFILES__PROFILE__INIT;
		size_t at = 0, n = 0;

		for (size_t k = i; k < w->nloc && k < i + PIECE; k++, n++) {
			const struct loc *lw = &w->loc[k];
			PbLocation *l = &b->locs[n];

			perftools__profiles__location__init(l);
			l->id = k + 1;
			l->address = lw->addr;
			if (!lw->synthetic)
				l->mapping_id = mapping_of(b->map_at, b->nmap_at,
							   l->address);
			if (lw->nlines) {
				for (unsigned j = 0; j < lw->nlines; j++) {
					const struct line_rec *lr =
						&w->lines[lw->lines_off + j];

					perftools__profiles__line__init(&b->lines[at + j]);
					b->lines[at + j].function_id = (uint64_t)lr->func + 1;
					b->lines[at + j].line = lr->line;
					b->line_ptrs[at + j] = &b->lines[at + j];
				}
				l->n_line = lw->nlines;
				l->line = &b->line_ptrs[at];
				at += lw->nlines;
			} else if (lw->func >= 0) {
				perftools__profiles__line__init(&b->lines[at]);
				b->lines[at].function_id = (uint64_t)lw->func + 1;
				b->line_ptrs[at] = &b->lines[at];
				l->n_line = 1;
				l->line = &b->line_ptrs[at++];
			}
			b->loc_ptrs[n] = l;
		}
		piece.n_location = n;
		piece.location = b->loc_ptrs;
		gzip_piece(g, &piece);
	}
}

static void pack_functions(struct writer *w, struct pb *b, struct gzip_sink *g)
{
	for (size_t i = 0; i < w->nfuncs; i += PIECE) {
		PbProfile piece = PERFTOOLS__PROFILES__PROFILE__INIT;
		size_t n = 0;

		for (size_t k = i; k < w->nfuncs && k < i + PIECE; k++, n++) {
			PbFunction *f = &b->funcs[n];

			perftools__profiles__function__init(f);
			f->id = k + 1;
			f->name = f->system_name = w->func_name[k];
			f->filename = w->func_src[k].file;
			f->start_line = w->func_src[k].start_line;
			b->func_ptrs[n] = f;
		}
		piece.n_function = n;
		piece.function = b->func_ptrs;
		gzip_piece(g, &piece);
	}
}

static void pack_strings(struct writer *w, struct pb *b, struct gzip_sink *g)
{
	size_t ns = strmap_count(w->strings);

	for (size_t i = 0; i < ns; i += PIECE) {
		PbProfile piece = PERFTOOLS__PROFILES__PROFILE__INIT;
		size_t n = 0;

		for (size_t k = i; k < ns && k < i + PIECE; k++)
			b->strings[n++] = (char *)strmap_key(w->strings, k);
		piece.n_string_table = n;
		piece.string_table = b->strings;
		gzip_piece(g, &piece);
	}
}

/* The whole Profile, piece by piece in its fields' order. */
static void pack(struct writer *w, struct pb *b, const struct up_pprof_meta *m,
		 struct gzip_sink *g)
{
	PbProfile piece = PERFTOOLS__PROFILES__PROFILE__INIT;

	piece.n_sample_type = m->hz > 0 ? 2 : 1;
	piece.sample_type = b->type_ptrs;
	gzip_piece(g, &piece);
	pack_samples(w, b, m, g);
	perftools__profiles__profile__init(&piece);
	piece.n_mapping = b->nm;
	piece.mapping = b->mapping_ptrs;
	gzip_piece(g, &piece);
	pack_locations(w, b, g);
	pack_functions(w, b, g);
	pack_strings(w, b, g);
	perftools__profiles__profile__init(&piece);
	piece.time_nanos = m->time_nanos;
	piece.duration_nanos = m->duration_nanos;
	piece.period_type = m->hz > 0 ? &b->period_type : NULL;
	piece.period = b->period;
	piece.n_comment = m->nr_comments;
	piece.comment = b->comments;
	piece.default_sample_type = b->types[0].type;
	gzip_piece(g, &piece);
}

static int check_version(unsigned int version)
{
	return layout_version_check(version, UP_PPROF_META_VERSION, "pprof metadata",
				    "set it up with up_pprof_meta_init or UP_PPROF_META_INIT");
}

int up_pprof_meta_init(struct up_pprof_meta *m, unsigned int version)
{
	static const struct up_pprof_meta defaults = UP_PPROF_META_INIT;
	int rc = check_version(version);

	if (rc < 0)
		return rc;
	*m = defaults;
	return 0;
}

int up_profile_write_pprof(const struct up_profile *p,
			   const struct up_symtab *symtab,
			   const struct up_pprof_meta *meta, FILE *out)
{
	static const struct up_pprof_meta none = UP_PPROF_META_INIT;
	int rc = meta ? check_version(meta->version) : 0;

	if (rc < 0)
		return rc;
	if (!meta)
		meta = &none;

	struct writer w = { .symtab = symtab,
			    .names_only = meta->names_only,
			    .no_inline = meta->no_inline };

	/* Stored profiles read back by name have no addresses to look up. */
	w.source = up_symtab_has_source(symtab) && !w.names_only;
	struct gzip_sink *g = NULL;
	struct pb *b = calloc(1, sizeof(*b));

	if (!b || strmap_new(&w.strings) < 0 || str_idx(&w, "") != 0) {
		rc = up_fail(UP_ENOMEM, "out of memory");
		goto out;
	}
	profile_warm(p, symtab, w.source);
	/* Without it frames are named one by one, as stored profiles'. */
	if (symtab && !w.names_only && up_symtab_count(symtab))
		w.sym_func = calloc(up_symtab_count(symtab), sizeof(*w.sym_func));
	rc = up_profile_foreach(p, visit, &w);
	if (rc == 0)
		rc = w.err;
	/* The keys that found locations and functions are done with: freed
	 * before the protobuf is packed. */
	free(w.str_func);
	free(w.slots);
	free(w.sym_func);
	w.str_func = NULL;
	w.slots = NULL;
	w.sym_func = NULL;
	fit_array(&w.loc, &w.loc_cap, w.nloc, sizeof(*w.loc));
	fit_array(&w.lines, &w.lines_cap, w.nlines, sizeof(*w.lines));
	fit_array(&w.ids, &w.ids_cap, w.nids, sizeof(*w.ids));
	if (rc == 0)
		rc = up_profile_foreach_time_record(p, visit_time, &w);
	if (rc == 0)
		rc = w.err;
	if (rc == 0)
		rc = prepare(&w, b, meta);
	if (rc == 0)
		rc = gzip_open(&g, out);
	if (rc == 0) {
		pack(&w, b, meta, g);
		rc = gzip_close(g, true);
	} else {
		gzip_close(g, false);
	}
out:
	if (b)
		pb_release(b);
	free(b);
	writer_release(&w);
	return rc < 0 ? rc : 0;
}
