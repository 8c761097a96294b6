/* Assembling a stored profile's stacks, whichever format they came in:
 * frames by name or by address, counted into the profile, bounded. */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error_impl.h"
#include "util/grow.h"
#include "util/strmap.h"
#include "profile/profile_impl.h"
#include "profile/stored_impl.h"
#include "symbols/srcinfo.h"
#include "uniprof/text.h"
#include "private.h"

/* Frames: 2 per byte of the largest profile (every frame a file names
 * costs it a byte at least; inlined lines may double that), about a
 * second's work. Comments: a live run writes 15 lines and one per vCPU. */
struct stored_limits stored_limits = {
	.frames = (size_t)2 * UP_STORED_MAX_BYTES,
	.comment_lines = 8192,
	.comment_bytes = 1u << 20,
};

int stored_bad(const char *what, const char *why)
{
	return up_fail(UP_EFORMAT, "%s: %s", what, why);
}

/* By name: frame i is at (i + 1) * 16 + 8 and its symbol covers
 * [(i + 1) * 16, +16), so the writers' lookup of an IP and of a return
 * address (one byte less) both find it. */
int stored_name_frame(struct up_stored *s, const char *name, uint64_t *frame)
{
	long i = strmap_intern(s->names_by_id, name);

	if (i < 0)
		return up_fail(UP_ENOMEM, "out of memory");
	*frame = stored_frame_of_name(i);
	return 0;
}

/* By address: the name the live run gave the address at this position
 * (looked up one byte lower for a return address) becomes a symbol of
 * one byte there. */
int stored_point_name(struct up_stored *s, uint64_t addr, bool is_return,
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
	return 1;
}

int stored_point_source(struct up_stored *s, uint64_t addr, bool is_return,
			const struct up_src_frame *f, size_t n)
{
	int rc;

	if (!s->src && (rc = srcinfo_new(&s->src, NULL, 0)) < 0)
		return rc;
	return srcinfo_add(s->src, is_return && addr ? addr - 1 : addr, f, n);
}

/* dropped: a pseudo-stack of depth 0, [unseen] if unseen, else
 * [dropped]. */
int stored_add_stack(struct up_stored *s, const char *what,
			    unsigned vcpu, enum up_vcpu_activity act,
			    enum up_trunc trunc, bool dropped, bool unseen,
			    size_t depth, uint64_t count, uint64_t t_ns,
			    bool credited)
{
	int rc;

	if (count == 0)
		return 0;
	if (count > UINT32_MAX)
		return stored_bad(what, "a stack counted more than 4294967295 times: not a profile uniprof can read");
	if (vcpu >= MAX_VCPUS)
		return stored_bad(what, "a vCPU number past 4095");
	if (vcpu > s->max_vcpu_seen)
		s->max_vcpu_seen = vcpu;
	if (unseen)
		rc = up_profile_add_unseen(s->profile, vcpu, count);
	else if (dropped || depth == 0)
		rc = profile_add_dropped(s->profile, vcpu, act, count, t_ns,
					 credited);
	else if (credited)
		rc = up_profile_add_credited(s->profile, vcpu, s->frames,
					     (unsigned)depth, trunc, act, count, t_ns);
	else
		rc = up_profile_add_at(s->profile, vcpu, s->frames,
				       (unsigned)depth, trunc, act, count, t_ns);
	if (rc < 0)
		return up_fail(rc, "%s: %s", what, up_error_last());
	if (t_ns != UP_PROFILE_NO_TIME)
		s->file_timed += count;
	return 0;
}

void stored_warn(struct up_stored *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	warning_append(s->warning, sizeof(s->warning), fmt, ap);
	va_end(ap);
}

const char *const stored_merged_keys[STORED_MERGED_KEYS] = {
	"domain", "domain id", "type", "arch", "vcpus", "frequency",
};

/* Merging: the value of C if it is the file's first line of a merged key
 * (cut at COMMENT_LINE_MAX, before a character that straddles it). */
static int note_key(struct up_stored *s, const char *c)
{
	char v[COMMENT_LINE_MAX + 1];

	for (size_t k = 0; k < STORED_MERGED_KEYS; k++) {
		const char *key = stored_merged_keys[k];
		size_t n = strlen(key), len;

		if ((s->keys_seen & (1u << k)) || strncmp(c, key, n) != 0 ||
		    c[n] != ':' || c[n + 1] != ' ')
			continue;
		s->keys_seen |= 1u << k;
		len = strnlen(c + n + 2, COMMENT_LINE_MAX + 1);
		if (len > COMMENT_LINE_MAX) {
			len = COMMENT_LINE_MAX;
			while (len && ((unsigned char)c[n + 2 + len] & 0xc0) == 0x80)
				len--;
		}
		memcpy(v, c + n + 2, len);
		v[len] = '\0';
		if (strcmp(key, "vcpus") == 0) {
			unsigned long said = strtoul(v, NULL, 10);

			if (said > s->vcpus_said && said <= MAX_VCPUS)
				s->vcpus_said = (unsigned)said;
		}
		return strmap_intern(s->key_values[k], v) < 0 ?
		       up_fail(UP_ENOMEM, "out of memory") : 0;
	}
	return 0;
}

int stored_add_comment(struct up_stored *s, const char *c)
{
	size_t len;
	char *copy;
	int rc;

	if (s->merging && (rc = note_key(s, c)) < 0)
		return rc;

	/* Once one line is left out, so is every later one: a long string
	 * that a file names a million times is measured once at most. */
	if (s->comments_left_out || s->nr_comments >= stored_limits.comment_lines) {
		s->comments_left_out++;
		return 0;
	}
	len = strnlen(c, COMMENT_LINE_MAX + 1);
	if (len > COMMENT_LINE_MAX) {
		/* Cut before the character that straddles the bound. */
		len = COMMENT_LINE_MAX;
		while (len && ((unsigned char)c[len] & 0xc0) == 0x80)
			len--;
		s->comments_cut++;
	}
	if (len + 1 > stored_limits.comment_bytes - s->comment_bytes) {
		s->comments_left_out++;
		return 0;
	}
	if (grow_array(&s->comments, &s->comments_cap, s->nr_comments + 1,
		       sizeof(*s->comments), 16) < 0 ||
	    !(copy = malloc(len + 1)))
		return up_fail(UP_ENOMEM, "out of memory");
	memcpy(copy, c, len);
	copy[len] = '\0';
	s->comments[s->nr_comments++] = copy;
	s->comment_bytes += len + 1;
	return 0;
}

/* A mapping's string as valid UTF-8 (what a pprof string must be, and
 * what the writer would make of it), kept once however many mappings name
 * it: *index in map_strings, -1 for none. Past MAPPING_STRING_MAX bytes,
 * as read or as UTF-8, it is no path or build-id: 1. */
static int map_string(struct up_stored *s, const char *str, long *index)
{
	char *valid;

	*index = -1;
	if (!str || !*str)
		return 0;
	if (strnlen(str, MAPPING_STRING_MAX + 1) > MAPPING_STRING_MAX)
		return 1;
	valid = up_text_valid_utf8(str);
	if (!valid)
		return up_fail(UP_ENOMEM, "out of memory");
	if (strlen(valid) > MAPPING_STRING_MAX) {
		free(valid);
		return 1;
	}
	*index = strmap_intern(s->map_strings, valid);
	free(valid);
	return *index < 0 ? up_fail(UP_ENOMEM, "out of memory") : 0;
}

int stored_add_mapping(struct up_stored *s, const char *what,
		       const struct up_pprof_mapping *m)
{
	char key[96];
	long file, bid, k;
	size_t known = strmap_count(s->map_keys);
	int rc;

	/* Each is read once per mapping that names it: bounded, as no path
	 * or build-id is longer. */
	rc = map_string(s, m->file, &file);
	if (rc == 0)
		rc = map_string(s, m->build_id, &bid);
	if (rc < 0)
		return rc;
	if (rc == 1)
		return up_fail(UP_EFORMAT, "%s: a mapping's file name or build-id longer than %d bytes (as UTF-8): not a path or a build-id",
			       what, MAPPING_STRING_MAX);
	/* Identical: all five fields (the strings by their index). */
	snprintf(key, sizeof(key), "%" PRIx64 "/%" PRIx64 "/%" PRIx64 "/%ld/%ld",
		 m->start, m->limit, m->file_offset, file, bid);
	k = strmap_find(s->map_keys, key);
	if (k >= 0)
		return 0;
	if (known >= UP_STORED_MAX_MAPPINGS)
		return up_fail(UP_EFORMAT, "%s: more than %d distinct mappings (binaries) in the profiles read: refused rather than rewritten without some of them",
			       what, UP_STORED_MAX_MAPPINGS);
	if (strmap_intern(s->map_keys, key) < 0 ||
	    grow_array(&s->maps, &s->maps_cap, s->nr_maps + 1, sizeof(*s->maps), 8) < 0 ||
	    grow_array(&s->map_from, &s->map_from_cap, s->nr_maps + 1,
		       sizeof(*s->map_from), 8) < 0)
		return up_fail(UP_ENOMEM, "out of memory");
	s->maps[s->nr_maps] = (struct up_pprof_mapping){
		m->start, m->limit, m->file_offset,
		file < 0 ? NULL : strmap_key(s->map_strings, (size_t)file),
		bid < 0 ? NULL : strmap_key(s->map_strings, (size_t)bid),
	};
	s->map_from[s->nr_maps++] = s->input;
	return 0;
}
