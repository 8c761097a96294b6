/* The kernel map (see include/uniprof/sys/kernel.h): read from the image's
 * program headers and Xen notes with libelf, before sampling; the walks
 * then ask it a binary search or two per frame. */
#include "config.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <xen/elfnote.h>

#include "arch/arch.h"
#include "util/elf_copy.h"
#include "util/error_impl.h"
#include "util/image_file.h"
#include "unwind/kernel_map.h"
#include "symbols/table_impl.h"
#include "mem/memory.h"

int up_kernel_map_new(struct up_kernel_map **out)
{
	struct up_kernel_map *k = calloc(1, sizeof(*k));

	if (!k)
		return up_fail(UP_ENOMEM, "out of memory");
	*out = k;
	return 0;
}

void up_kernel_map_free(struct up_kernel_map *k)
{
	if (k)
		free(k->image);
	free(k);
}

static int range_cmp(const void *a, const void *b)
{
	const struct kernel_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Insert keeping the array sorted; overlapping ranges stay separate (a
 * lookup finds any of them). */
static int add_range(struct kernel_range *r, size_t *n, size_t max,
		     uint64_t lo, uint64_t hi, const char *what)
{
	if (hi <= lo)
		return up_fail(UP_EINVAL, "empty %s range %#llx-%#llx", what,
			       (unsigned long long)lo, (unsigned long long)hi);
	if (*n >= max)
		return up_fail(UP_EINVAL, "more than %zu %s ranges", max, what);
	r[(*n)++] = (struct kernel_range){ lo, hi };
	qsort(r, *n, sizeof(*r), range_cmp);
	return 0;
}

static bool in_ranges(const struct kernel_range *r, size_t n, uint64_t a)
{
	/* Few ranges (segments, entry functions): a linear scan after the
	 * binary search for the last range starting at or below a. */
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;)
		if (a < r[i].hi)
			return true;
	return false;
}

int up_kernel_map_add_text(struct up_kernel_map *k, uint64_t lo, uint64_t hi)
{
	return add_range(k->text, &k->nr_text, UP_KERNEL_MAX_TEXT, lo, hi, "code");
}

int up_kernel_map_add_entry(struct up_kernel_map *k, uint64_t lo, uint64_t hi)
{
	/* An unsized entry symbol runs to the next symbol, which may be past
	 * the hypercall page (Mini-OS's and Unikraft's follow _start): the
	 * page is never an outermost function. */
	if (k->hypercall_page && lo < k->hypercall_page && hi > k->hypercall_page)
		hi = k->hypercall_page;
	return add_range(k->entry, &k->nr_entry, UP_KERNEL_MAX_ENTRIES, lo, hi,
			 "entry");
}

/* The function holding addr, as far as symtab tells: sized symbols are
 * exact, unsized ones run to the next symbol. */
static bool function_at(const struct up_symtab *s, uint64_t addr,
			uint64_t *lo, uint64_t *hi)
{
	const struct up_symbol *sym = s ? up_symtab_lookup(s, addr) : NULL;
	size_t n = s ? up_symtab_count(s) : 0;

	if (!sym)
		return false;
	*lo = sym->addr;
	if (sym->size) {
		*hi = sym->addr + sym->size;
	} else {
		const struct up_symbol *next = NULL;

		for (size_t i = 0; i + 1 < n; i++)
			if (up_symtab_symbol(s, i) == sym) {
				next = up_symtab_symbol(s, i + 1);
				break;
			}
		*hi = next ? next->addr : sym->addr + 1;
	}
	return *hi > *lo;
}

int up_kernel_map_add_entry_symbol(struct up_kernel_map *k,
				   const struct up_symtab *symtab,
				   const char *name)
{
	size_t n = symtab ? up_symtab_count(symtab) : 0;

	for (size_t i = 0; i < n; i++) {
		const struct up_symbol *sym = up_symtab_symbol(symtab, i);
		uint64_t lo, hi;

		if (strcmp(sym->name, name) != 0)
			continue;
		if (!function_at(symtab, sym->addr, &lo, &hi))
			break;
		return up_kernel_map_add_entry(k, lo, hi);
	}
	return up_fail(UP_ENOENT, "no function named '%s' in the symbols", name);
}

void up_kernel_map_set_hypercall_page(struct up_kernel_map *k, uint64_t va)
{
	k->hypercall_page = va;
}

uint64_t up_kernel_map_hypercall_page(const struct up_kernel_map *k)
{
	return k ? k->hypercall_page : 0;
}

void up_kernel_map_set_frame_pointers(struct up_kernel_map *k,
				      enum up_frame_pointers fp)
{
	k->frame_pointers = fp;
}

enum up_frame_pointers up_kernel_map_frame_pointers(const struct up_kernel_map *k)
{
	return k ? k->frame_pointers : UP_FP_UNKNOWN;
}

bool up_kernel_map_in_text(const struct up_kernel_map *k, uint64_t addr)
{
	return !k || !k->nr_text || in_ranges(k->text, k->nr_text, addr);
}

void up_kernel_map_set_functions(struct up_kernel_map *k,
				 const struct up_symtab *s)
{
	k->functions = s;
}

bool up_kernel_map_same_function(const struct up_kernel_map *k, uint64_t a,
				 uint64_t b)
{
	const struct up_symbol *fa;

	/* Only with the image's code ranges: an nm map's last symbol would
	 * otherwise reach over data, where static stacks live, and a
	 * changed saved stack pointer would pass for a return address. */
	if (!k || !k->functions || !k->nr_text ||
	    !in_ranges(k->text, k->nr_text, a) ||
	    !in_ranges(k->text, k->nr_text, b))
		return false;
	fa = up_symtab_lookup(k->functions, a);
	return fa && fa == up_symtab_lookup(k->functions, b);
}

bool up_kernel_map_is_entry(const struct up_kernel_map *k, uint64_t pc)
{
	return k && k->nr_entry && in_ranges(k->entry, k->nr_entry, pc);
}

size_t up_kernel_map_text_ranges(const struct up_kernel_map *k)
{
	return k->nr_text;
}

bool up_kernel_map_text_span(const struct up_kernel_map *k, uint64_t *lo,
			     uint64_t *hi)
{
	if (!k || !k->nr_text)
		return false;
	*lo = k->text[0].lo;
	*hi = k->text[0].hi;
	for (size_t i = 1; i < k->nr_text; i++) {
		if (k->text[i].lo < *lo)
			*lo = k->text[i].lo;
		if (k->text[i].hi > *hi)
			*hi = k->text[i].hi;
	}
	return true;
}

size_t up_kernel_map_entries(const struct up_kernel_map *k)
{
	return k->nr_entry;
}

size_t up_kernel_map_segments(const struct up_kernel_map *k)
{
	return k ? k->nr_seg : 0;
}

const struct up_kernel_segment *up_kernel_map_segment(const struct up_kernel_map *k,
						      size_t i)
{
	return k && i < k->nr_seg ? &k->seg[i] : NULL;
}

const char *up_kernel_map_image(const struct up_kernel_map *k)
{
	return k ? k->image : NULL;
}

/* A Xen note's value: 4 or 8 bytes, little-endian. */
static bool note_value(const uint8_t *d, size_t n, uint64_t *v)
{
	if (n != 4 && n != 8)
		return false;
	*v = 0;
	for (size_t i = 0; i < n; i++)
		*v |= (uint64_t)d[i] << (8 * i);
	return true;
}

static void read_notes(Elf_Data *data, uint64_t *entry, uint64_t *hypercall)
{
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off;

	while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		const uint8_t *d = data->d_buf;
		uint64_t v;

		if (nh.n_namesz != 4 || memcmp(d + name_off, "Xen", 4) != 0 ||
		    !note_value(d + desc_off, nh.n_descsz, &v))
			continue;
		if (nh.n_type == XEN_ELFNOTE_ENTRY)
			*entry = v;
		else if (nh.n_type == XEN_ELFNOTE_HYPERCALL_PAGE)
			*hypercall = v;
	}
}

/* An architecture's boot header at the entry point (arm64's Image
 * header) jumps to the real entry: read it from the section that holds it. */
static uint64_t boot_header_target(Elf *elf, const GElf_Ehdr *eh)
{
	const struct arch *a = arch_of_elf_machine(eh->e_machine);
	Elf_Scn *scn = NULL;

	if (!a || !a->boot_header_target || !eh->e_entry)
		return 0;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;
		uint64_t off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_ALLOC) || eh->e_entry < sh.sh_addr ||
		    eh->e_entry - sh.sh_addr >= sh.sh_size)
			continue;
		off = eh->e_entry - sh.sh_addr;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || off > d->d_size)
			return 0;
		return a->boot_header_target((const uint8_t *)d->d_buf + off,
					     d->d_size - off, eh->e_entry);
	}
	return 0;
}

static int parse(struct up_kernel_map *k, Elf *elf, const char *what,
		 const struct up_symtab *symtab)
{
	GElf_Ehdr eh;
	size_t nph = 0;
	uint64_t xen_entry = 0, hypercall = 0, boot, lo, hi;
	Elf_Scn *scn = NULL;
	int rc;

	if (!gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &nph) != 0)
		return up_fail(UP_EFORMAT, "%s: not a valid ELF file (%s)", what,
			       elf_errmsg(-1));
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && ph.p_memsz &&
		    ph.p_vaddr + ph.p_memsz > ph.p_vaddr) {
			rc = up_kernel_map_add_text(k, ph.p_vaddr,
						    ph.p_vaddr + ph.p_memsz);
			if (rc < 0)
				return rc;
			/* As many as text ranges: add_text refused more. */
			k->seg[k->nr_seg++] = (struct up_kernel_segment){
				ph.p_vaddr, ph.p_vaddr + ph.p_memsz, ph.p_offset };
		}
		if (ph.p_type == PT_NOTE) {
			Elf_Data *d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset,
							   ph.p_filesz, ELF_T_NHDR);

			if (d)
				read_notes(d, &xen_entry, &hypercall);
		}
	}
	/* Images with sections but no notes segment (debug files). */
	while (!hypercall && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOTE &&
		    (d = elf_getdata(scn, NULL)) != NULL)
			read_notes(d, &xen_entry, &hypercall);
	}
	if (!hypercall && symtab) {
		for (size_t i = 0; i < up_symtab_count(symtab); i++) {
			const struct up_symbol *s = up_symtab_symbol(symtab, i);

			/* The first byte before the call: 100,000 calls of
			 * strcmp took 12 ms of a start-up in a PV dom0. */
			if (s->name[0] == 'h' && strcmp(s->name, "hypercall_page") == 0) {
				hypercall = s->addr;
				break;
			}
		}
	}
	/* Xen fills a whole page: anything else is not a hypercall page. */
	k->hypercall_page = hypercall % UP_PAGE_SIZE == 0 ? hypercall : 0;
	/* The entry points' functions are outermost frames. Entry 0 is one
	 * too where code is linked at 0 (Mini-OS's and Unikraft's _start). */
	if ((eh.e_entry || (k->nr_text && in_ranges(k->text, k->nr_text, 0))) &&
	    function_at(symtab, eh.e_entry, &lo, &hi) &&
	    (rc = up_kernel_map_add_entry(k, lo, hi)) < 0)
		return rc;
	if (xen_entry && xen_entry != eh.e_entry &&
	    function_at(symtab, xen_entry, &lo, &hi) &&
	    (rc = up_kernel_map_add_entry(k, lo, hi)) < 0)
		return rc;
	boot = boot_header_target(elf, &eh);
	if (boot && function_at(symtab, boot, &lo, &hi) &&
	    (rc = up_kernel_map_add_entry(k, lo, hi)) < 0)
		return rc;
	return 0;
}

int up_kernel_map_load_mem(struct up_kernel_map **out, const void *buf,
			   size_t len, const char *what,
			   const struct up_symtab *symtab)
{
	struct up_kernel_map *k;
	struct elf_copy copy;
	Elf *elf;
	int rc;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return up_fail(UP_EIO, "libelf is out of date");
	if (len < 4 || memcmp(buf, "\177ELF", 4) != 0)
		return up_fail(UP_EFORMAT, "%s is not an ELF file", what);
	rc = up_kernel_map_new(&k);
	if (rc < 0)
		return rc;
	/* Headers, notes, the entry's section: not the rest. */
	rc = elf_copy_headers(&copy, buf, len, false, NULL);
	if (rc < 0) {
		free(k);
		return rc;
	}
	elf = elf_memory(copy.bytes, len);
	rc = elf && elf_kind(elf) == ELF_K_ELF ? parse(k, elf, what, symtab) :
		up_fail(UP_EFORMAT, "%s: not a valid ELF file", what);
	if (elf)
		elf_end(elf);
	elf_copy_release(&copy);
	if (rc == 0 && what && !(k->image = strdup(what)))
		rc = up_fail(UP_ENOMEM, "out of memory");
	if (rc < 0) {
		up_kernel_map_free(k);
		return rc;
	}
	*out = k;
	return 0;
}

struct load_arg {
	struct up_kernel_map **out;
	const struct up_symtab *symtab;
};

static int load_mem(const uint8_t *buf, size_t len, const char *path,
		    void *arg)
{
	struct load_arg *a = arg;

	return up_kernel_map_load_mem(a->out, buf, len, path, a->symtab);
}

int up_kernel_map_load(struct up_kernel_map **out, const char *path,
		       const struct up_symtab *symtab)
{
	struct load_arg a = { out, symtab };

	return image_file_parse(path, load_mem, &a);
}

bool kernel_in_hypercall(struct up_mem *m, const struct up_regs *regs,
			 const struct up_kernel_map *k, uint64_t ip)
{
	const struct arch *a = arch_get(regs->arch);

	return a && a->in_hypercall && a->in_hypercall(m, regs, k, ip);
}

bool kernel_at_block(struct up_mem *m, const struct up_regs *regs,
		     const struct up_kernel_map *k, enum up_domain_type type)
{
	const struct arch *a = arch_get(regs->arch);

	return k && a && a->at_block && a->at_block(m, regs, k, type);
}

bool kernel_can_tell_block(const struct up_regs *regs)
{
	const struct arch *a = arch_get(regs->arch);

	return a && a->at_block;
}

int kernel_hypercall_step(struct up_mem *m, const struct up_regs *regs,
			  const struct up_kernel_map *k,
			  enum up_domain_type type, uint64_t *ip, uint64_t *sp,
			  enum up_trunc *trunc)
{
	const struct arch *a = arch_get(regs->arch);

	if (!a || !a->hypercall_step) {
		*trunc = UP_TRUNC_HYPERCALL_STUB;
		return -1;
	}
	return a->hypercall_step(m, regs, k, type, ip, sp, trunc);
}

int kernel_interrupted_step(struct up_mem *m, const struct up_regs *regs,
			    const struct up_kernel_map *k,
			    enum up_domain_type type, uint64_t *ip, uint64_t *sp,
			    uint64_t *fp, bool fp_held)
{
	const struct arch *a = arch_get(regs->arch);
	uint64_t f = fp_held ? *fp : UP_FP_NOT_HELD;
	int rc;

	if (!k || !a || !a->interrupted_step)
		return -1;
	rc = a->interrupted_step(m, regs, k, type, ip, sp, &f);
	if (rc == 1)
		*fp = f;
	return rc;
}

bool kernel_after_call(struct up_mem *m, const struct up_regs *regs,
		       const struct up_kernel_map *k, uint64_t ra)
{
	const struct arch *a = arch_get(regs->arch);
	int rc;

	/* An architecture that cannot tell does not cut. */
	if (!a || !a->after_call)
		return true;
	rc = a->after_call(m, regs, ra);
	/* Code the guest has unmapped is not returned to (Mini-OS unmaps
	 * its first page, boot code and all); without a kernel map the
	 * bytes' absence says nothing. */
	return rc < 0 ? !k : rc == 1;
}
