/* The symbol table proper: a sorted array searched by binary search, names
 * in one arena. Loaders (elf.c, nm.c, picked by load.c) fill it. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error_impl.h"
#include "util/grow.h"
#include "util/radix_order.h"
#include "util/text_memo.h"
#include "symbols/lookup_cache.h"
#include "symbols/srcinfo.h"
#include "symbols/table_impl.h"
#include "private.h"

struct symtab_limits symtab_limits = { 1u << 22, 1u << 28 };

static void cache_free(struct up_symtab *s);

struct name_block {
	struct name_block *next;
	char *names;
};

struct up_symtab *symtab_alloc(enum up_symtab_format format)
{
	struct up_symtab *s = calloc(1, sizeof(*s));

	if (s)
		s->format = format;
	return s;
}

void up_symtab_free(struct up_symtab *s)
{
	if (!s)
		return;
	free(s->entries);
	free(s->names);
	free(s->syms);
	free(s->build_id);
	while (s->added) {
		struct name_block *b = s->added;

		s->added = b->next;
		free(b->names);
		free(b);
	}
	srcinfo_free(s->src);
	cache_free(s);
	free(s);
}

void symtab_warn(struct up_symtab *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	warning_append(s->warning, sizeof(s->warning), fmt, ap);
	va_end(ap);
}

/* Bytes of name to keep: all, or SYMTAB_MAX_NAME backed off to the start
 * of a UTF-8 character. */
static size_t name_length(const char *name)
{
	size_t n = strnlen(name, SYMTAB_MAX_NAME + 1);

	if (n <= SYMTAB_MAX_NAME)
		return n;
	n = SYMTAB_MAX_NAME;
	while (n > 0 && ((unsigned char)name[n] & 0xc0) == 0x80)
		n--;
	return n;
}

static int arena_add_n(struct up_symtab *s, const char *name, size_t n,
		       size_t *off)
{
	if (grow_array(&s->names, &s->names_cap, s->names_len + n + 1, 1, 4096) < 0)
		return UP_ENOMEM;
	memcpy(s->names + s->names_len, name, n);
	s->names[s->names_len + n] = '\0';
	*off = s->names_len;
	s->names_len += n + 1;
	return 0;
}

static int arena_add(struct up_symtab *s, const char *name, size_t *off)
{
	return arena_add_n(s, name, name_length(name), off);
}

int symtab_reserve(struct up_symtab *s, size_t symbols, size_t name_bytes)
{
	if (symbols > symtab_limits.symbols)
		symbols = symtab_limits.symbols;
	if (name_bytes > symtab_limits.name_bytes)
		name_bytes = symtab_limits.name_bytes;
	if (grow_array(&s->entries, &s->cap, symbols, sizeof(*s->entries), 1024) < 0 ||
	    grow_array(&s->names, &s->names_cap, name_bytes, 1, 4096) < 0)
		return up_fail(UP_ENOMEM, "out of memory");
	return 0;
}

void symtab_lend_names(struct up_symtab *s, const char *strings, size_t len)
{
	s->lent = strings;
	s->lent_len = strings ? len : 0;
}

static const char *entry_name(const struct up_symtab *s, const struct sym_entry *e)
{
	return (e->name_size & SYM_NAME_BORROWED ? s->lent : s->names) + e->name;
}

int symtab_add(struct up_symtab *s, uint64_t addr, uint64_t size,
	       const char *name, int rank)
{
	struct sym_entry *e;
	bool lent = s->lent && name >= s->lent && (size_t)(name - s->lent) < s->lent_len;
	/* A lent name is read no further than its table's end, even if the
	 * NUL the loader saw there is gone (a file rewritten under its
	 * mapping): it ends at the table's end. */
	size_t rest = lent ? s->lent_len - (size_t)(name - s->lent) : SIZE_MAX;
	size_t full = strnlen(name, rest < SYMTAB_MAX_NAME + 1 ? rest : SYMTAB_MAX_NAME + 1);
	size_t n = full <= SYMTAB_MAX_NAME ? full : name_length(name);
	int rc;

	if (s->count >= symtab_limits.symbols ||
	    s->names_len + s->lent_used + n + 1 > symtab_limits.name_bytes) {
		if (!s->capped)
			symtab_warn(s, "more than %zu symbols or %zu KiB of names: the rest left out",
				    symtab_limits.symbols, symtab_limits.name_bytes >> 10);
		s->capped = true;
		return 0;
	}
	if (full > SYMTAB_MAX_NAME)
		s->long_names++;
	if (grow_array_populated(&s->entries, &s->cap, s->count + 1,
				 sizeof(*s->entries), 1024, &s->populated) < 0)
		return UP_ENOMEM;
	e = &s->entries[s->count];
	if (lent) {
		e->name = (uint32_t)(name - s->lent);
		s->lent_used += n + 1;
	} else {
		size_t off;

		rc = arena_add_n(s, name, n, &off);
		if (rc < 0)
			return rc;
		e->name = (uint32_t)off;
	}
	e->addr = addr;
	e->size = size;
	e->rank = (int16_t)rank;
	e->name_size = (uint16_t)((n + 1) | (lent ? SYM_NAME_BORROWED : 0));  /* n <= SYMTAB_MAX_NAME */
	s->count++;
	return 0;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct sym_entry *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Best alias first: higher rank, then sized; then the first added
	 * (symtab_finish's sort keeps that order: reproducible output). */
	if (x->rank != y->rank)
		return y->rank - x->rank;
	if ((x->size != 0) != (y->size != 0))
		return x->size ? -1 : 1;
	return 0;
}

/* The C++ names among the kept entries, demangled in one bounded batch
 * (core/symbols/demangle.c); the results join the arena. */
static int demangle_names(struct up_symtab *s)
{
	size_t m = 0, refused;
	size_t *which = malloc((s->count ? s->count : 1) * sizeof(*which));
	const char **names = malloc((s->count ? s->count : 1) * sizeof(*names));
	char **out = malloc((s->count ? s->count : 1) * sizeof(*out));
	int rc = 0;

	if (!which || !names || !out) {
		rc = up_fail(UP_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < s->count; i++) {
		const char *name = s->names + s->entries[i].name;

		if (symbol_is_mangled(name)) {
			which[m] = i;
			names[m++] = name;
		}
	}
	if (m == 0)
		goto done;
	refused = symbol_demangle_batch(names, m, out,
					symtab_limits.name_bytes > s->names_len ?
					symtab_limits.name_bytes - s->names_len : 0);
	/* names[] point into the arena, which arena_add may move: all
	 * results are in out[] before the first is added. */
	for (size_t j = 0; j < m; j++) {
		size_t off;

		if (out[j] && rc == 0 && (rc = arena_add(s, out[j], &off)) == 0)
			s->entries[which[j]].name = (uint32_t)off;
		free(out[j]);
	}
	if (refused)
		symtab_warn(s, "%zu C++ names not demangled (over 4 KiB, too slow, or past the name cap): kept mangled",
			    refused);
done:
	free(which);
	free(names);
	free(out);
	return rc;
}

/* What the new arena must hold: the kept names are some of those added,
 * so they fit in their size. */
static size_t arena_room(const struct up_symtab *s)
{
	return s->names_len + s->lent_used;
}

/* The kept names copied into a new arena in address order (names, cap
 * bytes, at least arena_room), the rest (aliases merged away) dropped:
 * the passes over the table in address order (the C++ names, a name's
 * lookup, the writers) then read the names in order, where the file's
 * order made each name a cache miss. */
static void arena_in_address_order(struct up_symtab *s, char *names, size_t cap)
{
	size_t pos = 0;

	for (size_t i = 0; i < s->count; i++) {
		struct sym_entry *e = &s->entries[i];
		const char *name = entry_name(s, e);
		unsigned size = e->name_size & ~SYM_NAME_BORROWED;
		/* A lent name cut to SYMTAB_MAX_NAME ends here, not at its NUL. */
		size_t n = size ? size - 1 : strlen(name);

		memcpy(names + pos, name, n);
		names[pos + n] = '\0';
		e->name = (uint32_t)pos;
		e->name_size = (uint16_t)(n + 1);
		n++;
		pos += n;
	}
	free(s->names);
	s->names = names;
	s->names_len = pos;
	s->lent = NULL;
	s->lent_len = s->lent_used = 0;
	s->names_cap = cap;
}

/* e[i] = the old e[k[i]] for i < n (k's first n distinct), in place: the
 * entries not kept fill the rest of k (count long) to make one
 * permutation, applied a cycle at a time, each entry moved once. A second
 * array of the kept entries would be fresh pages, the costliest part of a
 * large table's load in a PV dom0. k is used up. */
static int move_kept_first(struct sym_entry *e, size_t count, uint32_t *k,
			   size_t n)
{
	const uint32_t done = 1u << 31;
	uint8_t *kept = calloc(count / 8 + 1, 1);
	size_t j = n;

	if (!kept || count >= done) {
		free(kept);
		return up_fail(UP_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		kept[k[i] / 8] |= (uint8_t)(1u << (k[i] % 8));
	for (size_t src = 0; src < count; src++)
		if (!(kept[src / 8] & (1u << (src % 8))))
			k[j++] = (uint32_t)src;
	free(kept);
	for (size_t i = 0; i < count; i++) {
		struct sym_entry first;
		size_t d = i;

		if (k[i] & done)
			continue;
		first = e[i];
		for (;;) {
			size_t src = k[d];

			k[d] |= done;
			if (src == i) {
				e[d] = first;
				break;
			}
			e[d] = e[src];
			d = src;
		}
	}
	return 0;
}

/* The final table is the entries' own array: an entry and a symbol are
 * the same size, each entry turned into its symbol where it lies. */
_Static_assert(sizeof(struct sym_entry) == sizeof(struct up_symbol),
	       "entries become symbols in place");

int symtab_finish(struct up_symtab *s)
{
	/* One buffer, its pages faulted in once, holds first the sort's
	 * indexes, then the names: in a PV dom0 a fresh page costs ~50 us,
	 * and the two would be a quarter of a large table's pages. */
	size_t sort_bytes = 2 * s->count * sizeof(uint32_t), room = arena_room(s);
	size_t cap = room > sort_bytes ? room : sort_bytes;
	char *buf = malloc(cap ? cap : 1);
	size_t n = 0;
	int rc;

	if (!buf)
		return up_fail(UP_ENOMEM, "out of memory");
	cap = cap ? cap : 1;
	populate_filled_whole(buf, cap);
	/* One entry per address: the best alias (entry_cmp's first), picked
	 * in one pass over each run of equal addresses; the kept ones then
	 * moved to the front in address order. */
	if (s->count) {
		/* In address order by a radix sort (util/radix_order.c):
		 * linear whatever the image holds, where qsort of the entries
		 * took most of a large table's load. */
		uint32_t *k = radix_order_u64_in(s->entries, s->count,
						 sizeof(*s->entries),
						 (uint32_t *)(void *)buf);

		_Static_assert(offsetof(struct sym_entry, addr) == 0,
			       "the sort's key starts each entry");

		if (!k) {
			free(buf);
			return up_fail(UP_ENOMEM, "out of memory");
		}
		for (size_t i = 0; i < s->count; i++) {
			const struct sym_entry *e = &s->entries[k[i]];

			if (n == 0 || s->entries[k[n - 1]].addr != e->addr)
				k[n++] = k[i];
			else if (entry_cmp(e, &s->entries[k[n - 1]]) < 0)
				k[n - 1] = k[i];
		}
		rc = move_kept_first(s->entries, s->count, k, n);
		if (rc < 0) {
			free(buf);
			return rc;
		}
	}
	s->count = n;
	arena_in_address_order(s, buf, cap);      /* the indexes are done */
	if (s->long_names)
		symtab_warn(s, "%zu names longer than %u bytes: cut there",
			    s->long_names, SYMTAB_MAX_NAME);
	rc = demangle_names(s);
	if (rc < 0)
		return rc;
	if (!s->entries && !(s->entries = calloc(1, sizeof(*s->entries))))
		return up_fail(UP_ENOMEM, "out of memory");
	fit_array(&s->entries, &s->cap, n, sizeof(*s->entries));
	for (size_t i = 0; i < n; i++) {
		const struct sym_entry e = s->entries[i];
		const struct up_symbol sym = { e.addr, e.size, s->names + e.name };

		memcpy(&s->entries[i], &sym, sizeof(sym));
	}
	s->syms = (struct up_symbol *)(void *)s->entries;
	s->entries = NULL;
	s->cap = s->populated = 0;
	return 0;
}

/* The first symbol at or above addr. */
static size_t lower_bound(const struct up_symtab *s, uint64_t addr)
{
	size_t lo = 0, hi = s->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->syms[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int symtab_insert(struct up_symtab *s, uint64_t lo, uint64_t hi,
		  const struct up_symbol *add, size_t n, char *names)
{
	struct name_block *b = malloc(sizeof(*b));
	size_t from = lower_bound(s, lo), to = lower_bound(s, hi);
	size_t old = to - from, kept = 0, m, tail = s->count - to;
	struct up_symbol *mid = malloc((old + n ? old + n : 1) * sizeof(*mid));
	struct up_symbol *grown;

	if (!b || !mid || s->count + n > symtab_limits.symbols) {
		free(b);
		free(mid);
		free(names);
		if (s->count + n > symtab_limits.symbols)
			return up_fail(UP_ENOMEM, "more than %zu symbols",
				       symtab_limits.symbols);
		return up_fail(UP_ENOMEM, "out of memory");
	}
	/* The new middle: the old symbols in [lo, hi) merged with add, each
	 * of add replacing the one at its address. */
	for (size_t i = from, j = 0; i < to || j < n;) {
		if (j < n && (i == to || add[j].addr <= s->syms[i].addr)) {
			if (i < to && s->syms[i].addr == add[j].addr)
				i++;
			mid[kept++] = add[j++];
		} else {
			mid[kept++] = s->syms[i++];
		}
	}
	m = from + kept + tail;
	if (m > s->count) {
		grown = realloc(s->syms, m * sizeof(*grown));
		if (!grown) {
			free(b);
			free(mid);
			free(names);
			return up_fail(UP_ENOMEM, "out of memory");
		}
		s->syms = grown;
	}
	memmove(s->syms + from + kept, s->syms + to, tail * sizeof(*s->syms));
	memcpy(s->syms + from, mid, kept * sizeof(*mid));
	free(mid);
	s->count = m;
	b->names = names;
	b->next = s->added;
	s->added = b;
	cache_free(s);             /* its answers are indexes */
	return 0;
}

size_t up_symtab_count(const struct up_symtab *s)
{
	return s->count;
}

enum up_symtab_format up_symtab_format_of(const struct up_symtab *s)
{
	return s->format;
}

const char *up_symtab_warning(const struct up_symtab *s)
{
	return s->warning[0] ? s->warning : NULL;
}

const char *up_symtab_build_id(const struct up_symtab *s)
{
	return s->build_id;
}

unsigned up_symtab_elf_machine(const struct up_symtab *s)
{
	return s->elf_machine;
}

unsigned up_symtab_elf_width(const struct up_symtab *s)
{
	return s->elf_width;
}

const struct up_symbol *up_symtab_symbol(const struct up_symtab *s, size_t i)
{
	return i < s->count ? &s->syms[i] : NULL;
}

/* Symbol i if it holds addr (syms[i].addr <= addr, the last such). */
static const struct up_symbol *holding(const struct up_symtab *s, size_t i,
				       uint64_t addr)
{
	const struct up_symbol *sym = &s->syms[i];

	if (sym->size)
		return addr - sym->addr < sym->size ? sym : NULL;
	if (i + 1 < s->count)
		return sym;                 /* unsized: up to the next symbol */
	/* The last unsized symbol: up to the end of its section (ELF) or the
	 * highest address in the map (nm), else one page. */
	return addr - sym->addr < (s->end > sym->addr ? s->end - sym->addr : 4096) ?
	       sym : NULL;
}

const struct up_symbol *up_symtab_lookup(const struct up_symtab *s,
					 uint64_t addr)
{
	size_t lo = 0, hi;

	if (!s || s->count == 0 || addr < s->syms[0].addr)
		return NULL;
	hi = s->count;
	while (hi - lo > 1) {           /* last symbol with sym.addr <= addr */
		size_t mid = lo + (hi - lo) / 2;

		if (s->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return holding(s, lo, addr);
}

/* The writers' cache: open addressing by address, at most 3/4 full; sym
 * is the symbol's index + 1, 0 for none. Bounded like the source cache's
 * addresses: past the bound, lookups are binary searches again. */
#define LOOKUP_CACHE_MAX (1u << 19)

struct cached {
	uint64_t pc;
	uint32_t sym;
	bool used;
};

struct lookup_cache {
	struct cached *slot;
	size_t nslots, used;
};

static struct cached *cache_slot(const struct lookup_cache *c, uint64_t pc)
{
	size_t i = (size_t)((pc * 0x9e3779b97f4a7c15ULL) >> 20) & (c->nslots - 1);

	while (c->slot[i].used && c->slot[i].pc != pc)
		i = (i + 1) & (c->nslots - 1);
	return &c->slot[i];
}

/* The table's cache with room for one more, or NULL (no memory, full). */
static struct lookup_cache *cache_room(const struct up_symtab *s)
{
	struct lookup_cache *c = s->lookups;
	struct cached *old;
	size_t n;

	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return NULL;
		/* The table is read-only to its users; its caches are not. */
		((struct up_symtab *)s)->lookups = c;
	}
	if (c->used >= LOOKUP_CACHE_MAX)
		return NULL;
	if (c->nslots && (c->used + 1) * 4 < c->nslots * 3)
		return c;
	old = c->slot;
	n = c->nslots;
	c->slot = calloc(n ? n * 2 : 1024, sizeof(*c->slot));
	if (!c->slot) {
		c->slot = old;
		return NULL;
	}
	c->nslots = n ? n * 2 : 1024;
	for (size_t i = 0; i < n; i++)
		if (old[i].used)
			*cache_slot(c, old[i].pc) = old[i];
	free(old);
	return c;
}

static void cache_put(const struct up_symtab *s, uint64_t pc,
		      const struct up_symbol *sym)
{
	struct lookup_cache *c = cache_room(s);
	struct cached *e;

	if (!c)
		return;
	e = cache_slot(c, pc);
	if (e->used)
		return;
	*e = (struct cached){ pc, sym ? (uint32_t)(sym - s->syms) + 1 : 0, true };
	c->used++;
}

static void cache_free(struct up_symtab *s)
{
	if (s->lookups)
		free(s->lookups->slot);
	free(s->lookups);
	s->lookups = NULL;
	text_memo_free(s->labels);
	s->labels = NULL;
}

struct text_memo *symtab_label_memo(const struct up_symtab *s)
{
	/* The table is read-only to its users; its caches are not. */
	/* Without source a label is the symbol's name, found in the lookup
	 * cache and fitted: about what reading it back costs (measured), so
	 * it is not kept twice. */
	if (!s->src)
		return NULL;
	if (!s->labels)
		((struct up_symtab *)s)->labels =
			text_memo_new(LOOKUP_CACHE_MAX, LABEL_MEMO_MAX_BYTES);
	return s->labels;
}

bool symtab_source_settled(const struct up_symtab *s, uint64_t addr,
			   bool is_return)
{
	return !s->src ||
	       srcinfo_settled(s->src, is_return && addr ? addr - 1 : addr);
}

bool symtab_cached(const struct up_symtab *s, uint64_t pc)
{
	return s && s->lookups && s->lookups->nslots &&
	       cache_slot(s->lookups, pc)->used;
}

const struct up_symbol *symtab_lookup_cached(const struct up_symtab *s,
					     uint64_t pc)
{
	const struct up_symbol *sym;

	if (!s || s->count == 0)
		return NULL;
	if (s->lookups && s->lookups->nslots) {
		const struct cached *e = cache_slot(s->lookups, pc);

		if (e->used)
			return e->sym ? &s->syms[e->sym - 1] : NULL;
	}
	sym = up_symtab_lookup(s, pc);
	cache_put(s, pc, sym);
	return sym;
}

void symtab_warm(const struct up_symtab *s, const uint64_t *pcs, size_t n,
		 bool source)
{
	size_t i = 0;     /* the last symbol at or below the pc, as it rises */

	if (!s || s->count == 0)
		return;
	for (size_t k = 0; k < n; k++) {
		uint64_t pc = pcs[k];
		const struct up_symbol *sym = NULL;

		if (pc >= s->syms[0].addr) {
			/* Forward by doubling steps, then halving: a walk of
			 * the table when the addresses are dense in it, a
			 * search when they are sparse. */
			size_t step = 1, hi;

			while (i + step < s->count && s->syms[i + step].addr <= pc) {
				i += step;
				step *= 2;
			}
			hi = i + step < s->count ? i + step : s->count;
			while (hi - i > 1) {
				size_t mid = i + (hi - i) / 2;

				if (s->syms[mid].addr <= pc)
					i = mid;
				else
					hi = mid;
			}
			sym = holding(s, i, pc);
		}
		cache_put(s, pc, sym);
		if (source && sym && s->src)
			srcinfo_warm(s->src, pc);
	}
	if (source && s->src)
		srcinfo_warm_end(s->src);
}

int up_symtab_format(const struct up_symtab *s, uint64_t addr,
		     bool with_offset, char *buf, size_t len)
{
	const struct up_symbol *sym = up_symtab_lookup(s, addr);

	if (!sym)
		return snprintf(buf, len, "0x%llx", (unsigned long long)addr);
	if (with_offset && addr != sym->addr)
		return snprintf(buf, len, "%s+0x%llx", sym->name,
				(unsigned long long)(addr - sym->addr));
	return snprintf(buf, len, "%s", sym->name);
}

bool up_symtab_has_source(const struct up_symtab *s)
{
	return s && s->src;
}

size_t up_symtab_source(const struct up_symtab *s, uint64_t addr,
			bool is_return, struct up_src_frame *out, size_t max)
{
	if (!s || !s->src || !max)
		return 0;
	return srcinfo_lookup(s->src, is_return && addr ? addr - 1 : addr,
			      out, max);
}

const char *up_symtab_source_warning(const struct up_symtab *s)
{
	return s ? srcinfo_warning(s->src) : NULL;
}

/* The table is read-only to its users; its source cache is not. */
void up_symtab_source_new_pass(const struct up_symtab *s)
{
	if (!s)
		return;
	srcinfo_new_pass(s->src);
	/* A table kept between runs keeps no more than one run's lookups. */
	cache_free((struct up_symtab *)s);
}
