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

	CHECK(xlp_format_count > 0 && xlp_format_count <= XLP_FORMATS_MAX);
	for (size_t i = 0; i < xlp_format_count; i++) {
		const struct xlp_format_row *a = &xlp_format_table[i];

		CHECK(a->name && a->name[0] && !strchr(a->name, ','));
		CHECK(a->suffix && a->suffix[0] == '.');
		CHECK(a->bit && !(a->bit & (a->bit - 1)));      /* one bit */
		CHECK(!(bits & a->bit));
		bits |= a->bit;
		CHECK(a->write != NULL);
		CHECK(a->commands && !(a->commands & ~(unsigned)XLP_CMD_ALL));
		for (size_t j = i + 1; j < xlp_format_count; j++) {
			const struct xlp_format_row *b = &xlp_format_table[j];

			CHECK(strcmp(a->name, b->name) != 0);
			CHECK(strcmp(a->suffix, b->suffix) != 0);
		}
	}
	CHECK_U64(bits, XLP_FORMAT_ALL);
}

static void test_commands_name_rows(void)
{
	for (unsigned cmd = 1; cmd & XLP_CMD_ALL; cmd <<= 1) {
		unsigned offered = xlp_formats_of(cmd);

		CHECK(offered != 0);
		CHECK(!(offered & ~(unsigned)XLP_FORMAT_ALL));
	}
	/* What each command offered before the table. */
	CHECK_U64(xlp_formats_of(XLP_CMD_PROFILE), XLP_FORMAT_ALL);
	CHECK_U64(xlp_formats_of(XLP_CMD_REPORT), XLP_FORMAT_ALL);
	CHECK_U64(xlp_formats_of(XLP_CMD_DIFF),
		  XLP_FORMAT_SVG | XLP_FORMAT_TXT | XLP_FORMAT_JSON);
	CHECK_U64(xlp_formats_of(XLP_CMD_DAEMON), XLP_FORMAT_PPROF);
}

static void test_lookups(void)
{
	for (size_t i = 0; i < xlp_format_count; i++) {
		const struct xlp_format_row *r = &xlp_format_table[i];
		unsigned f = 0;

		CHECK(xlp_format_row(r->bit) == r);
		CHECK_STR(xlp_format_suffix(r->bit), r->suffix);
		CHECK(xlp_parse_formats(r->name, r->bit, &f) == 0 && f == r->bit);
		f = 0;
		CHECK(xlp_parse_formats(r->name, XLP_FORMAT_ALL & ~r->bit, &f) < 0);
	}
	CHECK(xlp_format_row(0) == NULL);
	CHECK_STR(xlp_format_suffix(1u << 30), "");
}

int main(void)
{
	RUN(test_rows_unique);
	RUN(test_commands_name_rows);
	RUN(test_lookups);
	TEST_MAIN_END();
}
