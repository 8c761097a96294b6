/* libFuzzer target: symbol loading from an untrusted image or map. The
 * input is an ELF image, an nm/System.map text map (both through
 * up_symtab_load_mem, which tells them apart), or a gzip-compressed file
 * (through up_symtab_load, from a memfd: the path a kernel image takes).
 * ELF input also goes through up_elf_identify_mem. Every loaded table is
 * then looked up and formatted at each symbol's edges, and the table's own
 * promises are checked: addresses sorted, every lookup lands on a symbol
 * that holds the address. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "known_open.h"
#include "uniprof/uniprof.h"

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct up_symtab *s = NULL;
	struct up_elf_identity id;
	int rc;

	up_error_clear();
	if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b)
		rc = load_gzip(&s, data, size);
	else
		rc = up_symtab_load_mem(&s, data, size, "fuzz input");
	if (rc == 0) {
		check_table(s);
		up_symtab_free(s);
	} else if (s || !up_error_last()[0]) {
		abort();                      /* a failure always says why */
	}
	if (up_elf_identify_mem(data, size, "fuzz input", &id) == 0) {
		if (strnlen(id.build_id, sizeof(id.build_id)) == sizeof(id.build_id) ||
		    strnlen(id.debuglink, sizeof(id.debuglink)) == sizeof(id.debuglink) ||
		    strchr(id.debuglink, '/'))
			abort();
	}
	return 0;
}
