/* Symbols from `nm -n` style text maps ("ffffffff81000000 T _stext"), the
 * format of System.map and of xenctx's -s. Only code symbols (t, T, w, W)
 * are kept; any symbol bounds the end of the last code symbol. */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/error_impl.h"
#include "symbols/table_impl.h"

#define MAX_BAD_LINES 8

/* A name is copied up to here; symtab_add cuts it to SYMTAB_MAX_NAME
 * (and counts it) when it is longer. */
#define NM_NAME_COPY (SYMTAB_MAX_NAME + 1)

/* "ADDRESS TYPE NAME": the name may be of any length (copied up to
 * name_cap - 1 bytes); a NUL byte in it is kept visible as '?', so a
 * name cannot pose as a shorter one. */
static int parse_line(const char *line, size_t len, uint64_t *addr,
		      char *type, char *name, size_t name_cap)
{
	size_t i = 0, n = 0;
	unsigned digits = 0;

	*addr = 0;
	while (i < len && isxdigit((unsigned char)line[i])) {
		int c = tolower((unsigned char)line[i++]);

		if (++digits > 16)
			return -1;
		*addr = *addr << 4 | (uint64_t)(c <= '9' ? c - '0' : c - 'a' + 10);
	}
	if (digits == 0 || i >= len || (line[i] != ' ' && line[i] != '\t'))
		return -1;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i >= len || !isalpha((unsigned char)line[i]))
		return -1;
	*type = line[i++];
	if (i >= len || (line[i] != ' ' && line[i] != '\t'))
		return -1;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	while (i < len && !isspace((unsigned char)line[i])) {
		if (n + 1 < name_cap)
			name[n++] = line[i] ? line[i] : '?';
		i++;
	}
	name[n] = '\0';
	return n ? 0 : -1;
}

int symtab_load_nm(struct up_symtab **out, const char *buf, size_t len,
		   const char *what)
{
	struct up_symtab *s = symtab_alloc(UP_SYMTAB_NM);
	unsigned bad = 0, lineno = 0, first_bad = 0;
	size_t pos = 0;
	uint64_t max_any = 0;
	char *name = malloc(NM_NAME_COPY + 1);
	int rc = 0;

	if (!s || !name) {
		free(s);
		free(name);
		return up_fail(UP_ENOMEM, "out of memory");
	}
	while (pos < len && rc == 0) {
		const char *line = buf + pos;
		const char *nl = memchr(line, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - line) : len - pos;
		uint64_t addr;
		char type;

		pos += l + (nl != NULL);
		lineno++;
		while (l && (line[l - 1] == '\r' || line[l - 1] == ' '))
			l--;
		if (l == 0)
			continue;
		if (parse_line(line, l, &addr, &type, name, NM_NAME_COPY + 1) < 0) {
			if (!first_bad)
				first_bad = lineno;
			if (++bad > MAX_BAD_LINES)
				break;
			continue;
		}
		if (addr > max_any)
			max_any = addr;
		if (strchr("tTwW", type))
			rc = symtab_add(s, addr, 0, name,
					type == 'T' ? 3 : type == 'W' ? 2 : 1);
	}
	free(name);
	if (rc == 0 && bad > MAX_BAD_LINES)
		rc = up_fail(UP_EFORMAT,
			     "%s: neither an ELF file nor an nm symbol map (line %u: expected 'ADDRESS TYPE NAME')",
			     what, first_bad);
	if (rc == 0) {
		s->end = max_any;
		rc = symtab_finish(s);
	}
	if (rc == 0 && s->count == 0)
		rc = up_fail(UP_EFORMAT,
			     "%s: no code symbols (neither an ELF file nor an nm map with T/t entries)",
			     what);
	if (rc < 0) {
		up_symtab_free(s);
		return rc;
	}
	*out = s;
	return 0;
}
