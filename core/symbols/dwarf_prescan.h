/* Bounded reads of raw DWARF bytes, made before libdw is let at them:
 * what a unit's line table will cost once libdw expands it, and how
 * large an abbreviation table's entries are. libdw allocates what a
 * header asks for and exits the process when malloc fails; these say
 * beforehand whether to let it. Pure functions of the bytes given. */
#ifndef UP_SYMBOLS_DWARF_PRESCAN_H
#define UP_SYMBOLS_DWARF_PRESCAN_H

#include <stddef.h>
#include <stdint.h>

/* A section's bytes as libdw sees them (decompressed). */
struct prescan_sec {
	const uint8_t *p;
	size_t len;
};

/* The line table at a unit's DW_AT_stmt_list: .debug_line, the string
 * sections its DWARF 5 header may point into, and the unit's
 * DW_AT_comp_dir length (libdw joins it to relative directories). */
struct line_prescan_in {
	struct prescan_sec line, str, line_str;
	size_t comp_dir_len;
};

/* Estimated bytes libdw allocates to expand the line table at off
 * (files with their joined paths, one record per row), adding the bytes
 * read to *read. UINT64_MAX: past limit, or a header this reader does
 * not understand (refused, as nothing real is refused). */
uint64_t line_prescan_cost(const struct line_prescan_in *in, uint64_t off,
			   uint64_t limit, uint64_t *read);

/* One abbreviation table from off to its end: the most attributes an
 * entry has and the entries; bytes read added to *read. The scan stops
 * early (returning -1) once an entry has more than max_attrs. */
struct abbrev_prescan {
	uint64_t max_attrs, entries;
};
int abbrev_prescan(struct prescan_sec sec, uint64_t off, uint64_t max_attrs,
		   struct abbrev_prescan *out, uint64_t *read);

/* What libdw 0.18x allocates per row (its row list node, the final
 * array entry and a sort pointer), per file entry beside its joined
 * path, and per directory: rounded up from its structures. */
#define LINE_ROW_COST 128u
#define LINE_FILE_COST 96u
#define LINE_DIR_COST 16u

#endif
