/* Source lines and inlined functions of code addresses, from the image's
 * DWARF (.debug_info, .debug_line) through libdw. Opened lazily on the
 * first lookup, which is after sampling: loading a symbol table costs no
 * more than keeping its file's bytes. Every answer is cached per address. */
#ifndef UP_SYMBOLS_SRCINFO_H
#define UP_SYMBOLS_SRCINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "uniprof/symbols.h"

struct srcinfo;

/* Whether an ELF file's bytes hold line tables or debug info worth
 * keeping (an image built with -g, or its debug file). */
bool srcinfo_elf_has_dwarf(const void *elf_handle);

/* Take ownership of buf (a malloc'ed ELF file of len bytes). buf NULL:
 * no DWARF, only what srcinfo_add says (a stored profile's lines). */
int srcinfo_new(struct srcinfo **out, void *buf, size_t len);

/* The same for an image file mapped at load (file_map.h): it is mapped
 * again at the first lookup if it is unchanged (else no source lines,
 * said in the warning). Takes file->fd. */
struct file_stamp;
int srcinfo_new_file(struct srcinfo **out, const struct file_stamp *file);

/* The frames of pc, as srcinfo_lookup will give them (the first answer
 * for a pc stays). */
int srcinfo_add(struct srcinfo *si, uint64_t pc, const struct up_src_frame *f,
		size_t n);
void srcinfo_free(struct srcinfo *si);

/* The frames of code address pc, innermost inlined callee first and the
 * function containing pc last (inlined false); at most max. Pointers stay
 * valid until the srcinfo is freed. Returns how many (0: no line
 * information covers pc). */
size_t srcinfo_lookup(struct srcinfo *si, uint64_t pc,
		      struct up_src_frame *out, size_t max);

/* Whether srcinfo_lookup(si, pc) has its answer kept: asked again, it
 * gives the same (an answer it could not give, at real-time priority or
 * past a cap, is not kept: a later pass may give one). */
bool srcinfo_settled(const struct srcinfo *si, uint64_t pc);

/* srcinfo_lookup(si, pc) for its answer to be cached, called for many
 * addresses in a row (rising: libdw then reads each unit's tables once
 * in a row), srcinfo_warm_end after the last: the scheduling policy is
 * looked at once for them all. */
void srcinfo_warm(struct srcinfo *si, uint64_t pc);
void srcinfo_warm_end(struct srcinfo *si);

/* A new run of the same table (the daemon keeps one per kernel build):
 * the time budget and the address cap start again, the answers kept
 * unless they filled the cap. */
void srcinfo_new_pass(struct srcinfo *si);

/* Caps met while answering (inline depth, addresses, time, memory), or
 * why the image's DWARF is not used, as one line; NULL when none. */
const char *srcinfo_warning(const struct srcinfo *si);

/* What one srcinfo may cost, whatever the image says: the addresses it
 * resolves, the inlined levels it keeps per address, the time it
 * spends resolving in all, and the memory libdw may take for the line
 * tables it expands (estimated from their headers and programs before
 * libdw reads them; also the bound on the units and abbreviations it
 * reads). Past a cap, addresses get no source frames (past the memory,
 * no file and line) and the warning says so. Variables so that tests
 * can lower them. */
struct srcinfo_limits {
	size_t addresses;
	unsigned inline_depth;
	uint64_t budget_ns;
	uint64_t line_memory;
};
extern struct srcinfo_limits srcinfo_limits;

/* Lookups that went to libdw, for tests to see that a path made none. */
extern unsigned long srcinfo_libdw_lookups;

#endif
