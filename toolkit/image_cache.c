#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image_cache.h"

#define SLOTS 2

struct slot {
	char *path;
	const uint8_t *buf;     /* up_file_map's: mapped, not copied */
	size_t len;
	int rc;                 /* the read's result; on error, why: */
	char error[512];
	unsigned used;          /* for replacing the least recent */
};

/* One cache per thread: uniprofd loads the symbols of several kernels at
 * once, each in the thread that asked (xl profile has one). */
static _Thread_local struct slot slots[SLOTS];
static _Thread_local unsigned clock_tick, reads;

static void slot_clear(struct slot *s)
{
	free(s->path);
	if (s->buf)
		up_file_release(s->buf);
	memset(s, 0, sizeof(*s));
}

/* The file's contents (or the error reading it, set again as the last
 * error), read at most once while cached. */
static const struct slot *get(const char *path)
{
	struct slot *s = &slots[0];

	for (int i = 0; i < SLOTS; i++) {
		if (slots[i].path && strcmp(slots[i].path, path) == 0) {
			s = &slots[i];
			goto found;
		}
		if (slots[i].used < s->used)
			s = &slots[i];
	}
	slot_clear(s);
	reads++;
	s->rc = up_file_map(path, &s->buf, &s->len);
	if (s->rc < 0)
		snprintf(s->error, sizeof(s->error), "%s", up_error_last());
	s->path = strdup(path);
	if (!s->path) {
		slot_clear(s);
		return NULL;
	}
found:
	s->used = ++clock_tick;
	if (s->rc < 0)
		up_error_set(s->rc, s->error);
	return s;
}

#define LOAD(call)                                                          \
	do {                                                                \
		const struct slot *s = get(path);                           \
                                                                            \
		if (!s)                                                     \
			return up_error_set(UP_ENOMEM, "out of memory"); \
		return s->rc < 0 ? s->rc : (call);                          \
	} while (0)

int tk_elf_identify(const char *path, struct up_elf_identity *id)
{
	memset(id, 0, sizeof(*id));
	LOAD(up_elf_identify_mem(s->buf, s->len, path, id));
}

int tk_symtab_load(struct up_symtab **out, const char *path)
{
	LOAD(up_symtab_load_mem(out, s->buf, s->len, path));
}

int tk_cfi_table_load(struct up_cfi_table **out, const char *path)
{
	LOAD(up_cfi_table_load_mem(out, s->buf, s->len, path));
}

int tk_cfi_table_add(struct up_cfi_table *t, const char *path, size_t *added)
{
	*added = 0;
	LOAD(up_cfi_table_add_mem(t, s->buf, s->len, path, added));
}

int tk_libunwind_load(struct up_libunwind **out, const char *path)
{
	LOAD(up_libunwind_load_mem(out, s->buf, s->len, path));
}

int tk_kernel_map_read(struct up_kernel_map **out, const char *path,
			const struct up_symtab *symtab)
{
	LOAD(up_kernel_map_load_mem(out, s->buf, s->len, path, symtab));
}

void tk_image_cache_drop(void)
{
	for (int i = 0; i < SLOTS; i++)
		slot_clear(&slots[i]);
}

unsigned tk_image_cache_reads(void)
{
	return reads;
}
