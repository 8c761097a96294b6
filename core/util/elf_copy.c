/* The copy of an image libelf parses (see elf_copy.h). The headers are
 * read here by hand only to find which bytes to copy: libelf parses the
 * copy, and each range is cut to the image, so a hostile header can only
 * leave bytes out that libelf then finds missing as it would anyway. */
#include "config.h"

#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "util/elf_copy.h"
#include "util/file_map.h"
#include "util/error_impl.h"

/* Below 1 MiB a copy of the whole is cheaper than picking its parts. */
struct elf_copy_limits elf_copy_limits = { 1u << 20, false };

/* Copy a part, cut to the image; or, before the copy is made (bytes
 * NULL), count its size. */
static void copy_range(struct elf_copy *c, const uint8_t *buf, uint64_t off,
		       uint64_t size, uint64_t *counted)
{
	if (off >= c->len)
		return;
	if (size > c->len - off)
		size = c->len - off;
	if (c->bytes)
		memcpy(c->bytes + off, buf + off, (size_t)size);
	else
		*counted += size;
}

/* Whether section s is named name, read within the names' section. */
static bool named(const uint8_t *buf, size_t len, const Elf64_Shdr *names,
		  const Elf64_Shdr *s, const char *name)
{
	size_t n = strlen(name) + 1;

	if (!names || names->sh_type == SHT_NOBITS || names->sh_offset > len ||
	    names->sh_size > len - names->sh_offset || s->sh_name >= names->sh_size ||
	    names->sh_size - s->sh_name < n)
		return false;
	return memcmp(buf + names->sh_offset + s->sh_name, name, n) == 0;
}

/* The parts (elf_copy.h), or with bytes NULL their size in *counted;
 * false when the headers cannot be read plainly. */
static bool copy_parts(struct elf_copy *c, const uint8_t *buf, bool tables,
		       const char *const *also, uint64_t *counted)
{
	Elf64_Ehdr eh;
	Elf64_Shdr names_hdr, *names = NULL;

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	return false;
#endif
	if (c->len < sizeof(eh))
		return false;
	memcpy(&eh, buf, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_shnum == 0 ||
	    eh.e_shstrndx == SHN_XINDEX || eh.e_phnum == PN_XNUM ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) ||
	    (eh.e_phnum && eh.e_phentsize != sizeof(Elf64_Phdr)) ||
	    eh.e_shoff > c->len || eh.e_phoff > c->len ||
	    (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr) > c->len - eh.e_shoff ||
	    (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr) > c->len - eh.e_phoff)
		return false;
	copy_range(c, buf, 0, sizeof(eh), counted);
	copy_range(c, buf, eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr), counted);
	copy_range(c, buf, eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr), counted);
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, buf + eh.e_phoff + (uint64_t)i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_NOTE)
			copy_range(c, buf, ph.p_offset, ph.p_filesz, counted);
	}
	if (eh.e_shstrndx < eh.e_shnum) {
		memcpy(&names_hdr, buf + eh.e_shoff + (uint64_t)eh.e_shstrndx * sizeof(names_hdr),
		       sizeof(names_hdr));
		names = &names_hdr;
	}
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		Elf64_Shdr sh;

		memcpy(&sh, buf + eh.e_shoff + (uint64_t)i * sizeof(sh), sizeof(sh));
		if (sh.sh_type == SHT_NOBITS)
			continue;
		bool want = sh.sh_type == SHT_NOTE || i == eh.e_shstrndx ||
			    (tables && sh.sh_type != SHT_PROGBITS) ||
			    ((sh.sh_flags & SHF_ALLOC) && eh.e_entry >= sh.sh_addr &&
			     eh.e_entry - sh.sh_addr < sh.sh_size) ||
			    named(buf, c->len, names, &sh, ".gnu_debuglink");

		for (const char *const *n = also; !want && n && *n; n++)
			want = named(buf, c->len, names, &sh, *n);
		if (want)
			copy_range(c, buf, sh.sh_offset, sh.sh_size, counted);
	}
	return true;
}

/* Bytes mapped from a file (file_map.h): a private mapping of the same
 * file is the whole image for the cost of the pages read. */
static bool map_again(struct elf_copy *c, const void *buf)
{
	uint8_t *mapped;

	if (!c->len || file_map_again(buf, c->len, &mapped) != 1)
		return false;
	c->bytes = (char *)mapped;
	c->file = true;
	return true;
}

static int copy_whole(struct elf_copy *c, const void *buf)
{
	c->bytes = malloc(c->len ? c->len : 1);
	if (!c->bytes)
		return up_fail(UP_ENOMEM, "out of memory");
	memcpy(c->bytes, buf, c->len);
	return 0;
}

int elf_copy_headers(struct elf_copy *c, const void *buf, size_t len,
		     bool tables, const char *const *also)
{
	uint64_t parts = 0;

	memset(c, 0, sizeof(*c));
	c->len = len;
	if (map_again(c, buf))
		return 0;
	/* Parts that are most of the image: a whole copy, into memory the
	 * allocator has already touched, costs less than a fault a page. */
	if (len >= elf_copy_limits.parts_from &&
	    copy_parts(c, buf, tables, also, &parts) &&
	    (parts < len / 2 || elf_copy_limits.any_share)) {
		void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p != MAP_FAILED) {
			c->bytes = p;
			c->mapped = true;
			copy_parts(c, buf, tables, also, &parts);
			return 0;
		}
	}
	return copy_whole(c, buf);
}

int elf_copy_all(struct elf_copy *c, const void *buf, size_t len)
{
	memset(c, 0, sizeof(*c));
	c->len = len;
	return map_again(c, buf) ? 0 : copy_whole(c, buf);
}

void elf_copy_whole(struct elf_copy *c, const void *buf)
{
	if (c->mapped)
		memcpy(c->bytes, buf, c->len);
}

void elf_copy_release(struct elf_copy *c)
{
	if (c->file)
		file_map_release(c->bytes);
	else if (c->mapped)
		munmap(c->bytes, c->len);
	else
		free(c->bytes);
	memset(c, 0, sizeof(*c));
}
