/* The core-file target: a Xen dump-core file (xl dump-core, on_crash =
 * "coredump-destroy") served as a stopped domain. Format, as libxenguest
 * writes it (xg_core.c; docs/misc/dump-core-format.txt):
 *   ELF64 ET_CORE, no program headers; sections found by name:
 *   .note.Xen      notes named "Xen": header (magic PV/HVM, vCPUs, pages,
 *                  page size), Xen version, format version
 *   .xen_prstatus  one vcpu_guest_context per vCPU (entsize: the writer's)
 *   .xen_pages     the guest's pages, page size each
 *   .xen_p2m       PV: (pfn, machine frame) per page, u64 each
 *   .xen_pfn       HVM/PVH: the guest frame of each page, u64
 * PV page tables hold machine frames, so PV frames are looked up by the
 * machine frame of each page; HVM/PVH ones by guest frame.
 *
 * The file is untrusted: every offset and count is checked against the
 * file's size and our caps before use, and pages are read with pread into
 * buffers of our own (a file that shrinks under us is an error, not a
 * SIGBUS). Start-up reads only the headers and the frame table. */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error_impl.h"
#include "util/file_read.h"
#include "target/target_impl.h"
#include "target/xen_context_x86.h"
#include "private.h"

#define CORE_MAX_SECTIONS 256
#define CORE_MAX_STRTAB (64u << 10)
#define CORE_MAX_NOTES (64u << 10)
#define CORE_MAX_VCPUS 4096u
#define CORE_MAX_CONTEXT (64u << 10)      /* one vCPU record */
/* 64 GiB of guest memory: the frame index is 16 bytes a page (256 MiB). */
#define CORE_MAX_PAGES (1ull << 24)
#define CORE_INVALID_PFN UINT64_MAX       /* a padding page */

#define NOTE_HEADER 0x2000001u            /* XEN_ELFNOTE_DUMPCORE_* */
#define NOTE_XEN_VERSION 0x2000002u
#define NOTE_FORMAT_VERSION 0x2000003u
#define MAGIC_PV 0xF00FEBEDull            /* XC_CORE_MAGIC */
#define MAGIC_HVM 0xF00FEBEEull           /* XC_CORE_MAGIC_HVM */

struct frame_entry {
	uint64_t frame;    /* machine frame (PV) or guest frame (HVM/PVH) */
	uint64_t page;     /* index into .xen_pages */
};

struct core_target {
	struct up_target base;
	int fd;                   /* -1: read from mem */
	uint8_t *mem;
	uint64_t size;
	const char *what;         /* file name, for messages */
	char *path;
	uint64_t pages_off;
	struct frame_entry *frames;
	size_t nr_frames;
	struct up_regs *regs;
	struct vcpu_guest_context_x86_64 *ctx;
	struct up_core_info info;
};

static struct core_target *to_core(struct up_target *t)
{
	return (struct core_target *)t;
}

/* len bytes at off, or an error naming what was being read. */
static int read_at(struct core_target *c, uint64_t off, void *buf, size_t len,
		   const char *what)
{
	if (off > c->size || len > c->size - off)
		return up_fail(UP_EFORMAT,
			       "core file %s is truncated: its %s at offset %llu (%zu bytes) lies past its end (%llu bytes); was it still being written?",
			       c->what, what, (unsigned long long)off, len,
			       (unsigned long long)c->size);
	if (c->fd < 0) {
		memcpy(buf, c->mem + off, len);
		return 0;
	}
	for (size_t done = 0; done < len;) {
		ssize_t n = pread(c->fd, (uint8_t *)buf + done, len - done,
				  (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return up_fail(UP_EIO, "cannot read core file %s: %s",
				       c->what, n < 0 ? strerror(errno) :
				       "it shrank while being read");
		done += (size_t)n;
	}
	return 0;
}

static int core_pause(struct up_target *t)
{
	(void)t;
	return 0;
}

static int core_unpause(struct up_target *t)
{
	(void)t;
	return 0;
}

static int core_get_regs(struct up_target *t, unsigned vcpu,
			 struct up_regs *out)
{
	*out = to_core(t)->regs[vcpu];
	return 0;
}

static int core_named_regs(struct up_target *t, unsigned vcpu,
			   struct up_named_regs *out)
{
	xen_context_named_regs(&to_core(t)->ctx[vcpu], out);
	return 0;
}

static int core_map_frame(struct up_target *t, enum up_frame_kind kind,
			  uint64_t frame, const void **page)
{
	struct core_target *c = to_core(t);
	enum up_frame_kind have = t->info.type == UP_DOMAIN_PV ? UP_FRAME_MFN :
								  UP_FRAME_GFN;
	size_t lo = 0, hi = c->nr_frames;
	void *buf;

	if (kind != have)
		return up_fail(UP_EFAULT, "%s frame asked of a %s core",
			       kind == UP_FRAME_MFN ? "machine" : "guest",
			       have == UP_FRAME_MFN ? "PV" : "HVM/PVH");
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->frames[mid].frame < frame)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == c->nr_frames || c->frames[lo].frame != frame)
		return up_fail(UP_EFAULT, "guest frame %#llx is not in the core",
			       (unsigned long long)frame);
	buf = malloc(UP_PAGE_SIZE);
	if (!buf)
		return up_fail(UP_ENOMEM, "out of memory");
	if (read_at(c, c->pages_off + c->frames[lo].page * UP_PAGE_SIZE, buf,
		    UP_PAGE_SIZE, "page") < 0) {
		free(buf);
		return UP_EIO;
	}
	*page = buf;
	return 0;
}

static void core_unmap_frame(struct up_target *t, const void *page)
{
	(void)t;
	free((void *)page);
}

/* A core is a domain that has stopped for good. */
static int core_state(struct up_target *t, enum up_domain_state *state)
{
	(void)t;
	*state = UP_STATE_SHUTDOWN;
	return 0;
}

static void core_close(struct up_target *t)
{
	struct core_target *c = to_core(t);

	if (c->fd >= 0)
		close(c->fd);
	free(c->mem);
	free(c->frames);
	free(c->regs);
	free(c->ctx);
	free(c->path);
	free(c);
}

static const struct up_target_ops core_ops = {
	.pause = core_pause,
	.unpause = core_unpause,
	.get_regs = core_get_regs,
	.named_regs = core_named_regs,
	.map_frame = core_map_frame,
	.unmap_frame = core_unmap_frame,
	.state = core_state,
	.close = core_close,
};

struct sections {
	Elf64_Shdr note, prstatus, pages, table;
	bool has_note, has_prstatus, has_pages, has_table;
	bool pfn_table;           /* .xen_pfn (HVM) rather than .xen_p2m */
};

static int bad(struct core_target *c, const char *why)
{
	return up_fail(UP_EFORMAT, "core file %s is malformed: %s", c->what, why);
}

static int pick(struct core_target *c, const char *name, const Elf64_Shdr *sh,
		struct sections *s)
{
	static const char *const names[] = { ".note.Xen", ".xen_prstatus",
					     ".xen_pages", ".xen_p2m", ".xen_pfn" };
	Elf64_Shdr *slot[] = { &s->note, &s->prstatus, &s->pages, &s->table,
			       &s->table };
	bool *has[] = { &s->has_note, &s->has_prstatus, &s->has_pages,
			&s->has_table, &s->has_table };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(name, names[i]) != 0)
			continue;
		if (*has[i])
			return up_fail(UP_EFORMAT,
				       "core file %s is malformed: it has two %s sections",
				       c->what, i >= 3 ? "frame table" : names[i]);
		*has[i] = true;
		*slot[i] = *sh;
		if (i == 4)
			s->pfn_table = true;
	}
	return 0;
}

static int read_sections(struct core_target *c, struct sections *s)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sh, strsh;
	char *strtab = NULL;
	int rc;

	if (c->size < sizeof(eh))
		return up_fail(UP_EFORMAT, "%s is not a Xen core file: too short",
			       c->what);
	if ((rc = read_at(c, 0, &eh, sizeof(eh), "ELF header")) < 0)
		return rc;
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
		return up_fail(UP_EFORMAT, "%s is not a Xen core file (no ELF header): give the file xl dump-core wrote",
			       c->what);
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_type != ET_CORE)
		return up_fail(UP_EFORMAT, "%s is not a Xen core file (an ELF file of type %u, class %u): give the file xl dump-core wrote",
			       c->what, (unsigned)eh.e_type, (unsigned)eh.e_ident[EI_CLASS]);
	if (eh.e_machine != EM_X86_64)
		return up_fail(UP_EUNSUPP, "core file %s is of ELF machine %u: only x86_64 cores are supported",
			       c->what, (unsigned)eh.e_machine);
	if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 ||
	    eh.e_shnum > CORE_MAX_SECTIONS || eh.e_shstrndx >= eh.e_shnum)
		return bad(c, "bad section header table");
	if ((rc = read_at(c, eh.e_shoff + (uint64_t)eh.e_shstrndx * sizeof(sh),
			  &strsh, sizeof(strsh), "section header")) < 0)
		return rc;
	if (strsh.sh_size == 0 || strsh.sh_size > CORE_MAX_STRTAB)
		return bad(c, "bad section name table");
	strtab = malloc(strsh.sh_size + 1);
	if (!strtab)
		return up_fail(UP_ENOMEM, "out of memory");
	if ((rc = read_at(c, strsh.sh_offset, strtab, strsh.sh_size,
			  "section name table")) < 0)
		goto out;
	strtab[strsh.sh_size] = '\0';
	for (unsigned i = 1; i < eh.e_shnum; i++) {
		if ((rc = read_at(c, eh.e_shoff + (uint64_t)i * sizeof(sh), &sh,
				  sizeof(sh), "section header")) < 0)
			goto out;
		if (sh.sh_name >= strsh.sh_size)
			continue;
		if ((rc = pick(c, strtab + sh.sh_name, &sh, s)) < 0)
			goto out;
	}
	rc = 0;
	if (!s->has_note || !s->has_prstatus || !s->has_pages || !s->has_table)
		rc = up_fail(UP_EFORMAT,
			     "%s is not a Xen core file: no %s section (an ELF core of a process or of Linux? uniprof reads the cores xl dump-core writes)",
			     c->what, !s->has_note ? ".note.Xen" :
			     !s->has_prstatus ? ".xen_prstatus" :
			     !s->has_pages ? ".xen_pages" : ".xen_p2m/.xen_pfn");
out:
	free(strtab);
	return rc;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* The notes: header (required), Xen and format versions (shown). */
static int read_notes(struct core_target *c, const Elf64_Shdr *sh,
		      uint64_t *magic, uint64_t *nr_vcpus, uint64_t *nr_pages)
{
	uint8_t *buf;
	bool header = false;
	size_t off = 0;
	int rc;

	if (sh->sh_size > CORE_MAX_NOTES)
		return bad(c, ".note.Xen is too large");
	buf = malloc(sh->sh_size ? sh->sh_size : 1);
	if (!buf)
		return up_fail(UP_ENOMEM, "out of memory");
	if ((rc = read_at(c, sh->sh_offset, buf, sh->sh_size, ".note.Xen")) < 0)
		goto out;
	while (sh->sh_size - off >= 12) {
		uint32_t namesz, descsz, type;
		size_t name_at = off + 12, desc_at, next;
		const uint8_t *d;

		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		desc_at = name_at + (((size_t)namesz + 3) & ~(size_t)3);
		next = desc_at + (((size_t)descsz + 3) & ~(size_t)3);
		if (namesz > sh->sh_size || descsz > sh->sh_size ||
		    next > sh->sh_size) {
			rc = bad(c, "a note runs past .note.Xen");
			goto out;
		}
		off = next;
		if (namesz != 4 || memcmp(buf + name_at, "Xen", 4) != 0)
			continue;
		d = buf + desc_at;
		if (type == NOTE_HEADER && descsz >= 32) {
			*magic = get64(d);
			*nr_vcpus = get64(d + 8);
			*nr_pages = get64(d + 16);
			if (get64(d + 24) != UP_PAGE_SIZE) {
				rc = up_fail(UP_EUNSUPP, "core file %s has %llu-byte pages: only 4096 is supported",
					     c->what, (unsigned long long)get64(d + 24));
				goto out;
			}
			header = true;
		} else if (type == NOTE_XEN_VERSION && descsz >= 32) {
			uint64_t major = get64(d), minor = get64(d + 8);

			if (major < 1000 && minor < 1000) {
				c->info.xen_major = (unsigned)major;
				c->info.xen_minor = (unsigned)minor;
			}
			for (size_t i = 0; i < 15 && d[16 + i] >= 0x20 && d[16 + i] < 0x7f; i++)
				c->info.xen_extra[i] = (char)d[16 + i];
		} else if (type == NOTE_FORMAT_VERSION && descsz >= 8) {
			c->info.format_version = get64(d);
		}
	}
	rc = header ? 0 : bad(c, "no dump-core header note");
out:
	free(buf);
	return rc;
}

static int read_vcpus(struct core_target *c, const Elf64_Shdr *sh,
		      uint64_t nr_vcpus)
{
	uint64_t ent = sh->sh_entsize;

	if (nr_vcpus == 0 || nr_vcpus > CORE_MAX_VCPUS)
		return up_fail(UP_EFORMAT, "core file %s is malformed: %llu vCPUs (1 to %u expected)",
			       c->what, (unsigned long long)nr_vcpus, CORE_MAX_VCPUS);
	if (ent < sizeof(struct vcpu_guest_context_x86_64) || ent > CORE_MAX_CONTEXT)
		return up_fail(UP_EUNSUPP, "core file %s has vCPU records of %llu bytes, not the x86_64 layout (%zu): written by another architecture's tools?",
			       c->what, (unsigned long long)ent,
			       sizeof(struct vcpu_guest_context_x86_64));
	if (sh->sh_size != nr_vcpus * ent)
		return bad(c, ".xen_prstatus does not hold one record per vCPU");
	c->regs = calloc(nr_vcpus, sizeof(*c->regs));
	c->ctx = calloc(nr_vcpus, sizeof(*c->ctx));
	if (!c->regs || !c->ctx)
		return up_fail(UP_ENOMEM, "out of memory");
	for (uint64_t v = 0; v < nr_vcpus; v++) {
		int rc = read_at(c, sh->sh_offset + v * ent, &c->ctx[v],
				 sizeof(c->ctx[v]), "vCPU record");

		if (rc < 0)
			return rc;
		if (c->base.info.type == UP_DOMAIN_PV)
			xen_context_pv_regs(&c->ctx[v], 8, &c->regs[v]);
		else
			xen_context_hvm_regs(&c->ctx[v], &c->regs[v]);
	}
	return 0;
}

static int whole(struct core_target *c, const Elf64_Shdr *sh, const char *what)
{
	if (sh->sh_offset <= c->size && sh->sh_size <= c->size - sh->sh_offset)
		return 0;
	return up_fail(UP_EFORMAT,
		       "core file %s is truncated: %llu bytes, but its %s end at %llu; was it still being written?",
		       c->what, (unsigned long long)c->size, what,
		       (unsigned long long)(sh->sh_offset + sh->sh_size));
}

static int frame_cmp(const void *a, const void *b)
{
	const struct frame_entry *x = a, *y = b;

	return x->frame < y->frame ? -1 : x->frame > y->frame;
}

/* The frame table into an index sorted by the frame the page tables name,
 * read a chunk at a time. */
static int read_frames(struct core_target *c, const struct sections *s,
		       uint64_t nr_pages)
{
	size_t ent = s->pfn_table ? 8 : 16, chunk = 4096;
	uint8_t *buf;
	int rc = 0;

	if (nr_pages > CORE_MAX_PAGES)
		return up_fail(UP_EUNSUPP, "core file %s holds %llu pages: more than the %llu (64 GiB) uniprof reads",
			       c->what, (unsigned long long)nr_pages,
			       (unsigned long long)CORE_MAX_PAGES);
	if (s->pages.sh_size != nr_pages * UP_PAGE_SIZE ||
	    s->table.sh_size != nr_pages * ent)
		return bad(c, "its page and frame sections disagree with the header's page count");
	/* Both sections must be whole before anything is allocated for them. */
	if ((rc = whole(c, &s->pages, "pages")) < 0 ||
	    (rc = whole(c, &s->table, "frame table")) < 0)
		return rc;
	c->pages_off = s->pages.sh_offset;
	c->frames = malloc((nr_pages ? nr_pages : 1) * sizeof(*c->frames));
	buf = malloc(chunk * ent);
	if (!c->frames || !buf) {
		free(buf);
		return up_fail(UP_ENOMEM, "out of memory");
	}
	for (uint64_t i = 0; i < nr_pages; i += chunk) {
		size_t n = nr_pages - i < chunk ? (size_t)(nr_pages - i) : chunk;

		if ((rc = read_at(c, s->table.sh_offset + i * ent, buf, n * ent,
				  "frame table")) < 0)
			break;
		for (size_t k = 0; k < n; k++) {
			/* .xen_p2m: (pfn, machine frame); .xen_pfn: pfn */
			uint64_t pfn = get64(buf + k * ent);
			uint64_t frame = s->pfn_table ? pfn : get64(buf + k * ent + 8);

			if (pfn == CORE_INVALID_PFN)
				continue;   /* padding for pages that went away */
			c->frames[c->nr_frames].frame = frame;
			c->frames[c->nr_frames++].page = i + k;
		}
	}
	free(buf);
	if (rc < 0)
		return rc;
	qsort(c->frames, c->nr_frames, sizeof(*c->frames), frame_cmp);
	for (size_t i = 1; i < c->nr_frames; i++)
		if (c->frames[i].frame == c->frames[i - 1].frame)
			return up_fail(UP_EFORMAT, "core file %s is malformed: frame %#llx appears twice",
				       c->what, (unsigned long long)c->frames[i].frame);
	return 0;
}

static int parse(struct core_target *c)
{
	struct sections s;
	uint64_t magic = 0, nr_vcpus = 0, nr_pages = 0;
	int rc;

	memset(&s, 0, sizeof(s));
	if ((rc = read_sections(c, &s)) < 0 ||
	    (rc = read_notes(c, &s.note, &magic, &nr_vcpus, &nr_pages)) < 0)
		return rc;
	if (magic != MAGIC_PV && magic != MAGIC_HVM)
		return up_fail(UP_EFORMAT, "core file %s is malformed: unknown domain kind (magic %#llx)",
			       c->what, (unsigned long long)magic);
	c->base.info.type = magic == MAGIC_PV ? UP_DOMAIN_PV : UP_DOMAIN_HVM;
	if (s.pfn_table != (c->base.info.type == UP_DOMAIN_HVM))
		return bad(c, s.pfn_table ? "a PV core with an HVM frame table" :
					    "an HVM core with a PV frame table");
	if ((rc = read_vcpus(c, &s.prstatus, nr_vcpus)) < 0 ||
	    (rc = read_frames(c, &s, nr_pages)) < 0)
		return rc;
	c->info.nr_pages = nr_pages;
	c->base.info.max_vcpus = (unsigned)nr_vcpus;
	c->base.info.guest_width = c->regs[0].guest_width;
	c->base.info.arch = UP_ARCH_X86_64;     /* x86 cores only so far */
	c->base.info.domid = UINT32_MAX;
	c->base.info.hypercalls = "core file";
	return 0;
}

static int open_core(struct up_target **out, int fd, uint8_t *mem,
		     uint64_t size, const char *what)
{
	struct core_target *c = calloc(1, sizeof(*c));
	int rc;

	if (!c) {
		if (fd >= 0)
			close(fd);
		free(mem);
		return up_fail(UP_ENOMEM, "out of memory");
	}
	target_init(&c->base, &core_ops);
	c->fd = fd;
	c->mem = mem;
	c->size = size;
	c->path = strdup(what);
	c->what = c->path ? c->path : "(core)";
	rc = parse(c);
	if (rc < 0) {
		core_close(&c->base);
		return rc;
	}
	*out = &c->base;
	return 0;
}

int up_target_open_core(struct up_target **out, const char *path)
{
	struct stat st;
	int fd = file_open_regular(path);

	if (fd == FILE_NOT_REGULAR)
		return up_fail(UP_EINVAL, "core file %s is not a regular file", path);
	if (fd < 0)
		return up_fail(errno == ENOENT ? UP_ENOENT : UP_EIO,
			       "cannot open core file %s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0) {
		close(fd);
		return up_fail(UP_EIO, "cannot read core file %s: %s", path, strerror(errno));
	}
	return open_core(out, fd, NULL, (uint64_t)st.st_size, path);
}

int up_target_open_core_mem(struct up_target **out, const void *buf,
			    size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);

	if (!copy)
		return up_fail(UP_ENOMEM, "out of memory");
	memcpy(copy, buf, len);
	return open_core(out, -1, copy, len, "(buffer)");
}

int up_target_core_info(const struct up_target *t, struct up_core_info *out)
{
	if (!t || t->ops != &core_ops)
		return up_fail(UP_EINVAL, "not a core-file target");
	*out = ((const struct core_target *)t)->info;
	return 0;
}

/* GNU build-id notes (namesz 4, descsz 20, type 3, "GNU") in the guest's
 * pages: a kernel keeps its own in its loaded image. A page at a time, 4-byte
 * aligned; notes split across two pages are not seen. */
int up_target_core_build_ids(struct up_target *t, char (*ids)[41], size_t max,
			     size_t *n)
{
	static const uint8_t head[16] = { 4, 0, 0, 0, 20, 0, 0, 0, 3, 0, 0, 0,
					  'G', 'N', 'U', 0 };
	struct core_target *c;
	uint8_t *page;

	*n = 0;
	if (!t || t->ops != &core_ops)
		return up_fail(UP_EINVAL, "not a core-file target");
	c = to_core(t);
	page = malloc(UP_PAGE_SIZE);
	if (!page)
		return up_fail(UP_ENOMEM, "out of memory");
	for (uint64_t i = 0; i < c->info.nr_pages && *n < max; i++) {
		if (read_at(c, c->pages_off + i * UP_PAGE_SIZE, page, UP_PAGE_SIZE,
			    "page") < 0) {
			free(page);
			return UP_EIO;
		}
		for (size_t off = 0; off + 36 <= UP_PAGE_SIZE && *n < max; off += 4) {
			char hex[41];
			bool seen = false;

			if (page[off] != 4 || memcmp(page + off, head, 16) != 0)
				continue;
			for (size_t k = 0; k < 20; k++)
				snprintf(hex + 2 * k, 3, "%02x", page[off + 16 + k]);
			for (size_t k = 0; k < *n; k++)
				seen = seen || strcmp(ids[k], hex) == 0;
			if (!seen)
				memcpy(ids[(*n)++], hex, 41);
		}
	}
	free(page);
	return 0;
}
