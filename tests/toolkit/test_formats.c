/* The output formats' table is consistent: every format has its own
 * name, suffix and bit, the ALL mask is every row, each row's commands
 * are known ones and has a writer, each command offers at least one
 * format, and names and suffixes are found back from the table. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "../unit/test.h"
#include "toolkit/formats.h"

TEST_GLOBALS;

static void test_rows_unique(void)
{
	unsigned bits = 0;

	CHECK(tk_format_count > 0 && tk_format_count <= TK_FORMATS_MAX);
	for (size_t i = 0; i < tk_format_count; i++) {
		const struct tk_format_row *a = &tk_format_table[i];

		CHECK(a->name && a->name[0] && !strchr(a->name, ','));
		CHECK(a->suffix && a->suffix[0] == '.');
		CHECK(a->bit && !(a->bit & (a->bit - 1)));      /* one bit */
		CHECK(!(bits & a->bit));
		bits |= a->bit;
		CHECK(a->write != NULL);
		CHECK(a->commands && !(a->commands & ~(unsigned)TK_CMD_ALL));
		for (size_t j = i + 1; j < tk_format_count; j++) {
			const struct tk_format_row *b = &tk_format_table[j];

			CHECK(strcmp(a->name, b->name) != 0);
			CHECK(strcmp(a->suffix, b->suffix) != 0);
		}
	}
	CHECK_U64(bits, TK_FORMAT_ALL);
}

static void test_commands_name_rows(void)
{
	for (unsigned cmd = 1; cmd & TK_CMD_ALL; cmd <<= 1) {
		unsigned offered = tk_formats_of(cmd);

		CHECK(offered != 0);
		CHECK(!(offered & ~(unsigned)TK_FORMAT_ALL));
	}
	/* What each command offered before the table. */
	CHECK_U64(tk_formats_of(TK_CMD_PROFILE), TK_FORMAT_ALL);
	CHECK_U64(tk_formats_of(TK_CMD_REPORT), TK_FORMAT_ALL);
	CHECK_U64(tk_formats_of(TK_CMD_DIFF),
		  TK_FORMAT_SVG | TK_FORMAT_TXT | TK_FORMAT_JSON);
	CHECK_U64(tk_formats_of(TK_CMD_DAEMON), TK_FORMAT_PPROF);
}

static void test_lookups(void)
{
	for (size_t i = 0; i < tk_format_count; i++) {
		const struct tk_format_row *r = &tk_format_table[i];
		unsigned f = 0;

		CHECK(tk_format_row(r->bit) == r);
		CHECK_STR(tk_format_suffix(r->bit), r->suffix);
		CHECK(tk_parse_formats(r->name, r->bit, &f) == 0 && f == r->bit);
		f = 0;
		CHECK(tk_parse_formats(r->name, TK_FORMAT_ALL & ~r->bit, &f) < 0);
	}
	CHECK(tk_format_row(0) == NULL);
	CHECK_STR(tk_format_suffix(1u << 30), "");
}

/* The texts that name formats (-F's help, the "invalid format" line) are
 * made from the table: each names exactly the formats its command offers,
 * and the default says which are written only when asked. */
static void test_texts_from_table(void)
{
	char buf[512], want[64];

	for (unsigned cmd = 1; cmd & TK_CMD_ALL; cmd <<= 1) {
		unsigned offered = tk_formats_of(cmd);

		tk_format_help(cmd, "WHEN ", buf, sizeof(buf));
		for (size_t i = 0; i < tk_format_count; i++) {
			const struct tk_format_row *r = &tk_format_table[i];

			snprintf(want, sizeof(want), "%s", r->name);
			CHECK(!(offered & r->bit) == !strstr(buf, want));
		}
		CHECK(strstr(buf, "(default: WHEN all") != NULL);
	}
	tk_format_help(TK_CMD_PROFILE, NULL, buf, sizeof(buf));
	CHECK_STR(buf, "folded, svg, json, txt, pprof, heatmap; repeat or comma-separate (default: all but heatmap)");
	tk_format_help(TK_CMD_DIFF, "txt to stdout; with -o, ", buf, sizeof(buf));
	CHECK_STR(buf, "svg, json, txt; repeat or comma-separate (default: txt to stdout; with -o, all)");
	tk_format_names(TK_CMD_REPORT, " or ", buf, sizeof(buf));
	CHECK_STR(buf, "folded, svg, json, txt, pprof or heatmap");
	tk_format_names(TK_CMD_DAEMON, " or ", buf, sizeof(buf));
	CHECK_STR(buf, "pprof");
	/* Cut short, still a string. */
	tk_format_names(TK_CMD_REPORT, " or ", buf, 8);
	CHECK_STR(buf, "folded,");
}

static void test_parse_arg(void)
{
	unsigned f = 0;

	CHECK(tk_parse_formats_arg("test", "heatmap,svg", TK_CMD_PROFILE, &f) == 0);
	CHECK_U64(f, TK_FORMAT_HEATMAP | TK_FORMAT_SVG);
	f = 0;
	CHECK(tk_parse_formats_arg("test", "heatmap", TK_CMD_DIFF, &f) < 0);
	CHECK(tk_parse_formats_arg("test", "", TK_CMD_DIFF, &f) < 0);
}

int main(void)
{
	RUN(test_rows_unique);
	RUN(test_commands_name_rows);
	RUN(test_lookups);
	RUN(test_texts_from_table);
	RUN(test_parse_arg);
	TEST_MAIN_END();
}
