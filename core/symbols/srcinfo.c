/* Source lines and inlined functions through libdw: the line table gives
 * the innermost file:line; the function holding the address (a binary
 * search in its unit's index) and the concrete scopes inside it down to
 * the address give the inlined calls, each with its call site in the
 * caller (what eu-addr2line -i prints). The image is untrusted: libdw bounds-checks its
 * reads; we cap the depth we keep, the addresses we resolve and the time
 * we spend, and keep only valid UTF-8 of bounded length. */
#include "config.h"

#include <dwarf.h>
#include <errno.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/error_impl.h"
#include "util/file_map.h"
#include "util/file_read.h"
#include "util/grow.h"
#include "util/strmap.h"
#include "util/utf8.h"
#include "symbols/dwarf_prescan.h"
#include "symbols/srcinfo.h"
#include "uniprof/text.h"

/* Unikernels inline a few levels deep; 16 is past any real chain. Half a
 * million distinct code addresses is far past a real profile; a minute
 * is what a user waits for a report. 256 MiB of expanded line tables is
 * a few hundred real units' worth, and what a dom0 can spare. */
struct srcinfo_limits srcinfo_limits = { 1u << 19, 16, 60ULL * 1000000000ULL,
					 256u << 20 };
unsigned long srcinfo_libdw_lookups;

#define MAX_TEXT 1024       /* bytes of a kept name or file name */
/* All kept names and file names, all functions' code ranges: a real
 * image needs a few MiB and a few 100k; past these, the rest are left
 * out (and the warning says so). */
#define MAX_TEXT_BYTES (64u << 20)
#define MAX_RANGES (1u << 22)
#define NO_STRING UINT32_MAX
/* Real compilers give an abbreviation a few dozen attributes; every DIE
 * using one is read attribute by attribute, so its size is the step
 * between two looks at the clock. */
#define MAX_ABBREV_ATTRS 1024
/* libdw's cost per abbreviation it parses and per unit it reads. */
#define ABBREV_COST 64u
#define UNIT_COST 256u
#define MAX_SECS 4          /* same-named sections looked at (libdw takes the first) */
/* libdw's sorted address ranges, per byte of .debug_aranges (an entry
 * of 16 bytes becomes a record and a list node on the way). */
#define ARANGES_COST 6u

struct frame_rec {
	uint32_t function, file, decl_file;   /* string indexes */
	uint32_t line, decl_line;
	bool inlined;
};

/* A function's declaration as a frame keeps it (string indexes). */
struct decl_rec {
	uint32_t function, file, line;
};

/* The declaration read from an abstract origin, by the origin DIE's
 * address (NULL: an empty slot). */
struct origin_decl {
	const void *origin;
	struct decl_rec decl;
};
#define ORIGIN_SLOTS 1024

/* A string of libdw's already kept, by its address. */
struct kept_string {
	const char *s;
	uint32_t idx;
};
#define KEPT_SLOTS 4096

/* One resolved address: frames [first, first + n) of the frame array
 * (n at most UP_SRC_MAX_FRAMES): 16 bytes, four to a cache line. */
struct entry {
	uint64_t pc;
	uint32_t first;
	uint16_t n;
	bool used;
};

/* A function's code range in a compile unit's index. */
struct fn_range {
	uint64_t lo, hi;
	Dwarf_Off die;
};

/* Each compile unit's functions by address, made on its first lookup:
 * a lookup is then a binary search and a walk of one function's scopes,
 * not of the whole unit (which is what dwarf_getscopes does, and which
 * leaks on some malformed units). */
struct cu_index {
	Dwarf_Off cu;
	struct fn_range *r;
	size_t n;
};

/* A line table let expand (its estimate charged) or refused, by its
 * .debug_line offset: sorted. */
struct line_gate {
	uint64_t off;
	bool ok;
};

struct srcinfo {
	void *buf;
	size_t len;
	/* The image's file, mapped at the first lookup (after sampling) where
	 * buf would be a copy made at load: file_map.h. */
	struct file_stamp file;
	Elf *elf;
	Dwarf *dw;
	bool opened, broken;
	struct entry *table;       /* open addressing, power of two */
	size_t slots, used;
	struct frame_rec *frames;
	size_t nframes, frames_cap;
	struct strmap *strings;
	struct cu_index *cus;
	size_t ncus, cus_cap, last_cu, ranges;
	size_t text_bytes;
	uint64_t spent_ns, deadline;   /* deadline: of the lookup under way */
	/* The sections the line tables are read from, and what they cost. */
	struct prescan_sec line[MAX_SECS], str, line_str;
	unsigned nline;
	struct line_gate *gates;
	size_t ngates, gates_cap;
	/* The unit whose gate was looked up last, and what it said. */
	const struct Dwarf_CU *gate_cu;
	bool gate_cu_ok;
	struct kept_string kept[KEPT_SLOTS];   /* keep_dwarf's */
	struct origin_decl origins[ORIGIN_SLOTS];   /* fn_decl's */
	uint64_t line_charged, line_read;
	const char *refused;           /* why the image's DWARF is not used */
	bool capped_depth, capped_addresses, capped_time, capped_size;
	bool capped_lines, at_realtime;
	/* srcinfo_warm under way: its policy looked at once (1: may resolve,
	 * 2: at real-time priority), 0: none. */
	int warming;
	char warning[512];
	/* What the warning says: the caps' bits and the refusal it was
	 * written for (it is written again only when they change). */
	unsigned warned;
	const char *warned_refused;
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
	si->file.fd = -1;
	*out = si;
	return 0;
}

int srcinfo_new_file(struct srcinfo **out, const struct file_stamp *file)
{
	int rc = srcinfo_new(out, NULL, 0);

	if (rc < 0) {
		close(file->fd);
		return rc;
	}
	(*out)->file = *file;
	(*out)->len = (size_t)file->size;
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
	file_read_release(si->buf);     /* a mapping, or malloc'ed */
	if (si->file.fd >= 0)
		close(si->file.fd);
	free(si->table);
	free(si->frames);
	strmap_free(si->strings);
	for (size_t i = 0; i < si->ncus; i++)
		free(si->cus[i].r);
	free(si->cus);
	free(si->gates);
	free(si);
}

/* Whether a section's name is one libdw reads as .debug_<what>
 * (compressed, or a split unit's copy: looked at too, to be safe). */
static bool named(const char *name, const char *what)
{
	size_t n = strlen(what);

	if (!name)
		return false;
	if (strncmp(name, ".zdebug_", 8) == 0)
		name += 8;
	else if (strncmp(name, ".debug_", 7) == 0)
		name += 7;
	else
		return false;
	return strncmp(name, what, n) == 0 &&
	       (name[n] == '\0' || strcmp(name + n, ".dwo") == 0);
}

/* The sections named .debug_<what> with bytes, as libdw left them
 * (decompressed when it could; one it could not is one it ignores). */
static unsigned sections(Elf *elf, const char *what, struct prescan_sec *out,
			 unsigned max)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	unsigned n = 0;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	while (n < max && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    (sh.sh_flags & SHF_COMPRESSED) ||
		    !named(elf_strptr(elf, shstrndx, sh.sh_name), what))
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_buf && d->d_size)
			out[n++] = (struct prescan_sec){ d->d_buf, d->d_size };
	}
	return n;
}

/* What a debug section takes in memory once libdw has it: nothing for
 * one read in place, the size its header claims for a compressed one
 * (libdw inflates every one when the handle is made), ARANGES_COST a
 * byte for the address ranges. Read from the headers, nothing inflated. */
static uint64_t section_memory(Elf_Scn *scn, const GElf_Shdr *sh, const char *name)
{
	uint64_t size = 0;
	bool inflated = false;

	if (sh->sh_flags & SHF_COMPRESSED) {
		GElf_Chdr ch;

		size = gelf_getchdr(scn, &ch) ? ch.ch_size : UINT64_MAX / 2;
		inflated = true;
	} else if (strncmp(name, ".zdebug_", 8) == 0) {
		/* GNU's: "ZLIB" and the size, 8 bytes big-endian. */
		Elf_Data *raw = elf_rawdata(scn, NULL);
		const uint8_t *b = raw ? raw->d_buf : NULL;

		size = UINT64_MAX / 2;
		if (b && raw->d_size >= 12 && memcmp(b, "ZLIB", 4) == 0) {
			size = 0;
			for (int i = 4; i < 12; i++)
				size = size << 8 | b[i];
		}
		inflated = true;
	} else {
		size = sh->sh_size;
	}
	if (named(name, "aranges"))
		return size > UINT64_MAX / 2 / ARANGES_COST ? UINT64_MAX / 2
							       : size * ARANGES_COST;
	return inflated ? size : 0;
}

/* Before libdw is given the image: what its compressed debug sections
 * and address ranges would take, against the memory for source lines.
 * A 1.5 MB image claiming a 1.5 GB section was inflated in full before
 * any other check could run. */
static const char *inflation_refused(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	uint64_t total = 0;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;            /* libdw finds no sections either */
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || (strncmp(name, ".debug_", 7) != 0 &&
			      strncmp(name, ".zdebug_", 8) != 0))
			continue;
		total += section_memory(scn, &sh, name);
		if (total > srcinfo_limits.line_memory)
			return "debug info's compressed sections and address ranges take more than the memory budget for source lines: no source lines";
	}
	return NULL;
}

static int off_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Before libdw reads a DIE: every unit's header (none of its DIEs) and
 * every abbreviation table a unit names. libdw reads a DIE attribute by
 * attribute and keeps a record per unit and per abbreviation, so an
 * abbreviation of millions of attributes, or a flood of tiny units,
 * costs time or memory no deadline check between DIEs can bound. */
static const char *units_refused(struct srcinfo *si)
{
	struct prescan_sec abbrev[MAX_SECS];
	unsigned nabbrev = sections(si->elf, "abbrev", abbrev, MAX_SECS);
	uint64_t *offs = NULL, read = 0, entries = 0, max_read = 65536;
	size_t n = 0, cap = 0, units = 0;
	const char *why = NULL;

	for (unsigned i = 0; i < nabbrev; i++)
		max_read += 2 * (uint64_t)abbrev[i].len;
	for (int types = 0; types < 2 && !why; types++) {
		Dwarf_Off off = 0, next, aoff;
		size_t hsize;
		uint64_t sig;

		while (dwarf_next_unit(si->dw, off, &next, &hsize, NULL, &aoff,
				       NULL, NULL, types ? &sig : NULL,
				       NULL) == 0) {
			if (++units > srcinfo_limits.line_memory / UNIT_COST) {
				why = "debug info has more units than the memory budget for source lines allows: no source lines";
				break;
			}
			if (grow_array(&offs, &cap, n + 1, sizeof(*offs), 64) < 0) {
				why = "out of memory checking the debug info: no source lines";
				break;
			}
			offs[n++] = aoff;
			off = next;
		}
	}
	if (n)
		qsort(offs, n, sizeof(*offs), off_cmp);
	for (size_t i = 0; i < n && !why; i++) {
		if (i && offs[i] == offs[i - 1])
			continue;
		for (unsigned k = 0; k < nabbrev && !why; k++) {
			struct abbrev_prescan st;

			if (abbrev_prescan(abbrev[k], offs[i], MAX_ABBREV_ATTRS,
					   &st, &read) < 0)
				why = "debug info has an abbreviation of over 1024 attributes: no source lines";
			entries += st.entries;
			if (!why && (read > max_read ||
				     entries > srcinfo_limits.line_memory / ABBREV_COST))
				why = "debug info's abbreviation tables are past what a real image holds: no source lines";
		}
	}
	free(offs);
	return why;
}

/* Files libdw would open by a name the image gives (as root, a FIFO
 * there blocks for good): a DWZ file by .gnu_debugaltlink, split units'
 * .dwo files by DW_AT_[GNU_]dwo_name. libdw opens them lazily, on the
 * first attribute that needs them; we never let it. */
static const char *outside_refused(struct srcinfo *si)
{
	const char *name;
	const void *id;
	Dwarf_CU *cu = NULL;
	uint8_t type;

	if (dwelf_dwarf_gnu_debugaltlink(si->dw, &name, &id) != 0)
		return "debug info refers to a DWZ file (.gnu_debugaltlink), which is not opened: no source lines";
	while (dwarf_get_units(si->dw, cu, &cu, NULL, &type, NULL, NULL) == 0)
		if (type == DW_UT_skeleton)
			return "debug info is split into .dwo files, which are not opened: no source lines";
	return NULL;
}

/* libdw's handle, made on the first lookup; a file libdw refuses gives
 * no source frames, which is what an image without DWARF gives. So does
 * one we refuse before libdw reads its DIEs (the warning says why). */
static bool opened(struct srcinfo *si)
{
	if (si->opened)
		return !si->broken;
	si->opened = true;
	if (!si->buf && si->file.fd >= 0) {
		uint8_t *m;

		/* Mapped, or read if it cannot be (out of slots, memory):
		 * refused only if it changed. */
		if (file_map_stamped(&si->file, &m) == 0) {
			si->buf = m;
		} else if (errno != ESTALE && file_read_stamped(&si->file, &m) == 0) {
			si->buf = m;
		} else {
			si->refused = errno == ESTALE ?
				"the image changed since its symbols were read: no source lines" :
				"the image could not be read again: no source lines";
		}
		close(si->file.fd);
		si->file.fd = -1;
	}
	si->broken = !si->buf;
	if (si->broken)
		return false;
	si->elf = elf_memory(si->buf, si->len);
	if (si->elf && (si->refused = inflation_refused(si->elf)) == NULL)
		si->dw = dwarf_begin_elf(si->elf, DWARF_C_READ, NULL);
	if (si->dw && (si->refused = units_refused(si)) == NULL)
		si->refused = outside_refused(si);
	if (si->dw && !si->refused) {
		struct prescan_sec one;

		si->nline = sections(si->elf, "line", si->line, MAX_SECS);
		if (sections(si->elf, "str", &one, 1))
			si->str = one;
		if (sections(si->elf, "line_str", &one, 1))
			si->line_str = one;
	}
	si->broken = !si->dw || si->refused;
	return !si->broken;
}

/* Whether the line table of the unit whose DIE is cu may be expanded:
 * its header and program read first (bounded), its estimated cost
 * charged once against the budget for source lines. A table past it
 * gives that unit's addresses no file and line (their functions and
 * inlined calls stay). */
static bool lines_allowed(struct srcinfo *si, Dwarf_Die *cu)
{
	Dwarf_Attribute attr;
	Dwarf_Word off;
	size_t lo = 0, hi = si->ngates;
	uint64_t cost = 0, budget = srcinfo_limits.line_memory;
	struct line_prescan_in in = { .str = si->str, .line_str = si->line_str };
	const char *dir;

	/* Asked for each frame, mostly of the unit asked last. */
	if (cu->cu && cu->cu == si->gate_cu)
		return si->gate_cu_ok;
	si->gate_cu = cu->cu;
	si->gate_cu_ok = true;
	if (dwarf_formudata(dwarf_attr(cu, DW_AT_stmt_list, &attr), &off) != 0)
		return true;                   /* no table: libdw reads none */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (si->gates[mid].off == off)
			return si->gate_cu_ok = si->gates[mid].ok;
		if (si->gates[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	si->gate_cu = NULL;     /* not settled until a gate says */
	if (grow_array(&si->gates, &si->gates_cap, si->ngates + 1,
		       sizeof(*si->gates), 64) < 0)
		return false;
	dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr));
	in.comp_dir_len = dir ? strnlen(dir, budget) : 0;
	/* Every same-named section, in case libdw takes another. */
	for (unsigned i = 0; i < si->nline && cost != UINT64_MAX; i++) {
		uint64_t c;

		in.line = si->line[i];
		c = line_prescan_cost(&in, off, budget - si->line_charged,
				      &si->line_read);
		cost = c > cost ? c : cost;
	}
	memmove(&si->gates[lo + 1], &si->gates[lo],
		(si->ngates - lo) * sizeof(*si->gates));
	si->ngates++;
	si->gates[lo] = (struct line_gate){ off, cost != UINT64_MAX &&
					    si->line_read <= budget };
	if (si->gates[lo].ok)
		si->line_charged += cost;
	else
		si->capped_lines = true;
	si->gate_cu = cu->cu;
	return si->gate_cu_ok = si->gates[lo].ok;
}

/* A string from the image as we keep it: valid UTF-8, at most MAX_TEXT
 * bytes, interned. NO_STRING for none (or no memory). */
static uint32_t keep(struct srcinfo *si, const char *s)
{
	char cut[MAX_TEXT + 1];
	size_t known = strmap_count(si->strings), len;
	long idx;

	if (!s || !*s)
		return NO_STRING;
	/* Whole characters, invalid bytes as U+FFFD, within MAX_TEXT bytes;
	 * the image's string is read no further than that needs. */
	utf8_valid_copy(cut, sizeof(cut), s, strnlen(s, MAX_TEXT));
	len = strlen(cut);
	if (si->text_bytes + len > MAX_TEXT_BYTES) {
		idx = strmap_find(si->strings, cut);
		if (idx < 0)
			si->capped_size = true;
		return idx < 0 ? NO_STRING : (uint32_t)idx;
	}
	idx = strmap_intern(si->strings, cut);
	if (idx >= 0 && (size_t)idx >= known)
		si->text_bytes += len + 1;
	return idx < 0 || idx >= (long)NO_STRING ? NO_STRING : (uint32_t)idx;
}

/* Whether the lookup under way ran out of time: checked at every DIE
 * of the walks, by the coarse clock (a few ns: no system call), so a
 * lookup ends at most one DIE past its deadline, and a DIE is at most
 * MAX_ABBREV_ATTRS attributes. */
static bool out_of_time(struct srcinfo *si)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	if ((uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec <
	    si->deadline)
		return false;
	si->capped_time = true;
	return true;
}

/* keep() for a string libdw gave (in the image's sections or libdw's
 * tables, which stay until dwarf_end): the same names and files come
 * back for most frames, so their index is remembered by address. */
static uint32_t keep_dwarf(struct srcinfo *si, const char *s)
{
	size_t slot = (size_t)(((uintptr_t)s * 0x9e3779b97f4a7c15ULL) >> 52) &
		      (KEPT_SLOTS - 1);
	uint32_t idx;

	if (s && si->kept[slot].s == s)
		return si->kept[slot].idx;
	idx = keep(si, s);
	if (idx != NO_STRING)
		si->kept[slot] = (struct kept_string){ s, idx };
	return idx;
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

/* dwarf_decl_file, with the line table of the unit the attribute is in
 * (through an abstract origin, maybe another) let expand only within
 * the budget. */
static const char *decl_file(struct srcinfo *si, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Word idx;
	Dwarf_Die cu;
	Dwarf_Files *files;

	if (dwarf_formudata(dwarf_attr_integrate(die, DW_AT_decl_file, &attr),
			    &idx) != 0 ||
	    !dwarf_cu_die(attr.cu, &cu, NULL, NULL, NULL, NULL, NULL, NULL) ||
	    !lines_allowed(si, &cu) || dwarf_getsrcfiles(&cu, &files, NULL) != 0)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

/* What a frame keeps of its function's declaration: dwarf_attr_integrate's
 * answers (through an abstract origin, a specification). */
static void read_decl(struct srcinfo *si, Dwarf_Die *fn, struct decl_rec *d)
{
	int decl = 0;

	d->function = keep_dwarf(si, die_name(fn));
	d->file = keep_dwarf(si, decl_file(si, fn));
	d->line = dwarf_decl_line(fn, &decl) == 0 && decl > 0 ? (uint32_t)decl : 0;
}

/* read_decl(fn), read once per abstract origin when fn has none of the
 * three itself and its origin has all three: the answers integrate
 * gives then, each the origin's own. An inline function inlined in many
 * places is read once, not the inlined DIE's attributes and the
 * origin's three times each per address. */
static void fn_decl(struct srcinfo *si, Dwarf_Die *fn, struct decl_rec *d)
{
	Dwarf_Attribute attr;
	Dwarf_Die origin;
	struct origin_decl *slot;

	/* dwarf_hasattr reads fn's abbreviation only, not its bytes. */
	if (dwarf_hasattr(fn, DW_AT_name) || dwarf_hasattr(fn, DW_AT_decl_file) ||
	    dwarf_hasattr(fn, DW_AT_decl_line) ||
	    !dwarf_formref_die(dwarf_attr(fn, DW_AT_abstract_origin, &attr),
			       &origin)) {
		read_decl(si, fn, d);
		return;
	}
	/* By the origin's bytes: unique whatever section holds it. */
	slot = &si->origins[(size_t)(((uintptr_t)origin.addr *
				      0x9e3779b97f4a7c15ULL) >> 54) &
			    (ORIGIN_SLOTS - 1)];
	if (slot->origin && slot->origin == origin.addr) {
		*d = slot->decl;
		return;
	}
	if (!dwarf_attr(&origin, DW_AT_name, &attr) ||
	    !dwarf_attr(&origin, DW_AT_decl_file, &attr) ||
	    !dwarf_attr(&origin, DW_AT_decl_line, &attr)) {
		read_decl(si, fn, d);       /* further along the chain */
		return;
	}
	read_decl(si, &origin, d);
	*slot = (struct origin_decl){ origin.addr, *d };
}

static int push_frame(struct srcinfo *si, Dwarf_Die *fn, uint32_t file,
		      uint32_t line, bool inlined)
{
	struct frame_rec *f;
	struct decl_rec d;

	if (grow_array(&si->frames, &si->frames_cap, si->nframes + 1,
		       sizeof(*si->frames), 64) < 0)
		return UP_ENOMEM;
	fn_decl(si, fn, &d);
	f = &si->frames[si->nframes++];
	*f = (struct frame_rec){ .function = d.function, .file = file,
				 .decl_file = d.file, .line = line,
				 .decl_line = d.line, .inlined = inlined };
	return 0;
}

/* Bounds on one unit's index and one function's scopes, whatever the
 * DWARF says: DIEs visited, ranges per function, nesting. */
#define INDEX_MAX_VISITS (4u << 20)
#define INDEX_MAX_RANGES 256
#define SCOPE_MAX_DEPTH 64
#define SCOPE_MAX_VISITS 65536

/* C++ puts functions inside these, which have no code range of their own. */
static bool transparent(int tag)
{
	return tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
	       tag == DW_TAG_structure_type || tag == DW_TAG_union_type;
}

static int range_cmp(const void *a, const void *b)
{
	const struct fn_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void index_children(struct srcinfo *si, Dwarf_Die *parent,
			   struct cu_index *ci, size_t *cap, unsigned depth,
			   unsigned *visits)
{
	Dwarf_Die child;

	if (depth > 8 || dwarf_child(parent, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);

		if (++*visits > INDEX_MAX_VISITS || out_of_time(si))
			return;
		if (transparent(tag)) {
			index_children(si, &child, ci, cap, depth + 1, visits);
		} else if (tag == DW_TAG_subprogram) {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t off = 0;
			unsigned k = 0;

			while (k++ < INDEX_MAX_RANGES &&
			       (off = dwarf_ranges(&child, off, &base, &lo, &hi)) > 0) {
				if (hi <= lo)
					continue;
				if (si->ranges >= MAX_RANGES) {
					si->capped_size = true;
					return;
				}
				si->ranges++;
				if (grow_array(&ci->r, cap, ci->n + 1,
					       sizeof(*ci->r), 64) < 0)
					return;
				ci->r[ci->n++] = (struct fn_range){
					lo, hi, dwarf_dieoffset(&child) };
			}
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

static struct cu_index *cu_index_of(struct srcinfo *si, Dwarf_Die *cu)
{
	Dwarf_Off off = dwarf_dieoffset(cu);
	struct cu_index *ci;
	unsigned visits = 0;
	size_t cap = 0;

	if (si->last_cu < si->ncus && si->cus[si->last_cu].cu == off)
		return &si->cus[si->last_cu];
	for (size_t i = 0; i < si->ncus; i++)
		if (si->cus[i].cu == off) {
			si->last_cu = i;
			return &si->cus[i];
		}
	if (grow_array(&si->cus, &si->cus_cap, si->ncus + 1,
		       sizeof(*si->cus), 16) < 0)
		return NULL;
	ci = &si->cus[si->ncus++];
	*ci = (struct cu_index){ .cu = off };
	si->last_cu = si->ncus - 1;
	index_children(si, cu, ci, &cap, 0, &visits);
	if (ci->n)
		qsort(ci->r, ci->n, sizeof(*ci->r), range_cmp);
	return ci;
}

/* The function whose code holds pc, by the unit's index. Overlapping
 * ranges (hostile, or a function's cold part) are searched a few back. */
static bool function_at(struct srcinfo *si, struct cu_index *ci, uint64_t pc,
			Dwarf_Die *out)
{
	size_t lo = 0, hi = ci->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ci->r[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo, k = 0; i-- > 0 && k < 16; k++)
		if (pc < ci->r[i].hi && pc >= ci->r[i].lo)
			return dwarf_offdie(si->dw, ci->r[i].die, out) != NULL;
	return false;
}

/* Whether a DIE of this tag may hold code ranges: the tags libdw's own
 * walk of an address's scopes matches (dwarf_getscopes). A function's
 * parameters and variables are most of its children, and asking each
 * for its ranges reads all of its attributes. */
static bool has_code(int tag)
{
	switch (tag) {
	case DW_TAG_module:
	case DW_TAG_lexical_block:
	case DW_TAG_with_stmt:
	case DW_TAG_catch_block:
	case DW_TAG_try_block:
	case DW_TAG_entry_point:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_subprogram:
		return true;
	default:
		return false;
	}
}

/* Whether die's code ranges hold pc: dwarf_haspc, with at most
 * INDEX_MAX_RANGES ranges read. */
static bool holds(Dwarf_Die *die, uint64_t pc)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	for (unsigned k = 0; k < INDEX_MAX_RANGES &&
	     (off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0; k++)
		if (pc >= lo && pc < hi)
			return true;
	return false;
}

/* The scopes around pc inside fn, outermost first (path[0] = fn): each
 * step down is the child whose ranges hold pc. Returns the depth. */
static int scopes_in(struct srcinfo *si, Dwarf_Die *fn, uint64_t pc,
		     Dwarf_Die *path)
{
	unsigned visits = 0;
	int n = 1;

	path[0] = *fn;
	while (n < SCOPE_MAX_DEPTH) {
		Dwarf_Die child;
		bool down = false;

		if (dwarf_child(&path[n - 1], &child) != 0)
			break;
		do {
			if (++visits > SCOPE_MAX_VISITS || out_of_time(si))
				return n;
			if (has_code(dwarf_tag(&child)) && holds(&child, pc)) {
				path[n++] = child;
				down = true;
				break;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
		if (!down)
			break;
	}
	return n;
}

/* Inlined levels kept per address: the limit, and never more than the
 * callers' arrays hold beside the function. */
static unsigned max_inline(void)
{
	return srcinfo_limits.inline_depth < UP_SRC_MAX_FRAMES - 1 ?
	       srcinfo_limits.inline_depth : UP_SRC_MAX_FRAMES - 1;
}

/* Resolve pc into frames appended to si->frames. */
static void resolve(struct srcinfo *si, uint64_t pc)
{
	Dwarf_Die cu, fn, path[SCOPE_MAX_DEPTH];
	Dwarf_Files *files = NULL;
	struct cu_index *ci;
	size_t first = si->nframes;
	Dwarf_Line *ln;
	uint32_t file = NO_STRING, line = 0;
	unsigned depth = 0;
	int n, lineno = 0;
	bool lines;

	srcinfo_libdw_lookups++;
	if (!dwarf_addrdie(si->dw, pc, &cu))
		return;
	lines = lines_allowed(si, &cu);
	ln = lines ? dwarf_getsrc_die(&cu, pc) : NULL;
	if (ln) {
		file = keep_dwarf(si, dwarf_linesrc(ln, NULL, NULL));
		if (dwarf_lineno(ln, &lineno) == 0 && lineno > 0)
			line = (uint32_t)lineno;
	}
	ci = cu_index_of(si, &cu);
	if (!ci || !function_at(si, ci, pc, &fn)) {
		/* No function (assembly): the line table's position alone. */
		if (file != NO_STRING &&
		    grow_array(&si->frames, &si->frames_cap, si->nframes + 1,
			       sizeof(*si->frames), 64) == 0)
			si->frames[si->nframes++] = (struct frame_rec){
				.function = NO_STRING, .file = file, .line = line,
				.decl_file = NO_STRING };
		return;
	}
	n = scopes_in(si, &fn, pc, path);
	if (lines)
		dwarf_getsrcfiles(&cu, &files, NULL);
	/* Innermost first: each inlined call's position is where the code
	 * is; its call site is its caller's position. */
	for (int i = n; i-- > 0;) {
		int tag = dwarf_tag(&path[i]);

		if (i == 0) {
			if (push_frame(si, &path[0], file, line, false) < 0)
				si->nframes = first;   /* all or nothing */
			break;
		}
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		/* Past the cap the outer inlined calls are left out; the
		 * innermost and the function itself are kept. */
		if (depth++ >= max_inline())
			si->capped_depth = true;
		else if (push_frame(si, &path[i], file, line, true) < 0) {
			si->nframes = first;
			break;
		}
		/* The caller's position: where the call was made, when said. */
		line = udata(&path[i], DW_AT_call_line);
		file = NO_STRING;
		if (files && dwarf_hasattr(&path[i], DW_AT_call_file))
			file = keep_dwarf(si, dwarf_filesrc(
				files, udata(&path[i], DW_AT_call_file), NULL,
				NULL));
	}
}

static struct entry *slot_for(const struct srcinfo *si, uint64_t pc)
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
	unsigned flags = si->capped_depth | si->capped_addresses << 1 |
			 si->capped_time << 2 | si->capped_size << 3 |
			 si->capped_lines << 4 | si->at_realtime << 5;

	/* Called after every address a cap touched: a line table past the
	 * budget would have it formatted for each of them. */
	if (flags == si->warned && si->refused == si->warned_refused)
		return;
	si->warned = flags;
	si->warned_refused = si->refused;
	snprintf(si->warning, sizeof(si->warning), "%s%s%s%s%s%s%s%s",
		 si->refused ? si->refused : "", si->refused ? "; " : "",
		 si->capped_depth ? "inlined calls deeper than the cap left out; " : "",
		 si->capped_addresses ? "too many addresses: the rest have no source lines; " : "",
		 si->capped_time ? "source lines took too long: the rest have none; " : "",
		 si->capped_size ? "debug info too large: part of it left out; " : "",
		 si->capped_lines ? "line tables past the memory budget for source lines: some addresses have no file:line; " : "",
		 si->at_realtime ? "source lines are not looked up at real-time priority; " : "");
	size_t n = strlen(si->warning);
	if (n >= 2)
		si->warning[n - 2] = '\0';
}

int srcinfo_add(struct srcinfo *si, uint64_t pc, const struct up_src_frame *f,
		size_t n)
{
	struct entry *e;
	size_t first = si->nframes;

	if (si->table && slot_for(si, pc)->used)
		return 0;
	size_t keep_n = n;

	if (si->used >= srcinfo_limits.addresses) {
		si->capped_addresses = true;
		set_warning(si);
		return 0;
	}
	/* Deeper than kept: the innermost calls and the function itself. */
	if (keep_n > max_inline() + 1) {
		keep_n = max_inline() + 1;
		si->capped_depth = true;
		set_warning(si);
	}
	if (table_room(si) < 0 ||
	    grow_array(&si->frames, &si->frames_cap, si->nframes + keep_n,
		       sizeof(*si->frames), 64) < 0)
		return up_fail(UP_ENOMEM, "out of memory");
	for (size_t k = 0; k < keep_n; k++) {
		size_t i = k + 1 == keep_n ? n - 1 : k;

		si->frames[si->nframes++] = (struct frame_rec){
			.function = keep(si, f[i].function),
			.file = keep(si, f[i].file),
			.decl_file = keep(si, f[i].decl_file),
			.line = f[i].line, .decl_line = f[i].decl_line,
			.inlined = k + 1 < keep_n,
		};
	}
	n = keep_n;
	e = slot_for(si, pc);
	*e = (struct entry){ .pc = pc, .first = (uint32_t)first,
			     .n = (uint16_t)n, .used = true };
	si->used++;
	return 0;
}

static bool realtime(const struct srcinfo *si)
{
	int policy;

	if (si->warming)
		return si->warming == 2;
	policy = sched_getscheduler(0);
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

size_t srcinfo_lookup(struct srcinfo *si, uint64_t pc,
		      struct up_src_frame *out, size_t max)
{
	struct entry *e;
	size_t n;

	if (!si)
		return 0;
	if (si->table) {
		e = slot_for(si, pc);
		if (e->used)
			goto found;
	}
	/* libdw on an untrusted image never runs at real-time priority
	 * (xl profile top samples at SCHED_FIFO): not looked up, not kept. */
	if ((si->buf || si->file.fd >= 0) && !(si->opened && si->broken) &&
	    realtime(si)) {
		si->at_realtime = true;
		set_warning(si);
		return 0;
	}
	if (!si->opened) {
		/* The checks before libdw reads a DIE count as lookup time. */
		uint64_t t0 = mono_ns();
		bool ok = opened(si);

		si->spent_ns += mono_ns() - t0;
		if (si->refused)
			set_warning(si);
		if (!ok)
			return 0;
	} else if (si->broken) {
		return 0;
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
		uint64_t t0 = mono_ns();
		size_t first = si->nframes;

		si->deadline = t0 + (srcinfo_limits.budget_ns - si->spent_ns);
		resolve(si, pc);
		si->spent_ns += mono_ns() - t0;
		if (si->capped_time || si->capped_size || si->capped_lines)
			set_warning(si);
		e = slot_for(si, pc);
		e->used = true;
		e->pc = pc;
		e->first = (uint32_t)first;
		e->n = (uint16_t)(si->nframes - first);
		si->used++;
		if (si->capped_depth)
			set_warning(si);
	}
found:
	n = e->n < max ? e->n : max;
	for (size_t k = 0; k < n; k++) {
		/* Cut short: the innermost calls and, last, the function. */
		size_t i = k + 1 == n ? (size_t)e->n - 1 : k;
		const struct frame_rec *f = &si->frames[e->first + i];

		out[k] = (struct up_src_frame){
			.function = string_at(si, f->function),
			.file = string_at(si, f->file),
			.line = f->line,
			.decl_file = string_at(si, f->decl_file),
			.decl_line = f->decl_line,
			.inlined = f->inlined && k + 1 < n,
		};
	}
	return n;
}

bool srcinfo_settled(const struct srcinfo *si, uint64_t pc)
{
	/* Broken: no DWARF to read, so the answer stays none (srcinfo_add
	 * comes before any lookup: a stored profile's lines, as it loads). */
	return !si || (si->opened && si->broken) ||
	       (si->table && slot_for(si, pc)->used);
}

void srcinfo_warm(struct srcinfo *si, uint64_t pc)
{
	struct up_src_frame f;

	if (!si)
		return;
	if (!si->warming)
		si->warming = realtime(si) ? 2 : 1;   /* once for the batch */
	/* At real-time priority the writers' own lookups say why not. */
	if (si->warming == 1)
		srcinfo_lookup(si, pc, &f, 1);
}

void srcinfo_warm_end(struct srcinfo *si)
{
	if (si)
		si->warming = 0;
}

void srcinfo_new_pass(struct srcinfo *si)
{
	if (!si)
		return;
	if (si->used >= srcinfo_limits.addresses) {
		free(si->table);
		si->table = NULL;
		si->slots = si->used = si->nframes = 0;
	}
	si->spent_ns = 0;
	si->capped_time = si->capped_addresses = si->at_realtime = false;
	set_warning(si);
}

const char *srcinfo_warning(const struct srcinfo *si)
{
	return si && si->warning[0] ? si->warning : NULL;
}
