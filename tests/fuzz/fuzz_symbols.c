/* libFuzzer target: symbol loading from an untrusted image or map. The
 * input is an ELF image, an nm/System.map text map (both through
 * up_symtab_load_mem, which tells them apart), or a gzip-compressed file
 * (through up_symtab_load, from a memfd: the path a kernel image takes).
 * ELF input also goes through up_elf_identify_mem and the kernel map's
 * loader. Every loaded table is then looked up and formatted at each
 * symbol's edges, and the table's own promises are checked: addresses
 * sorted, every lookup lands on a symbol that holds the address. ELF input
 * is loaded twice, from libelf's whole copy and from the copy of its parts
 * that images past 1 MiB get (core/util/elf_copy.c, its limits lowered for
 * these small inputs): both must refuse it or give the same results. */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "known_open.h"
#include "util/elf_copy.h"
#include "uniprof/uniprof.h"
#include "private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_table(const struct up_symtab *s)
{
	size_t n = up_symtab_count(s);
	char buf[600];

	for (size_t i = 0; i < n; i++) {
		const struct up_symbol *sym = up_symtab_symbol(s, i);
		const struct up_symbol *hit;

		if (!sym || !sym->name)
			abort();
		if (i && sym->addr < up_symtab_symbol(s, i - 1)->addr)
			abort();              /* lookups binary-search this order */
		hit = up_symtab_lookup(s, sym->addr);
		if (!hit && KNOWN_OPEN_E1_TOP_PAGE && i + 1 == n && !sym->size &&
		    sym->addr > UINT64_MAX - 4096)
			hit = sym;
		if (!hit || sym->addr < hit->addr ||
		    (hit->size && sym->addr - hit->addr >= hit->size))
			abort();              /* a symbol's own address misses */
		up_symtab_lookup(s, sym->addr - 1);
		up_symtab_lookup(s, sym->addr + sym->size);
		if (up_symtab_format(s, sym->addr + 1, true, buf, sizeof(buf)) < 0)
			abort();
		up_symtab_format(s, sym->addr, false, buf, 8);
	}
	up_symtab_lookup(s, 0);
	up_symtab_lookup(s, UINT64_MAX);
	(void)up_symtab_build_id(s);
	(void)up_symtab_elf_machine(s);
	(void)up_symtab_elf_width(s);
	(void)up_symtab_format_of(s);
}

/* gzip input: the file loader (zlib) is the only way in. */
static int load_gzip(struct up_symtab **out, const uint8_t *data, size_t size)
{
	char path[64];
	int fd = memfd_create("fuzz-symbols", 0), rc;

	if (fd < 0)
		abort();
	if (write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	rc = up_symtab_load(out, path);
	close(fd);
	return rc;
}

/* What one way of copying the input gave. */
struct loaded {
	int rc, id_rc, map_rc;
	struct up_symtab *s;
	struct up_elf_identity id;
	struct up_kernel_map *k;
};

static void load(struct loaded *l, const uint8_t *data, size_t size)
{
	memset(l, 0, sizeof(*l));
	up_error_clear();
	if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b)
		l->rc = load_gzip(&l->s, data, size);
	else
		l->rc = up_symtab_load_mem(&l->s, data, size, "fuzz input");
	if (l->rc == 0)
		check_table(l->s);
	else if (l->s || !up_error_last()[0])
		abort();                      /* a failure always says why */
	l->id_rc = up_elf_identify_mem(data, size, "fuzz input", &l->id);
	if (l->id_rc == 0) {
		if (strnlen(l->id.build_id, sizeof(l->id.build_id)) == sizeof(l->id.build_id) ||
		    strnlen(l->id.debuglink, sizeof(l->id.debuglink)) == sizeof(l->id.debuglink) ||
		    strchr(l->id.debuglink, '/'))
			abort();
	}
	l->map_rc = up_kernel_map_load_mem(&l->k, data, size, "fuzz input", l->s);
}

static void unload(struct loaded *l)
{
	up_symtab_free(l->s);
	if (l->map_rc == 0)
		up_kernel_map_free(l->k);
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* The part copy reads what the whole does: same results. */
static void compare(const struct loaded *a, const struct loaded *b)
{
	if (a->rc != b->rc || a->id_rc != b->id_rc || a->map_rc != b->map_rc)
		abort();
	if (a->rc == 0) {
		size_t n = up_symtab_count(a->s);

		if (n != up_symtab_count(b->s) ||
		    !same_str(up_symtab_build_id(a->s), up_symtab_build_id(b->s)) ||
		    !same_str(up_symtab_warning(a->s), up_symtab_warning(b->s)) ||
		    up_symtab_has_source(a->s) != up_symtab_has_source(b->s))
			abort();
		for (size_t i = 0; i < n; i++) {
			const struct up_symbol *x = up_symtab_symbol(a->s, i);
			const struct up_symbol *y = up_symtab_symbol(b->s, i);

			if (x->addr != y->addr || x->size != y->size || strcmp(x->name, y->name))
				abort();
		}
	}
	if (a->id_rc == 0 &&
	    (strcmp(a->id.build_id, b->id.build_id) || strcmp(a->id.debuglink, b->id.debuglink) ||
	     a->id.machine != b->id.machine || a->id.width != b->id.width ||
	     a->id.has_symtab != b->id.has_symtab))
		abort();
	if (a->map_rc == 0 &&
	    (up_kernel_map_text_ranges(a->k) != up_kernel_map_text_ranges(b->k) ||
	     up_kernel_map_entries(a->k) != up_kernel_map_entries(b->k) ||
	     up_kernel_map_hypercall_page(a->k) != up_kernel_map_hypercall_page(b->k)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct elf_copy_limits whole = { SIZE_MAX, false }, parts = { 0, true };
	struct loaded a, b;

	elf_copy_limits = whole;
	load(&a, data, size);
	if (size >= 4 && memcmp(data, "\177ELF", 4) == 0) {
		elf_copy_limits = parts;
		load(&b, data, size);
		compare(&a, &b);
		unload(&b);
	}
	unload(&a);
	return 0;
}
