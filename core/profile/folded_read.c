/* Reading folded stacks back ("root;...;leaf COUNT", with uniprof's own
 * marks for truncated, idle, dropped and unseen stacks): frames by name. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/error_impl.h"
#include "util/grow.h"
#include "profile/stored_impl.h"
#include "private.h"

bool stored_looks_folded(const uint8_t *d, size_t n)
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

/* Whether any stack is [idle] or [waiting]: then the classification was
 * on and the other stacks are busy, else their state is unknown. */
static bool folded_has_idle(const char *text, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((i == 0 || text[i - 1] == '\n') &&
		    (strncmp(text + i, "[idle];", 7) == 0 ||
		     strncmp(text + i, "[idle] ", 7) == 0 ||
		     strncmp(text + i, "[waiting];", 10) == 0 ||
		     strncmp(text + i, "[waiting] ", 10) == 0))
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
		return stored_bad(where, "not folded stacks (\"frame;frame;... COUNT\")");
	errno = 0;
	count = strtoull(sp + 1, &end, 10);
	if (*end || errno)
		return stored_bad(where, "the count is not a number");
	*sp = '\0';
	/* Past MAX_DEPTH frames, keep the leaf end: skip the root-most
	 * (after any pseudo-frames, which are few and counted here too). */
	for (char *c = line; *c; c++)
		skip += *c == ';';
	skip = skip + 1 > MAX_DEPTH + 3 ? skip + 1 - (MAX_DEPTH + 3) : 0;
	for (frame = strtok_r(line, ";", &save); frame && rc == 0;
	     frame = strtok_r(NULL, ";", &save)) {
		if (depth == 0 && !dropped) {
			if (act != UP_VCPU_BLOCKED && act != UP_VCPU_WAITING &&
			    trunc == UP_TRUNC_NONE && strcmp(frame, "[idle]") == 0) {
				act = UP_VCPU_BLOCKED;
				continue;
			}
			if (act != UP_VCPU_BLOCKED && act != UP_VCPU_WAITING &&
			    trunc == UP_TRUNC_NONE && strcmp(frame, "[waiting]") == 0) {
				act = UP_VCPU_WAITING;
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
			if (act != UP_VCPU_BLOCKED && act != UP_VCPU_WAITING &&
			    trunc == UP_TRUNC_NONE &&
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
		rc = stored_name_frame(s, frame, &s->frames[depth++]);
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
		rc = stored_name_frame(s, name, &s->frames[0]);
		depth++;
	}
	if (depth == 0 && !dropped)
		return stored_bad(where, "a stack without frames");
	for (size_t i = 0; i < depth / 2; i++) {    /* leaf first */
		uint64_t t = s->frames[i];

		s->frames[i] = s->frames[depth - 1 - i];
		s->frames[depth - 1 - i] = t;
	}
	return rc < 0 ? rc :
	       stored_add_stack(s, where, 0, act, trunc, dropped, unseen, depth,
				count, UP_PROFILE_NO_TIME, false);
}

int stored_load_folded(struct up_stored *s, char *text, size_t n,
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
		rc = stored_bad(what, "no stacks in it");
	return rc;
}
