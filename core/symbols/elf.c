/* Symbols from an ELF image through libelf: .symtab, else .dynsym; the GNU
 * build-id; machine and class. The file is untrusted: libelf bounds-checks
 * the structures, we check what we index with. */
#include "config.h"

#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/elf_copy.h"
#include "util/file_map.h"
#include "util/error_impl.h"
#include "util/grow.h"
#include "symbols/srcinfo.h"
#include "symbols/table_impl.h"

/* What a symbol's section says about it, read once per section rather
 * than once per symbol. */
struct sec_info {
	uint64_t end;      /* sh_addr + sh_size */
	bool ok;           /* libelf gave its header */
	bool exec;         /* SHF_EXECINSTR */
};

/* Every section's (as many as libelf found headers for in the image);
 * NULL, *n 0 when libelf cannot say how many. */
static struct sec_info *section_infos(Elf *elf, size_t *n)
{
	struct sec_info *info;

	*n = 0;
	if (elf_getshdrnum(elf, n) != 0) {
		*n = 0;
		return NULL;
	}
	info = calloc(*n ? *n : 1, sizeof(*info));
	if (!info) {
		*n = 0;
		return NULL;
	}
	for (size_t i = 0; i < *n; i++) {
		Elf_Scn *scn = elf_getscn(elf, i);
		GElf_Shdr sh;

		if (scn && gelf_getshdr(scn, &sh)) {
			info[i].ok = true;
			info[i].exec = sh.sh_flags & SHF_EXECINSTR;
			info[i].end = sh.sh_addr + sh.sh_size;
		}
	}
	return info;
}

static const struct sec_info *want_symbol(const struct sec_info *secs, size_t nsecs,
					  const GElf_Sym *sym, const char *name)
{
	unsigned type = GELF_ST_TYPE(sym->st_info);
	const struct sec_info *sec;

	if (!name || !*name || name[0] == '$' || strncmp(name, ".L", 2) == 0)
		return NULL;
	if (sym->st_shndx == SHN_UNDEF || sym->st_shndx >= SHN_LORESERVE)
		return NULL;
	if (type != STT_FUNC && type != STT_NOTYPE && type != STT_GNU_IFUNC)
		return NULL;
	if (sym->st_shndx >= nsecs || !secs[sym->st_shndx].ok)
		return NULL;
	sec = &secs[sym->st_shndx];
	/* Untyped symbols count only where code lives (assembly labels). */
	return type == STT_FUNC || sec->exec ? sec : NULL;
}

static int rank_of(const GElf_Sym *sym)
{
	unsigned bind = GELF_ST_BIND(sym->st_info);
	int r = bind == STB_GLOBAL ? 3 : bind == STB_WEAK ? 2 : 1;

	return r * 2 + (GELF_ST_TYPE(sym->st_info) == STT_FUNC);
}

/* The string table's bytes when a name can be read from them as
 * elf_strptr would (an uncompressed SHT_STRTAB libelf reads in place),
 * else NULL: elf_strptr is asked for each name. */
static const char *plain_strings(Elf *elf, size_t index, size_t *size)
{
	Elf_Scn *scn = elf_getscn(elf, index);
	GElf_Shdr sh;
	Elf_Data *raw;

	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_STRTAB ||
	    (sh.sh_flags & SHF_COMPRESSED) || !(raw = elf_rawdata(scn, NULL)) ||
	    !raw->d_buf || raw->d_size != sh.sh_size)
		return NULL;
	*size = raw->d_size;
	return raw->d_buf;
}

/* elf_strptr's answer from plain_strings' bytes: a name within them
 * that a NUL ends within them. */
static const char *name_at(const char *strs, size_t size, bool ends_nul, uint64_t off)
{
	if (off >= size)
		return NULL;
	if (ends_nul || memchr(strs + off, '\0', size - off))
		return strs + off;
	return NULL;
}

static int read_symbols(struct up_symtab *s, Elf *elf, Elf_Scn *scn,
			const GElf_Shdr *shdr)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	struct sec_info *secs;
	const char *strs;
	size_t n, nsecs, strs_size = 0;
	bool ends_nul;
	/* libelf's array of the symbols in memory's order: read in place,
	 * within its size, as gelf_getsym would (which copies each). */
	const Elf64_Sym *raw = NULL;
	int rc = 0;

	if (!data || shdr->sh_entsize == 0)
		return 0;
	n = shdr->sh_size / shdr->sh_entsize;
	/* Bounded by the file: libelf checked the section lies in it. */
	if (n > data->d_size / shdr->sh_entsize)
		n = data->d_size / shdr->sh_entsize;
	{
		Elf_Scn *str = elf_getscn(elf, shdr->sh_link);
		Elf_Data *names = str ? elf_getdata(str, NULL) : NULL;

		strs = plain_strings(elf, shdr->sh_link, &strs_size);
		/* Names read in the string table until the table is finished,
		 * not copied first: room for the others only. */
		rc = symtab_reserve(s, n, strs ? 0 : names ? names->d_size : 0);
		if (rc < 0)
			return rc;
	}
	symtab_lend_names(s, strs, strs_size);
	secs = section_infos(elf, &nsecs);
	if (!secs && nsecs)
		return up_fail(UP_ENOMEM, "out of memory");
	ends_nul = strs && strs_size && strs[strs_size - 1] == '\0';
	if (gelf_getclass(elf) == ELFCLASS64 && data->d_type == ELF_T_SYM && data->d_buf &&
	    (uintptr_t)data->d_buf % _Alignof(Elf64_Sym) == 0)
		raw = data->d_buf;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		const struct sec_info *sec;
		const char *name;

		if (raw) {
			if (data->d_size / sizeof(Elf64_Sym) <= i)
				break;
			sym = raw[i];
		} else if (!gelf_getsym(data, (int)i, &sym)) {
			break;
		}
		name = strs ? name_at(strs, strs_size, ends_nul, sym.st_name) :
		       elf_strptr(elf, shdr->sh_link, sym.st_name);
		sec = want_symbol(secs, nsecs, &sym, name);
		if (!sec)
			continue;
		rc = symtab_add(s, sym.st_value, sym.st_size, name,
				rank_of(&sym));
		if (rc < 0)
			break;
		if (sec->end > s->end)
			s->end = sec->end;
	}
	free(secs);
	return rc;
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
	/* DWARF is read after sampling: from the file, mapped again then,
	 * when these bytes are its mapping; else from a whole copy. */
	if (srcinfo_elf_has_dwarf(elf)) {
		struct file_stamp file;
		char *whole;

		if (file_map_stamp(buf, &file) == 0) {
			rc = srcinfo_new_file(&s->src, &file);
		} else if (!(whole = malloc(len))) {
			rc = up_fail(UP_ENOMEM, "out of memory");
		} else {
			advise_filled_whole(whole, len);
			memcpy(whole, buf, len);
			rc = srcinfo_new(&s->src, whole, len);
		}
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
