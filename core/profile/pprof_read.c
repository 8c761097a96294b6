/* Reading a pprof profile back: decoded by libprotobuf-c with the code
 * protoc-c made from our profile.proto, within a memory budget; every
 * index checked. Frames by address when the addresses are consistent,
 * else by name. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/error_impl.h"
#include "util/grow.h"
#include "util/strmap.h"
#include "pprof/profile.pb-c.h"
#include "profile/stored_impl.h"
#include "uniprof/symbols.h"
#include "private.h"

typedef Perftools__Profiles__Profile PbProfile;
typedef Perftools__Profiles__Sample PbSample;
typedef Perftools__Profiles__Label PbLabel;
typedef Perftools__Profiles__Location PbLocation;
typedef Perftools__Profiles__Function PbFunction;
typedef Perftools__Profiles__Mapping PbMapping;

#define DECODE_BUDGET (512ULL << 20)   /* what decoding may allocate */

/* --- pprof --------------------------------------------------------------- */

/* protobuf-c allocates through this: a hostile file cannot make decoding
 * take more than DECODE_BUDGET (a packed varint of one byte becomes eight). */
struct budget {
	uint64_t used;
	bool refused;           /* an allocation went past the budget */
};

static void *budget_alloc(void *data, size_t size)
{
	struct budget *b = data;
	size_t *p;

	if (size > DECODE_BUDGET || b->used + size > DECODE_BUDGET) {
		b->refused = true;
		return NULL;
	}
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

/* An id and the index of what has it: sorted by (id, index), an array of
 * these finds an id by binary search, the first in the file if repeated
 * (a scan per frame would make a file of n functions cost n squared). */
struct id_at {
	uint64_t id;
	size_t at;
};

#define NOT_FOUND SIZE_MAX

struct pp {
	const PbProfile *pb;
	const char *what;
	struct id_at *locs, *funcs, *maps;      /* sorted */
	/* Per function, its name's index in names_by_id + 1 (0: not yet
	 * interned, -1: none): a long name hashed once, not per frame. */
	long *fn_name;
	/* By name, per location: where its frames are in loc_frames
	 * (NOT_FOUND: not made yet), made once however many samples name it. */
	size_t *loc_first;
	uint64_t *loc_frames;
	size_t loc_frames_len, loc_frames_cap;
	size_t frames_left;     /* of stored_limits.frames */
	uint64_t over_frames;   /* stacks past it, counted [dropped] */
	size_t value_idx;
	long k_vcpu, k_state, k_trunc, k_time, k_elapsed, k_credited;
	long u_ns;              /* "nanoseconds" */
	uint64_t max_t_ns;      /* a sample time past this is not kept */
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

static int id_at_cmp(const void *a, const void *b)
{
	const struct id_at *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

static size_t id_find(const struct id_at *v, size_t n, uint64_t id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].id == id ? v[lo].at : NOT_FOUND;
}

static size_t location_idx(const struct pp *p, uint64_t id)
{
	return id_find(p->locs, p->pb->n_location, id);
}

static const PbLocation *location(const struct pp *p, uint64_t id)
{
	size_t i = location_idx(p, id);

	return i == NOT_FOUND ? NULL : p->pb->location[i];
}

static const PbMapping *mapping_of(const struct pp *p, uint64_t id)
{
	size_t i = id ? id_find(p->maps, p->pb->n_mapping, id) : NOT_FOUND;

	return i == NOT_FOUND ? NULL : p->pb->mapping[i];
}

static const PbFunction *function_of(const struct pp *p, uint64_t id)
{
	size_t i = id_find(p->funcs, p->pb->n_function, id);

	return i == NOT_FOUND ? NULL : p->pb->function[i];
}

static const char *function_name(const struct pp *p, uint64_t id)
{
	const PbFunction *f = function_of(p, id);

	return f ? pstr(p, f->name) : NULL;
}

/* *out: the index in names_by_id of function ID's name, -1 when it has
 * none (no such function, no name, an empty one). */
static int function_name_id(struct up_stored *s, const struct pp *p,
			    uint64_t id, long *out)
{
	size_t i = id_find(p->funcs, p->pb->n_function, id);
	const char *n;
	long k;

	*out = -1;
	if (i == NOT_FOUND)
		return 0;
	if (p->fn_name[i]) {
		*out = p->fn_name[i] < 0 ? -1 : p->fn_name[i] - 1;
		return 0;
	}
	n = pstr(p, p->pb->function[i]->name);
	if (!n || !*n) {
		p->fn_name[i] = -1;
		return 0;
	}
	k = strmap_intern(s->names_by_id, n);
	if (k < 0)
		return up_fail(UP_ENOMEM, "out of memory");
	p->fn_name[i] = k + 1;
	*out = k;
	return 0;
}

/* A location's lines as source frames (innermost first), for a profile
 * read by address: the symbol table gives them again, so its inlined
 * calls and lines show as the live run showed them. */
static int location_source(struct up_stored *s, const struct pp *p,
			   const PbLocation *l, bool is_return)
{
	struct up_src_frame f[UP_SRC_MAX_FRAMES];
	size_t n = 0;

	for (size_t j = 0; j < l->n_line && n < UP_SRC_MAX_FRAMES; j++) {
		/* Too deep: the innermost calls, and last the function. */
		size_t k = n + 1 == UP_SRC_MAX_FRAMES ? l->n_line - 1 : j;
		const PbFunction *fn = function_of(p, l->line[k]->function_id);
		const char *file = fn ? pstr(p, fn->filename) : NULL;

		if (file && !*file)
			file = NULL;
		f[n++] = (struct up_src_frame){
			.function = fn ? pstr(p, fn->name) : NULL,
			.file = file,
			.line = l->line[k]->line > 0 && l->line[k]->line <= UINT32_MAX ?
				(unsigned)l->line[k]->line : 0,
			.decl_file = file,
			.decl_line = fn && fn->start_line > 0 && fn->start_line <= UINT32_MAX ?
				(unsigned)fn->start_line : 0,
			.inlined = k + 1 < l->n_line,
		};
	}
	/* Only when there is more than a name to give. */
	if (n < 2 && (n == 0 || (!f[0].file && !f[0].line)))
		return 0;
	return stored_point_source(s, l->address, is_return, f, n);
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

	p->locs = malloc((pb->n_location + 1) * sizeof(*p->locs));
	p->loc_first = malloc((pb->n_location + 1) * sizeof(*p->loc_first));
	p->funcs = malloc((pb->n_function + 1) * sizeof(*p->funcs));
	p->fn_name = calloc(pb->n_function + 1, sizeof(*p->fn_name));
	p->maps = malloc((pb->n_mapping + 1) * sizeof(*p->maps));
	if (!p->locs || !p->loc_first || !p->funcs || !p->fn_name || !p->maps)
		return up_fail(UP_ENOMEM, "out of memory");
	for (size_t i = 0; i < pb->n_mapping; i++)
		p->maps[i] = (struct id_at){ pb->mapping[i]->id, i };
	qsort(p->maps, pb->n_mapping, sizeof(*p->maps), id_at_cmp);
	for (size_t i = 0; i < pb->n_location; i++) {
		p->locs[i] = (struct id_at){ pb->location[i]->id, i };
		p->loc_first[i] = NOT_FOUND;
	}
	qsort(p->locs, pb->n_location, sizeof(*p->locs), id_at_cmp);
	for (size_t i = 0; i < pb->n_function; i++)
		p->funcs[i] = (struct id_at){ pb->function[i]->id, i };
	qsort(p->funcs, pb->n_function, sizeof(*p->funcs), id_at_cmp);
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
		return stored_bad(p->what, "a pprof profile without sample types");
	p->k_vcpu = find_str(pb, "vcpu");
	p->k_state = find_str(pb, "state");
	p->k_trunc = find_str(pb, "truncated");
	p->k_time = find_str(pb, "time_ns");
	p->k_elapsed = find_str(pb, "elapsed");
	p->k_credited = find_str(pb, "credited");
	p->u_ns = find_str(pb, "nanoseconds");
	return 0;
}

/* By name: location LI's frames, at most MAX_DEPTH, made once (names
 * interned once, inlined lines named " (inlined)" as the writers name
 * them) however many samples name the location. */
static int location_frames(struct up_stored *s, struct pp *p, size_t li,
			   const uint64_t **out)
{
	const PbLocation *l = p->pb->location[li];
	size_t lines = l->n_line > 1 ? l->n_line : 1;
	size_t n = lines < MAX_DEPTH ? lines : MAX_DEPTH, first = p->loc_frames_len;
	char unknown[24], inl[1024];

	if (p->loc_first[li] != NOT_FOUND) {
		*out = p->loc_frames + p->loc_first[li];
		return 0;
	}
	if (grow_array(&p->loc_frames, &p->loc_frames_cap, first + n,
		       sizeof(*p->loc_frames), 256) < 0)
		return UP_ENOMEM;
	for (size_t j = 0; j < n; j++) {
		uint64_t *f = &p->loc_frames[first + j];
		long id = -1;
		int rc = 0;

		if (l->n_line)
			rc = function_name_id(s, p, l->line[j]->function_id, &id);
		if (rc < 0)
			return rc;
		if (id < 0) {
			snprintf(unknown, sizeof(unknown), "0x%" PRIx64, l->address);
			rc = stored_name_frame(s, unknown, f);
		} else if (j + 1 < lines) {
			/* Inlined into the next line's function. */
			snprintf(inl, sizeof(inl), "%.*s (inlined)",
				 (int)(sizeof(inl) - 16),
				 strmap_key(s->names_by_id, (size_t)id));
			rc = stored_name_frame(s, inl, f);
		} else {
			*f = stored_frame_of_name(id);
		}
		if (rc < 0)
			return rc;
	}
	p->loc_frames_len += n;
	p->loc_first[li] = first;
	*out = p->loc_frames + first;
	return 0;
}

/* By address: the name the live run gave the frame at DEPTH (the
 * function holding the code, its last line: the ones before were inlined
 * into it), and its lines, for the symbol table. */
static int address_frame(struct up_stored *s, struct pp *p,
			 const PbLocation *l, size_t depth)
{
	long id;
	int rc;

	s->frames[depth] = l->address;
	if (s->resym || !l->n_line)
		return 0;
	rc = function_name_id(s, p, l->line[l->n_line - 1]->function_id, &id);
	if (rc < 0 || id < 0)
		return rc;
	rc = stored_point_name(s, l->address, depth > 0, id);
	if (rc == 1)            /* a new address */
		rc = location_source(s, p, l, depth > 0);
	return rc < 0 ? rc : 0;
}

/* Frames of a sample, leaf first; inlined functions (ours, and foreign
 * profiles') become frames of their own when going by name. 1 when the
 * file's frames would go past stored_limits.frames: a location of many
 * lines, named by every sample, must not make the work of all of them. */
static int sample_frames(struct up_stored *s, struct pp *p,
			 const PbSample *sm, size_t nloc, size_t *depth,
			 bool *deep)
{
	*depth = 0;
	for (size_t i = 0; i < nloc; i++) {
		size_t li = location_idx(p, sm->location_id[i]);
		const PbLocation *l;
		size_t lines, n;
		int rc;

		if (li == NOT_FOUND)
			return stored_bad(p->what, "a sample names a location that is not in the profile");
		l = p->pb->location[li];
		lines = s->by_name && l->n_line > 1 ? l->n_line : 1;
		n = lines < MAX_DEPTH - *depth ? lines : MAX_DEPTH - *depth;
		if (n == 0) {
			*deep = true;
			return 0;
		}
		if (n > p->frames_left)
			return 1;
		p->frames_left -= n;
		if (grow_array(&s->frames, &s->frames_cap, *depth + n,
			       sizeof(*s->frames), 64) < 0)
			return UP_ENOMEM;
		if (s->by_name) {
			const uint64_t *f;

			rc = location_frames(s, p, li, &f);
			if (rc == 0)
				memcpy(s->frames + *depth, f, n * sizeof(*f));
		} else {
			rc = address_frame(s, p, l, *depth);
		}
		if (rc < 0)
			return rc;
		*depth += n;
		if (n < lines) {
			*deep = true;
			return 0;
		}
	}
	return 0;
}

/* When a sample was taken, as time since the (merged) run's start:
 * label elapsed (ns since this file's time_nanos, ours) or time_ns (ns
 * since 1970, older uniprof), put on the merged clock by this file's
 * start. One before the file's start, past the bound on times, or of a
 * merged file without a start is not kept. t_ns: what an earlier label
 * said. */
static uint64_t label_time(const struct up_stored *s, const struct pp *p,
			   const PbLabel *lb, uint64_t t_ns)
{
	int64_t t = lb->num;
	uint64_t shift = 0;     /* the file's start past the run's */

	if (s->file_start > 0 && s->file_start >= s->time_nanos)
		shift = (uint64_t)s->file_start - (uint64_t)s->time_nanos;
	else if (s->merging || lb->key == p->k_time)
		return t_ns;
	if (t < 0)
		return t_ns;
	if (lb->key == p->k_elapsed) {
		if (lb->num_unit && lb->num_unit != p->u_ns)
			return t_ns;
		if ((uint64_t)t <= p->max_t_ns)
			return (uint64_t)t + shift;
	} else if (t >= s->file_start &&
		   (uint64_t)t - (uint64_t)s->file_start <= p->max_t_ns) {
		return (uint64_t)t - (uint64_t)s->file_start + shift;
	}
	return t_ns;
}

/* The vCPU: a number (ours) or digits (older uniprof). */
static int label_vcpu(const struct pp *p, const PbLabel *lb, const char *val,
		      unsigned long *vcpu)
{
	char *end;

	if (!val) {
		if (lb->num < 0 || lb->num >= MAX_VCPUS)
			return stored_bad(p->what, "a vcpu label that is not a vCPU number (0-4095)");
		*vcpu = (unsigned long)lb->num;
		return 0;
	}
	errno = 0;
	*vcpu = strtoul(val, &end, 10);
	if (*end || errno || !*val || *vcpu >= MAX_VCPUS)
		return stored_bad(p->what, "a vcpu label that is not a vCPU number (0-4095)");
	return 0;
}

static int load_samples(struct up_stored *s, struct pp *p)
{
	const PbProfile *pb = p->pb;

	for (size_t i = 0; i < pb->n_sample; i++) {
		const PbSample *sm = pb->sample[i];
		unsigned long vcpu = 0;
		enum up_vcpu_activity act = UP_VCPU_UNKNOWN;
		enum up_trunc trunc = UP_TRUNC_NONE;
		size_t nloc = sm->n_location_id, depth;
		bool dropped = false, unseen = false, deep = false, credited = false;
		uint64_t t_ns = UP_PROFILE_NO_TIME;
		int64_t v;
		int rc;

		if (p->value_idx >= sm->n_value)
			return stored_bad(p->what, "a sample without a value for each sample type");
		v = sm->value[p->value_idx];
		if (v < 0)
			return stored_bad(p->what, "a negative sample count");
		for (size_t j = 0; j < sm->n_label; j++) {
			const PbLabel *lb = sm->label[j];
			const char *val = lb->str ? pstr(p, lb->str) : NULL;
			int64_t k = lb->key;

			if (k < 0)
				continue;
			if (k == p->k_elapsed || k == p->k_time) {
				t_ns = label_time(s, p, lb, t_ns);
			} else if (k == p->k_credited) {
				credited = val && strcmp(val, "missed") == 0;
			} else if (k == p->k_vcpu) {
				rc = label_vcpu(p, lb, val, &vcpu);
				if (rc < 0)
					return rc;
			} else if (!val) {
				continue;
			} else if (k == p->k_state) {
				act = strcmp(val, "idle") == 0 ? UP_VCPU_BLOCKED :
				      strcmp(val, "busy") == 0 ? UP_VCPU_BUSY :
				      strcmp(val, "waiting") == 0 ? UP_VCPU_WAITING :
				      UP_VCPU_UNKNOWN;
			} else if (k == p->k_trunc) {
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
			if (rc == 1) {          /* past the frame bound */
				p->over_frames++;
				dropped = true;
				depth = 0;
			} else if (deep) {
				trunc = UP_TRUNC_DEPTH;
			}
			if (depth == 0 && !dropped)
				continue;       /* nothing to attribute it to */
		}
		rc = stored_add_stack(s, p->what, (unsigned)vcpu, act, trunc,
				      dropped, unseen, depth, (uint64_t)v,
				      unseen ? UP_PROFILE_NO_TIME : t_ns,
				      credited && !unseen);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int load_header(struct up_stored *s, const struct pp *p)
{
	const PbProfile *pb = p->pb;
	const char *ns = pb->period_type ? pstr(p, pb->period_type->unit) : NULL;

	s->file_hz = pb->period > 0 && ns && strcmp(ns, "nanoseconds") == 0 ?
		     1e9 / (double)pb->period : 0;
	if (!s->clock_set) {
		s->file_start = s->time_nanos = pb->time_nanos > 0 ? pb->time_nanos : 0;
		s->duration_nanos = pb->duration_nanos > 0 ? pb->duration_nanos : 0;
	}
	for (size_t i = 0; i < pb->n_mapping; i++) {
		const PbMapping *pm = pb->mapping[i];
		const struct up_pprof_mapping m = {
			pm->memory_start, pm->memory_limit, pm->file_offset,
			pstr(p, pm->filename), pstr(p, pm->build_id),
		};
		int rc = stored_add_mapping(s, p->what, &m);

		if (rc < 0)
			return rc;
		if (s->kernel)
			continue;
		if (m.file && *m.file && !(s->kernel = strdup(m.file)))
			return up_fail(UP_ENOMEM, "out of memory");
		if (m.build_id && *m.build_id && !s->build_id &&
		    !(s->build_id = strdup(m.build_id)))
			return up_fail(UP_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < pb->n_comment; i++) {
		const char *c = pstr(p, pb->comment[i]);

		if (c && stored_add_comment(s, c) < 0)
			return UP_ENOMEM;
	}
	return 0;
}

static int map_at_cmp(const void *a, const void *b)
{
	const PbMapping *x = *(const PbMapping *const *)a;
	const PbMapping *y = *(const PbMapping *const *)b;

	return x->memory_start < y->memory_start ? -1 :
	       x->memory_start > y->memory_start;
}

/* The mappings holding code (limit past start), by start, in *out (freed
 * by the caller); false when two overlap: an address would not say which
 * mapping its location is in. */
static bool mappings_by_start(const PbProfile *pb, const PbMapping ***out,
			      size_t *n)
{
	const PbMapping **v = malloc((pb->n_mapping + 1) * sizeof(*v));

	*out = v;
	*n = 0;
	if (!v)
		return false;
	for (size_t i = 0; i < pb->n_mapping; i++)
		if (pb->mapping[i]->memory_limit > pb->mapping[i]->memory_start)
			v[(*n)++] = pb->mapping[i];
	qsort(v, *n, sizeof(*v), map_at_cmp);
	for (size_t i = 1; i < *n; i++)
		if (v[i]->memory_start < v[i - 1]->memory_limit)
			return false;
	return true;
}

/* The mapping (of those by start, disjoint) that holds addr, or NULL. */
static const PbMapping *mapping_holding(const PbMapping *const *v, size_t n,
					uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid]->memory_start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr < v[lo - 1]->memory_limit ? v[lo - 1] : NULL;
}

/* Whether a location's mapping is the one that holds its address, as the
 * writer will say again from the address alone: a rewrite by address
 * keeps every location in the mapping it was in. */
static bool location_mapped(const struct pp *p, const PbLocation *l,
			    const PbMapping *const *v, size_t n)
{
	const PbMapping *holder = mapping_holding(v, n, l->address);

	if (!l->mapping_id)
		return holder == NULL;
	return holder && holder == mapping_of(p, l->mapping_id);
}

/* Whether one pprof can keep its addresses: addresses at all, each in the
 * mapping that holds it (mappings that do not overlap), and inlined lines
 * (a location that stands for several frames) only at an address. */
static bool addresses_consistent(const struct pp *p)
{
	const PbProfile *pb = p->pb;
	const PbMapping **maps;
	size_t nmaps;
	bool ok = mappings_by_start(pb, &maps, &nmaps);

	for (size_t i = 0; ok && i < pb->n_location; i++) {
		const PbLocation *l = pb->location[i];
		bool pseudo = is_pseudo(p, l, "[truncated]") ||
			      is_pseudo(p, l, UP_PROFILE_DROPPED_NAME) ||
			      is_pseudo(p, l, UP_PROFILE_UNSEEN_NAME);

		if (l->n_line > 1 && l->address == 0)
			ok = false;
		/* Names without addresses (written from folded stacks), but
		 * for our own pseudo-frames. */
		else if (l->n_line == 1 && l->address == 0 && l->mapping_id == 0 &&
			 !pseudo)
			ok = false;
		else if (!pseudo && !location_mapped(p, l, maps, nmaps))
			ok = false;
	}
	free(maps);
	return ok;
}

/* One varint at *at (at most 10 bytes, within n); false past the end. */
static bool varint(const uint8_t *d, size_t n, size_t *at, uint64_t *v)
{
	*v = 0;
	for (unsigned shift = 0; shift < 64 && *at < n; shift += 7) {
		uint8_t b = d[(*at)++];

		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

void stored_pprof_clock(const uint8_t *d, size_t n, int64_t *start,
			int64_t *duration)
{
	size_t at = 0;
	uint64_t key, v;

	*start = *duration = 0;
	/* Each field moves at past a byte at least: linear in n. */
	while (at < n) {
		bool ok = varint(d, n, &at, &key);

		if (ok && (key & 7) == 0) {             /* a varint */
			ok = varint(d, n, &at, &v);
			if (key >> 3 == 9)
				*start = (int64_t)v;
			else if (key >> 3 == 10)
				*duration = (int64_t)v;
			v = 0;
		} else if (ok && (key & 7) == 2) {      /* length, bytes */
			ok = varint(d, n, &at, &v);
		} else {                                /* 64 or 32 bits */
			ok = ok && ((key & 7) == 1 || (key & 7) == 5);
			v = (key & 7) == 1 ? 8 : 4;
		}
		if (!ok || v > n - at) {
			*start = *duration = 0;         /* not a profile */
			return;
		}
		at += (size_t)v;
	}
}

int stored_load_pprof(struct up_stored *s, const uint8_t *d, size_t n,
		      const char *what, bool decide_mode)
{
	struct budget b = { 0 };
	ProtobufCAllocator alloc = { budget_alloc, budget_free, &b };
	struct pp p = { .what = what, .frames_left = stored_limits.frames };
	PbProfile *pb;
	int rc;

	pb = perftools__profiles__profile__unpack(&alloc, n, d);
	if (!pb)
		return stored_bad(what, b.refused ?
			   "a pprof profile too large to decode (over 512 MiB in memory)" :
			   "not a profile: neither pprof (gzip'ed protobuf) nor folded stacks");
	p.pb = pb;
	rc = index_pprof(&p);
	if (rc == 0 && decide_mode)
		s->by_name = !addresses_consistent(&p);
	if (rc == 0)
		rc = load_header(s, &p);
	/* Times within the run (a minute's slack), or a week without a
	 * duration: a hostile time would make a heat map of 1e8 columns. */
	p.max_t_ns = pb->duration_nanos > 0 ?
		     (uint64_t)pb->duration_nanos + 60000000000ULL :
		     STORED_MAX_SPAN_NS;
	if (rc == 0)
		rc = load_samples(s, &p);
	if (rc == 0 && p.over_frames)
		stored_warn(s, "%s: %" PRIu64 " stacks past %zu frames (inlined lines make a frame each): counted as [dropped]",
			    what, p.over_frames, stored_limits.frames);
	free(p.locs);
	free(p.loc_first);
	free(p.funcs);
	free(p.maps);
	free(p.fn_name);
	free(p.loc_frames);
	perftools__profiles__profile__free_unpacked(pb, &alloc);
	return rc;
}
