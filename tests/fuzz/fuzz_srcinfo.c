/* libFuzzer target: source lines and inlined calls from an untrusted
 * image's DWARF (core/symbols/srcinfo.c over libdw): hostile line
 * programs, abstract-origin loops, call sites past the file table. The
 * input is an ELF file. Every symbol's first bytes are looked up, then a
 * profile of them is folded with inlined frames and lines; checked beyond
 * "no crash": at most the frames asked for, inlined calls before the
 * function, strings valid UTF-8 and bounded, folded names without a
 * frame separator or line end. The time budget is lowered so that a slow
 * input ends in the cap, not in a timeout, and the memory budget for line
 * tables so that small inputs (the hostile-* seeds) reach it. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/srcinfo.h"
#include "uniprof/uniprof.h"
#include "private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_LOOKUPS 4096

static void check_text(const char *s)
{
	if (!s)
		return;
	if (strlen(s) > 1024)
		abort();
	char *v = up_text_valid_utf8(s);
	if (!v || strcmp(v, s) != 0)
		abort();                   /* kept strings are valid already */
	free(v);
}

static void check_frames(const struct up_src_frame *f, size_t n, size_t max)
{
	if (n > max)
		abort();
	for (size_t i = 0; i < n; i++) {
		if (i + 1 < n && !f[i].inlined)
			abort();           /* the function comes last */
		check_text(f[i].function);
		check_text(f[i].file);
		check_text(f[i].decl_file);
	}
}

static void check_folded(const struct up_profile *p, const struct up_symtab *s,
			 bool no_inline, bool lines)
{
	struct up_output_opts o = { .version = UP_OUTPUT_OPTS_VERSION,
				    .vcpu = -1, .no_inline = no_inline,
				    .lines = lines };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		abort();
	if (up_profile_write_folded(p, s, &o, f) < 0)
		abort();
	fclose(f);
	/* One record per line: "frames count"; no stray line ends. */
	for (char *line = buf; line && *line;) {
		char *end = strchr(line, '\n'), *sp;

		if (!end)
			abort();
		*end = '\0';
		sp = strrchr(line, ' ');
		if (!sp || strspn(sp + 1, "0123456789") != strlen(sp + 1))
			abort();
		if (memchr(line, '\r', (size_t)(sp - line)))
			abort();
		line = end + 1;
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct up_src_frame f[UP_SRC_MAX_FRAMES];
	struct up_symtab *s = NULL;
	struct up_profile *p = NULL;
	size_t lookups = 0;

	srcinfo_limits.budget_ns = 1000000000ULL;
	srcinfo_limits.line_memory = 8u << 20;
	up_error_clear();
	if (size < 4 || memcmp(data, "\177ELF", 4) != 0)
		return 0;
	if (up_symtab_load_mem(&s, data, size, "fuzz input") < 0)
		return 0;
	if (up_profile_new(&p, 1) < 0)
		abort();
	for (size_t i = 0; i < up_symtab_count(s) && lookups < MAX_LOOKUPS; i++) {
		const struct up_symbol *sym = up_symtab_symbol(s, i);
		uint64_t span = sym->size && sym->size < 32 ? sym->size : 32;

		for (uint64_t a = sym->addr; a - sym->addr < span &&
		     lookups < MAX_LOOKUPS; a++, lookups++) {
			uint64_t frames[2] = { a, a + 1 };
			size_t n = up_symtab_source(s, a, false, f, UP_SRC_MAX_FRAMES);

			check_frames(f, n, UP_SRC_MAX_FRAMES);
			check_frames(f, up_symtab_source(s, a, true, f, 2), 2);
			if (up_profile_add(p, 0, frames, 2, UP_TRUNC_NONE) < 0)
				abort();
		}
	}
	check_text(up_symtab_source_warning(s));
	check_folded(p, s, false, false);
	check_folded(p, s, true, true);
	check_folded(p, s, false, true);
	up_profile_free(p);
	up_symtab_free(s);
	return 0;
}
