#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/error_impl.h"
#include "util/grow.h"
#include "util/strmap.h"

struct strmap {
	char **keys;         /* by index */
	size_t count, cap;
	long *table;         /* open addressing: index or -1 */
	size_t nslots;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

int strmap_new(struct strmap **out)
{
	struct strmap *m = calloc(1, sizeof(*m));

	if (!m)
		return up_fail(UP_ENOMEM, "out of memory");
	m->nslots = 64;
	m->table = malloc(m->nslots * sizeof(*m->table));
	if (!m->table) {
		free(m);
		return up_fail(UP_ENOMEM, "out of memory");
	}
	memset(m->table, 0xff, m->nslots * sizeof(*m->table));
	*out = m;
	return 0;
}

void strmap_free(struct strmap *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->count; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->table);
	free(m);
}

static int grow(struct strmap *m)
{
	size_t n = m->nslots * 2;
	long *t = malloc(n * sizeof(*t));

	if (!t)
		return up_fail(UP_ENOMEM, "out of memory");
	memset(t, 0xff, n * sizeof(*t));
	for (size_t i = 0; i < m->count; i++) {
		size_t s = hash_str(m->keys[i]) & (n - 1);

		while (t[s] >= 0)
			s = (s + 1) & (n - 1);
		t[s] = (long)i;
	}
	free(m->table);
	m->table = t;
	m->nslots = n;
	return 0;
}

long strmap_intern(struct strmap *m, const char *key)
{
	size_t s;

	if ((m->count + 1) * 2 > m->nslots && grow(m) < 0)
		return UP_ENOMEM;
	s = hash_str(key) & (m->nslots - 1);
	while (m->table[s] >= 0) {
		if (strcmp(m->keys[m->table[s]], key) == 0)
			return m->table[s];
		s = (s + 1) & (m->nslots - 1);
	}
	if (grow_array(&m->keys, &m->cap, m->count + 1, sizeof(*m->keys), 64) < 0)
		return UP_ENOMEM;
	m->keys[m->count] = strdup(key);
	if (!m->keys[m->count])
		return up_fail(UP_ENOMEM, "out of memory");
	m->table[s] = (long)m->count;
	return (long)m->count++;
}

long strmap_find(const struct strmap *m, const char *key)
{
	for (size_t s = hash_str(key) & (m->nslots - 1); m->table[s] >= 0;
	     s = (s + 1) & (m->nslots - 1))
		if (strcmp(m->keys[m->table[s]], key) == 0)
			return m->table[s];
	return -1;
}

size_t strmap_count(const struct strmap *m)
{
	return m->count;
}

const char *strmap_key(const struct strmap *m, size_t index)
{
	return m->keys[index];
}
