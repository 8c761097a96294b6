/* Loading a symbol file: read it whole (util/image_file.c), then pick the
 * loader by its contents, not its name: ELF (elf.c), else an nm map
 * (nm.c). */
#include "config.h"

#include <string.h>

#include "util/image_file.h"
#include "symbols/table_impl.h"
#include "private.h"

int up_symtab_load_mem(struct up_symtab **out, const void *buf, size_t len,
		       const char *what)
{
	if (len >= 4 && memcmp(buf, "\177ELF", 4) == 0)
		return symtab_load_elf(out, buf, len, what);
	return symtab_load_nm(out, buf, len, what);
}

static int load_mem(const uint8_t *buf, size_t len, const char *path,
		    void *out)
{
	return up_symtab_load_mem(out, buf, len, path);
}

int up_symtab_load(struct up_symtab **out, const char *path)
{
	return image_file_parse(path, load_mem, out);
}

static int identify_mem(const uint8_t *buf, size_t len, const char *path,
			void *id)
{
	return up_elf_identify_mem(buf, len, path, id);
}

int up_elf_identify(const char *path, struct up_elf_identity *id)
{
	return image_file_parse(path, identify_mem, id);
}
