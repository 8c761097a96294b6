/* Stored profiles: a profile written as pprof and read back renders to the
 * same bytes in every writer (folded, SVG, top); folded files read back
 * the same; several files merge; -s re-symbolizes; bad files get one
 * clear error. Also the diff of two stored profiles. */
#include <unistd.h>
#include <zlib.h>

#include "guest.h"
#include "test.h"
#include "private.h"

TEST_GLOBALS;

static const char map[] =
	"0000000000001000 T main\n"
	"0000000000002000 T work\n"
	"0000000000003000 T leaf\n"
	"0000000000004000 T semi;colon\n"
	"0000000000005000 T ends_with_call\n"
	"0000000000005010 T next_func\n"
	"0000000000006000 T bad\xff\xfeutf8\n"
	"0000000000007000 T LONGNAME\n"
	"0000000000009000 B _end\n";

static char dir[] = "/tmp/uniprof-test-stored-XXXXXX";

static char *path_of(const char *name)
{
	static char buf[64][256];
	static int i;

	i = (i + 1) % 64;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

typedef int (*writer_fn)(FILE *f, const struct up_profile *p,
			 const struct up_symtab *s);

static char *render(writer_fn fn, const struct up_profile *p,
		    const struct up_symtab *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (fn(f, p, s) < 0)
		fprintf(stderr, "render: %s\n", up_error_last());
	fclose(f);
	return buf;
}

static const struct up_output_opts all = { .version = UP_OUTPUT_OPTS_VERSION,
					   .vcpu = -1, .with_idle = true,
					    .raw = true };
static const struct up_output_opts busy_only = UP_OUTPUT_OPTS_INIT;

static int w_folded(FILE *f, const struct up_profile *p, const struct up_symtab *s)
{
	return up_profile_write_folded(p, s, &all, f);
}

static int w_svg(FILE *f, const struct up_profile *p, const struct up_symtab *s)
{
	return up_profile_write_svg(p, s, &busy_only, "t", f);
}

static int w_top(FILE *f, const struct up_profile *p, const struct up_symtab *s)
{
	return up_profile_write_top(p, s, &all, 50, f);
}

static int w_vcpu1(FILE *f, const struct up_profile *p, const struct up_symtab *s)
{
	const struct up_output_opts o = { .version = UP_OUTPUT_OPTS_VERSION,
					  .vcpu = 1, .with_idle = true };

	return up_profile_write_folded(p, s, &o, f);
}

static int write_pprof(const char *path, const struct up_profile *p,
		       const struct up_symtab *s)
{
	static const char *const comments[] = {
		"domain: web1", "type: pvh", "vcpus: 3", "frequency: 97 Hz",
	};
	static const struct up_pprof_mapping kernel = {
		0x1000, 0x9000, 0x1000, "/boot/web1.elf", "0123abcd",
	};
	struct up_pprof_meta m = {
		.version = UP_PPROF_META_VERSION,
		.hz = 97, .time_nanos = 1700000000000000000LL,
		.duration_nanos = 30000000000LL, .mappings = &kernel,
		.nr_mappings = 1, .comments = comments, .nr_comments = 4,
	};
	FILE *f = fopen(path, "wb");
	int rc;

	if (!f)
		return -1;
	rc = up_profile_write_pprof(p, s, &m, f);
	fclose(f);
	return rc;
}

/* Every kind of stack a live profile holds. */
static struct up_profile *sample_profile(void)
{
	struct up_profile *p;
	uint64_t a[] = { 0x3010, 0x2021, 0x1031 };
	uint64_t b[] = { 0x2050, 0x1031 };
	uint64_t semi[] = { 0x4004, 0x1031 };
	uint64_t ends[] = { 0x5010, 0x5010 };    /* an IP and a return address */
	uint64_t unknown[] = { 0x8888888, 0x1031 };
	uint64_t badname[] = { 0x6001, 0x7001 };
	uint64_t other[] = { 0x3000, 0x2000, 0x1000 };

	if (up_profile_new(&p, 3) < 0)
		return NULL;
	for (int i = 0; i < 5; i++)
		up_profile_add_activity(p, 0, a, 3, UP_TRUNC_NONE, UP_VCPU_BUSY, 1);
	up_profile_add_activity(p, 0, b, 2, UP_TRUNC_NONE, UP_VCPU_BLOCKED, 7);
	up_profile_add_activity(p, 1, semi, 2, UP_TRUNC_NONE, UP_VCPU_BUSY, 2);
	up_profile_add_activity(p, 1, ends, 2, UP_TRUNC_NONE, UP_VCPU_BUSY, 3);
	up_profile_add_activity(p, 1, unknown, 2, UP_TRUNC_OUTSIDE_TEXT, UP_VCPU_BUSY, 1);
	up_profile_add_activity(p, 0, badname, 2, UP_TRUNC_LOOP, UP_VCPU_BLOCKED, 4);
	/* Past the stack cap: counted in the [dropped] stack. */
	up_profile_set_limits(p, up_profile_unique_stacks(p), 0);
	up_profile_add_activity(p, 1, other, 3, UP_TRUNC_NONE, UP_VCPU_BUSY, 2);
	/* CPU time no sample saw, written as [unseen]. */
	up_profile_add_unseen(p, 1, 6);
	return p;
}

static char *long_map(void)
{
	char *m = malloc(sizeof(map) + 700), *at;
	char name[701];

	memset(name, 'x', 700);
	name[700] = '\0';
	memcpy(m, map, sizeof(map));
	at = strstr(m, "LONGNAME");
	memmove(at + 700, at + 8, strlen(at + 8) + 1);
	memcpy(at, name, 700);
	return m;
}

static void test_pprof_round_trip(void)
{
	struct up_symtab *s;
	struct up_profile *p = sample_profile();
	struct up_stored *st, *again;
	const char *path = path_of("p.pb.gz"), *path2 = path_of("p2.pb.gz");
	writer_fn fns[] = { w_folded, w_svg, w_top, w_vcpu1 };
	char *m = long_map();

	REQUIRE(p && up_symtab_load_mem(&s, m, strlen(m), "map") == 0);
	free(m);
	REQUIRE(write_pprof(path, p, s) == 0);
	REQUIRE(up_stored_load(&st, &path, 1, NULL) == 0);
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		char *live = render(fns[i], p, s);
		char *back = render(fns[i], up_stored_profile(st), up_stored_symtab(st));

		CHECK_STR(back, live);
		free(live);
		free(back);
	}
	{
		char *live = render(w_folded, p, s);

		CHECK(strstr(live, "[idle];[truncated];") != NULL);
		CHECK(strstr(live, "semi_colon") != NULL);
		CHECK(strstr(live, "[dropped] 2") != NULL);
		CHECK(strstr(live, "\n[unseen] 6\n") != NULL);
		CHECK(strstr(live, "ends_with_call;next_func 3") != NULL);
		CHECK(strstr(live, "...#") != NULL);          /* the long name, cut */
		free(live);
	}
	const struct up_profile *q = up_stored_profile(st);
	CHECK(up_stored_format_of(st) == UP_STORED_PPROF);
	CHECK_U64(up_profile_nr_vcpus(q), 3);                 /* from the comment */
	CHECK_U64(up_profile_samples(q), up_profile_samples(p));
	CHECK_U64(up_profile_vcpu_busy(q, 1), 8);
	CHECK_U64(up_profile_vcpu_blocked(q, 0), 11);
	CHECK_U64(up_profile_dropped(q), 2);
	CHECK_U64(up_profile_vcpu_unseen(q, 1), 6);
	CHECK_U64(up_profile_vcpu_unseen(q, 0), 0);
	CHECK_U64(up_profile_truncated_by(q, UP_TRUNC_LOOP), 4);
	CHECK_U64(up_profile_truncated_by(q, UP_TRUNC_OUTSIDE_TEXT), 1);
	CHECK(up_stored_hz(st) > 96.99 && up_stored_hz(st) < 97.01);
	CHECK_STR(up_stored_comment(st, "domain"), "web1");
	CHECK_STR(up_stored_comment(st, "frequency"), "97 Hz");
	CHECK_STR(up_stored_build_id(st), "0123abcd");
	CHECK_STR(up_stored_kernel(st), "/boot/web1.elf");
	CHECK(up_stored_duration_nanos(st) == 30000000000LL);

	/* Written again from what was read: the same profile. */
	REQUIRE(write_pprof(path2, up_stored_profile(st), up_stored_symtab(st)) == 0);
	REQUIRE(up_stored_load(&again, &path2, 1, NULL) == 0);
	{
		char *a = render(w_folded, up_stored_profile(st), up_stored_symtab(st));
		char *b = render(w_folded, up_stored_profile(again), up_stored_symtab(again));

		CHECK_STR(b, a);
		free(a);
		free(b);
	}
	/* Re-symbolized by the same map: the same names. */
	{
		struct up_stored *r;
		char *a, *b;

		REQUIRE(up_stored_load(&r, &path, 1, s) == 0);
		a = render(w_folded, p, s);
		b = render(w_folded, up_stored_profile(r), up_stored_symtab(r));
		CHECK_STR(b, a);
		free(a);
		free(b);
		up_stored_free(r);
	}
	up_stored_free(again);
	up_stored_free(st);
	up_profile_free(p);
	up_symtab_free(s);
}

static int write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return -1;
	fwrite(data, 1, len, f);
	return fclose(f);
}

static void test_folded_round_trip(void)
{
	static const char text[] =
		"[idle];[dropped] 3\n"
		"[idle];main;work 7\n"
		"[truncated];main;work;leaf 2\n"
		"main;work;leaf 5\n"
		"weird name with spaces;leaf 1\n";
	struct up_stored *st;
	const char *path = path_of("f.folded");
	const char *two[] = { path, path };
	char *out;

	REQUIRE(write_file(path, text, sizeof(text) - 1) == 0);
	REQUIRE(up_stored_load(&st, &path, 1, NULL) == 0);
	CHECK(up_stored_format_of(st) == UP_STORED_FOLDED);
	out = render(w_folded, up_stored_profile(st), up_stored_symtab(st));
	CHECK_STR(out, text);
	free(out);
	CHECK_U64(up_profile_vcpu_blocked(up_stored_profile(st), 0), 10);
	CHECK_U64(up_profile_vcpu_busy(up_stored_profile(st), 0), 8);
	CHECK_U64(up_profile_dropped(up_stored_profile(st)), 3);
	up_stored_free(st);

	/* Two files merge: every count doubles. */
	REQUIRE(up_stored_load(&st, two, 2, NULL) == 0);
	out = render(w_folded, up_stored_profile(st), up_stored_symtab(st));
	CHECK(strstr(out, "main;work;leaf 10\n") != NULL);
	CHECK(strstr(out, "[idle];main;work 14\n") != NULL);
	free(out);
	up_stored_free(st);
}

/* A folded line deeper than 4096 frames keeps its leaf end, marked
 * truncated (depth limit); 200,000 frames read in linear time. */
static void test_folded_deep(void)
{
	const size_t n = 200000;
	char *text = malloc(n * 2 + 64), *at = text;
	const char *path = path_of("deep.folded");
	struct up_stored *st;
	char *out;

	REQUIRE(text != NULL);
	at += sprintf(at, "[idle];root");
	for (size_t i = 1; i < n - 1; i++)
		at += sprintf(at, ";x");
	sprintf(at, ";leaf 3\n");
	REQUIRE(write_file(path, text, strlen(text)) == 0);
	free(text);
	REQUIRE(up_stored_load(&st, &path, 1, NULL) == 0);
	CHECK_U64(up_profile_truncated_by(up_stored_profile(st), UP_TRUNC_DEPTH), 3);
	CHECK_U64(up_profile_vcpu_blocked(up_stored_profile(st), 0), 3);
	out = render(w_folded, up_stored_profile(st), up_stored_symtab(st));
	REQUIRE(out != NULL);
	CHECK(strncmp(out, "[idle];[truncated];x;", 21) == 0);
	CHECK(strstr(out, ";x;leaf 3\n") != NULL);
	CHECK(strstr(out, "root") == NULL);
	CHECK_U64(strlen(out), strlen("[idle];[truncated];") + 4095 * 2 + strlen("leaf 3\n"));
	free(out);
	up_stored_free(st);
}

/* A pprof and a folded file of the same run merge by name. */
static void test_merge_pprof_and_folded(void)
{
	struct up_symtab *s;
	struct up_profile *p = sample_profile();
	struct up_stored *st;
	const char *pp = path_of("m.pb.gz"), *fo = path_of("m.folded");
	const char *both[] = { pp, fo };
	char *live, *merged;
	FILE *f;

	REQUIRE(p && up_symtab_load_mem(&s, map, sizeof(map) - 1, "map") == 0);
	REQUIRE(write_pprof(pp, p, s) == 0);
	f = fopen(fo, "w");
	REQUIRE(f && up_profile_write_folded(p, s, &all, f) == 0);
	fclose(f);
	REQUIRE(up_stored_load(&st, both, 2, NULL) == 0);
	live = render(w_folded, p, s);
	merged = render(w_folded, up_stored_profile(st), up_stored_symtab(st));
	CHECK(strstr(live, "main;work;leaf 5\n") && strstr(merged, "main;work;leaf 10\n"));
	CHECK_U64(up_profile_samples(up_stored_profile(st)), 2 * up_profile_samples(p));
	free(live);
	free(merged);
	up_stored_free(st);
	up_profile_free(p);
	up_symtab_free(s);
}

static void expect_error(const char *path, const char *what)
{
	struct up_stored *st = NULL;

	CHECK(up_stored_load(&st, &path, 1, NULL) < 0);
	if (!strstr(up_error_last(), what)) {
		fprintf(stderr, "%s: error \"%s\" lacks \"%s\"\n", path,
			up_error_last(), what);
		test_failures++;
	}
	CHECK(strchr(up_error_last(), '\n') == NULL);
	CHECK(st == NULL);
}

static void test_bad_input(void)
{
	struct up_symtab *s;
	struct up_profile *p = sample_profile();
	const char *good = path_of("good.pb.gz"), *cut = path_of("cut.pb.gz");
	uint8_t junk[512], *gz;
	size_t len;
	FILE *f;

	REQUIRE(p && up_symtab_load_mem(&s, map, sizeof(map) - 1, "map") == 0);
	REQUIRE(write_pprof(good, p, s) == 0);
	expect_error(path_of("missing.pb.gz"), "cannot open profile");
	REQUIRE(write_file(path_of("empty"), "", 0) == 0);
	expect_error(path_of("empty"), "empty: not a profile");
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)(i * 7 + 3);
	REQUIRE(write_file(path_of("junk"), junk, sizeof(junk)) == 0);
	expect_error(path_of("junk"), "not a profile");
	REQUIRE(write_file(path_of("text"), "hello world\nno counts\n", 22) == 0);
	expect_error(path_of("text"), "not a profile");
	REQUIRE(write_file(path_of("badline"), "a;b 3\nc;d x\n", 12) == 0);
	expect_error(path_of("badline"), "line 2");
	/* A gzip file cut in the middle. */
	f = fopen(good, "rb");
	REQUIRE(f != NULL);
	gz = malloc(1 << 20);
	len = fread(gz, 1, 1 << 20, f);
	fclose(f);
	REQUIRE(write_file(cut, gz, len / 2) == 0);
	expect_error(cut, "gzip data is cut short");
	free(gz);
	/* -s with a folded file: names, not addresses. */
	{
		struct up_stored *st;
		const char *fo = path_of("f2.folded");

		REQUIRE(write_file(fo, "a;b 1\n", 6) == 0);
		CHECK(up_stored_load(&st, &fo, 1, s) < 0);
		CHECK(strstr(up_error_last(), "needs a pprof") != NULL);
	}
	up_profile_free(p);
	up_symtab_free(s);
}

/* leaf/work 60/40 before, 20/80 after: -40 and +40 points. */
static void test_diff(void)
{
	struct up_symtab *s;
	struct up_profile *before, *after;
	uint64_t x[] = { 0x3010, 0x2021, 0x1031 }, y[] = { 0x2050, 0x1031 };
	struct up_diff_entry *e;
	size_t n;
	uint64_t kb, ka;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	REQUIRE(up_symtab_load_mem(&s, map, sizeof(map) - 1, "map") == 0);
	REQUIRE(up_profile_new(&before, 1) == 0 && up_profile_new(&after, 1) == 0);
	up_profile_add_activity(before, 0, x, 3, UP_TRUNC_NONE, UP_VCPU_BUSY, 60);
	up_profile_add_activity(before, 0, y, 2, UP_TRUNC_NONE, UP_VCPU_BUSY, 40);
	up_profile_add_activity(after, 0, x, 3, UP_TRUNC_NONE, UP_VCPU_BUSY, 50);
	up_profile_add_activity(after, 0, y, 2, UP_TRUNC_NONE, UP_VCPU_BUSY, 200);
	REQUIRE(up_profile_diff(before, s, after, s, &busy_only, &e, &n, &kb, &ka) == 0);
	CHECK_U64(kb, 100);
	CHECK_U64(ka, 250);
	REQUIRE(n == 3);                     /* leaf, work, main */
	/* Equal changes: by name. */
	CHECK(strcmp(e[0].name, "leaf") == 0 && strcmp(e[1].name, "work") == 0);
	CHECK(e[0].delta < -39.99 && e[0].delta > -40.01);
	CHECK(e[1].delta > 39.99 && e[1].delta < 40.01);
	CHECK(e[2].delta == 0 && e[2].total_after_pct == 100);
	up_diff_free(e, n);

	f = open_memstream(&buf, &len);
	CHECK(up_profile_write_diff_svg(before, s, after, s, &busy_only, "d", f) == 0);
	fclose(f);
	REQUIRE(buf != NULL);
	/* leaf shrank from 60% to 20%: the deepest blue; work grew: red. */
	CHECK(strstr(buf, "leaf (50 samples, 60.00% before, 20.00% after, -40.00 points)</title><rect") != NULL);
	CHECK(strstr(buf, "fill=\"rgb(60,60,250)\"") != NULL);
	CHECK(strstr(buf, "work (250 samples, 100.00% before, 100.00% after, +0.00 points)") != NULL);
	CHECK(strstr(buf, "red grew, blue shrank") != NULL);
	free(buf);
	up_profile_free(before);
	up_profile_free(after);
	up_symtab_free(s);
}

int main(void)
{
	char cmd[300];

	if (!mkdtemp(dir))
		return 1;
	RUN(test_pprof_round_trip);
	RUN(test_folded_round_trip);
	RUN(test_folded_deep);
	RUN(test_merge_pprof_and_folded);
	RUN(test_bad_input);
	RUN(test_diff);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		return 1;
	TEST_MAIN_END();
}
