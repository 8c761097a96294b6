/* Reading stored profiles back: the file read whole (bounded, gunzipped
 * by zlib), its format told by its contents (folded_read.c or
 * pprof/read.c), several files merged. The result is an ordinary profile
 * plus a symbol table that names its frames as the live run named them,
 * so the same writers render it. Files are untrusted: every index is
 * checked, decoding has a memory budget, stacks and vCPUs are bounded. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/error_impl.h"
#include "util/file_read.h"
#include "util/strmap.h"
#include "profile/profile_impl.h"
#include "profile/stored_impl.h"
#include "symbols/srcinfo.h"
#include "symbols/table_impl.h"

static const struct file_read_caps profile_caps = {
	.noun = "profile", .max = UP_STORED_MAX_BYTES, .gzip_ratio = 64,
	.gzip_min = UP_STORED_MAX_BYTES,
};

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
	/* The lines and inlined calls the file gave its addresses. */
	if (!s->by_name) {
		t->src = s->src;
		s->src = NULL;
	}
	s->symtab = t;
	return 0;
}

static int stored_new(struct up_stored **out)
{
	struct up_stored *s = calloc(1, sizeof(*s));

	if (!s || strmap_new(&s->names_by_id) < 0 || strmap_new(&s->points) < 0 ||
	    strmap_new(&s->map_strings) < 0 || strmap_new(&s->map_keys) < 0 ||
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
	bool folded = stored_looks_folded(d, n);

	if (n == 0)
		return stored_bad(what, "empty: not a profile");
	if (first) {
		s->resym = resym != NULL;
		s->format = folded ? UP_STORED_FOLDED : UP_STORED_PPROF;
		/* One pprof keeps its addresses unless it inlines (load_pprof
		 * decides, having decoded it). */
		s->by_name = !resym && (folded || nr_files > 1);
	}
	if (folded) {
		if (resym)
			return stored_bad(what, "folded stacks hold names, not addresses: --symbols needs a pprof profile");
		if (!s->by_name)
			return stored_bad(what, "folded stacks cannot be merged by address");
		return stored_load_folded(s, (char *)d, n, what);
	}
	return stored_load_pprof(s, d, n, what, first && nr_files == 1 && !resym);
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
	if (s->comments_left_out)
		stored_warn(s, "%zu comment lines left out (past %zu lines or %zu KiB of comments)",
			    s->comments_left_out, stored_limits.comment_lines,
			    stored_limits.comment_bytes >> 10);
	if (s->comments_cut)
		stored_warn(s, "%zu comment lines cut at %d bytes", s->comments_cut,
			    COMMENT_LINE_MAX);
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

/* Several files merged by address: each address must lie in one build's
 * code only. Two mappings of different files that overlap (identical ones
 * are one already) are other builds at the same addresses, whose frames
 * the one symbol table would name wrong: refused, naming both files. At
 * most UP_STORED_MAX_MAPPINGS squared over two comparisons. */
static int mappings_disjoint(const struct up_stored *s, const char *const *paths)
{
	for (size_t i = 0; i < s->nr_maps; i++) {
		const struct up_pprof_mapping *a = &s->maps[i];

		for (size_t j = i + 1; a->limit > a->start && j < s->nr_maps; j++) {
			const struct up_pprof_mapping *b = &s->maps[j];

			if (s->map_from[i] == s->map_from[j] || b->limit <= b->start ||
			    a->start >= b->limit || b->start >= a->limit)
				continue;
			return up_fail(UP_EINVAL, "%s and %s hold different code at the same addresses (build-id %s at %#" PRIx64 "-%#" PRIx64 ", %s at %#" PRIx64 "-%#" PRIx64 "): they cannot be merged by address (--symbols); merge them by name, without it",
				       paths[s->map_from[i]], paths[s->map_from[j]],
				       a->build_id ? a->build_id : "none", a->start, a->limit,
				       b->build_id ? b->build_id : "none", b->start, b->limit);
		}
	}
	return 0;
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
		s->input = i;
		rc = load_one(s, z, len, paths[i], n, resymbolize, i == 0);
		free(z);
	}
	if (rc == 0 && !s->by_name && n > 1)
		rc = mappings_disjoint(s, paths);
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
	srcinfo_free(s->src);
	free(s->frames);
	free(s->kernel);
	free(s->build_id);
	free(s->maps);
	free(s->map_from);
	strmap_free(s->map_strings);
	strmap_free(s->map_keys);
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

const struct up_pprof_mapping *up_stored_mappings(const struct up_stored *s,
						  size_t *n)
{
	*n = s->nr_maps;
	return s->maps;
}
bool up_stored_names_only(const struct up_stored *s) { return s->by_name; }

const char *up_stored_warning(const struct up_stored *s)
{
	return s->warning[0] ? s->warning : NULL;
}

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
