#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <xen/foreign/x86_64.h>

#include "target/image_format.h"

#define XC_CORE_MAGIC 0xF00FEBEDull       /* xenctrl's, for PV cores */
#define XC_CORE_MAGIC_HVM 0xF00FEBEEull
#include "xen_core_build.h"
#include "target/image.h"

static void die(const char *what)
{
	fprintf(stderr, "xen core build: %s\n", what);
	abort();
}

static void note(uint8_t *p, size_t *off, uint32_t type, const void *desc,
		 uint32_t size)
{
	up_put32(p + *off, 4);
	up_put32(p + *off + 4, size);
	up_put32(p + *off + 8, type);
	memcpy(p + *off + 12, "Xen", 4);
	memcpy(p + *off + 16, desc, size);
	*off += 16 + ((size + 3) & ~3u);
}

void xen_core_build(struct test_guest *g, void **out, size_t *out_len,
		    struct xen_core_layout *L)
{
	static const char names[] = "\0.shstrtab\0.note.Xen\0.xen_prstatus\0.xen_pages\0.xen_p2m\0.xen_pfn";
	void *img;
	size_t img_len;
	const uint8_t *b;
	uint32_t type, nv, nf;
	size_t len, note_max = 16 * 4 + 32 + 64 + 8;
	uint8_t *p;
	Elf64_Ehdr eh;
	Elf64_Shdr sh[6];

	if (up_image_serialize(g->img, &img, &img_len) < 0)
		die("serialize");
	b = img;
	type = up_le32(b + 12);
	nv = up_le32(b + 16);
	nf = up_le32(b + 20);
	memset(L, 0, sizeof(*L));
	L->vcpu_size = sizeof(struct vcpu_guest_context_x86_64);
	L->nr_pages = nf;
	L->table_entry = type == UP_DOMAIN_PV ? 16 : 8;
	L->shdr_off = sizeof(eh);
	L->note_off = L->shdr_off + sizeof(sh);
	L->prstatus_off = L->note_off + note_max;
	L->pages_off = (L->prstatus_off + nv * L->vcpu_size + 4095) & ~(size_t)4095;
	L->table_off = L->pages_off + nf * 4096;
	L->strtab_off = L->table_off + nf * L->table_entry;
	len = L->strtab_off + sizeof(names);
	p = calloc(1, len);
	if (!p)
		die("out of memory");

	{	/* notes: none, header, Xen version, format version */
		uint8_t hdr[32], ver[64] = { 0 }, fmt[8];
		size_t off = L->note_off;

		up_put64(hdr, type == UP_DOMAIN_PV ? XC_CORE_MAGIC : XC_CORE_MAGIC_HVM);
		up_put64(hdr + 8, nv);
		up_put64(hdr + 16, nf);
		up_put64(hdr + 24, 4096);
		up_put64(ver, 4);
		up_put64(ver + 8, 17);
		memcpy(ver + 16, ".3-test", 7);
		up_put64(fmt, 1);
		note(p, &off, 0x2000000, "", 0);
		L->header_desc_off = off + 16;
		note(p, &off, 0x2000001, hdr, sizeof(hdr));
		note(p, &off, 0x2000002, ver, sizeof(ver));
		note(p, &off, 0x2000003, fmt, sizeof(fmt));
		L->note_size = off - L->note_off;
	}
	for (uint32_t v = 0; v < nv; v++) {
		const uint8_t *r = b + UP_IMAGE_HEADER_SIZE + v * UP_IMAGE_VCPU_SIZE;
		struct vcpu_guest_context_x86_64 c;
		uint32_t flags = up_le32(r + 44);

		memset(&c, 0, sizeof(c));
		c.user_regs.rip = up_le64(r);
		c.user_regs.rsp = up_le64(r + 8);
		c.user_regs.rbp = up_le64(r + 16);
		c.user_regs.rax = 0xa0a0a0a0 + v;
		c.flags = flags & UP_IMAGE_VCPU_ONLINE ? (1u << 5) : 0;     /* x86 VGCF_online */
		if (type == UP_DOMAIN_PV) {
			if (flags & UP_IMAGE_VCPU_KERNEL)
				c.flags |= 1u << 2;               /* x86 VGCF_in_kernel */
			c.ctrlreg[3] = up_le64(r + 24);
		} else {
			c.ctrlreg[0] = 0x80000011;  /* PG | ET | PE */
			c.ctrlreg[3] = up_le64(r + 24);
			c.ctrlreg[4] = 0x20;        /* PAE */
			c.ctrlreg[2] = 0xdead000;   /* a fault address */
			c.user_regs.cs = flags & UP_IMAGE_VCPU_KERNEL ? 0x8 : 0x33;
		}
		memcpy(p + L->prstatus_off + v * L->vcpu_size, &c, sizeof(c));
	}
	for (uint32_t i = 0; i < nf; i++) {
		const uint8_t *f = b + UP_IMAGE_HEADER_SIZE + nv * UP_IMAGE_VCPU_SIZE +
				   (size_t)i * UP_IMAGE_FRAME_SIZE;
		uint8_t *t = p + L->table_off + i * L->table_entry;

		memcpy(p + L->pages_off + (size_t)i * 4096, f + UP_IMAGE_FRAME_HDR, 4096);
		if (type == UP_DOMAIN_PV) {
			up_put64(t, i);                 /* pfn */
			up_put64(t + 8, up_le64(f));    /* machine frame */
		} else {
			up_put64(t, up_le64(f));
		}
	}
	memcpy(p + L->strtab_off, names, sizeof(names));

	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_CORE;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_shoff = L->shdr_off;
	eh.e_ehsize = sizeof(eh);
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = 6;
	eh.e_shstrndx = 1;
	memcpy(p, &eh, sizeof(eh));
	memset(sh, 0, sizeof(sh));
	sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_STRTAB,
			      .sh_offset = L->strtab_off, .sh_size = sizeof(names) };
	sh[2] = (Elf64_Shdr){ .sh_name = 11, .sh_type = SHT_NOTE,
			      .sh_offset = L->note_off, .sh_size = L->note_size };
	sh[3] = (Elf64_Shdr){ .sh_name = 21, .sh_type = SHT_PROGBITS,
			      .sh_offset = L->prstatus_off, .sh_size = nv * L->vcpu_size,
			      .sh_addralign = 8, .sh_entsize = L->vcpu_size };
	sh[4] = (Elf64_Shdr){ .sh_name = 35, .sh_type = SHT_PROGBITS,
			      .sh_offset = L->pages_off, .sh_size = nf * 4096ull,
			      .sh_addralign = 4096, .sh_entsize = 4096 };
	sh[5] = (Elf64_Shdr){ .sh_name = type == UP_DOMAIN_PV ? 46 : 55,
			      .sh_type = SHT_PROGBITS, .sh_offset = L->table_off,
			      .sh_size = nf * L->table_entry, .sh_addralign = 8,
			      .sh_entsize = L->table_entry };
	memcpy(p + L->shdr_off, sh, sizeof(sh));
	free(img);
	*out = p;
	*out_len = len;
}
