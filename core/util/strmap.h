/* A string -> index hash map (aggregating by function name). */
#ifndef UP_STRMAP_H
#define UP_STRMAP_H

#include <stddef.h>

struct strmap;

int strmap_new(struct strmap **out);
void strmap_free(struct strmap *m);

/* Index of key, inserting it (copied) with the next index if absent.
 * Returns the index or a negative error. */
long strmap_intern(struct strmap *m, const char *key);

/* Index of key, or -1 when absent. */
long strmap_find(const struct strmap *m, const char *key);

size_t strmap_count(const struct strmap *m);
const char *strmap_key(const struct strmap *m, size_t index);

#endif
