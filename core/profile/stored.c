/* Reading stored profiles back: the file read whole (bounded, gunzipped
 * by zlib), its format told by its contents (folded_read.c or
 * pprof_read.c), several files merged. The result is an ordinary profile
 * plus a symbol table that names its frames as the live run named them,
 * so the same writers render it. Files are untrusted: every index is
 * checked, decoding has a memory budget, stacks and vCPUs are bounded. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error_impl.h"
#include "util/file_read.h"
#include "util/strmap.h"
#include "profile/profile_impl.h"
#include "profile/stored_impl.h"
#include "symbols/srcinfo.h"
#include "symbols/table_impl.h"
#include "private.h"

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
	if (s->vcpus_said > n && s->vcpus_said <= MAX_VCPUS)
		n = s->vcpus_said;      /* several files: the most any said */
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
	s->hz = s->file_hz;
	free(copy);
	return done(s, rc, resymbolize, out);
}

/* What merging needs of each input: its pprof header's start and
 * duration (0: none), its first comment line, its samples and how many
 * of them had a time. */
struct input {
	int64_t start, duration;
	size_t comment_first;
	uint64_t samples, timed;
};

/* Several files on one clock: each pprof's start (time_nanos) read first,
 * the earliest the merged run's start, the latest end its end; each
 * file's sample times then count from the earliest start. Starts further
 * apart than STORED_MAX_SPAN_NS are not one run's (or a file lies): every
 * sample is kept without a time, said in one line. Without starts the
 * durations add up, as of runs one after the other. */
static int merged_clock(struct up_stored *s, const char *const *paths,
			size_t n, struct input *in)
{
	size_t first = SIZE_MAX, last = SIZE_MAX;
	uint64_t sum = 0, end = 0;

	for (size_t i = 0; i < n; i++) {
		uint8_t *d = NULL;
		size_t len = 0;
		int rc = file_read(paths[i], &profile_caps, &d, &len);

		if (rc < 0)
			return rc;
		if (len && !stored_looks_folded(d, len))
			stored_pprof_clock(d, len, &in[i].start, &in[i].duration);
		free(d);
		if (in[i].start < 0)
			in[i].start = 0;
		if (in[i].duration < 0)
			in[i].duration = 0;
		sum += (uint64_t)in[i].duration;
		if (sum > INT64_MAX)
			sum = INT64_MAX;
		if (!in[i].start)
			continue;
		if (first == SIZE_MAX || in[i].start < in[first].start)
			first = i;
		if (last == SIZE_MAX || in[i].start > in[last].start)
			last = i;
	}
	s->clock_set = true;
	s->duration_nanos = (int64_t)sum;
	if (first == SIZE_MAX)
		return 0;
	if ((uint64_t)in[last].start - (uint64_t)in[first].start > STORED_MAX_SPAN_NS) {
		stored_warn(s, "%s starts %.0f days after %s (their time_nanos): not one run's profiles; every sample kept without a time (no --from/--to, no heat map)",
			    paths[last], (double)((uint64_t)in[last].start -
						  (uint64_t)in[first].start) / 864e11,
			    paths[first]);
		for (size_t i = 0; i < n; i++)
			in[i].start = 0;
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t e = (uint64_t)in[i].start - (uint64_t)in[first].start +
			     (uint64_t)in[i].duration;

		if (in[i].start && e > end)
			end = e;
	}
	s->time_nanos = in[first].start;
	s->duration_nanos = end > INT64_MAX ? INT64_MAX : (int64_t)end;
	return 0;
}

/* Several files' rate: the first file with one, and the first with
 * another or none (SIZE_MAX: none yet). */
struct rates {
	size_t known, other, unknown;
	double hz, other_hz;
};

static void merge_rate(const struct up_stored *s, size_t i, struct rates *r)
{
	if (s->file_hz <= 0) {
		if (r->unknown == SIZE_MAX)
			r->unknown = i;
	} else if (r->known == SIZE_MAX) {
		r->known = i;
		r->hz = s->file_hz;
	} else if (s->file_hz != r->hz && r->other == SIZE_MAX) {
		r->other = i;
		r->other_hz = s->file_hz;
	}
}

/* The merged rate: the files' one. A sample stands for 1/rate of CPU
 * time, so files of different rates (uniprofd lowers its rate under its
 * CPU budget) have no one period: the merge counts samples, with no CPU
 * time (a pprof of samples/count alone), said in one line naming two
 * files and their rates; so does a file without a rate (folded). */
static void rate_of_merge(struct up_stored *s, const char *const *paths,
			  const struct rates *r)
{
	s->hz = r->known == SIZE_MAX ? 0 : r->hz;
	if (r->known == SIZE_MAX || (r->other == SIZE_MAX && r->unknown == SIZE_MAX))
		return;
	if (r->other != SIZE_MAX)
		stored_warn(s, "%s was sampled at %g Hz and %s at %g Hz (a sample is %.3g ms and %.3g ms of CPU time): the merged profile counts samples, each file's as many as its rate took, with no CPU time",
			    paths[r->known], r->hz, paths[r->other], r->other_hz,
			    1e3 / r->hz, 1e3 / r->other_hz);
	else
		stored_warn(s, "%s has no sampling rate (folded stacks, or a pprof without a period), %s has %g Hz: the merged profile counts samples, with no CPU time",
			    paths[r->unknown], paths[r->known], r->hz);
	s->hz = 0;
}

/* Files among timed ones whose samples have no time: named in one line. */
static void untimed_warning(struct up_stored *s, const char *const *paths,
			    size_t n, const struct input *in)
{
	char names[320] = "";
	size_t files = 0, named = 0, at = 0;
	uint64_t samples = 0;
	bool timed = false;

	for (size_t i = 0; i < n; i++)
		timed |= in[i].timed > 0;
	for (size_t i = 0; timed && i < n; i++) {
		int w;

		if (in[i].timed || !in[i].samples)
			continue;
		files++;
		samples += in[i].samples;
		w = snprintf(names + at, sizeof(names) - at, "%s%s",
			     named ? ", " : "", paths[i]);
		if (w > 0 && (size_t)w < sizeof(names) - at - 16) {
			at += (size_t)w;
			named++;
		} else {
			names[at] = '\0';
		}
	}
	if (!files)
		return;
	if (named < files)
		snprintf(names + at, sizeof(names) - at, " and %zu more", files - named);
	stored_warn(s, "%s %s no sample times (folded stacks, or a pprof without time_nanos or time_ns labels): %" PRIu64 " samples kept without a time, in no --from/--to range or heat map",
		    names, files > 1 ? "have" : "has", samples);
}

/* Merged key K: "KEY: V" when every file says V; else "KEY: V1, V2 (N
 * files merged, M without it)", the values in the order read, as many as
 * a line holds. */
static int merged_line(struct up_stored *s, size_t n, size_t k)
{
	const struct strmap *vals = s->key_values[k];
	size_t nv = strmap_count(vals), without = s->key_without[k], at, i;
	char line[COMMENT_LINE_MAX + 1];

	if (!nv)
		return 0;
	at = (size_t)snprintf(line, sizeof(line), "%s:", stored_merged_keys[k]);
	for (i = 0; i < nv; i++) {
		const char *v = strmap_key(vals, i);

		if (strlen(v) + 2 >= sizeof(line) - at - 96)
			break;
		at += (size_t)snprintf(line + at, sizeof(line) - at, "%s %s",
				       i ? "," : "", v);
	}
	if (i < nv)
		at += (size_t)snprintf(line + at, sizeof(line) - at,
				       " and %zu more", nv - i);
	if (nv > 1 && !without)
		snprintf(line + at, sizeof(line) - at, " (%zu files merged)", n);
	else if (without)
		snprintf(line + at, sizeof(line) - at,
			 " (%zu files merged, %zu without it)", n, without);
	return stored_add_comment(s, line);
}

/* Several files' comments: what they merged, the run's identity as every
 * file gave it (stored_merged_keys: what report reads back finds these), then
 * each file's own lines under its name, indented (no lookup finds them)
 * and numbered (tools that drop repeated comments, as Go's pprof does,
 * keep each file's). */
static int merge_comments(struct up_stored *s, const char *const *paths,
			  size_t n, const struct input *in)
{
	char **old = s->comments, *line;
	size_t nold = s->nr_comments, left_out = s->comments_left_out;
	int rc = 0;

	s->comments = NULL;
	s->nr_comments = s->comments_cap = s->comment_bytes = 0;
	s->comments_left_out = 0;
	s->merging = false;     /* the keys are noted */
	if (asprintf(&line, "merged: %zu files, by %s", n,
		     s->by_name ? "function name" : "address") < 0)
		rc = up_fail(UP_ENOMEM, "out of memory");
	else
		rc = stored_add_comment(s, line);
	free(line);
	for (size_t k = 0; rc == 0 && k < STORED_MERGED_KEYS; k++)
		rc = merged_line(s, n, k);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		if (asprintf(&line, "input %zu: %s", i + 1, paths[i]) < 0)
			rc = up_fail(UP_ENOMEM, "out of memory");
		else
			rc = stored_add_comment(s, line);
		free(line);
		for (size_t j = in[i].comment_first; rc == 0 && j < in[i + 1].comment_first; j++) {
			if (asprintf(&line, "  [%zu] %s", i + 1, old[j]) < 0)
				rc = up_fail(UP_ENOMEM, "out of memory");
			else
				rc = stored_add_comment(s, line);
			free(line);
		}
	}
	s->comments_left_out += left_out;
	for (size_t i = 0; i < nold; i++)
		free(old[i]);
	free(old);
	return rc;
}

int up_stored_load(struct up_stored **out, const char *const *paths,
		   size_t n, const struct up_symtab *resymbolize)
{
	struct up_stored *s = NULL;
	struct input *in;
	struct rates rates = { SIZE_MAX, SIZE_MAX, SIZE_MAX, 0, 0 };
	int rc;

	if (n == 0)
		return up_fail(UP_EINVAL, "no profile to read");
	rc = stored_new(&s);
	if (rc < 0)
		return rc;
	in = calloc(n + 1, sizeof(*in));
	if (!in)
		rc = up_fail(UP_ENOMEM, "out of memory");
	for (size_t k = 0; rc == 0 && n > 1 && k < STORED_MERGED_KEYS; k++)
		if (strmap_new(&s->key_values[k]) < 0)
			rc = up_fail(UP_ENOMEM, "out of memory");
	s->merging = n > 1;
	if (rc == 0 && n > 1)
		rc = merged_clock(s, paths, n, in);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		uint8_t *d = NULL, *z;
		size_t len = 0;
		uint64_t before = up_profile_samples(s->profile);

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
		s->file_start = in[i].start;
		s->file_hz = 0;
		s->file_timed = 0;
		in[i].comment_first = s->nr_comments;
		rc = load_one(s, z, len, paths[i], n, resymbolize, i == 0);
		free(z);
		for (size_t k = 0; k < STORED_MERGED_KEYS; k++)
			s->key_without[k] += !(s->keys_seen & (1u << k));
		s->keys_seen = 0;
		in[i].samples = up_profile_samples(s->profile) - before;
		in[i].timed = s->file_timed;
		merge_rate(s, i, &rates);
	}
	if (rc == 0)
		rate_of_merge(s, paths, &rates);
	if (rc == 0 && n > 1) {
		in[n].comment_first = s->nr_comments;
		untimed_warning(s, paths, n, in);
		rc = merge_comments(s, paths, n, in);
	}
	if (rc == 0 && !s->by_name && n > 1)
		rc = mappings_disjoint(s, paths);
	free(in);
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
	for (size_t k = 0; k < STORED_MERGED_KEYS; k++)
		strmap_free(s->key_values[k]);
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
