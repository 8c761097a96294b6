/* Symbols from an ELF image through libelf: .symtab, else .dynsym; the GNU
 * build-id; machine and class. The file is untrusted: libelf bounds-checks
 * the structures, we check what we index with. */
#include "config.h"

#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/elf_copy.h"
#include "util/error_impl.h"
#include "symbols/srcinfo.h"
#include "symbols/table_impl.h"

static int want_symbol(Elf *elf, const GElf_Sym *sym, const char *name,
		       GElf_Shdr *sec)
{
	unsigned type = GELF_ST_TYPE(sym->st_info);
	Elf_Scn *scn;

	if (!name || !*name || name[0] == '$' || strncmp(name, ".L", 2) == 0)
		return 0;
	if (sym->st_shndx == SHN_UNDEF || sym->st_shndx >= SHN_LORESERVE)
		return 0;
	if (type != STT_FUNC && type != STT_NOTYPE && type != STT_GNU_IFUNC)
		return 0;
	scn = elf_getscn(elf, sym->st_shndx);
	if (!scn || !gelf_getshdr(scn, sec))
		return 0;
	/* Untyped symbols count only where code lives (assembly labels). */
	return type == STT_FUNC || (sec->sh_flags & SHF_EXECINSTR);
}

static int rank_of(const GElf_Sym *sym)
{
	unsigned bind = GELF_ST_BIND(sym->st_info);
	int r = bind == STB_GLOBAL ? 3 : bind == STB_WEAK ? 2 : 1;

	return r * 2 + (GELF_ST_TYPE(sym->st_info) == STT_FUNC);
}

static int read_symbols(struct up_symtab *s, Elf *elf, Elf_Scn *scn,
			const GElf_Shdr *shdr)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n;

	if (!data || shdr->sh_entsize == 0)
		return 0;
	n = shdr->sh_size / shdr->sh_entsize;
	/* Bounded by the file: libelf checked the section lies in it. */
	if (n > data->d_size / shdr->sh_entsize)
		n = data->d_size / shdr->sh_entsize;
	{
		Elf_Scn *str = elf_getscn(elf, shdr->sh_link);
		Elf_Data *names = str ? elf_getdata(str, NULL) : NULL;
		int rc = symtab_reserve(s, n, names ? names->d_size : 0);

		if (rc < 0)
			return rc;
	}
	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Shdr sec;
		const char *name;
		int rc;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		name = elf_strptr(elf, shdr->sh_link, sym.st_name);
		if (!want_symbol(elf, &sym, name, &sec))
			continue;
		rc = symtab_add(s, sym.st_value, sym.st_size, name,
				rank_of(&sym));
		if (rc < 0)
			return rc;
		if (sec.sh_addr + sec.sh_size > s->end)
			s->end = sec.sh_addr + sec.sh_size;
	}
	return 0;
}

/* The GNU build-id note as lowercase hex into out (at least 129 bytes);
 * "" when there is none. */
static void read_build_id(Elf *elf, char *out)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	out[0] = '\0';

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		while ((off = gelf_getnote(data, off, &nh, &name_off,
					   &desc_off)) > 0) {
			const uint8_t *d = (const uint8_t *)data->d_buf;

			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp(d + name_off, "GNU", 4) != 0 ||
			    nh.n_descsz == 0 || nh.n_descsz > 64)
				continue;
			for (size_t i = 0; i < nh.n_descsz; i++)
				snprintf(out + 2 * i, 3, "%02x", d[desc_off + i]);
			return;
		}
	}
}

int symtab_load_elf(struct up_symtab **out, const void *buf, size_t len,
		    const char *what)
{
	struct up_symtab *s;
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr shdr, use;
	GElf_Ehdr ehdr;
	struct elf_copy copy;
	Elf *elf;
	int rc;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return up_fail(UP_EIO, "libelf is out of date");
	/* Headers, symbol and string tables: not the code. */
	rc = elf_copy_headers(&copy, buf, len, true, NULL);
	if (rc < 0)
		return rc;
	elf = elf_memory(copy.bytes, len);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &ehdr)) {
		rc = up_fail(UP_EFORMAT, "%s: not a valid ELF file (%s)", what,
			     elf_errmsg(-1));
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &shdr))
			continue;
		if (shdr.sh_type == SHT_SYMTAB && !symtab)
			symtab = scn;
		else if (shdr.sh_type == SHT_DYNSYM && !dynsym)
			dynsym = scn;
	}
	if (!symtab)
		symtab = dynsym;
	if (!symtab) {
		rc = up_fail(UP_ENOENT,
			     "%s has no symbol table (stripped?): pass the unstripped image or a System.map with -s",
			     what);
		goto out;
	}
	s = symtab_alloc(UP_SYMTAB_ELF);
	if (!s) {
		rc = up_fail(UP_ENOMEM, "out of memory");
		goto out;
	}
	s->elf_machine = ehdr.e_machine;
	s->elf_width = gelf_getclass(elf) == ELFCLASS64 ? 8 : 4;
	gelf_getshdr(symtab, &use);
	rc = read_symbols(s, elf, symtab, &use);
	if (rc == 0)
		rc = symtab_finish(s);
	if (rc == 0 && s->count == 0)
		rc = up_fail(UP_ENOENT, "%s: symbol table holds no functions",
			     what);
	if (rc < 0) {
		up_symtab_free(s);
		goto out;
	}
	{
		char id[129];

		read_build_id(elf, id);
		if (id[0] && !(s->build_id = strdup(id))) {
			up_symtab_free(s);
			rc = up_fail(UP_ENOMEM, "out of memory");
			goto out;
		}
	}
	/* DWARF is read after sampling, from a whole copy of these bytes. */
	if (srcinfo_elf_has_dwarf(elf)) {
		char *whole = malloc(len);

		if (!whole) {
			up_symtab_free(s);
			rc = up_fail(UP_ENOMEM, "out of memory");
			goto out;
		}
		memcpy(whole, buf, len);
		rc = srcinfo_new(&s->src, whole, len);
		if (rc < 0) {
			up_symtab_free(s);
			goto out;
		}
	}
	*out = s;
out:
	if (elf)
		elf_end(elf);
	elf_copy_release(&copy);
	return rc;
}

int up_elf_identify_mem(const void *buf, size_t len, const char *what,
			struct up_elf_identity *id)
{
	Elf_Scn *scn = NULL;
	GElf_Ehdr ehdr;
	GElf_Shdr shdr;
	size_t shstrndx;
	struct elf_copy copy;
	Elf *elf;
	int rc = 0;

	memset(id, 0, sizeof(*id));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return up_fail(UP_EIO, "libelf is out of date");
	if (len < 4 || memcmp(buf, "\177ELF", 4) != 0)
		return up_fail(UP_EFORMAT, "%s is not an ELF file", what);
	/* Headers, notes, names: not the code nor the tables. */
	rc = elf_copy_headers(&copy, buf, len, false, NULL);
	if (rc < 0)
		return rc;
	elf = elf_memory(copy.bytes, len);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &ehdr) ||
	    elf_getshdrstrndx(elf, &shstrndx) != 0) {
		rc = up_fail(UP_EFORMAT, "%s: not a valid ELF file (%s)", what,
			     elf_errmsg(-1));
		goto out;
	}
	id->machine = ehdr.e_machine;
	id->width = gelf_getclass(elf) == ELFCLASS64 ? 8 : 4;
	read_build_id(elf, id->build_id);
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *name;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &shdr))
			continue;
		if (shdr.sh_type == SHT_SYMTAB)
			id->has_symtab = true;
		name = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (!name || strcmp(name, ".gnu_debuglink") != 0 ||
		    shdr.sh_type == SHT_NOBITS)
			continue;
		data = elf_getdata(scn, NULL);
		if (data && data->d_size > 0) {
			size_t n = strnlen(data->d_buf, data->d_size);

			/* A file name only: no directories, no escapes. */
			if (n > 0 && n < sizeof(id->debuglink) &&
			    !memchr(data->d_buf, '/', n)) {
				memcpy(id->debuglink, data->d_buf, n);
				id->debuglink[n] = '\0';
			}
		}
	}
out:
	if (elf)
		elf_end(elf);
	elf_copy_release(&copy);
	return rc;
}
