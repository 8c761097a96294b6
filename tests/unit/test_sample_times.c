/* Sample times: a profile keeps when each sample was taken (bounded),
 * slices a time range into a profile of its own, writes the times to
 * pprof (label elapsed) and reads them back, and draws them as a heat map
 * page whose names stay text whatever they are. */
#include <unistd.h>

#include "test.h"
#include "uniprof/uniprof.h"
#include "private.h"

TEST_GLOBALS;

static const char map[] =
	"0000000000001000 T main\n"
	"0000000000002000 T parse\n"
	"0000000000003000 T crc\n"
	"0000000000004000 T </script><script>alert(1)</script>\n"
	"0000000000009000 B _end\n";

static const uint64_t parse_stack[] = { 0x2010, 0x1031 };
static const uint64_t crc_stack[] = { 0x3010, 0x1031 };
static const uint64_t evil_stack[] = { 0x4010, 0x1031 };

#define MS 1000000ULL

/* Second 0-1: parse 3 : crc 1; second 1-2: parse 1 : crc 3; one blocked
 * sample in each; the evil name once at 1.5 s. */
static struct up_profile *split_profile(void)
{
	struct up_profile *p;

	if (up_profile_new(&p, 2) < 0)
		return NULL;
	for (uint64_t t = 0; t < 1000; t += 10) {
		const uint64_t *f = (t / 10) % 4 == 3 ? crc_stack : parse_stack;

		up_profile_add_at(p, 0, f, 2, UP_TRUNC_NONE, UP_VCPU_BUSY, 1, t * MS);
	}
	for (uint64_t t = 1000; t < 2000; t += 10) {
		const uint64_t *f = (t / 10) % 4 == 3 ? parse_stack : crc_stack;

		up_profile_add_at(p, 0, f, 2, UP_TRUNC_NONE, UP_VCPU_BUSY, 1, t * MS);
	}
	up_profile_add_at(p, 1, parse_stack, 2, UP_TRUNC_NONE, UP_VCPU_BLOCKED, 1, 500 * MS);
	up_profile_add_at(p, 1, parse_stack, 2, UP_TRUNC_NONE, UP_VCPU_BLOCKED, 1, 1500 * MS);
	up_profile_add_at(p, 1, evil_stack, 2, UP_TRUNC_NONE, UP_VCPU_BUSY, 1, 1505 * MS);
	return p;
}

static uint64_t self_of(const struct up_profile *p, const struct up_symtab *s,
			const char *name)
{
	const struct up_output_opts o = UP_OUTPUT_OPTS_INIT;
	struct up_top_entry *e;
	size_t n;
	uint64_t self = 0;

	if (up_profile_top(p, s, &o, &e, &n) < 0)
		return UINT64_MAX;
	for (size_t i = 0; i < n; i++)
		if (strcmp(e[i].name, name) == 0)
			self = e[i].self;
	up_top_free(e, n);
	return self;
}

static void test_times_kept_and_sliced(void)
{
	struct up_profile *p = split_profile(), *a = NULL, *b = NULL;
	struct up_symtab *s = NULL;

	REQUIRE(p);
	REQUIRE(up_symtab_load_mem(&s, map, sizeof(map) - 1, "map") == 0);
	CHECK(up_profile_has_times(p));
	CHECK_U64(up_profile_timed(p), 203);
	CHECK_U64(up_profile_untimed(p), 0);
	CHECK_U64(up_profile_time_end(p), 1990 * MS);
	REQUIRE(up_profile_slice(p, 0, 1000 * MS, &a) == 0);
	REQUIRE(up_profile_slice(p, 1000 * MS, 2000 * MS, &b) == 0);
	CHECK_U64(up_profile_samples(a), 101);
	CHECK_U64(self_of(a, s, "parse"), 75);   /* on-CPU: not the blocked one */
	CHECK_U64(self_of(a, s, "crc"), 25);
	CHECK_U64(up_profile_samples(b), 102);
	CHECK_U64(self_of(b, s, "parse"), 25);
	CHECK_U64(self_of(b, s, "crc"), 75);
	CHECK_U64(up_profile_vcpu_blocked(b, 1), 1);
	/* A slice keeps its samples' times: it slices again. */
	CHECK_U64(up_profile_time_end(b), 1990 * MS);
	up_profile_free(a);
	REQUIRE(up_profile_slice(b, 1500 * MS, 1510 * MS, &a) == 0);
	CHECK_U64(up_profile_samples(a), 3);
	up_profile_free(a);
	up_profile_free(b);
	up_profile_free(p);
	up_symtab_free(s);
}

/* Past its bound on times a profile still counts every sample. */
static void test_times_bounded(void)
{
	struct up_profile *p;

	REQUIRE(up_profile_new(&p, 1) == 0);
	up_profile_set_max_times(p, 10);
	for (uint64_t t = 0; t < 30; t++)
		up_profile_add_at(p, 0, t % 2 ? parse_stack : crc_stack, 2,
				  UP_TRUNC_NONE, UP_VCPU_BUSY, 1, t * MS);
	/* The same stack at the same instant is one record. */
	up_profile_add_at(p, 0, crc_stack, 2, UP_TRUNC_NONE, UP_VCPU_BUSY, 4, 29 * MS);
	CHECK_U64(up_profile_samples(p), 34);
	CHECK_U64(up_profile_timed(p), 10);
	CHECK_U64(up_profile_untimed(p), 24);
	/* Samples added without a time are just counted. */
	up_profile_add_activity(p, 0, crc_stack, 2, UP_TRUNC_NONE, UP_VCPU_BUSY, 2);
	CHECK_U64(up_profile_untimed(p), 24);
	CHECK_U64(up_profile_samples(p), 36);
	up_profile_free(p);
}

/* A live view forgets the times it has shown: samples still count. */
static void test_forget_times(void)
{
	struct up_profile *p = split_profile(), *q = NULL;

	REQUIRE(p);
	up_profile_forget_times(p, 1000 * MS);
	CHECK_U64(up_profile_samples(p), 203);
	REQUIRE(up_profile_slice(p, 0, 2000 * MS, &q) == 0);
	CHECK_U64(up_profile_samples(q), 102);
	up_profile_free(q);
	up_profile_free(p);
}

/* Past the stack bound, [dropped] samples keep their times too. */
static void test_dropped_timed(void)
{
	struct up_profile *p, *q;

	REQUIRE(up_profile_new(&p, 1) == 0);
	up_profile_add_at(p, 0, parse_stack, 2, UP_TRUNC_NONE, UP_VCPU_BUSY, 1, 5 * MS);
	up_profile_set_limits(p, 1, 0);
	up_profile_add_at(p, 0, crc_stack, 2, UP_TRUNC_NONE, UP_VCPU_BUSY, 2, 7 * MS);
	CHECK_U64(up_profile_dropped(p), 2);
	REQUIRE(up_profile_slice(p, 6 * MS, 8 * MS, &q) == 0);
	CHECK_U64(up_profile_samples(q), 2);
	CHECK_U64(up_profile_dropped(q), 2);
	up_profile_free(q);
	up_profile_free(p);
}

/* Written to a file and read back, as xl profile report does. */
static struct up_stored *pprof_round_trip(const struct up_profile *p,
					  const struct up_symtab *s)
{
	struct up_pprof_meta m = { .version = UP_PPROF_META_VERSION,
				   .hz = 100, .time_nanos = 1700000000000000000LL,
				   .duration_nanos = 2000000000LL };
	char path[] = "/tmp/uniprof-test-times-XXXXXX";
	const char *paths[] = { path };
	struct up_stored *st = NULL;
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	int rc;

	if (!f)
		return NULL;
	rc = up_profile_write_pprof(p, s, &m, f);
	fclose(f);
	if (rc == 0)
		rc = up_stored_load(&st, paths, 1, NULL);
	unlink(path);
	return rc == 0 ? st : NULL;
}

static void test_pprof_round_trip(void)
{
	struct up_profile *p = split_profile(), *b = NULL;
	struct up_symtab *s = NULL;
	struct up_stored *st = NULL;
	const struct up_profile *q;

	REQUIRE(p);
	REQUIRE(up_symtab_load_mem(&s, map, sizeof(map) - 1, "map") == 0);
	/* Some samples without a time: written without the label. */
	up_profile_add_activity(p, 0, crc_stack, 2, UP_TRUNC_NONE, UP_VCPU_BUSY, 5);
	st = pprof_round_trip(p, s);
	up_profile_free(p);
	up_symtab_free(s);
	REQUIRE(st);
	q = up_stored_profile(st);
	CHECK_U64(up_profile_samples(q), 208);
	CHECK_U64(up_profile_timed(q), 203);
	CHECK_U64(up_profile_time_end(q), 1990 * MS);
	if (up_profile_slice(q, 1000 * MS, 2000 * MS, &b) == 0) {
		CHECK_U64(self_of(b, up_stored_symtab(st), "crc"), 75);
		CHECK_U64(self_of(b, up_stored_symtab(st), "parse"), 25);
		CHECK_U64(up_profile_vcpu_blocked(b, 1), 1);
		up_profile_free(b);
	} else {
		CHECK(0);
	}
	up_stored_free(st);
}

static void test_heatmap_page(void)
{
	struct up_profile *p = split_profile(), *none;
	struct up_symtab *s = NULL;
	const struct up_output_opts o = UP_OUTPUT_OPTS_INIT;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	REQUIRE(p);
	REQUIRE(up_symtab_load_mem(&s, map, sizeof(map) - 1, "map") == 0);
	f = open_memstream(&buf, &len);
	REQUIRE(f);
	CHECK(up_profile_write_heatmap(p, s, &o, "web1 <b>", "legend", f) == 0);
	fclose(f);
	REQUIRE(buf);
	CHECK(test_count(buf, len, "<!DOCTYPE html>") == 1);
	/* Two script elements of ours, the data and the code; the name
	 * that tries to close one is data, escaped. */
	CHECK_U64(test_count(buf, len, "<script"), 2);
	CHECK_U64(test_count(buf, len, "</script>"), 2);
	CHECK(test_count(buf, len, "\\u003c/script\\u003e\\u003cscript\\u003ealert(1)") == 1);
	CHECK(test_count(buf, len, "\"web1 \\u003cb\\u003e\"") == 1);
	CHECK(test_count(buf, len, "\"main;parse\"") == 1);
	CHECK(test_count(buf, len, "\"end_ms\": 1990") == 1);
	/* On-CPU view: the blocked samples are not in it. */
	CHECK(test_count(buf, len, "[idle]") == 0);
	CHECK(test_count(buf, len, "[0,") == 1);
	free(buf);
	/* No times: one clear error, nothing half written counts. */
	REQUIRE(up_profile_new(&none, 1) == 0);
	up_profile_add_activity(none, 0, crc_stack, 2, UP_TRUNC_NONE, UP_VCPU_BUSY, 1);
	buf = NULL;
	f = open_memstream(&buf, &len);
	REQUIRE(f);
	CHECK(up_profile_write_heatmap(none, s, &o, "t", "l", f) < 0);
	CHECK(strstr(up_error_last(), "no sample times") != NULL);
	fclose(f);
	free(buf);
	up_profile_free(none);
	up_profile_free(p);
	up_symtab_free(s);
}

int main(void)
{
	RUN(test_times_kept_and_sliced);
	RUN(test_times_bounded);
	RUN(test_forget_times);
	RUN(test_dropped_timed);
	RUN(test_pprof_round_trip);
	RUN(test_heatmap_page);
	TEST_MAIN_END();
}
