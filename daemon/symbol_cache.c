/* Per-build symbols and unwind tables (see symbol_cache.h). */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "toolkit/image_cache.h"
#include "toolkit/kernel_map_load.h"
#include "log.h"
#include "symbol_cache.h"
#include "toolkit/symbols_find.h"

struct entry {
	struct upd_symbols s;     /* first: put() gets it back */
	char key[512];
	bool in_use;              /* by a profile, or by its loader */
	bool loading;             /* its loader works without the lock */
	bool failed;              /* the load failed: err, for the waiters */
	unsigned waiters;         /* requesters of the same key waiting */
	char err[512];
	unsigned long last_used;
	struct entry *next;
};

/* A kernel file's build-id, remembered with what stat says of the file
 * (its times include the change time, which no one can set back), so
 * each period's profile of a domain identifies its kernel with one stat
 * instead of opening and reading the ELF file again. */
#define IDENTS 32
struct ident {
	char path[256];
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
	char bid[129];
};

struct upd_symbol_cache {
	struct ident idents[IDENTS];   /* under lock; a ring */
	unsigned next_ident;
	pthread_mutex_t lock;     /* the list only: never held while loading */
	pthread_cond_t loaded;    /* a load ended */
	struct entry *head;
	size_t n, max;
	unsigned long clock, loads;
	enum up_unwinder unwinder;
	char *debug_dir;
	const char *debuginfod;   /* servers, or NULL: off */
	volatile sig_atomic_t *stop;
};

int upd_symbol_cache_new(struct upd_symbol_cache **out, size_t max_entries,
			 enum up_unwinder unwinder, const char *debug_dir,
			 const char *debuginfod, volatile sig_atomic_t *stop)
{
	struct upd_symbol_cache *c = calloc(1, sizeof(*c));
	pthread_condattr_t ca;

	*out = c;
	if (!c)
		return -1;
	pthread_mutex_init(&c->lock, NULL);
	/* Waits are timed to see *stop: on the clock no one sets. */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->loaded, &ca);
	pthread_condattr_destroy(&ca);
	c->stop = stop;
	c->max = max_entries ? max_entries : 1;
	c->unwinder = unwinder;
	c->debug_dir = debug_dir ? strdup(debug_dir) : NULL;
	c->debuginfod = debuginfod;
	return 0;
}

static bool stopping(const struct upd_symbol_cache *c)
{
	return c->stop && *c->stop;
}

static void entry_free(struct entry *e)
{
	up_symtab_free(e->s.symtab);
	free(e->s.symbols_used);
	tk_unwind_release(&e->s.uw);
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
	pthread_cond_destroy(&c->loaded);
	pthread_mutex_destroy(&c->lock);
	free(c->debug_dir);
	free(c);
}

static bool same_file(const struct ident *i, const char *path, const struct stat *st)
{
	return strcmp(i->path, path) == 0 && i->dev == st->st_dev &&
	       i->ino == st->st_ino && i->size == st->st_size &&
	       i->mtime.tv_sec == st->st_mtim.tv_sec &&
	       i->mtime.tv_nsec == st->st_mtim.tv_nsec &&
	       i->ctime.tv_sec == st->st_ctim.tv_sec &&
	       i->ctime.tv_nsec == st->st_ctim.tv_nsec;
}

/* A file changed within the last seconds may change again within the
 * same tick of its clock, leaving what stat says unchanged (as git's
 * "racily clean" files): such a file is read every time until it rests. */
static bool resting(const struct stat *st)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return now.tv_sec - st->st_ctim.tv_sec > 2 && now.tv_sec - st->st_mtim.tv_sec > 2;
}

/* The build-id of kernel (bid, "" if none), read from the file only when
 * it is not the file remembered under that path. */
static void build_id_of(struct upd_symbol_cache *c, const char *kernel,
			char *bid, size_t bidlen)
{
	struct up_elf_identity id;
	struct stat st;
	struct ident *i;
	bool known = false, statted = stat(kernel, &st) == 0;

	bid[0] = '\0';
	if (statted && strlen(kernel) < sizeof(i->path)) {
		pthread_mutex_lock(&c->lock);
		for (unsigned k = 0; k < IDENTS && !known; k++)
			if (same_file(&c->idents[k], kernel, &st)) {
				snprintf(bid, bidlen, "%s", c->idents[k].bid);
				known = true;
			}
		pthread_mutex_unlock(&c->lock);
		if (known)
			return;
	}
	if (tk_elf_identify(kernel, &id) == 0 && id.build_id[0])
		snprintf(bid, bidlen, "%s", id.build_id);
	if (!statted || strlen(kernel) >= sizeof(i->path) || !resting(&st))
		return;
	pthread_mutex_lock(&c->lock);
	i = &c->idents[c->next_ident++ % IDENTS];
	snprintf(i->path, sizeof(i->path), "%s", kernel);
	i->dev = st.st_dev;
	i->ino = st.st_ino;
	i->size = st.st_size;
	i->mtime = st.st_mtim;
	i->ctime = st.st_ctim;
	snprintf(i->bid, sizeof(i->bid), "%s", bid);
	pthread_mutex_unlock(&c->lock);
}

/* The build's identity: its build-id, else the file's path, size and
 * time (a kernel replaced in place is loaded again). */
static void make_key(struct upd_symbol_cache *c, const char *kernel, unsigned width,
		     char *bid, size_t bidlen, char *key, size_t keylen)
{
	struct stat st;

	bid[0] = '\0';
	if (kernel)
		build_id_of(c, kernel, bid, bidlen);
	if (bid[0])
		snprintf(key, keylen, "id:%s/%u", bid, width);
	else if (kernel && stat(kernel, &st) == 0)
		snprintf(key, keylen, "file:%s:%lld:%lld/%u", kernel, (long long)st.st_size,
			 (long long)st.st_mtime, width);
	else
		snprintf(key, keylen, "none:%s/%u", kernel ? kernel : "", width);
}

/* Fill e, without the lock: each thread has its own image cache, and a
 * debuginfod fetch may take its whole deadline. The stop flag cancels the
 * fetch. */
static int load(struct upd_symbol_cache *c, struct entry *e, const char *kernel,
		unsigned width, char *err, size_t errlen)
{
	struct tk_symbol_query q = { 0 };
	int rc = 0;

	q.kernel = kernel;
	q.debug_dir = c->debug_dir;
	q.debuginfod = c->debuginfod;
	q.guest_width = width;
	q.arch = UP_ARCH_HOST;          /* the domains of this host */
	q.stop = c->stop;
	if (tk_find_symbols(&q, &e->s.symtab, &e->s.symbols_used) < 0 ||
	    tk_unwind_load(c->unwinder, kernel, e->s.symbols_used, 0, &e->s.uw) < 0 ||
	    tk_kernel_map_load(kernel, e->s.symbols_used, e->s.symtab, e->s.uw.cfi,
				NULL, 0, false, &e->s.kmap) < 0) {
		snprintf(err, errlen, "cannot load the symbols or unwind tables of kernel %s (see the daemon's log)",
			 kernel ? kernel : "(none configured)");
		rc = -1;
	} else if (stopping(c)) {
		snprintf(err, errlen, "the daemon is stopping");
		rc = -1;
	}
	tk_image_cache_drop();
	return rc;
}

static void unlink_entry(struct upd_symbol_cache *c, struct entry *e)
{
	for (struct entry **p = &c->head; *p; p = &(*p)->next)
		if (*p == e) {
			*p = e->next;
			c->n--;
			return;
		}
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

/* Wait (the lock held) until busy's load ends or the daemon stops: a
 * second requester of a build being loaded does not load it again. 0:
 * look again; -1: err says why. */
static int wait_for(struct upd_symbol_cache *c, struct entry *busy, char *err,
		    size_t errlen)
{
	int rc = 0;

	busy->waiters++;
	while (busy->loading && !stopping(c)) {
		struct timespec t;

		clock_gettime(CLOCK_MONOTONIC, &t);
		t.tv_nsec += 100 * 1000000L;
		if (t.tv_nsec >= 1000000000L) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&c->loaded, &c->lock, &t);
	}
	busy->waiters--;
	if (busy->failed) {
		snprintf(err, errlen, "%s", busy->err);
		rc = -1;
		if (!busy->waiters) {   /* the last to hear it */
			unlink_entry(c, busy);
			entry_free(busy);
		}
	} else if (stopping(c)) {
		snprintf(err, errlen, "the daemon is stopping");
		rc = -1;
	}
	return rc;
}

int upd_symbols_get(struct upd_symbol_cache *c, const char *kernel,
		    unsigned guest_width, struct upd_symbols **out,
		    char *err, size_t errlen)
{
	char key[512], bid[129];
	struct entry *e, *busy;
	int rc;

	*out = NULL;
	/* Outside the lock: the image cache is this thread's own (a load
	 * reads the kernel from it again, then drops it). */
	make_key(c, kernel, guest_width, bid, sizeof(bid), key, sizeof(key));
	pthread_mutex_lock(&c->lock);
	do {
		e = busy = NULL;
		for (struct entry *p = c->head; p && !e; p = p->next)
			if (!p->failed && strcmp(p->key, key) == 0) {
				if (p->loading)
					busy = p;
				else if (!p->in_use)
					e = p;
			}
	} while (!e && busy && wait_for(c, busy, err, errlen) == 0);
	if (!e && busy) {               /* its load failed, or stopping */
		pthread_mutex_unlock(&c->lock);
		tk_image_cache_drop();
		return -1;
	}
	if (!e) {
		/* Listed while loading (in use: never trimmed), so requesters
		 * of this key wait for it and everyone else goes on. */
		e = calloc(1, sizeof(*e));
		if (!e) {
			pthread_mutex_unlock(&c->lock);
			tk_image_cache_drop();
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		snprintf(e->key, sizeof(e->key), "%s", key);
		snprintf(e->s.build_id, sizeof(e->s.build_id), "%s", bid);
		e->loading = e->in_use = true;
		e->next = c->head;
		c->head = e;
		c->n++;
		pthread_mutex_unlock(&c->lock);
		rc = load(c, e, kernel, guest_width, err, errlen);
		pthread_mutex_lock(&c->lock);
		e->loading = false;
		if (rc < 0) {
			if (e->waiters) {       /* the last waiter frees it */
				e->failed = true;
				snprintf(e->err, sizeof(e->err), "%s", err);
			} else {
				unlink_entry(c, e);
				entry_free(e);
			}
			pthread_cond_broadcast(&c->loaded);
			pthread_mutex_unlock(&c->lock);
			return -1;
		}
		c->loads++;
		pthread_cond_broadcast(&c->loaded);
	}
	e->in_use = true;
	e->last_used = ++c->clock;
	trim(c);
	*out = &e->s;
	pthread_mutex_unlock(&c->lock);
	tk_image_cache_drop();         /* found: make_key's read */
	return 0;
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
