#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest.h"
#include "target/image.h"

#define PTE_P 1ULL
#define PTE_W 2ULL
#define PTE_PS (1ULL << 7)

static void die(const char *what)
{
	fprintf(stderr, "test guest: %s: %s\n", what, up_error_last());
	abort();
}

void tg_init(struct test_guest *g, enum up_domain_type type)
{
	memset(g, 0, sizeof(*g));
	if (up_image_new(&g->img, type) < 0)
		die("image");
	g->kind = type == UP_DOMAIN_PV ? UP_FRAME_MFN : UP_FRAME_GFN;
	/* Machine frames far from guest frames, to catch a mix-up. */
	g->next_frame = type == UP_DOMAIN_PV ? 0x80000 : 0x100;
	g->root = tg_alloc(g);
}

void tg_release(struct test_guest *g)
{
	up_image_free(g->img);
	free(g->pages);
	memset(g, 0, sizeof(*g));
}

uint64_t tg_alloc(struct test_guest *g)
{
	uint64_t f = g->next_frame++;

	tg_data(g, f);
	return f;
}

uint8_t *tg_data(struct test_guest *g, uint64_t frame)
{
	uint8_t *d;

	if (up_image_frame(g->img, g->kind, frame, &d) < 0)
		die("frame");
	return d;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* The table at `level` (4 = PML4 ... 1 = PT) covering va, creating tables. */
static uint64_t table_for(struct test_guest *g, uint64_t va, int level)
{
	uint64_t table = g->root;

	for (int l = 4; l > level; l--) {
		unsigned idx = (va >> (12 + 9 * (l - 1))) & 511;
		uint8_t *e = tg_data(g, table) + idx * 8;
		uint64_t pte = get64(e);

		if (!(pte & PTE_P)) {
			uint64_t f = tg_alloc(g);

			e = tg_data(g, table) + idx * 8;
			pte = f << 12 | PTE_P | PTE_W;
			put64(e, pte);
		}
		table = (pte & 0x000ffffffffff000ULL) >> 12;
	}
	return table;
}

static void set_entry(struct test_guest *g, uint64_t va, int level,
		      uint64_t pte)
{
	uint64_t table = table_for(g, va, level);
	unsigned idx = (va >> (12 + 9 * (level - 1))) & 511;

	put64(tg_data(g, table) + idx * 8, pte);
}

void tg_map_4k(struct test_guest *g, uint64_t va, uint64_t frame)
{
	set_entry(g, va, 1, frame << 12 | PTE_P | PTE_W);
	g->pages = realloc(g->pages, (g->nr_pages + 1) * sizeof(*g->pages));
	g->pages[g->nr_pages].vpage = va >> 12;
	g->pages[g->nr_pages].frame = frame;
	g->nr_pages++;
}

void tg_map_2m(struct test_guest *g, uint64_t va, uint64_t frame)
{
	set_entry(g, va, 2, frame << 12 | PTE_P | PTE_W | PTE_PS);
}

void tg_map_1g(struct test_guest *g, uint64_t va, uint64_t frame)
{
	set_entry(g, va, 3, frame << 12 | PTE_P | PTE_W | PTE_PS);
}

void tg_map_fresh(struct test_guest *g, uint64_t va, unsigned npages)
{
	for (unsigned i = 0; i < npages; i++)
		tg_map_4k(g, va + i * 4096ULL, tg_alloc(g));
}

void tg_poke64(struct test_guest *g, uint64_t va, uint64_t val)
{
	for (size_t i = g->nr_pages; i-- > 0;) {
		if (g->pages[i].vpage == va >> 12) {
			uint8_t *d = tg_data(g, g->pages[i].frame);

			if ((va & 4095) > 4088)
				abort();
			put64(d + (va & 4095), val);
			return;
		}
	}
	fprintf(stderr, "test guest: poke at unmapped %#llx\n",
		(unsigned long long)va);
	abort();
}

struct up_regs tg_regs(const struct test_guest *g, uint64_t ip, uint64_t sp,
		       uint64_t fp)
{
	struct up_regs r = {
		.ip = ip, .sp = sp, .fp = fp, .cr3 = g->root << 12,
		.paging = UP_PAGING_X86_64, .frame_kind = g->kind,
		.guest_width = 8, .online = true, .kernel_mode = true,
	};

	return r;
}

uint64_t tg_fp_chain(struct test_guest *g, uint64_t sp, const uint64_t *ret,
		     unsigned n)
{
	uint64_t fp = sp + 16;

	for (unsigned i = 0; i < n; i++) {
		uint64_t next = i + 1 < n ? fp + 32 : 0;

		tg_poke64(g, fp, next);
		tg_poke64(g, fp + 8, ret[i]);
		fp = next;
	}
	return n ? sp + 16 : 0;
}

struct up_target *tg_open(struct test_guest *g)
{
	struct up_target *t;
	void *buf;
	size_t len;

	if (up_image_serialize(g->img, &buf, &len) < 0)
		die("serialize");
	if (up_target_open_image_mem(&t, buf, len) < 0)
		die("open");
	free(buf);
	return t;
}

unsigned long tg_shell_hex(const char *fmt, const char *elf, const char *a,
			   const char *b)
{
	char cmd[8192];
	unsigned long v = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), fmt, elf, a, b);
	f = popen(cmd, "r");
	if (f) {
		if (fscanf(f, "%lx", &v) != 1)
			v = 0;
		pclose(f);
	}
	return v;
}

unsigned long tg_elf_symbol(const char *elf, const char *name)
{
	return tg_shell_hex("nm '%s' | awk '$3 == \"%s\" { print $1 }'%s", elf, name, "");
}

uint8_t *tg_padded_file(const char *path, size_t pad, int fill, uint8_t **small,
			size_t *len)
{
	uint8_t *big;

	if (up_file_read(path, small, len) < 0)
		return NULL;
	big = malloc(*len + pad);
	if (!big) {
		free(*small);
		return NULL;
	}
	memcpy(big, *small, *len);
	memset(big + *len, fill, pad);
	return big;
}

uint8_t *tg_spoilt_image(const uint8_t *img, size_t len, size_t n, size_t *size)
{
	size_t at;
	uint8_t *out;

	*size = n <= len ? n : len;
	at = n - *size;
	out = malloc(*size ? *size : 1);
	if (!out)
		return NULL;
	memcpy(out, img, *size);
	if (n > len)
		memset(out + at, 0xff, len - at < 32 ? len - at : 32);
	return out;
}

struct up_target *tg_two_vcpus(struct test_guest *g, bool second_online,
			       bool second_blocked)
{
	uint64_t ret0[2] = { 0x1111, 0x2222 }, ret1[1] = { 0x3333 };
	uint64_t fp0, fp1;
	struct up_regs r;

	tg_init(g, UP_DOMAIN_PV);
	tg_map_fresh(g, TG_STACK_VA, 2);
	fp0 = tg_fp_chain(g, TG_STACK_VA, ret0, 2);
	fp1 = tg_fp_chain(g, TG_STACK_VA + 0x800, ret1, 1);
	r = tg_regs(g, 0xaaaa, TG_STACK_VA, fp0);
	up_image_add_vcpu(g->img, &r);
	r = tg_regs(g, 0xbbbb, TG_STACK_VA + 0x800, fp1);
	r.online = second_online;
	up_image_add_vcpu(g->img, &r);
	if (second_blocked)
		up_image_set_blocked(g->img, 1, true);
	return tg_open(g);
}

char *tg_folded(const struct up_profile *p, const struct up_output_opts *opts)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		die("open_memstream");
	up_profile_write_folded(p, NULL, opts, f);
	fclose(f);
	return buf;
}

uint8_t *tg_elf_loads(const struct tg_load *loads, size_t n, size_t *len)
{
	size_t size = sizeof(Elf64_Ehdr) + n * sizeof(Elf64_Phdr);
	Elf64_Ehdr eh = { .e_type = ET_EXEC, .e_machine = EM_X86_64,
			  .e_version = EV_CURRENT, .e_phoff = sizeof(Elf64_Ehdr),
			  .e_ehsize = sizeof(Elf64_Ehdr),
			  .e_phentsize = sizeof(Elf64_Phdr), .e_phnum = (Elf64_Half)n };
	uint8_t *b;

	for (size_t i = 0; i < n; i++)
		if (loads[i].offset + loads[i].filesz > size)
			size = loads[i].offset + loads[i].filesz;
	b = calloc(1, size);
	if (!b)
		abort();
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_entry = n ? loads[0].vaddr : 0;
	memcpy(b, &eh, sizeof(eh));
	for (size_t i = 0; i < n; i++) {
		Elf64_Phdr ph = { .p_type = PT_LOAD, .p_flags = loads[i].flags,
				  .p_offset = loads[i].offset, .p_vaddr = loads[i].vaddr,
				  .p_paddr = loads[i].vaddr, .p_filesz = loads[i].filesz,
				  .p_memsz = loads[i].memsz, .p_align = 0x1000 };

		memcpy(b + sizeof(eh) + i * sizeof(ph), &ph, sizeof(ph));
	}
	*len = size;
	return b;
}
