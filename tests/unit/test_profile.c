/* Aggregation and the writers: folded stacks (exact text) and the top
 * table's self/total counts. */
#include "guest.h"
#include "test.h"
#include "private.h"

TEST_GLOBALS;

static const char map[] =
	"0000000000001000 T main\n"
	"0000000000002000 T work\n"
	"0000000000003000 T leaf\n"
	"0000000000004000 T rec\n"
	"0000000000005000 T ends_with_call\n"
	"0000000000005010 T next_func\n"
	"0000000000009000 B _end\n";

static char *folded(struct up_profile *p, struct up_symtab *s,
		    const struct up_output_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (up_profile_write_folded(p, s, o, f) < 0)
		fprintf(stderr, "folded: %s\n", up_error_last());
	fclose(f);
	return buf;
}

static void test_folded_writer(void)
{
	struct up_profile *p;
	struct up_symtab *s;
	/* leaf first; return addresses point after calls */
	uint64_t a[] = { 0x3010, 0x2021, 0x1031 };
	uint64_t b[] = { 0x2050, 0x1031 };
	uint64_t c[] = { 0x3020, 0x2099, 0x1040 };   /* same names as a */
	uint64_t d[] = { 0x3000, 0x5010 };           /* call was last insn */
	uint64_t e[] = { 0x8888888, 0x1031 };        /* unknown leaf */
	char *out;

	REQUIRE(up_symtab_load_mem(&s, map, sizeof(map) - 1, "map") == 0);
	REQUIRE(up_profile_new(&p, 2) == 0);
	for (int i = 0; i < 3; i++)
		CHECK(up_profile_add(p, 0, a, 3, UP_TRUNC_NONE) == 0);
	CHECK(up_profile_add(p, 1, b, 2, UP_TRUNC_NONE) == 0);
	CHECK(up_profile_add(p, 1, c, 3, UP_TRUNC_NONE) == 0);
	CHECK(up_profile_add(p, 0, d, 2, UP_TRUNC_NONE) == 0);
	CHECK(up_profile_add(p, 0, e, 2, UP_TRUNC_NONE) == 0);
	CHECK(up_profile_add(p, 0, b, 2, UP_TRUNC_LOOP) == 0);
	CHECK(up_profile_add(p, 2, b, 2, UP_TRUNC_NONE) == UP_EINVAL);
	CHECK(up_profile_add(p, 0, b, 0, UP_TRUNC_NONE) == UP_EINVAL);
	CHECK(up_profile_samples(p) == 8);
	CHECK(up_profile_vcpu_samples(p, 0) == 6);
	CHECK(up_profile_vcpu_samples(p, 1) == 2);
	CHECK(up_profile_truncated(p) == 1);
	CHECK(up_profile_unique_stacks(p) == 6);

	out = folded(p, s, NULL);
	CHECK_STR(out,
		  "[truncated];main;work 1\n"
		  "ends_with_call;leaf 1\n"
		  "main;0x8888888 1\n"
		  "main;work 1\n"
		  "main;work;leaf 4\n");
	free(out);

	out = folded(p, s, &(struct up_output_opts){ .version = UP_OUTPUT_OPTS_VERSION,
						     .vcpu = 1 });
	CHECK_STR(out, "main;work 1\nmain;work;leaf 1\n");
	free(out);

	out = folded(p, s, &(struct up_output_opts){ .version = UP_OUTPUT_OPTS_VERSION,
						     .vcpu = -1, .vcpu_root = true,
						    .with_offsets = true });
	CHECK(strstr(out, "vcpu0;main+0x31;work+0x21;leaf+0x10 3\n") != NULL);
	CHECK(strstr(out, "vcpu1;main+0x40;work+0x99;leaf+0x20 1\n") != NULL);
	free(out);

	out = folded(p, NULL, NULL);     /* no symbols: addresses */
	CHECK(strstr(out, "0x1031;0x2021;0x3010 3\n") != NULL);
	free(out);
	up_profile_free(p);
	up_symtab_free(s);
}

static void test_top(void)
{
	struct up_profile *p;
	struct up_symtab *s;
	struct up_top_entry *e;
	size_t n;
	uint64_t leafy[] = { 0x3001, 0x2001, 0x1001 };
	uint64_t recur[] = { 0x4001, 0x4011, 0x4011, 0x1001 };   /* rec;rec;rec */
	uint64_t worky[] = { 0x2005, 0x1001 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	REQUIRE(up_symtab_load_mem(&s, map, sizeof(map) - 1, "map") == 0);
	REQUIRE(up_profile_new(&p, 1) == 0);
	for (int i = 0; i < 6; i++)
		up_profile_add(p, 0, leafy, 3, UP_TRUNC_NONE);
	for (int i = 0; i < 3; i++)
		up_profile_add(p, 0, recur, 4, UP_TRUNC_NONE);
	up_profile_add(p, 0, worky, 2, UP_TRUNC_NONE);

	REQUIRE(up_profile_top(p, s, NULL, &e, &n) == 0);
	REQUIRE(n == 4);
	CHECK_STR(e[0].name, "leaf");
	CHECK(e[0].self == 6 && e[0].total == 6);
	CHECK_STR(e[1].name, "rec");
	CHECK(e[1].self == 3 && e[1].total == 3);    /* recursion counted once */
	CHECK_STR(e[2].name, "work");
	CHECK(e[2].self == 1 && e[2].total == 7);
	CHECK_STR(e[3].name, "main");
	CHECK(e[3].self == 0 && e[3].total == 10);
	up_top_free(e, n);

	f = open_memstream(&buf, &len);
	CHECK(up_profile_write_top(p, s, NULL, 2, f) == 0);
	fclose(f);
	CHECK(strstr(buf, " 60.00%  60.00%         6  leaf\n") != NULL);
	CHECK(strstr(buf, " 30.00%  30.00%         3  rec\n") != NULL);
	CHECK(strstr(buf, "work") == NULL);       /* only the first 2 */
	free(buf);
	up_profile_free(p);
	up_symtab_free(s);
}

/* Many distinct stacks force the table to grow; counts stay exact. */
static void test_many_stacks(void)
{
	struct up_profile *p;
	uint64_t total = 0;

	REQUIRE(up_profile_new(&p, 1) == 0);
	for (uint64_t i = 0; i < 5000; i++) {
		uint64_t fr[3] = { 0x1000 + i, 0x2000 + i % 7, 0x3000 };

		for (uint64_t k = 0; k <= i % 3; k++, total++)
			CHECK(up_profile_add(p, 0, fr, 3, UP_TRUNC_NONE) == 0);
	}
	CHECK(up_profile_unique_stacks(p) == 5000);
	CHECK(up_profile_samples(p) == total);
	up_profile_free(p);
	CHECK(up_profile_new(&p, 0) == UP_EINVAL);
}

/* The flame graph: one frame per tree node (with the "all" root), names
 * XML-escaped, each frame's sample count and percentage in its tooltip,
 * and the viewer script embedded (no external resource). */
static void test_svg(void)
{
	static const char cxx_map[] =
		"0000000000001000 T main\n"
		"0000000000002000 T _Z3maxIiET_S0_S0_\n"      /* int max<int>(int, int) */
		"0000000000003000 T a&b\n"
		"0000000000009000 B _end\n";
	struct up_profile *p;
	struct up_symtab *s;
	uint64_t one[] = { 0x2001, 0x1001 }, two[] = { 0x3001, 0x1001 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	REQUIRE(up_symtab_load_mem(&s, cxx_map, sizeof(cxx_map) - 1, "map") == 0);
	REQUIRE(up_profile_new(&p, 1) == 0);
	for (int i = 0; i < 3; i++)
		up_profile_add(p, 0, one, 2, UP_TRUNC_NONE);
	up_profile_add(p, 0, two, 2, UP_TRUNC_NONE);
	f = open_memstream(&buf, &len);
	CHECK(up_profile_write_svg(p, s, NULL, "t<1>", f) == 0);
	fclose(f);
	REQUIRE(buf != NULL);
	CHECK(strncmp(buf, "<?xml", 5) == 0);
	CHECK(strstr(buf, "</svg>\n") != NULL);
	CHECK(test_count(buf, len, "<g class=\"f\"") == 4);       /* all, main, 2 leaves */
	CHECK(strstr(buf, ">t&lt;1&gt;</text>") != NULL);
	CHECK(strstr(buf, "int max&lt;int&gt;(int, int) (3 samples, 75.00%)") != NULL);
	CHECK(strstr(buf, "a&amp;b (1 samples, 25.00%)") != NULL);
	CHECK(strstr(buf, "all (4 samples, 100.00%)") != NULL);
	CHECK(strstr(buf, "data-total=\"4\"") != NULL);
	CHECK(strstr(buf, "function zoom(") && strstr(buf, "function search("));
	CHECK(strstr(buf, "http://www.w3.org/2000/svg") != NULL);
	CHECK(test_count(buf, len, "http") == 1);     /* nothing fetched from anywhere */
	free(buf);
	up_profile_free(p);
	up_symtab_free(s);
}

/* Output options say their layout by their version: the init macro and
 * function agree, and a version this library does not know is refused by
 * the init function and every writer taking options, with one line saying
 * so and nothing written. */
static void test_opts_version(void)
{
	const struct up_output_opts lit = UP_OUTPUT_OPTS_INIT;
	struct up_output_opts o, bad = UP_OUTPUT_OPTS_INIT;
	uint64_t st[] = { 0x3010, 0x2021, 0x1031 };
	struct up_diff_entry *d;
	struct up_top_entry *e;
	struct up_profile *p;
	struct up_symtab *s;
	uint64_t k0, k1;
	char *buf = NULL;
	size_t len = 0, n;
	FILE *f = open_memstream(&buf, &len);

	CHECK(up_output_opts_init(&o, UP_OUTPUT_OPTS_VERSION) == 0);
	CHECK(memcmp(&o, &lit, sizeof(o)) == 0);
	CHECK(o.version == UP_OUTPUT_OPTS_VERSION && o.vcpu == -1 && !o.with_idle);
	CHECK(up_output_opts_init(&o, UP_OUTPUT_OPTS_VERSION + 1) == UP_EINVAL);
	CHECK(strstr(up_error_last(), "output options version 2 unknown") != NULL);
	REQUIRE(up_symtab_load_mem(&s, map, sizeof(map) - 1, "map") == 0);
	REQUIRE(up_profile_new(&p, 1) == 0);
	REQUIRE(up_profile_add(p, 0, st, 3, UP_TRUNC_NONE) == 0);
	bad.version = 0;
	/* Each call says it itself: another error line set before it. */
#define REFUSED(call) do { \
		up_output_opts_init(&o, 7); \
		CHECK((call) == UP_EINVAL); \
		CHECK(strstr(up_error_last(), "output options version 0 unknown") != NULL); \
	} while (0)
	REFUSED(up_profile_write_folded(p, s, &bad, f));
	REFUSED(up_profile_folded_count(p, s, &bad, &n));
	REFUSED(up_profile_write_svg(p, s, &bad, "t", f));
	REFUSED(up_profile_write_heatmap(p, s, &bad, "t", NULL, f));
	REFUSED(up_profile_top(p, s, &bad, &e, &n));
	REFUSED(up_profile_write_top(p, s, &bad, 10, f));
	REFUSED(up_profile_diff_inline(p, s, p, s, &bad));
	REFUSED(up_profile_diff(p, s, p, s, &bad, &d, &n, &k0, &k1));
	REFUSED(up_profile_write_diff_svg(p, s, p, s, &bad, "t", f));
	up_output_opts_init(&o, 7);
	CHECK(up_profile_kept_samples(p, &bad) == 0);
	CHECK(strstr(up_error_last(), "output options version 0 unknown") != NULL);
#undef REFUSED
	fclose(f);
	CHECK(len == 0);
	free(buf);
	/* NULL options are the defaults, as before. */
	CHECK(up_profile_kept_samples(p, NULL) == 1);
	up_profile_free(p);
	up_symtab_free(s);
}

int main(void)
{
	RUN(test_folded_writer);
	RUN(test_top);
	RUN(test_many_stacks);
	RUN(test_svg);
	RUN(test_opts_version);
	TEST_MAIN_END();
}
