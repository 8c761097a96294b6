/* The writers on names from a hostile kernel image: the flame graph is
 * well-formed XML and every output valid UTF-8 whatever the bytes, long
 * names are cut on a character boundary and stay distinct, the terminal
 * never sees a raw control character, a flame graph with very many
 * siblings builds in linear time, and the unique-stack cap counts what it
 * refuses as [dropped]. XML and UTF-8 are checked by python3, a parser
 * that owes nothing to ours. */
#include "config.h"

#include <time.h>
#include <unistd.h>

#include "guest.h"
#include "test.h"
#include "uniprof/text.h"
#include "private.h"

TEST_GLOBALS;

/* C strings: a byte escape swallows the hex digits after it, hence the
 * "..." "..." splits. */
static const char hostile_map[] =
	"0000000000001000 T main\n"
	"0000000000002000 T bad\xff" "\xfe" "end\n"
	"0000000000003000 T overlong\xc0\xaf" "\xe0\x80\xaf" "end\n"
	"0000000000004000 T surrogate\xed\xa0\x80" "\xed\xbf\xbf" "end\n"
	"0000000000005000 T nonchar\xef\xbf\xbe" "\xef\xbf\xbf" "end\n"
	"0000000000006000 T esc\x1b[31mred\n"
	"0000000000007000 T amp&lt<gt>quot\"apos'\n"
	"0000000000008000 T ctl\x01" "\x7f" "end\n"
	"0000000000009000 T cut\xe2\x82\n"
	"000000000000a000 T ok\xc3\xa9\xf0\x9f\x94\xa5\n"
	"000000000000f000 B _end\n";

#define NR_HOSTILE 9      /* functions below main */

static struct up_profile *hostile_profile(void)
{
	struct up_profile *p;

	if (up_profile_new(&p, 1) < 0)
		return NULL;
	for (uint64_t f = 2; f < 2 + NR_HOSTILE; f++) {
		uint64_t st[] = { f * 0x1000 + 1, 0x1001 };

		up_profile_add(p, 0, st, 2, UP_TRUNC_NONE);
	}
	return p;
}

/* Run `python3 -c script FILE` on len bytes of buf; its exit status. */
static int python_on(const void *buf, size_t len, const char *script)
{
	char path[] = "/tmp/uniprof-names-XXXXXX";
	char *cmd;
	int fd = mkstemp(path), rc;

	if (fd < 0 || write(fd, buf, len) != (ssize_t)len) {
		perror("temporary file");
		return -1;
	}
	close(fd);
	if (asprintf(&cmd, "python3 -c '%s' %s", script, path) < 0)
		return -1;
	rc = system(cmd);
	free(cmd);
	unlink(path);
	return rc;
}

#define PY_XML "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])"
/* Strict UTF-8 (no surrogates), and none of U+FFFE, U+FFFF. */
#define PY_UTF8 "import sys; t = open(sys.argv[1], \"rb\").read().decode(\"utf-8\"); " \
	"sys.exit(\"\\ufffe\" in t or \"\\uffff\" in t)"

static void test_svg_well_formed(void)
{
	struct up_symtab *s;
	struct up_profile *p;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	REQUIRE(up_symtab_load_mem(&s, hostile_map, sizeof(hostile_map) - 1,
				   "map") == 0);
	REQUIRE((p = hostile_profile()) != NULL);
	f = open_memstream(&buf, &len);
	CHECK(up_profile_write_svg(p, s, NULL, "title\xff\x1b<&>", f) == 0);
	fclose(f);
	REQUIRE(buf != NULL);
	CHECK(python_on(buf, len, PY_XML) == 0);
	CHECK(python_on(buf, len, PY_UTF8) == 0);
	CHECK(strchr(buf, '\x1b') == NULL);
	/* The names are still there, with U+FFFD where bytes were refused. */
	CHECK(strstr(buf, ">amp&amp;lt&lt;gt&gt;quot&quot;apos'</text>") != NULL);
	CHECK(strstr(buf, ">bad\xef\xbf\xbd\xef\xbf\xbd" "end</text>") != NULL);
	CHECK(strstr(buf, ">nonchar\xef\xbf\xbd\xef\xbf\xbd" "end</text>") != NULL);
	CHECK(strstr(buf, ">ok\xc3\xa9\xf0\x9f\x94\xa5</text>") != NULL);
	CHECK(strstr(buf, ">esc\\x1b[31mred</text>") != NULL);
	free(buf);
	up_profile_free(p);
	up_symtab_free(s);
}

/* The folded stacks and the top list are valid UTF-8 too: they feed
 * flamegraph.pl, the JSON summary and the terminal. */
static void test_folded_and_top_utf8(void)
{
	struct up_symtab *s;
	struct up_profile *p;
	struct up_top_entry *e;
	size_t n;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	REQUIRE(up_symtab_load_mem(&s, hostile_map, sizeof(hostile_map) - 1,
				   "map") == 0);
	REQUIRE((p = hostile_profile()) != NULL);
	f = open_memstream(&buf, &len);
	CHECK(up_profile_write_folded(p, s, NULL, f) == 0);
	fclose(f);
	REQUIRE(buf != NULL);
	CHECK(python_on(buf, len, PY_UTF8) == 0);
	CHECK(strstr(buf, "main;cut\xef\xbf\xbd 1\n") != NULL);
	free(buf);
	REQUIRE(up_profile_top(p, s, NULL, &e, &n) == 0);
	CHECK(n == NR_HOSTILE + 1);
	for (size_t i = 0; i < n; i++)
		CHECK(python_on(e[i].name, strlen(e[i].name), PY_UTF8) == 0);
	up_top_free(e, n);
	up_profile_free(p);
	up_symtab_free(s);
}

/* The top list on a terminal: no raw control byte, escapes instead. */
static void test_top_escaped(void)
{
	struct up_symtab *s;
	struct up_profile *p;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	REQUIRE(up_symtab_load_mem(&s, hostile_map, sizeof(hostile_map) - 1,
				   "map") == 0);
	REQUIRE((p = hostile_profile()) != NULL);
	f = open_memstream(&buf, &len);
	CHECK(up_profile_write_top(p, s, NULL, 100, f) == 0);
	fclose(f);
	REQUIRE(buf != NULL);
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)buf[i] < 0x20 && buf[i] != '\n') {
			CHECK(!"a raw control byte in the top list");
			break;
		}
	CHECK(strstr(buf, "  esc\\x1b[31mred\n") != NULL);
	CHECK(strstr(buf, "  ctl\\x01\\x7f" "end\n") != NULL);
	CHECK(strstr(buf, "  ok\xc3\xa9\xf0\x9f\x94\xa5\n") != NULL);
	free(buf);
	up_profile_free(p);
	up_symtab_free(s);
}

static char *escaped(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	up_text_print_escaped(f, s);
	fclose(f);
	return buf;
}

/* The shared escaper (also used by xl profile --once). */
static void test_escape_terminal(void)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "plain_name", "plain_name" },
		{ "a\x1b[2Jb", "a\\x1b[2Jb" },
		{ "nl\ncr\rtab\t", "nl\\x0acr\\x0dtab\\x09" },
		{ "del\x7f", "del\\x7f" },
		{ "csi\xc2\x9b" "1m", "csi\\u009b1m" },          /* C1 control */
		{ "raw\x9b", "raw\\x9b" },                      /* not UTF-8 */
		{ "rlo\xe2\x80\xae" "x", "rlo\\u202ex" },         /* bidi override */
		{ "\xed\xa0\x80", "\\xed\\xa0\\x80" },          /* surrogate */
		{ "caf\xc3\xa9", "caf\xc3\xa9" },
		{ "", "" },
		/* invisible, separators, isolates, tags: shown, not obeyed */
		{ "ls\xe2\x80\xa8" "ps\xe2\x80\xa9", "ls\\u2028ps\\u2029" },
		{ "zw\xe2\x80\x8b" "sp", "zw\\u200bsp" },
		{ "\xef\xbb\xbf" "bom", "\\ufeffbom" },
		{ "lri\xe2\x81\xa6" "x\xe2\x81\xa9", "lri\\u2066x\\u2069" },
		{ "shy\xc2\xad", "shy\\u00ad" },
		{ "tag\xf3\xa0\x80\x81", "tag\\U000e0001" },
		{ "emoji\xf0\x9f\x94\xa5", "emoji\xf0\x9f\x94\xa5" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = escaped(cases[i].in);

		CHECK_STR(got, cases[i].out);
		free(got);
	}
}

/* The bounded form (the daemon's log): the same escapes, cut on a whole
 * character or escape with "...". */
static void test_escape_bounded(void)
{
	char buf[16];

	CHECK(up_text_escape(buf, sizeof(buf), "a\x1b[2Jb", 6) == 9);
	CHECK_STR(buf, "a\\x1b[2Jb");
	up_text_escape(buf, sizeof(buf), "0123456789abcdefghij", 20);
	CHECK_STR(buf, "0123456789ab...");
	/* never half an escape */
	up_text_escape(buf, sizeof(buf), "0123456789\n\n\n", 13);
	CHECK_STR(buf, "0123456789...");
	up_text_escape(buf, sizeof(buf), "0123456789abcde", 15);
	CHECK_STR(buf, "0123456789abcde");
	up_text_escape(buf, 3, "abcdef", 6);
	CHECK_STR(buf, "..");
}

/* A bidi override or an invisible character in a name (F12): the flame
 * graph and the heat map show it as the terminal does (\u202e), so no
 * name renders reversed or hides a character; the rest of the name stays. */
static const char bidi_map[] =
	"0000000000001000 T main\n"
	"0000000000002000 T evil\xe2\x80\xae" "gnp.exe\n"
	"0000000000003000 T zero\xe2\x80\x8b" "width\xef\xbb\xbf\n"
	"0000000000004000 T line\xe2\x80\xa8" "sep\n"
	"0000000000005000 T caf\xc3\xa9\n"
	"000000000000f000 B _end\n";

static void test_bidi_in_pages(void)
{
	struct up_symtab *s;
	struct up_profile *p;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	REQUIRE(up_symtab_load_mem(&s, bidi_map, sizeof(bidi_map) - 1, "map") == 0);
	REQUIRE(up_profile_new(&p, 1) == 0);
	for (uint64_t fn = 2; fn <= 5; fn++) {
		uint64_t st[] = { fn * 0x1000 + 1, 0x1001 };

		REQUIRE(up_profile_add_at(p, 0, st, 2, UP_TRUNC_NONE, UP_VCPU_BUSY, 1,
					  fn * 1000000ULL) == 0);
	}
	f = open_memstream(&buf, &len);
	CHECK(up_profile_write_svg(p, s, NULL, "t\xe2\x80\xae" "x", f) == 0);
	fclose(f);
	REQUIRE(buf != NULL);
	CHECK(python_on(buf, len, PY_XML) == 0);
	CHECK(!memmem(buf, len, "\xe2\x80\xae", 3) && !memmem(buf, len, "\xe2\x80\x8b", 3) &&
	      !memmem(buf, len, "\xef\xbb\xbf", 3) && !memmem(buf, len, "\xe2\x80\xa8", 3));
	CHECK(strstr(buf, ">evil\\u202egnp.exe</text>") != NULL);
	CHECK(strstr(buf, ">zero\\u200bwidth\\ufeff</text>") != NULL);
	CHECK(strstr(buf, ">line\\u2028sep</text>") != NULL);
	CHECK(strstr(buf, ">caf\xc3\xa9</text>") != NULL);
	CHECK(strstr(buf, ">t\\u202ex</text>") != NULL);
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &len);
	CHECK(up_profile_write_heatmap(p, s, &(const struct up_output_opts)UP_OUTPUT_OPTS_INIT,
				       "t", "l", f) == 0);
	fclose(f);
	REQUIRE(buf != NULL);
	CHECK(!memmem(buf, len, "\xe2\x80\xae", 3) && !memmem(buf, len, "\xe2\x80\x8b", 3) &&
	      !memmem(buf, len, "\xef\xbb\xbf", 3));
	/* JSON "\\u202e": the page's text is a backslash, u, 202e */
	CHECK(strstr(buf, "\"main;evil\\\\u202egnp.exe\"") != NULL);
	CHECK(strstr(buf, "\"main;line\\\\u2028sep\"") != NULL);
	CHECK(strstr(buf, "\"main;caf\xc3\xa9\"") != NULL);
	free(buf);
	up_profile_free(p);
	up_symtab_free(s);
}

static void test_valid_utf8_copy(void)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "ok\xc3\xa9", "ok\xc3\xa9" },
		{ "\xff", "\xef\xbf\xbd" },
		{ "\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd" },          /* overlong '/' */
		{ "\xe0\x80\xaf", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xed\xa0\x80" "x", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" "x" },
		{ "\xef\xbf\xbe\xef\xbf\xbf", "\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xf0\x9f\x94", "\xef\xbf\xbd" },                  /* cut short */
		{ "\xf0\x9f\x94\xa5", "\xf0\x9f\x94\xa5" },
		{ "esc\x1b", "esc\x1b" },       /* valid UTF-8; XML and terminal decide */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = up_text_valid_utf8(cases[i].in);

		CHECK_STR(got, cases[i].out);
		free(got);
	}
}

static char *repeat(const char *unit, unsigned times, const char *tail)
{
	size_t u = strlen(unit), t = strlen(tail);
	char *s = malloc(u * times + t + 1);

	for (unsigned i = 0; i < times; i++)
		memcpy(s + i * u, unit, u);
	memcpy(s + (size_t)times * u, tail, t + 1);
	return s;
}

/* A name longer than the 511 bytes kept is cut on a character boundary;
 * two names that share their first 600 bytes stay two functions. */
static void test_long_names(void)
{
	char *x600a = repeat("x", 600, "A"), *x600b = repeat("x", 600, "B");
	char *e_acute = repeat("\xc3\xa9", 300, "");
	char *map, *buf = NULL, *line2;
	size_t len = 0;
	struct up_symtab *s;
	struct up_profile *p;
	struct up_top_entry *e;
	size_t n;
	FILE *f;
	uint64_t a[] = { 0x2001, 0x1001 }, b[] = { 0x3001, 0x1001 },
		 c[] = { 0x4001, 0x1001 };

	REQUIRE(asprintf(&map, "1000 T main\n2000 T %s\n3000 T %s\n"
			 "4000 T a%s\n9000 B _end\n", x600a, x600b, e_acute) > 0);
	REQUIRE(up_symtab_load_mem(&s, map, strlen(map), "map") == 0);
	REQUIRE(up_profile_new(&p, 1) == 0);
	up_profile_add(p, 0, a, 2, UP_TRUNC_NONE);
	up_profile_add(p, 0, b, 2, UP_TRUNC_NONE);
	up_profile_add(p, 0, b, 2, UP_TRUNC_NONE);
	up_profile_add(p, 0, c, 2, UP_TRUNC_NONE);

	f = open_memstream(&buf, &len);
	CHECK(up_profile_write_folded(p, s, NULL, f) == 0);
	fclose(f);
	REQUIRE(buf != NULL);
	CHECK(python_on(buf, len, PY_UTF8) == 0);
	/* three lines: "main;a..." and two "main;xxx..." with 1 and 2 */
	line2 = strchr(buf, '\n');
	REQUIRE(line2 != NULL);
	line2 = strchr(line2 + 1, '\n');
	CHECK(line2 && line2[1] && strchr(line2 + 1, '\n') &&
	      !strchr(line2 + 1, '\n')[1]);
	CHECK(strstr(buf, " 1\nmain;xxxxx") != NULL && strstr(buf, " 2\n") != NULL);
	free(buf);

	REQUIRE(up_profile_top(p, s, NULL, &e, &n) == 0);
	CHECK(n == 4);
	for (size_t i = 0; i < n; i++) {
		CHECK(strlen(e[i].name) <= 511);
		CHECK(python_on(e[i].name, strlen(e[i].name), PY_UTF8) == 0);
	}
	if (n == 4) {
		CHECK(e[0].self == 2 && strncmp(e[0].name, "xxxx", 4) == 0);
		CHECK(strncmp(e[1].name, "a\xc3\xa9", 3) == 0 ||
		      strncmp(e[1].name, "xxxx", 4) == 0);
		CHECK(strcmp(e[0].name, e[1].name) != 0 &&
		      strcmp(e[0].name, e[2].name) != 0 &&
		      strcmp(e[1].name, e[2].name) != 0);
	}
	up_top_free(e, n);

	f = open_memstream(&buf, &len);
	CHECK(up_profile_write_top(p, s, NULL, 10, f) == 0);
	fclose(f);
	/* the two x names are two lines of the table (plus a header) */
	CHECK(test_count(buf, len, "  xxxxxxxxxx") == 2);
	free(buf);

	/* With offsets the offset survives the cut. */
	f = open_memstream(&buf, &len);
	CHECK(up_profile_write_folded(p, s, &(struct up_output_opts){
		.version = UP_OUTPUT_OPTS_VERSION,
		.vcpu = -1, .with_offsets = true }, f) == 0);
	fclose(f);
	CHECK(buf && strstr(buf, "+0x1 1\n") && strstr(buf, "+0x1 2\n"));
	free(buf);
	up_profile_free(p);
	up_symtab_free(s);
	free(map);
	free(x600a);
	free(x600b);
	free(e_acute);
}

static double cpu_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* 80k distinct leaves under one parent (a guest picks its return
 * addresses): quadratic sibling search took ~40 s; linear is well under a
 * second. The bound is CPU time and generous, for busy and sanitized runs. */
/* Folded-write CPU time of DISTINCT stacks DEPTH deep, every frame in the
 * function named by unit repeated to len bytes. */
static void fold_seconds(const char *unit, unsigned times, double *out)
{
	enum { DISTINCT = 2000, DEPTH = 50 };
	char *name = repeat(unit, times, ""), *map, *buf = NULL;
	size_t len = 0;
	struct up_symtab *s;
	struct up_profile *p;
	double t0;
	FILE *f;

	*out = -1;
	REQUIRE(asprintf(&map, "1000 T main\n100000 T %s\n900000 B _end\n", name) > 0);
	REQUIRE(up_symtab_load_mem(&s, map, strlen(map), "map") == 0);
	REQUIRE(up_profile_new(&p, 1) == 0);
	for (uint64_t i = 0; i < DISTINCT; i++) {
		uint64_t st[DEPTH];

		for (unsigned d = 0; d < DEPTH; d++)
			st[d] = 0x100001 + i * DEPTH + d;
		st[DEPTH - 1] = 0x1001;
		REQUIRE(up_profile_add(p, 0, st, DEPTH, UP_TRUNC_NONE) == 0);
	}
	f = open_memstream(&buf, &len);
	t0 = cpu_seconds();
	if (up_profile_write_folded(p, s, NULL, f) == 0)
		*out = cpu_seconds() - t0;
	fclose(f);
	free(buf);
	up_profile_free(p);
	up_symtab_free(s);
	free(map);
	free(name);
}

/* A name as long as the symbol table keeps (4 KiB) at every frame: fitting
 * it per frame copied and hashed all of it twice, 16x a short name's cost
 * (a fuzzed stored profile took 17 s). Now the copy stops at the cut and a
 * name's hash is remembered: within 3x of a 480-byte name that fits, plus 0.5 s for a
 * busy, sanitized run. */
static void test_long_name_every_frame(void)
{
	double shorter, longer;

	fold_seconds("\xc3\xa9", 240, &shorter);
	fold_seconds("\xc3\xa9", 2000, &longer);

	printf("# 100000 frames of a 480-byte name: %.3f s CPU; of a 4000-byte name: %.3f s\n",
	       shorter, longer);
	CHECK(shorter >= 0 && longer >= 0);
	CHECK(longer < 3 * shorter + 0.5);
}

static void test_wide_flame_graph(void)
{
	enum { WIDE = 80000 };
	struct up_profile *p;
	char *buf = NULL;
	size_t len = 0;
	double t0, t;
	FILE *f;

	REQUIRE(up_profile_new(&p, 1) == 0);
	for (uint64_t i = 0; i < WIDE; i++) {
		uint64_t st[] = { 0x100000 + i, 0x1001 };

		REQUIRE(up_profile_add(p, 0, st, 2, UP_TRUNC_NONE) == 0);
	}
	f = open_memstream(&buf, &len);
	t0 = cpu_seconds();
	CHECK(up_profile_write_svg(p, NULL, NULL, "wide", f) == 0);
	t = cpu_seconds() - t0;
	fclose(f);
	printf("# %d siblings: flame graph in %.3f s CPU\n", WIDE, t);
	CHECK(t < 5.0);
	/* all, the parent, the leaves */
	CHECK(test_count(buf, len, "<g class=\"f\"") == WIDE + 2);
	free(buf);
	up_profile_free(p);
}

static char *folded(struct up_profile *p, const struct up_output_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (up_profile_write_folded(p, NULL, o, f) < 0)
		fprintf(stderr, "folded: %s\n", up_error_last());
	fclose(f);
	return buf;
}

/* Past the cap, a new stack is counted in its vCPU's [dropped] stack;
 * stacks already known keep counting. */
static void test_stack_cap(void)
{
	struct up_profile *p;
	struct up_top_entry *e;
	size_t n;
	char *out;
	uint64_t first[] = { 0x1000, 0x5000 };

	REQUIRE(up_profile_new(&p, 2) == 0);
	CHECK(up_profile_max_stacks(p) == UP_PROFILE_DEFAULT_MAX_STACKS);
	CHECK(up_profile_max_bytes(p) == UP_PROFILE_DEFAULT_MAX_BYTES);
	up_profile_set_limits(p, 100, 0);
	CHECK(up_profile_max_stacks(p) == 100);
	CHECK(up_profile_max_bytes(p) == UP_PROFILE_DEFAULT_MAX_BYTES);
	for (uint64_t i = 0; i < 150; i++) {
		uint64_t st[] = { 0x1000 + i, 0x5000 };

		CHECK(up_profile_add(p, 0, st, 2, UP_TRUNC_NONE) == 0);
	}
	for (uint64_t i = 0; i < 10; i++) {
		uint64_t st[] = { 0x9000 + i };

		CHECK(up_profile_add(p, 1, st, 1, UP_TRUNC_NONE) == 0);
	}
	CHECK(up_profile_add(p, 0, first, 2, UP_TRUNC_NONE) == 0);   /* known */
	CHECK_U64(up_profile_unique_stacks(p), 100);
	CHECK_U64(up_profile_dropped(p), 60);
	CHECK_U64(up_profile_samples(p), 161);
	CHECK_U64(up_profile_vcpu_samples(p, 0), 151);
	CHECK_U64(up_profile_vcpu_samples(p, 1), 10);

	out = folded(p, &(struct up_output_opts){ .version = UP_OUTPUT_OPTS_VERSION,
						  .vcpu = -1, .vcpu_root = true });
	CHECK(out && strstr(out, "vcpu0;[dropped] 50\n"));
	CHECK(out && strstr(out, "vcpu1;[dropped] 10\n"));
	CHECK(out && strstr(out, "vcpu0;0x5000;0x1000 2\n"));
	free(out);
	out = folded(p, NULL);
	CHECK(out && strstr(out, "\n[dropped] 60\n"));
	free(out);
	out = folded(p, &(struct up_output_opts){ .version = UP_OUTPUT_OPTS_VERSION,
						  .vcpu = 1 });
	CHECK_STR(out, "[dropped] 10\n");
	free(out);

	REQUIRE(up_profile_top(p, NULL, NULL, &e, &n) == 0);
	CHECK(n > 0 && strcmp(e[0].name, "[dropped]") == 0 && e[0].self == 60 &&
	      e[0].total == 60);
	up_top_free(e, n);
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		CHECK(up_profile_write_svg(p, NULL, NULL, NULL, f) == 0);
		fclose(f);
		CHECK(buf && strstr(buf, ">[dropped] (60 samples, 37.27%)</title>"));
		free(buf);
	}
	up_profile_free(p);

	/* A byte bound: deep stacks fill it sooner than shallow ones. */
	REQUIRE(up_profile_new(&p, 1) == 0);
	up_profile_set_limits(p, 0, 64 << 10);
	for (uint64_t i = 0; i < 1000; i++) {
		uint64_t st[128];

		for (unsigned k = 0; k < 128; k++)
			st[k] = 0x1000 + i + k;
		CHECK(up_profile_add(p, 0, st, 128, UP_TRUNC_NONE) == 0);
	}
	CHECK(up_profile_unique_stacks(p) > 0);
	CHECK(up_profile_unique_stacks(p) * 128 * 8 <= 64 << 10);
	CHECK_U64(up_profile_dropped(p) + up_profile_unique_stacks(p), 1000);
	up_profile_free(p);
}

int main(void)
{
	RUN(test_svg_well_formed);
	RUN(test_folded_and_top_utf8);
	RUN(test_top_escaped);
	RUN(test_escape_terminal);
	RUN(test_escape_bounded);
	RUN(test_bidi_in_pages);
	RUN(test_valid_utf8_copy);
	RUN(test_long_names);
	RUN(test_long_name_every_frame);
	RUN(test_wide_flame_graph);
	RUN(test_stack_cap);
	TEST_MAIN_END();
}
