/* Loading a symbol file: read it whole (bounded, gunzipped), then pick the
 * loader by its contents, not its name: ELF (elf.c), else an nm map
 * (nm.c). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "util/file_read.h"
#include "symbols/table_impl.h"
#include "private.h"

int up_symtab_load_mem(struct up_symtab **out, const void *buf, size_t len,
		       const char *what)
{
	if (len >= 4 && memcmp(buf, "\177ELF", 4) == 0)
		return symtab_load_elf(out, buf, len, what);
	return symtab_load_nm(out, buf, len, what);
}

/* Symbol files: 2 GiB at most, gzip ones at most 32 times their size (at
 * least 64 MiB): ELF code and symbols compress 3-5x, debug info up to
 * ~10x, while a gzip bomb of zeros reaches 1000x. */
static const struct file_read_caps symbol_file_caps = {
	.noun = "symbol file", .max = UP_SYMTAB_MAX_FILE, .gzip_ratio = 32,
	.gzip_min = 64ULL << 20,
};

int symtab_read_file(const char *path, uint8_t **out, size_t *len)
{
	return file_read(path, &symbol_file_caps, out, len);
}

int up_file_read(const char *path, uint8_t **out, size_t *len)
{
	return symtab_read_file(path, out, len);
}

int up_symtab_load(struct up_symtab **out, const char *path)
{
	uint8_t *buf;
	size_t len;
	int rc = symtab_read_file(path, &buf, &len);

	if (rc < 0)
		return rc;
	rc = up_symtab_load_mem(out, buf, len, path);
	free(buf);
	return rc;
}

int up_elf_identify(const char *path, struct up_elf_identity *id)
{
	uint8_t *buf;
	size_t len;
	int rc = symtab_read_file(path, &buf, &len);

	if (rc < 0)
		return rc;
	rc = up_elf_identify_mem(buf, len, path, id);
	free(buf);
	return rc;
}
