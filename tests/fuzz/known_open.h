/* Findings of issue 11 whose fixes are being made on other branches, and
 * that the fuzzers would otherwise rediscover within seconds, failing every
 * bounded CI run. While a flag is 1 the target tolerates exactly that
 * failure and nothing else; set it to 0 when the fix is merged (and move the
 * finding's reproducer out of tests/fuzz/regressions/PENDING). */
#ifndef UP_FUZZ_KNOWN_OPEN_H
#define UP_FUZZ_KNOWN_OPEN_H

/* O1: names with invalid UTF-8 (or U+FFFE, surrogates) make the SVG not
 * well-formed and the JSON unparseable. */
#define KNOWN_OPEN_O1_UTF8 0

/* E1: the last unsized symbol in the top 4 KiB of the address space never
 * resolves (addr + 4096 overflows in up_symtab_lookup). */
#define KNOWN_OPEN_E1_TOP_PAGE 0

/* H3: FDEs whose ranges overlap (duplicates among them) each become rows;
 * the table then holds overlapping rows, and a lookup inside a long row
 * that shorter ones overlap finds nothing. */
#define KNOWN_OPEN_H3_OVERLAP 0

#endif
