/* Per-build symbols and unwind tables (see symbol_cache.h). */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "toolkit/image_cache.h"
#include "toolkit/kernel_map_load.h"
#include "log.h"
#include "symbol_cache.h"
#include "toolkit/symbols_find.h"

struct entry {
	struct upd_symbols s;     /* first: put() gets it back */
	char key[512];
	bool in_use;
	unsigned long last_used;
	struct entry *next;
};

struct upd_symbol_cache {
	pthread_mutex_t lock;
	struct entry *head;
	size_t n, max;
	unsigned long clock, loads;
	enum up_unwinder unwinder;
	char *debug_dir;
	const char *debuginfod;   /* servers, or NULL: off */
};

int upd_symbol_cache_new(struct upd_symbol_cache **out, size_t max_entries,
			 enum up_unwinder unwinder, const char *debug_dir,
			 const char *debuginfod)
{
	struct upd_symbol_cache *c = calloc(1, sizeof(*c));

	*out = c;
	if (!c)
		return -1;
	pthread_mutex_init(&c->lock, NULL);
	c->max = max_entries ? max_entries : 1;
	c->unwinder = unwinder;
	c->debug_dir = debug_dir ? strdup(debug_dir) : NULL;
	c->debuginfod = debuginfod;
	return 0;
}

static void entry_free(struct entry *e)
{
	up_symtab_free(e->s.symtab);
	free(e->s.symbols_used);
	xlp_unwind_release(&e->s.uw);
	up_kernel_map_free(e->s.kmap);
	free(e);
}

void upd_symbol_cache_free(struct upd_symbol_cache *c)
{
	if (!c)
		return;
	while (c->head) {
		struct entry *e = c->head;

		c->head = e->next;
		entry_free(e);
	}
	pthread_mutex_destroy(&c->lock);
	free(c->debug_dir);
	free(c);
}

/* The build's identity: its build-id, else the file's path, size and
 * time (a kernel replaced in place is loaded again). */
static void make_key(const char *kernel, unsigned width, char *bid, size_t bidlen,
		     char *key, size_t keylen)
{
	struct up_elf_identity id;
	struct stat st;

	bid[0] = '\0';
	if (kernel && xlp_elf_identify(kernel, &id) == 0 && id.build_id[0])
		snprintf(bid, bidlen, "%s", id.build_id);
	if (bid[0])
		snprintf(key, keylen, "id:%s/%u", bid, width);
	else if (kernel && stat(kernel, &st) == 0)
		snprintf(key, keylen, "file:%s:%lld:%lld/%u", kernel, (long long)st.st_size,
			 (long long)st.st_mtime, width);
	else
		snprintf(key, keylen, "none:%s/%u", kernel ? kernel : "", width);
}

static struct entry *load(struct upd_symbol_cache *c, const char *kernel,
			  unsigned width, char *err, size_t errlen)
{
	struct entry *e = calloc(1, sizeof(*e));
	struct xlp_symbol_query q = { 0 };
	struct xlp_options opt;

	if (!e) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	memset(&opt, 0, sizeof(opt));
	q.kernel = kernel;
	q.debug_dir = c->debug_dir;
	q.debuginfod = c->debuginfod;
	q.guest_width = width;
	q.arch = UP_ARCH_HOST;          /* the domains of this host */
	if (xlp_find_symbols(&q, &e->s.symtab, &e->s.symbols_used) < 0 ||
	    xlp_unwind_load(c->unwinder, kernel, e->s.symbols_used, 0, &e->s.uw) < 0 ||
	    xlp_kernel_map_load(kernel, e->s.symbols_used, e->s.symtab, e->s.uw.cfi,
				&opt, &e->s.kmap) < 0) {
		snprintf(err, errlen, "cannot load the symbols or unwind tables of kernel %s (see the daemon's log)",
			 kernel ? kernel : "(none configured)");
		entry_free(e);
		return NULL;
	}
	c->loads++;
	return e;
}

/* Beyond the limit, free idle entries, least recently used first. */
static void trim(struct upd_symbol_cache *c)
{
	while (c->n > c->max) {
		struct entry **victim = NULL;

		for (struct entry **p = &c->head; *p; p = &(*p)->next)
			if (!(*p)->in_use && (!victim || (*p)->last_used < (*victim)->last_used))
				victim = p;
		if (!victim)
			return;
		struct entry *e = *victim;

		*victim = e->next;
		entry_free(e);
		c->n--;
	}
}

int upd_symbols_get(struct upd_symbol_cache *c, const char *kernel,
		    unsigned guest_width, struct upd_symbols **out,
		    char *err, size_t errlen)
{
	char key[512], bid[129];
	struct entry *e;

	*out = NULL;
	/* Held while loading: the image cache under xl profile's loaders is
	 * one per process. Loads are rare (once per build). */
	pthread_mutex_lock(&c->lock);
	make_key(kernel, guest_width, bid, sizeof(bid), key, sizeof(key));
	for (e = c->head; e; e = e->next)
		if (!e->in_use && strcmp(e->key, key) == 0)
			break;
	if (!e && (e = load(c, kernel, guest_width, err, errlen))) {
		snprintf(e->key, sizeof(e->key), "%s", key);
		snprintf(e->s.build_id, sizeof(e->s.build_id), "%s", bid);
		e->next = c->head;
		c->head = e;
		c->n++;
	}
	xlp_image_cache_drop();
	if (e) {
		e->in_use = true;
		e->last_used = ++c->clock;
		trim(c);
		*out = &e->s;
	}
	pthread_mutex_unlock(&c->lock);
	return e ? 0 : -1;
}

void upd_symbols_put(struct upd_symbol_cache *c, struct upd_symbols *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&c->lock);
	((struct entry *)s)->in_use = false;
	((struct entry *)s)->last_used = ++c->clock;
	trim(c);
	pthread_mutex_unlock(&c->lock);
}

unsigned long upd_symbol_cache_loads(struct upd_symbol_cache *c)
{
	unsigned long n;

	pthread_mutex_lock(&c->lock);
	n = c->loads;
	pthread_mutex_unlock(&c->lock);
	return n;
}
