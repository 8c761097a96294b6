/* Reading stored profiles back: pprof (decoded by libprotobuf-c with the
 * code protoc-c made from our profile.proto, gunzipped by zlib) and
 * folded stacks. The result is an ordinary profile plus a symbol table
 * that names its frames as the live run named them, so the same writers
 * render it. Files are untrusted: every index is checked, decoding has a
 * memory budget, stacks and vCPUs are bounded. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/error_impl.h"
#include "util/file_read.h"
#include "util/grow.h"
#include "pprof/profile.pb-c.h"
#include "profile/profile_impl.h"
#include "util/strmap.h"
#include "symbols/table_impl.h"
#include "uniprof/stored.h"

typedef Perftools__Profiles__Profile PbProfile;
typedef Perftools__Profiles__Sample PbSample;
typedef Perftools__Profiles__Location PbLocation;
typedef Perftools__Profiles__Function PbFunction;

#define MAX_VCPUS 4096          /* Xen's own limit is lower */
#define MAX_DEPTH 4096          /* frames kept per stack; deeper: truncated */
#define DECODE_BUDGET (512ULL << 20)   /* what decoding may allocate */

struct up_stored {
	struct up_profile *profile;
	struct up_symtab *symtab;       /* ours, or NULL with resymbolize */
	const struct up_symtab *names;  /* what frames are named by */
	enum up_stored_format format;
	double hz;
	int64_t time_nanos, duration_nanos;
	char *kernel, *build_id;
	char **comments;
	size_t nr_comments, comments_cap;
	unsigned max_vcpu_seen, vcpus_said;
	bool by_name;            /* frames are name ids, not addresses */
	bool resym;              /* addresses named by the caller's table */
	struct strmap *names_by_id;     /* by_name: frame id -> name */
	struct strmap *points;   /* addresses: "L" -> name, for the symtab */
	long *point_name;
	size_t point_cap;
	uint64_t *frames;        /* one stack being assembled */
	size_t frames_cap;
};

static const struct file_read_caps profile_caps = {
	.noun = "profile", .max = UP_STORED_MAX_BYTES, .gzip_ratio = 64,
	.gzip_min = UP_STORED_MAX_BYTES,
};

static int bad(const char *what, const char *why)
{
	return up_fail(UP_EFORMAT, "%s: %s", what, why);
}

/* --- frames -------------------------------------------------------------- */

/* By name: frame i is at (i + 1) * 16 + 8 and its symbol covers
 * [(i + 1) * 16, +16), so the writers' lookup of an IP and of a return
 * address (one byte less) both find it. */
static int name_frame(struct up_stored *s, const char *name, uint64_t *frame)
{
	long i = strmap_intern(s->names_by_id, name);

	if (i < 0)
		return up_fail(UP_ENOMEM, "out of memory");
	*frame = ((uint64_t)i + 1) * 16 + 8;
	return 0;
}

/* By address: the name the live run gave the address at this position
 * (looked up one byte lower for a return address) becomes a symbol of
 * one byte there. */
static int point_name(struct up_stored *s, uint64_t addr, bool is_return,
		      long name_id)
{
	char key[24];
	size_t known = strmap_count(s->points);
	long i;

	snprintf(key, sizeof(key), "%" PRIx64, is_return && addr ? addr - 1 : addr);
	i = strmap_intern(s->points, key);
	if (i < 0)
		return up_fail(UP_ENOMEM, "out of memory");
	if ((size_t)i < known)
		return 0;       /* first name wins (one per address anyway) */
	if (grow_array(&s->point_name, &s->point_cap, (size_t)i + 1,
		       sizeof(*s->point_name), 256) < 0)
		return UP_ENOMEM;
	s->point_name[i] = name_id;
	return 0;
}

/* dropped: a pseudo-stack of depth 0, [unseen] if unseen, else
 * [dropped]. */
static int add_frames_stack(struct up_stored *s, const char *what,
			    unsigned vcpu, enum up_vcpu_activity act,
			    enum up_trunc trunc, bool dropped, bool unseen,
			    size_t depth, uint64_t count)
{
	int rc;

	if (count == 0)
		return 0;
	if (count > UINT32_MAX)
		return bad(what, "a stack counted more than 4294967295 times: not a profile uniprof can read");
	if (vcpu >= MAX_VCPUS)
		return bad(what, "a vCPU number past 4095");
	if (vcpu > s->max_vcpu_seen)
		s->max_vcpu_seen = vcpu;
	if (unseen)
		rc = up_profile_add_unseen(s->profile, vcpu, count);
	else if (dropped || depth == 0)
		rc = profile_add_dropped(s->profile, vcpu, act, count);
	else
		rc = up_profile_add_activity(s->profile, vcpu, s->frames,
					     (unsigned)depth, trunc, act, count);
	return rc < 0 ? up_fail(rc, "%s: %s", what, up_error_last()) : 0;
}

/* --- folded stacks ------------------------------------------------------ */

static bool looks_folded(const uint8_t *d, size_t n)
{
	size_t i, end;

	for (i = 0; i < n; i++)
		if (d[i] < 0x09 || (d[i] > 0x0d && d[i] < 0x20) || d[i] == 0x7f)
			return false;
	/* The first line ends in " COUNT". */
	for (end = 0; end < n && d[end] != '\n'; end++)
		;
	while (end > 0 && d[end - 1] == '\r')
		end--;
	if (end == 0 || d[end - 1] < '0' || d[end - 1] > '9')
		return false;
	while (end > 0 && d[end - 1] >= '0' && d[end - 1] <= '9')
		end--;
	return end > 0 && d[end - 1] == ' ';
}

/* Whether any stack is [idle]: then the idle classification was on and
 * the other stacks are busy, else their state is unknown. */
static bool folded_has_idle(const char *text, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((i == 0 || text[i - 1] == '\n') &&
		    (strncmp(text + i, "[idle];", 7) == 0 ||
		     strncmp(text + i, "[idle] ", 7) == 0))
			return true;
	return false;
}

/* One line, "root;...;leaf COUNT", the root perhaps our pseudo-frames
 * [idle], [truncated], [dropped], [unseen]. */
static int folded_line(struct up_stored *s, char *line, const char *where,
		       bool any_idle)
{
	enum up_vcpu_activity act = any_idle ? UP_VCPU_BUSY : UP_VCPU_UNKNOWN;
	enum up_trunc trunc = UP_TRUNC_NONE;
	bool dropped = false, unseen = false;
	char *sp = strrchr(line, ' '), *end, *frame, *save = NULL;
	unsigned long long count;
	size_t depth = 0, skip = 0;
	int rc = 0;

	if (!sp || sp == line || sp[1] < '0' || sp[1] > '9')
		return bad(where, "not folded stacks (\"frame;frame;... COUNT\")");
	errno = 0;
	count = strtoull(sp + 1, &end, 10);
	if (*end || errno)
		return bad(where, "the count is not a number");
	*sp = '\0';
	/* Past MAX_DEPTH frames, keep the leaf end: skip the root-most
	 * (after any pseudo-frames, which are few and counted here too). */
	for (char *c = line; *c; c++)
		skip += *c == ';';
	skip = skip + 1 > MAX_DEPTH + 3 ? skip + 1 - (MAX_DEPTH + 3) : 0;
	for (frame = strtok_r(line, ";", &save); frame && rc == 0;
	     frame = strtok_r(NULL, ";", &save)) {
		if (depth == 0 && !dropped) {
			if (act != UP_VCPU_BLOCKED && trunc == UP_TRUNC_NONE &&
			    strcmp(frame, "[idle]") == 0) {
				act = UP_VCPU_BLOCKED;
				continue;
			}
			if (trunc == UP_TRUNC_NONE && strcmp(frame, "[truncated]") == 0) {
				trunc = UP_TRUNC_UNRECORDED;
				continue;
			}
			if (strcmp(frame, UP_PROFILE_DROPPED_NAME) == 0) {
				dropped = true;
				continue;
			}
			if (act != UP_VCPU_BLOCKED && trunc == UP_TRUNC_NONE &&
			    strcmp(frame, UP_PROFILE_UNSEEN_NAME) == 0) {
				dropped = unseen = true;
				continue;
			}
		}
		if (skip) {
			skip--;
			trunc = UP_TRUNC_DEPTH;
			continue;
		}
		if (depth == MAX_DEPTH) {
			/* Pseudo-frames fewer than counted: one more to let go. */
			memmove(s->frames, s->frames + 1,
				(MAX_DEPTH - 1) * sizeof(*s->frames));
			depth--;
			trunc = UP_TRUNC_DEPTH;
		}
		if (grow_array(&s->frames, &s->frames_cap, depth + 1,
			       sizeof(*s->frames), 64) < 0)
			return UP_ENOMEM;
		rc = name_frame(s, frame, &s->frames[depth++]);
	}
	if (rc < 0)
		return rc;
	if (dropped && depth) {
		/* A function that happens to be named [dropped] or [unseen]. */
		const char *name = unseen ? UP_PROFILE_UNSEEN_NAME :
			UP_PROFILE_DROPPED_NAME;

		dropped = unseen = false;
		if (grow_array(&s->frames, &s->frames_cap, depth + 1,
			       sizeof(*s->frames), 64) < 0)
			return UP_ENOMEM;
		memmove(s->frames + 1, s->frames, depth * sizeof(*s->frames));
		rc = name_frame(s, name, &s->frames[0]);
		depth++;
	}
	if (depth == 0 && !dropped)
		return bad(where, "a stack without frames");
	for (size_t i = 0; i < depth / 2; i++) {    /* leaf first */
		uint64_t t = s->frames[i];

		s->frames[i] = s->frames[depth - 1 - i];
		s->frames[depth - 1 - i] = t;
	}
	return rc < 0 ? rc :
	       add_frames_stack(s, where, 0, act, trunc, dropped, unseen, depth,
				count);
}

static int load_folded(struct up_stored *s, char *text, size_t n,
		       const char *what)
{
	bool any_idle = folded_has_idle(text, n), any = false;
	size_t lineno = 0;
	char where[320];
	int rc = 0;

	for (char *line = text, *next; rc == 0 && line < text + n; line = next) {
		char *nl = memchr(line, '\n', (size_t)(text + n - line));

		next = nl ? nl + 1 : text + n;
		if (nl)
			*nl = '\0';
		lineno++;
		line[strcspn(line, "\r")] = '\0';
		if (!*line)
			continue;
		snprintf(where, sizeof(where), "%s line %zu", what, lineno);
		rc = folded_line(s, line, where, any_idle);
		any = true;
	}
	if (rc == 0 && !any)
		rc = bad(what, "no stacks in it");
	return rc;
}

/* --- pprof --------------------------------------------------------------- */

/* protobuf-c allocates through this: a hostile file cannot make decoding
 * take more than DECODE_BUDGET (a packed varint of one byte becomes eight). */
struct budget {
	uint64_t used;
};

static void *budget_alloc(void *data, size_t size)
{
	struct budget *b = data;
	size_t *p;

	if (size > DECODE_BUDGET || b->used + size > DECODE_BUDGET)
		return NULL;
	p = malloc(size + sizeof(size_t) * 2);
	if (!p)
		return NULL;
	p[0] = size;
	b->used += size;
	return p + 2;
}

static void budget_free(void *data, void *ptr)
{
	struct budget *b = data;
	size_t *p = ptr;

	if (!p)
		return;
	b->used -= p[-2];
	free(p - 2);
}

struct pp {
	const PbProfile *pb;
	const char *what;
	uint64_t *loc_ids;    /* sorted ids ... */
	size_t *loc_idx;      /* ... and their index in pb->location */
	size_t value_idx;
	long k_vcpu, k_state, k_trunc;
};

static const char *pstr(const struct pp *p, int64_t i)
{
	return i >= 0 && (uint64_t)i < p->pb->n_string_table &&
	       p->pb->string_table[i] ? p->pb->string_table[i] : NULL;
}

static long find_str(const PbProfile *pb, const char *s)
{
	for (size_t i = 0; i < pb->n_string_table; i++)
		if (pb->string_table[i] && strcmp(pb->string_table[i], s) == 0)
			return (long)i;
	return -1;
}

static const struct pp *cmp_ctx;

static int id_cmp(const void *a, const void *b)
{
	uint64_t x = cmp_ctx->pb->location[*(const size_t *)a]->id;
	uint64_t y = cmp_ctx->pb->location[*(const size_t *)b]->id;

	return x < y ? -1 : x > y;
}

static const PbLocation *location(const struct pp *p, uint64_t id)
{
	size_t lo = 0, hi = p->pb->n_location;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->loc_ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->pb->n_location && p->loc_ids[lo] == id ?
	       p->pb->location[p->loc_idx[lo]] : NULL;
}

static const char *function_name(const struct pp *p, uint64_t id)
{
	/* Functions are usually numbered 1..n in order; else search. */
	const PbProfile *pb = p->pb;

	if (id >= 1 && id <= pb->n_function && pb->function[id - 1]->id == id)
		return pstr(p, pb->function[id - 1]->name);
	for (size_t i = 0; i < pb->n_function; i++)
		if (pb->function[i]->id == id)
			return pstr(p, pb->function[i]->name);
	return NULL;
}

/* The name the live run gave a location (its innermost line's function),
 * or NULL when it was not symbolized. */
static const char *location_name(const struct pp *p, const PbLocation *l)
{
	const char *n;

	if (!l->n_line)
		return NULL;
	n = function_name(p, l->line[0]->function_id);
	return n && *n ? n : NULL;
}

static bool is_pseudo(const struct pp *p, const PbLocation *l, const char *name)
{
	const char *n = location_name(p, l);

	return l->address == 0 && l->mapping_id == 0 && n && strcmp(n, name) == 0;
}

static int index_pprof(struct pp *p)
{
	const PbProfile *pb = p->pb;
	long samples = find_str(pb, "samples"), count = find_str(pb, "count");

	p->loc_ids = malloc((pb->n_location + 1) * sizeof(*p->loc_ids));
	p->loc_idx = malloc((pb->n_location + 1) * sizeof(*p->loc_idx));
	if (!p->loc_ids || !p->loc_idx)
		return up_fail(UP_ENOMEM, "out of memory");
	for (size_t i = 0; i < pb->n_location; i++)
		p->loc_idx[i] = i;
	cmp_ctx = p;
	qsort(p->loc_idx, pb->n_location, sizeof(*p->loc_idx), id_cmp);
	for (size_t i = 0; i < pb->n_location; i++)
		p->loc_ids[i] = pb->location[p->loc_idx[i]]->id;
	/* Which value counts samples: samples/count (ours and Go's), else
	 * the first in a count unit, else the first. */
	p->value_idx = 0;
	for (size_t i = pb->n_sample_type; i-- > 0;) {
		if (pb->sample_type[i]->unit == count && count >= 0)
			p->value_idx = i;
	}
	for (size_t i = 0; i < pb->n_sample_type; i++)
		if (pb->sample_type[i]->type == samples && samples >= 0)
			p->value_idx = i;
	if (!pb->n_sample_type)
		return bad(p->what, "a pprof profile without sample types");
	p->k_vcpu = find_str(pb, "vcpu");
	p->k_state = find_str(pb, "state");
	p->k_trunc = find_str(pb, "truncated");
	return 0;
}

/* Frames of a sample, leaf first; inlined functions (foreign profiles)
 * become frames of their own when going by name. */
static int sample_frames(struct up_stored *s, const struct pp *p,
			 const PbSample *sm, size_t nloc, size_t *depth,
			 bool *deep)
{
	char unknown[24];

	*depth = 0;
	for (size_t i = 0; i < nloc; i++) {
		const PbLocation *l = location(p, sm->location_id[i]);
		size_t lines;

		if (!l)
			return bad(p->what, "a sample names a location that is not in the profile");
		lines = s->by_name && l->n_line > 1 ? l->n_line : 1;
		for (size_t j = 0; j < lines; j++) {
			const char *n = NULL;
			int rc;

			if (*depth == MAX_DEPTH) {
				*deep = true;
				return 0;
			}
			if (grow_array(&s->frames, &s->frames_cap, *depth + 1,
				       sizeof(*s->frames), 64) < 0)
				return UP_ENOMEM;
			if (l->n_line)
				n = function_name(p, l->line[j]->function_id);
			if (n && !*n)
				n = NULL;
			if (s->by_name) {
				if (!n) {
					snprintf(unknown, sizeof(unknown), "0x%" PRIx64, l->address);
					n = unknown;
				}
				rc = name_frame(s, n, &s->frames[*depth]);
			} else {
				s->frames[*depth] = l->address;
				rc = 0;
				if (n && !s->resym) {
					long id = strmap_intern(s->names_by_id, n);

					rc = id < 0 ? UP_ENOMEM :
					     point_name(s, l->address, *depth > 0, id);
				}
			}
			if (rc < 0)
				return rc;
			(*depth)++;
		}
	}
	return 0;
}

static int load_samples(struct up_stored *s, const struct pp *p)
{
	const PbProfile *pb = p->pb;

	for (size_t i = 0; i < pb->n_sample; i++) {
		const PbSample *sm = pb->sample[i];
		unsigned long vcpu = 0;
		enum up_vcpu_activity act = UP_VCPU_UNKNOWN;
		enum up_trunc trunc = UP_TRUNC_NONE;
		size_t nloc = sm->n_location_id, depth;
		bool dropped = false, unseen = false, deep = false;
		int64_t v;
		int rc;

		if (p->value_idx >= sm->n_value)
			return bad(p->what, "a sample without a value for each sample type");
		v = sm->value[p->value_idx];
		if (v < 0)
			return bad(p->what, "a negative sample count");
		for (size_t j = 0; j < sm->n_label; j++) {
			const char *val = pstr(p, sm->label[j]->str);
			int64_t k = sm->label[j]->key;

			if (!val)
				continue;
			if (k == p->k_vcpu && p->k_vcpu >= 0) {
				char *end;

				errno = 0;
				vcpu = strtoul(val, &end, 10);
				if (*end || errno || !*val || vcpu >= MAX_VCPUS)
					return bad(p->what, "a vcpu label that is not a vCPU number (0-4095)");
			} else if (k == p->k_state && p->k_state >= 0) {
				act = strcmp(val, "idle") == 0 ? UP_VCPU_BLOCKED :
				      strcmp(val, "busy") == 0 ? UP_VCPU_BUSY :
				      UP_VCPU_UNKNOWN;
			} else if (k == p->k_trunc && p->k_trunc >= 0) {
				trunc = up_trunc_from_name(val);
				if (trunc == UP_TRUNC_NONE)
					trunc = UP_TRUNC_UNRECORDED;
			}
		}
		/* Our pseudo-frames at the root: not frames of the guest. */
		if (nloc == 1) {
			const PbLocation *l = location(p, sm->location_id[0]);

			unseen = l && is_pseudo(p, l, UP_PROFILE_UNSEEN_NAME);
			dropped = unseen ||
				  (l && is_pseudo(p, l, UP_PROFILE_DROPPED_NAME));
		}
		if (!dropped && trunc != UP_TRUNC_NONE && nloc) {
			const PbLocation *l = location(p, sm->location_id[nloc - 1]);

			if (l && is_pseudo(p, l, "[truncated]"))
				nloc--;
		}
		if (dropped) {
			depth = 0;
		} else {
			rc = sample_frames(s, p, sm, nloc, &depth, &deep);
			if (rc < 0)
				return rc;
			if (deep)
				trunc = UP_TRUNC_DEPTH;
			if (depth == 0)
				continue;       /* nothing to attribute it to */
		}
		rc = add_frames_stack(s, p->what, (unsigned)vcpu, act, trunc,
				      dropped, unseen, depth, (uint64_t)v);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int add_comment(struct up_stored *s, const char *c)
{
	if (grow_array(&s->comments, &s->comments_cap, s->nr_comments + 1,
		       sizeof(*s->comments), 16) < 0 ||
	    !(s->comments[s->nr_comments] = strdup(c)))
		return up_fail(UP_ENOMEM, "out of memory");
	s->nr_comments++;
	return 0;
}

static int load_header(struct up_stored *s, const struct pp *p)
{
	const PbProfile *pb = p->pb;
	const char *ns = pb->period_type ? pstr(p, pb->period_type->unit) : NULL;

	if (pb->period > 0 && ns && strcmp(ns, "nanoseconds") == 0 && !s->hz)
		s->hz = 1e9 / (double)pb->period;
	if (!s->time_nanos)
		s->time_nanos = pb->time_nanos;
	s->duration_nanos += pb->duration_nanos > 0 ? pb->duration_nanos : 0;
	for (size_t i = 0; i < pb->n_mapping && !s->kernel; i++) {
		const char *f = pstr(p, pb->mapping[i]->filename);
		const char *b = pstr(p, pb->mapping[i]->build_id);

		if (f && *f && !(s->kernel = strdup(f)))
			return up_fail(UP_ENOMEM, "out of memory");
		if (b && *b && !s->build_id && !(s->build_id = strdup(b)))
			return up_fail(UP_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < pb->n_comment; i++) {
		const char *c = pstr(p, pb->comment[i]);

		if (c && add_comment(s, c) < 0)
			return UP_ENOMEM;
	}
	return 0;
}

/* Whether one pprof can keep its addresses: no inlined lines (a location
 * that stands for several frames), and addresses at all. */
static bool addresses_consistent(const struct pp *p)
{
	const PbProfile *pb = p->pb;

	for (size_t i = 0; i < pb->n_location; i++) {
		const PbLocation *l = pb->location[i];

		if (l->n_line > 1)
			return false;
		/* Names without addresses (written from folded stacks), but
		 * for our own pseudo-frames. */
		if (l->n_line == 1 && l->address == 0 && l->mapping_id == 0 &&
		    !is_pseudo(p, l, "[truncated]") &&
		    !is_pseudo(p, l, UP_PROFILE_DROPPED_NAME) &&
		    !is_pseudo(p, l, UP_PROFILE_UNSEEN_NAME))
			return false;
	}
	return true;
}

static int load_pprof(struct up_stored *s, const uint8_t *d, size_t n,
		      const char *what, bool decide_mode)
{
	struct budget b = { 0 };
	ProtobufCAllocator alloc = { budget_alloc, budget_free, &b };
	struct pp p = { .what = what };
	PbProfile *pb;
	int rc;

	pb = perftools__profiles__profile__unpack(&alloc, n, d);
	if (!pb)
		return bad(what, b.used + 4096 > DECODE_BUDGET ?
			   "a pprof profile too large to decode (over 512 MiB in memory)" :
			   "not a profile: neither pprof (gzip'ed protobuf) nor folded stacks");
	p.pb = pb;
	rc = index_pprof(&p);
	if (rc == 0 && decide_mode)
		s->by_name = !addresses_consistent(&p);
	if (rc == 0)
		rc = load_header(s, &p);
	if (rc == 0)
		rc = load_samples(s, &p);
	free(p.loc_ids);
	free(p.loc_idx);
	perftools__profiles__profile__free_unpacked(pb, &alloc);
	return rc;
}

/* --- the whole ------------------------------------------------------------ */

static int build_symtab(struct up_stored *s)
{
	struct up_symtab *t = symtab_alloc(UP_SYMTAB_NM);
	int rc = 0;

	if (!t)
		return up_fail(UP_ENOMEM, "out of memory");
	if (s->by_name) {
		for (size_t i = 0; rc == 0 && i < strmap_count(s->names_by_id); i++)
			rc = symtab_add(t, (i + 1) * 16, 16,
					strmap_key(s->names_by_id, i), 0);
	} else {
		for (size_t i = 0; rc == 0 && i < strmap_count(s->points); i++)
			rc = symtab_add(t, strtoull(strmap_key(s->points, i), NULL, 16), 1,
					strmap_key(s->names_by_id, (size_t)s->point_name[i]), 0);
	}
	if (rc == 0 && s->build_id && !(t->build_id = strdup(s->build_id)))
		rc = up_fail(UP_ENOMEM, "out of memory");
	if (rc == 0)
		rc = symtab_finish(t);
	if (rc < 0) {
		up_symtab_free(t);
		return rc;
	}
	s->symtab = t;
	return 0;
}

static int stored_new(struct up_stored **out)
{
	struct up_stored *s = calloc(1, sizeof(*s));

	if (!s || strmap_new(&s->names_by_id) < 0 || strmap_new(&s->points) < 0 ||
	    up_profile_new(&s->profile, MAX_VCPUS) < 0) {
		up_stored_free(s);
		return up_fail(UP_ENOMEM, "out of memory");
	}
	*out = s;
	return 0;
}

static int load_one(struct up_stored *s, uint8_t *d, size_t n, const char *what,
		    size_t nr_files, const struct up_symtab *resym, bool first)
{
	bool folded = looks_folded(d, n);

	if (n == 0)
		return bad(what, "empty: not a profile");
	if (first) {
		s->resym = resym != NULL;
		s->format = folded ? UP_STORED_FOLDED : UP_STORED_PPROF;
		/* One pprof keeps its addresses unless it inlines (load_pprof
		 * decides, having decoded it). */
		s->by_name = !resym && (folded || nr_files > 1);
	}
	if (folded) {
		if (resym)
			return bad(what, "folded stacks hold names, not addresses: --symbols needs a pprof profile");
		if (!s->by_name)
			return bad(what, "folded stacks cannot be merged by address");
		return load_folded(s, (char *)d, n, what);
	}
	return load_pprof(s, d, n, what, first && nr_files == 1 && !resym);
}

static int finish(struct up_stored *s, const struct up_symtab *resym)
{
	const char *v = up_stored_comment(s, "vcpus");
	unsigned n = s->max_vcpu_seen + 1;
	int rc;

	if (v) {
		unsigned long said = strtoul(v, NULL, 10);

		if (said > n && said <= MAX_VCPUS)
			n = (unsigned)said;
	}
	rc = profile_set_nr_vcpus(s->profile, n);
	if (rc == 0 && !resym)
		rc = build_symtab(s);
	s->names = resym ? resym : s->symtab;
	strmap_free(s->points);
	s->points = NULL;
	free(s->point_name);
	s->point_name = NULL;
	free(s->frames);
	s->frames = NULL;
	return rc;
}

/* After the last file: the profile finished, or everything freed. */
static int done(struct up_stored *s, int rc, const struct up_symtab *resym,
		struct up_stored **out)
{
	if (rc == 0)
		rc = finish(s, resym);
	if (rc < 0) {
		up_stored_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

int up_stored_load_mem(struct up_stored **out, const void *buf, size_t len,
		       const char *what, const struct up_symtab *resymbolize)
{
	struct up_stored *s;
	uint8_t *copy;
	int rc = stored_new(&s);

	if (rc < 0)
		return rc;
	copy = malloc(len + 1);        /* the folded parser writes into it */
	if (!copy) {
		up_stored_free(s);
		return up_fail(UP_ENOMEM, "out of memory");
	}
	if (len)
		memcpy(copy, buf, len);
	copy[len] = '\0';
	rc = load_one(s, copy, len, what, 1, resymbolize, true);
	free(copy);
	return done(s, rc, resymbolize, out);
}

int up_stored_load(struct up_stored **out, const char *const *paths,
		   size_t n, const struct up_symtab *resymbolize)
{
	struct up_stored *s = NULL;
	int rc;

	if (n == 0)
		return up_fail(UP_EINVAL, "no profile to read");
	rc = stored_new(&s);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		uint8_t *d = NULL, *z;
		size_t len = 0;

		rc = file_read(paths[i], &profile_caps, &d, &len);
		if (rc < 0)
			break;
		z = realloc(d, len + 1);     /* NUL-terminated for the parser */
		if (!z) {
			free(d);
			rc = up_fail(UP_ENOMEM, "out of memory");
			break;
		}
		z[len] = '\0';
		rc = load_one(s, z, len, paths[i], n, resymbolize, i == 0);
		free(z);
	}
	return done(s, rc, resymbolize, out);
}

void up_stored_free(struct up_stored *s)
{
	if (!s)
		return;
	up_profile_free(s->profile);
	up_symtab_free(s->symtab);
	strmap_free(s->names_by_id);
	strmap_free(s->points);
	free(s->point_name);
	free(s->frames);
	free(s->kernel);
	free(s->build_id);
	for (size_t i = 0; i < s->nr_comments; i++)
		free(s->comments[i]);
	free(s->comments);
	free(s);
}

const struct up_profile *up_stored_profile(const struct up_stored *s) { return s->profile; }
const struct up_symtab *up_stored_symtab(const struct up_stored *s) { return s->names; }
enum up_stored_format up_stored_format_of(const struct up_stored *s) { return s->format; }
double up_stored_hz(const struct up_stored *s) { return s->hz; }
int64_t up_stored_time_nanos(const struct up_stored *s) { return s->time_nanos; }
int64_t up_stored_duration_nanos(const struct up_stored *s) { return s->duration_nanos; }
const char *up_stored_kernel(const struct up_stored *s) { return s->kernel; }
const char *up_stored_build_id(const struct up_stored *s) { return s->build_id; }
size_t up_stored_nr_comments(const struct up_stored *s) { return s->nr_comments; }
bool up_stored_names_only(const struct up_stored *s) { return s->by_name; }

const char *up_stored_comment_line(const struct up_stored *s, size_t i)
{
	return i < s->nr_comments ? s->comments[i] : NULL;
}

const char *up_stored_comment(const struct up_stored *s, const char *key)
{
	size_t k = strlen(key);

	for (size_t i = 0; i < s->nr_comments; i++)
		if (strncmp(s->comments[i], key, k) == 0 &&
		    s->comments[i][k] == ':' && s->comments[i][k + 1] == ' ')
			return s->comments[i] + k + 2;
	return NULL;
}
