/* Source lines and inlined functions through libdw, as eu-addr2line -i
 * finds them: the line table gives the innermost file:line, the concrete
 * scopes around the address give the inlined calls, each with the call
 * site in its caller. The image is untrusted: libdw bounds-checks its
 * reads; we cap the depth we keep, the addresses we resolve and the time
 * we spend, and keep only valid UTF-8 of bounded length. */
#include "config.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/error_impl.h"
#include "util/grow.h"
#include "util/strmap.h"
#include "symbols/srcinfo.h"
#include "uniprof/text.h"

/* Unikernels inline a few levels deep; 16 is past any real chain. Half a
 * million distinct code addresses is far past a real profile; a minute
 * is what a user waits for a report. */
struct srcinfo_limits srcinfo_limits = { 1u << 19, 16, 60ULL * 1000000000ULL };

#define MAX_TEXT 1024       /* bytes of a kept name or file name */
#define NO_STRING UINT32_MAX

struct frame_rec {
	uint32_t function, file, decl_file;   /* string indexes */
	uint32_t line, decl_line;
	bool inlined;
};

/* One resolved address: frames [first, first + n) of the frame array. */
struct entry {
	uint64_t pc;
	uint32_t first, n;
	bool used;
};

struct srcinfo {
	void *buf;
	size_t len;
	Elf *elf;
	Dwarf *dw;
	bool opened, broken;
	struct entry *table;       /* open addressing, power of two */
	size_t slots, used;
	struct frame_rec *frames;
	size_t nframes, frames_cap;
	struct strmap *strings;
	uint64_t spent_ns;
	bool capped_depth, capped_addresses, capped_time;
	char warning[256];
};

bool srcinfo_elf_has_dwarf(const void *elf_handle)
{
	Elf *elf = (Elf *)elf_handle;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    sh.sh_size == 0)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && (strcmp(name, ".debug_info") == 0 ||
			     strcmp(name, ".zdebug_info") == 0))
			return true;
	}
	return false;
}

int srcinfo_new(struct srcinfo **out, void *buf, size_t len)
{
	struct srcinfo *si = calloc(1, sizeof(*si));

	if (!si || strmap_new(&si->strings) < 0) {
		free(si);
		free(buf);
		return up_fail(UP_ENOMEM, "out of memory");
	}
	si->buf = buf;
	si->len = len;
	*out = si;
	return 0;
}

void srcinfo_free(struct srcinfo *si)
{
	if (!si)
		return;
	if (si->dw)
		dwarf_end(si->dw);
	if (si->elf)
		elf_end(si->elf);
	free(si->buf);
	free(si->table);
	free(si->frames);
	strmap_free(si->strings);
	free(si);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* libdw's handle, made on the first lookup; a file libdw refuses gives
 * no source frames, which is what an image without DWARF gives. */
static bool opened(struct srcinfo *si)
{
	if (si->opened)
		return !si->broken;
	si->opened = true;
	si->elf = elf_memory(si->buf, si->len);
	if (si->elf)
		si->dw = dwarf_begin_elf(si->elf, DWARF_C_READ, NULL);
	si->broken = !si->dw;
	return !si->broken;
}

/* A string from the image as we keep it: valid UTF-8, at most MAX_TEXT
 * bytes, interned. NO_STRING for none (or no memory). */
static uint32_t keep(struct srcinfo *si, const char *s)
{
	char cut[MAX_TEXT + 1], *valid;
	long idx;

	if (!s || !*s)
		return NO_STRING;
	snprintf(cut, sizeof(cut), "%s", s);
	valid = up_text_valid_utf8(cut);
	if (!valid)
		return NO_STRING;
	idx = strmap_intern(si->strings, valid);
	free(valid);
	return idx < 0 || idx >= (long)NO_STRING ? NO_STRING : (uint32_t)idx;
}

static const char *string_at(const struct srcinfo *si, uint32_t i)
{
	return i == NO_STRING ? NULL : strmap_key(si->strings, i);
}

/* A function DIE's name, through its abstract origin or specification
 * (libdw follows a bounded chain of those). */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;

	return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
}

static uint32_t udata(Dwarf_Die *die, unsigned name)
{
	Dwarf_Attribute attr;
	Dwarf_Word v;

	if (dwarf_formudata(dwarf_attr(die, name, &attr), &v) != 0 ||
	    v > UINT32_MAX)
		return 0;
	return (uint32_t)v;
}

static int push_frame(struct srcinfo *si, Dwarf_Die *fn, uint32_t file,
		      uint32_t line, bool inlined)
{
	struct frame_rec *f;
	int decl = 0;

	if (grow_array(&si->frames, &si->frames_cap, si->nframes + 1,
		       sizeof(*si->frames), 64) < 0)
		return UP_ENOMEM;
	f = &si->frames[si->nframes++];
	f->function = keep(si, die_name(fn));
	f->file = file;
	f->line = line;
	f->decl_file = keep(si, dwarf_decl_file(fn));
	f->decl_line = dwarf_decl_line(fn, &decl) == 0 && decl > 0 ?
		(uint32_t)decl : 0;
	f->inlined = inlined;
	return 0;
}

/* Resolve pc into frames appended to si->frames. */
static void resolve(struct srcinfo *si, uint64_t pc)
{
	Dwarf_Die cu, *scopes = NULL, *chain = NULL, innermost;
	Dwarf_Files *files = NULL;
	Dwarf_Line *ln;
	uint32_t file = NO_STRING, line = 0;
	unsigned depth = 0;
	int n, lineno = 0;

	if (!dwarf_addrdie(si->dw, pc, &cu))
		return;
	ln = dwarf_getsrc_die(&cu, pc);
	if (ln) {
		file = keep(si, dwarf_linesrc(ln, NULL, NULL));
		if (dwarf_lineno(ln, &lineno) == 0 && lineno > 0)
			line = (uint32_t)lineno;
	}
	n = dwarf_getscopes(&cu, pc, &scopes);
	if (n <= 0 || !dwarf_offdie(si->dw, dwarf_dieoffset(&scopes[0]),
				    &innermost)) {
		free(scopes);
		return;
	}
	free(scopes);
	/* The concrete parents: abstract scopes would name the inlined
	 * function's own body, not its caller. */
	n = dwarf_getscopes_die(&innermost, &chain);
	if (n > 0)
		dwarf_getsrcfiles(&cu, &files, NULL);
	for (int i = 0; i < n; i++) {
		int tag = dwarf_tag(&chain[i]);

		if (tag == DW_TAG_subprogram || tag == DW_TAG_entry_point) {
			push_frame(si, &chain[i], file, line, false);
			break;
		}
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		/* Past the cap the outer inlined calls are left out; the
		 * innermost and the function itself are kept. */
		if (depth++ >= srcinfo_limits.inline_depth)
			si->capped_depth = true;
		else if (push_frame(si, &chain[i], file, line, true) < 0)
			break;
		/* Where this was inlined is the caller's position. */
		line = udata(&chain[i], DW_AT_call_line);
		file = NO_STRING;
		if (files) {
			const char *f = dwarf_filesrc(
				files, udata(&chain[i], DW_AT_call_file), NULL,
				NULL);

			file = keep(si, f);
		}
	}
	free(chain);
}

static struct entry *slot_for(struct srcinfo *si, uint64_t pc)
{
	uint64_t h = pc * 0x9e3779b97f4a7c15ULL;
	size_t i = (size_t)(h >> 20) & (si->slots - 1);

	while (si->table[i].used && si->table[i].pc != pc)
		i = (i + 1) & (si->slots - 1);
	return &si->table[i];
}

static int table_room(struct srcinfo *si)
{
	struct entry *old = si->table;
	size_t n = si->slots;

	if (si->slots && (si->used + 1) * 4 < si->slots * 3)
		return 0;
	si->slots = n ? n * 2 : 1024;
	si->table = calloc(si->slots, sizeof(*si->table));
	if (!si->table) {
		si->table = old;
		si->slots = n;
		return UP_ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		if (old[i].used)
			*slot_for(si, old[i].pc) = old[i];
	free(old);
	return 0;
}

static void set_warning(struct srcinfo *si)
{
	snprintf(si->warning, sizeof(si->warning), "%s%s%s",
		 si->capped_depth ? "inlined calls deeper than the cap left out; " : "",
		 si->capped_addresses ? "too many addresses: the rest have no source lines; " : "",
		 si->capped_time ? "source lines took too long: the rest have none; " : "");
	size_t n = strlen(si->warning);
	if (n >= 2)
		si->warning[n - 2] = '\0';
}

size_t srcinfo_lookup(struct srcinfo *si, uint64_t pc,
		      struct up_src_frame *out, size_t max)
{
	struct entry *e;
	size_t n;

	if (!si || !opened(si))
		return 0;
	if (si->table) {
		e = slot_for(si, pc);
		if (e->used)
			goto found;
	}
	if (si->used >= srcinfo_limits.addresses ||
	    si->spent_ns >= srcinfo_limits.budget_ns) {
		si->capped_addresses |= si->used >= srcinfo_limits.addresses;
		si->capped_time |= si->spent_ns >= srcinfo_limits.budget_ns;
		set_warning(si);
		return 0;
	}
	if (table_room(si) < 0)
		return 0;
	{
		uint64_t t0 = now_ns();
		size_t first = si->nframes;

		resolve(si, pc);
		si->spent_ns += now_ns() - t0;
		e = slot_for(si, pc);
		e->used = true;
		e->pc = pc;
		e->first = (uint32_t)first;
		e->n = (uint32_t)(si->nframes - first);
		si->used++;
		if (si->capped_depth)
			set_warning(si);
	}
found:
	n = e->n < max ? e->n : max;
	for (size_t i = 0; i < n; i++) {
		const struct frame_rec *f = &si->frames[e->first + i];

		out[i] = (struct up_src_frame){
			.function = string_at(si, f->function),
			.file = string_at(si, f->file),
			.line = f->line,
			.decl_file = string_at(si, f->decl_file),
			.decl_line = f->decl_line,
			.inlined = f->inlined,
		};
	}
	return n;
}

const char *srcinfo_warning(const struct srcinfo *si)
{
	return si && si->warning[0] ? si->warning : NULL;
}
