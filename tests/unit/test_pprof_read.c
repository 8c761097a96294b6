/* Reading pprof profiles that fight back (core/profile/pprof_read.c): a string a
 * file names many times, function ids not 1..n, a long name named by
 * every frame, a location of many lines named by every sample, too many
 * mappings or mapping names too long. Each is
 * read in a child, its CPU time and peak memory measured against a plain
 * profile of the same shape read the same way (a busy machine slows both
 * alike); the old code takes seconds or hundreds of MiB where these take
 * what the plain one takes. With UNIPROF_SEED_DIR set, small copies of the
 * hostile files are written there (tests/fuzz/corpus/fuzz_stored).
 * And what the reader keeps of the mappings: every field of each, through
 * a rewrite, of every file merged, and when the addresses cannot keep
 * them, by name. */
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "pprof/profile.pb-c.h"
#include "profile/stored_impl.h"
#include "uniprof/uniprof.h"
#include "private.h"
#include "pprof_unpack.h"
#include "test.h"

TEST_GLOBALS;

typedef Perftools__Profiles__Profile PbProfile;
typedef Perftools__Profiles__Sample PbSample;
typedef Perftools__Profiles__Location PbLocation;
typedef Perftools__Profiles__Function PbFunction;
typedef Perftools__Profiles__Line PbLine;
typedef Perftools__Profiles__Label PbLabel;
typedef Perftools__Profiles__ValueType PbValueType;
typedef Perftools__Profiles__Mapping PbMapping;

/* A profile to make: functions f0..; one-line locations by address, or
 * (lines) one location of that many lines at address 0 (read by name);
 * samples naming depth locations each; comment references to one string. */
struct shape {
	size_t functions;
	bool odd_ids;           /* ids 1000 + 2i, in reverse order */
	const char *long_name;  /* function 0's name instead of f0 */
	size_t locations, lines;
	size_t samples, depth;
	size_t comments, comment_len;
	bool times;             /* time_ns labels */
	size_t mappings;        /* more after the first, 64 KiB apart */
	bool map_named;         /* each mapping's file: function 0's name */
	uint64_t map_len;       /* the first's length (0: all locations) */
};

enum { S_EMPTY, S_SAMPLES, S_COUNT, S_VCPUS, S_TIME, S_COMMENT, S_NAMES };

static uint64_t fid(const struct shape *sh, size_t i)
{
	return sh->odd_ids ? 1000 + 2 * (sh->functions - 1 - i) : i + 1;
}

/* The profile, packed; NULL when out of memory. */
static uint8_t *make(const struct shape *sh, size_t *len)
{
	size_t nloc = sh->lines ? 1 : sh->locations, nstr = S_NAMES + sh->functions;
	size_t nlines = sh->lines ? sh->lines : nloc;
	PbProfile pb = PERFTOOLS__PROFILES__PROFILE__INIT;
	PbValueType vt = PERFTOOLS__PROFILES__VALUE_TYPE__INIT, *vtp = &vt;
	PbMapping *map = calloc(sh->mappings + 1, sizeof(*map));
	PbMapping **mapp = calloc(sh->mappings + 1, sizeof(*mapp));
	char **str = calloc(nstr, sizeof(*str));
	PbFunction *fn = calloc(sh->functions, sizeof(*fn));
	PbFunction **fnp = calloc(sh->functions, sizeof(*fnp));
	PbLocation *loc = calloc(nloc, sizeof(*loc));
	PbLocation **locp = calloc(nloc, sizeof(*locp));
	PbLine *line = calloc(nlines, sizeof(*line));
	PbLine **linep = calloc(nlines, sizeof(*linep));
	PbSample *sm = calloc(sh->samples, sizeof(*sm));
	PbSample **smp = calloc(sh->samples, sizeof(*smp));
	PbLabel *lab = calloc(sh->samples, sizeof(*lab));
	PbLabel **labp = calloc(sh->samples, sizeof(*labp));
	uint64_t *ids = calloc(sh->samples * sh->depth + 1, sizeof(*ids));
	int64_t *val = calloc(sh->samples + 1, sizeof(*val));
	int64_t *com = calloc(sh->comments + 1, sizeof(*com));
	uint8_t *out = NULL;

	if (!str || !fn || !fnp || !loc || !locp || !line || !linep || !sm ||
	    !smp || !lab || !labp || !ids || !val || !com || !map || !mapp)
		goto done;
	str[S_EMPTY] = strdup("");
	str[S_SAMPLES] = strdup("samples");
	str[S_COUNT] = strdup("count");
	str[S_VCPUS] = strdup("vcpus: 3");
	str[S_TIME] = strdup("time_ns");
	str[S_COMMENT] = malloc(sh->comment_len + 7);
	if (str[S_COMMENT]) {
		memcpy(str[S_COMMENT], "note: ", 6);
		memset(str[S_COMMENT] + 6, 'c', sh->comment_len > 6 ? sh->comment_len - 6 : 0);
		str[S_COMMENT][sh->comment_len > 6 ? sh->comment_len : 6] = '\0';
	}
	for (size_t i = 0; i < sh->functions; i++) {
		if (i == 0 && sh->long_name) {
			str[S_NAMES] = strdup(sh->long_name);
		} else if ((str[S_NAMES + i] = malloc(24)) != NULL) {
			snprintf(str[S_NAMES + i], 24, "f%zu", i);
		}
		perftools__profiles__function__init(&fn[i]);
		fn[i].id = fid(sh, i);
		fn[i].name = (int64_t)(S_NAMES + i);
		fnp[i] = &fn[i];
	}
	for (size_t i = 0; i < nstr; i++)
		if (!str[i])
			goto done;
	for (size_t i = 0; i < nlines; i++) {
		perftools__profiles__line__init(&line[i]);
		line[i].function_id = fid(sh, i % sh->functions);
		linep[i] = &line[i];
	}
	for (size_t i = 0; i < nloc; i++) {
		perftools__profiles__location__init(&loc[i]);
		loc[i].id = i + 1;
		if (sh->lines) {
			loc[i].n_line = sh->lines;
			loc[i].line = linep;
		} else {
			loc[i].address = 0x1000 + 16 * i;
			loc[i].mapping_id = 1;
			loc[i].n_line = 1;
			loc[i].line = &linep[i];
		}
		locp[i] = &loc[i];
	}
	for (size_t i = 0; i < sh->samples; i++) {
		perftools__profiles__sample__init(&sm[i]);
		for (size_t k = 0; k < sh->depth; k++)
			ids[i * sh->depth + k] = (i + k) % nloc + 1;
		sm[i].n_location_id = sh->depth;
		sm[i].location_id = ids + i * sh->depth;
		val[i] = 1;
		sm[i].n_value = 1;
		sm[i].value = &val[i];
		if (sh->times) {
			perftools__profiles__label__init(&lab[i]);
			lab[i].key = S_TIME;
			lab[i].num = 1700000000000000000LL + (int64_t)i * 1000000;
			labp[i] = &lab[i];
			sm[i].n_label = 1;
			sm[i].label = &labp[i];
		}
		smp[i] = &sm[i];
	}
	com[0] = S_VCPUS;
	for (size_t i = 1; i <= sh->comments; i++)
		com[i] = S_COMMENT;
	vt.type = S_SAMPLES;
	vt.unit = S_COUNT;
	for (size_t i = 0; i <= sh->mappings; i++) {
		perftools__profiles__mapping__init(&map[i]);
		map[i].id = i + 1;
		map[i].memory_start = 0x1000 + 0x10000 * i;
		map[i].memory_limit = map[i].memory_start +
				      (i ? 0x1000 : sh->map_len ? sh->map_len : 16 * nloc);
		map[i].filename = sh->map_named ? S_NAMES : 0;
		mapp[i] = &map[i];
	}
	pb.n_sample_type = 1;
	pb.sample_type = &vtp;
	pb.n_mapping = sh->mappings + 1;
	pb.mapping = mapp;
	pb.n_function = sh->functions;
	pb.function = fnp;
	pb.n_location = nloc;
	pb.location = locp;
	pb.n_sample = sh->samples;
	pb.sample = smp;
	pb.n_string_table = nstr;
	pb.string_table = str;
	pb.n_comment = sh->comments + 1;
	pb.comment = com;
	pb.time_nanos = 1700000000000000000LL;
	pb.duration_nanos = 1000000000LL * 3600;
	out = malloc(perftools__profiles__profile__get_packed_size(&pb));
	if (out)
		*len = perftools__profiles__profile__pack(&pb, out);
done:
	for (size_t i = 0; str && i < nstr; i++)
		free(str[i]);
	free(str);
	free(fn);
	free(fnp);
	free(loc);
	free(locp);
	free(line);
	free(linep);
	free(sm);
	free(smp);
	free(lab);
	free(labp);
	free(ids);
	free(val);
	free(com);
	free(map);
	free(mapp);
	return out;
}

/* What reading one file took and gave. */
struct outcome {
	bool ran, killed;
	int rc;
	double cpu_s;
	long rss_kb;            /* peak resident memory grown while reading */
	size_t comments, comment_bytes;
	uint64_t samples, dropped;
	unsigned vcpus;
	char warning[256], error[256];
};

static double cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Read the shape's profile in a child (a fresh peak to measure from; a
 * hang or a runaway of the old code killed after LIMIT seconds). */
static struct outcome measure(const struct shape *sh, unsigned limit)
{
	struct outcome o = { 0 };
	size_t len = 0, got = 0;
	uint8_t *buf = make(sh, &len);
	int fd[2], status;
	pid_t pid;

	if (!buf || pipe(fd) < 0) {
		free(buf);
		return o;
	}
	pid = fork();
	if (pid == 0) {
		struct rusage r0, r1;
		struct up_stored *st;
		double t0;

		close(fd[0]);
		alarm(limit);
		getrusage(RUSAGE_SELF, &r0);
		t0 = cpu_now();
		o.rc = up_stored_load_mem(&st, buf, len, "hostile.pb", NULL);
		o.cpu_s = cpu_now() - t0;
		getrusage(RUSAGE_SELF, &r1);
		o.rss_kb = r1.ru_maxrss - r0.ru_maxrss;
		o.ran = true;
		if (o.rc == 0) {
			const struct up_profile *p = up_stored_profile(st);
			const char *w = up_stored_warning(st);

			o.comments = up_stored_nr_comments(st);
			for (size_t i = 0; i < o.comments; i++)
				o.comment_bytes += strlen(up_stored_comment_line(st, i)) + 1;
			o.samples = up_profile_samples(p);
			o.dropped = up_profile_dropped(p);
			o.vcpus = up_profile_nr_vcpus(p);
			snprintf(o.warning, sizeof(o.warning), "%s", w ? w : "");
		} else {
			snprintf(o.error, sizeof(o.error), "%s", up_error_last());
		}
		if (write(fd[1], &o, sizeof(o)) != (ssize_t)sizeof(o))
			_exit(1);
		_exit(0);
	}
	close(fd[1]);
	free(buf);
	while (pid > 0 && got < sizeof(o)) {
		ssize_t n = read(fd[0], (char *)&o + got, sizeof(o) - got);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd[0]);
	if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFSIGNALED(status))
		o.killed = true;
	if (got < sizeof(o))
		o.ran = false;
	if (!o.ran)
		fprintf(stderr, "%s: the reading child %s\n", test_current,
			o.killed ? "was killed (out of time)" : "failed");
	return o;
}

/* Time and memory within a margin of the plain file's: twice its CPU
 * time and a quarter second, 16 MiB more at the peak. */
static void check_like(const struct outcome *hostile, const struct outcome *plain,
		       const char *what)
{
	fprintf(stderr, "# %s: %.3f s, %ld KiB; plain: %.3f s, %ld KiB\n", what,
		hostile->cpu_s, hostile->rss_kb, plain->cpu_s, plain->rss_kb);
	CHECK(hostile->ran && plain->ran);
	CHECK(hostile->rc == 0 && plain->rc == 0);
	CHECK(hostile->cpu_s <= 2 * plain->cpu_s + 0.25);
	CHECK(hostile->rss_kb <= plain->rss_kb + 16 * 1024);
}

static void save_seed(const char *name, const struct shape *sh)
{
	const char *dir = getenv("UNIPROF_SEED_DIR");
	char path[4096];
	size_t len = 0;
	uint8_t *buf;
	FILE *f;

	if (!dir)
		return;
	buf = make(sh, &len);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	CHECK(buf && f && fwrite(buf, 1, len, f) == len);
	if (f)
		fclose(f);
	free(buf);
}

/* F5: one 64 KiB string named by 4,000 comments took a copy each (256 MiB
 * from a file of 72 KiB); now at most 1 MiB of comment lines is kept, each
 * cut at 4 KiB, the rest left out with a warning, the profile read. */
static void test_comments_bounded(void)
{
	struct shape sh = { .functions = 4, .locations = 4, .samples = 100,
			    .depth = 2, .comments = 4000, .comment_len = 64 << 10,
			    .times = true };
	struct shape plain = sh;
	struct outcome h, p;

	plain.comments = 1;
	p = measure(&plain, 60);
	h = measure(&sh, 60);
	check_like(&h, &p, "4,000 comments naming one 64 KiB string");
	CHECK(h.comments >= 2 && h.comments <= 8192);
	CHECK(h.comment_bytes <= (1u << 20));
	CHECK(strstr(h.warning, "comment lines left out") != NULL);
	CHECK(strstr(h.warning, "cut at 4096 bytes") != NULL);
	CHECK_U64(h.samples, 100);
	CHECK_U64(h.vcpus, 3);          /* the first comment, "vcpus: 3", kept */
	sh.comments = 64;
	sh.comment_len = 8 << 10;
	sh.samples = 20;
	save_seed("hostile-comments.pb", &sh);
}

/* F6: 20,000 functions whose ids are not 1..n were searched one by one at
 * every frame (n squared); now by binary search, as fast as ids 1..n. */
static void test_function_ids_indexed(void)
{
	struct shape sh = { .functions = 20000, .odd_ids = true,
			    .locations = 20000, .samples = 20000, .depth = 8 };
	struct shape plain = sh;
	struct outcome h, p;

	plain.odd_ids = false;
	p = measure(&plain, 60);
	h = measure(&sh, 60);
	check_like(&h, &p, "20,000 functions, ids not 1..n");
	CHECK_U64(h.samples, 20000);
	CHECK_U64(h.dropped, 0);
	sh.functions = sh.locations = 300;
	sh.samples = 100;
	save_seed("hostile-function-ids.pb", &sh);
}

/* A 1 MiB function name that every frame names was hashed at every frame
 * (128k frames: 128 GiB hashed); now once. */
static void test_long_name_hashed_once(void)
{
	struct shape sh = { .functions = 1, .locations = 64, .samples = 2000,
			    .depth = 64 };
	struct shape plain = sh;
	struct outcome h, p;
	char *name = malloc((1 << 20) + 1);

	REQUIRE(name);
	memset(name, 'n', 1 << 20);
	name[1 << 20] = '\0';
	sh.long_name = name;
	p = measure(&plain, 60);
	h = measure(&sh, 20);
	check_like(&h, &p, "a 1 MiB name at every frame");
	CHECK_U64(h.samples, 2000);
	name[4096] = '\0';
	sh.samples = 50;
	sh.depth = 16;
	save_seed("hostile-long-name.pb", &sh);
	free(name);
}

/* A location of 4,096 inlined lines (a frame each, by name) named by 2,000
 * samples: the names were made and hashed again for every sample (8M
 * times); now once per location, the samples copying its frames. */
static void test_inlined_lines_made_once(void)
{
	struct shape sh = { .functions = 4096, .lines = 4096, .samples = 2000,
			    .depth = 1, .times = true };
	struct shape plain = { .functions = 4096, .lines = 2, .samples = 2000,
			       .depth = 1, .times = true };
	struct outcome h, p;

	p = measure(&plain, 60);
	h = measure(&sh, 60);
	check_like(&h, &p, "2,000 samples of a 4,096-line location");
	CHECK_U64(h.samples, 2000);
	sh.functions = sh.lines = 300;
	sh.samples = 40;
	save_seed("hostile-inlined-lines.pb", &sh);
}

/* Past the frames a file may make (lowered here from 256 Mi), the rest of
 * its stacks count as [dropped], said in one line; counts all kept. */
static void test_frame_bound(void)
{
	const struct shape sh = { .functions = 4096, .lines = 4096,
				  .samples = 2000, .depth = 1 };
	const size_t saved = stored_limits.frames;
	struct up_stored *st = NULL;
	size_t len = 0;
	uint8_t *buf = make(&sh, &len);

	REQUIRE(buf);
	stored_limits.frames = 100000;          /* 24 stacks of 4,096 */
	CHECK(up_stored_load_mem(&st, buf, len, "lines.pb", NULL) == 0);
	stored_limits.frames = saved;
	free(buf);
	REQUIRE(st);
	CHECK_U64(up_profile_samples(up_stored_profile(st)), 2000);
	CHECK_U64(up_profile_dropped(up_stored_profile(st)), 2000 - 24);
	CHECK(up_stored_warning(st) &&
	      strstr(up_stored_warning(st), "lines.pb: 1976 stacks past 100000 frames") &&
	      !strchr(up_stored_warning(st), '\n'));
	up_stored_free(st);
}

/* Mappings: at most 4,096 distinct ones (each hashed once), a file past
 * that refused in one line, not rewritten without some; a mapping's name
 * past 4 KiB is no path and refused too, a 1 MiB one named by every
 * mapping costing no more than a short one. */
static void test_mappings_bounded(void)
{
	struct shape sh = { .functions = 4, .locations = 64, .samples = 100,
			    .depth = 4, .mappings = 4095, .map_named = true };
	struct shape plain = sh;
	struct up_stored *st = NULL;
	struct outcome h, p;
	size_t len = 0, n = 0;
	uint8_t *buf = make(&sh, &len);
	char *name = malloc((1 << 20) + 1);

	REQUIRE(buf && name);
	CHECK(up_stored_load_mem(&st, buf, len, "4096.pb", NULL) == 0);
	free(buf);
	if (st) {
		const struct up_pprof_mapping *m = up_stored_mappings(st, &n);

		CHECK_U64(n, 4096);
		CHECK(m && m[4095].start == 0x1000 + 0x10000 * 4095ULL);
		CHECK(!up_stored_names_only(st));
		up_stored_free(st);
	}
	sh.mappings = 4096;
	h = measure(&sh, 60);
	CHECK(h.ran && h.rc < 0);
	CHECK(strstr(h.error, "hostile.pb: more than 4096 distinct mappings") != NULL);
	/* Every mapping naming a 1 MiB string: refused at the first, at
	 * once; one of 4 KiB is a name. */
	memset(name, 'm', 1 << 20);
	name[1 << 20] = '\0';
	sh.mappings = 4095;
	sh.long_name = name;
	plain.long_name = NULL;
	p = measure(&plain, 60);
	h = measure(&sh, 20);
	fprintf(stderr, "# 4,096 mappings naming a 1 MiB string: %.3f s; plain: %.3f s\n",
		h.cpu_s, p.cpu_s);
	CHECK(h.ran && h.rc < 0 && p.ran && p.rc == 0);
	CHECK(h.cpu_s <= 2 * p.cpu_s + 0.25);
	CHECK(strstr(h.error, "a mapping's file name or build-id longer than 4096 bytes") != NULL);
	name[4096] = '\0';
	h = measure(&sh, 20);
	CHECK(h.ran && h.rc == 0);
	sh.mappings = 16;
	sh.samples = 20;
	save_seed("hostile-mappings.pb", &sh);
	free(name);
}

/* A file whose locations are not in the mapping that holds their address
 * (one past its mapping's end, mappings that overlap) is read by name: a
 * rewrite by address would put them in another mapping. */
static void test_inconsistent_mappings_by_name(void)
{
	struct shape sh = { .functions = 4, .locations = 8, .samples = 10,
			    .depth = 2 };
	struct up_stored *st = NULL;
	size_t len = 0, n = 0;
	uint8_t *buf = make(&sh, &len);

	REQUIRE(buf);
	REQUIRE(up_stored_load_mem(&st, buf, len, "ok.pb", NULL) == 0);
	CHECK(!up_stored_names_only(st));
	up_stored_free(st);
	free(buf);
	sh.map_len = 16 * 7;            /* the last location outside */
	buf = make(&sh, &len);
	REQUIRE(buf);
	REQUIRE(up_stored_load_mem(&st, buf, len, "outside.pb", NULL) == 0);
	CHECK(up_stored_names_only(st));
	CHECK(up_stored_mappings(st, &n) && n == 1);   /* kept all the same */
	CHECK_U64(up_profile_samples(up_stored_profile(st)), 10);
	up_stored_free(st);
	free(buf);
	sh.map_len = 0x20000;           /* over the second mapping */
	sh.mappings = 1;
	buf = make(&sh, &len);
	REQUIRE(buf);
	REQUIRE(up_stored_load_mem(&st, buf, len, "overlap.pb", NULL) == 0);
	CHECK(up_stored_names_only(st));
	up_stored_free(st);
	free(buf);
}

/* Written by our writer, as xl profile and report do. */
static int write_file(const char *path, const struct up_profile *p,
		      const struct up_symtab *s, const struct up_pprof_mapping *m,
		      size_t nm, bool names_only)
{
	struct up_pprof_meta meta = { .version = UP_PPROF_META_VERSION,
				      .hz = 97, .mappings = m, .nr_mappings = nm,
				      .names_only = names_only };
	FILE *f = fopen(path, "wb");
	int rc;

	if (!f)
		return -1;
	rc = up_profile_write_pprof(p, s, &meta, f);
	return fclose(f) != 0 ? -1 : rc;
}

static bool same_mapping(const struct up_pprof_mapping *a, const struct up_pprof_mapping *b)
{
	return a->start == b->start && a->limit == b->limit &&
	       a->file_offset == b->file_offset && !a->file == !b->file &&
	       (!a->file || strcmp(a->file, b->file) == 0) &&
	       !a->build_id == !b->build_id &&
	       (!a->build_id || strcmp(a->build_id, b->build_id) == 0);
}

static const char names_map[] =
	"0000000000400000 T f_a\n"
	"0000000000400100 T f_a2\n"
	"0000000000800000 T f_b\n"
	"0000000000900000 T far_away\n";

static const struct up_pprof_mapping two_loads[] = {
	{ 0x400000, 0x400800, 0x1000, "/boot/k.elf", "aaaa" },
	{ 0x800000, 0x801000, 0x3000, "/boot/k.elf", "aaaa" },
};

static struct up_profile *two_load_profile(void)
{
	uint64_t s1[] = { 0x400010, 0x800020 }, s2[] = { 0x900000, 0x400104 };
	struct up_profile *p;

	if (up_profile_new(&p, 1) < 0)
		return NULL;
	up_profile_add(p, 0, s1, 2, UP_TRUNC_NONE);
	up_profile_add(p, 0, s2, 2, UP_TRUNC_NONE);
	return p;
}

/* Read and written again as report does: the same mappings, every field,
 * and every location in the same one. */
static void test_round_trip_keeps_mappings(void)
{
	char a[] = "/tmp/test_pprof_rt_a.XXXXXX", b[] = "/tmp/test_pprof_rt_b.XXXXXX";
	const char *paths[] = { a };
	struct up_profile *p = two_load_profile();
	struct up_symtab *sym;
	struct up_stored *st;
	const struct up_pprof_mapping *m;
	PbProfile *pa, *pb;
	size_t n = 0;

	REQUIRE(p && mkstemp(a) >= 0 && mkstemp(b) >= 0);
	REQUIRE(up_symtab_load_mem(&sym, names_map, sizeof(names_map) - 1, "map") == 0);
	REQUIRE(write_file(a, p, sym, two_loads, 2, false) == 0);
	REQUIRE(up_stored_load(&st, paths, 1, NULL) == 0);
	CHECK(!up_stored_names_only(st));
	m = up_stored_mappings(st, &n);
	REQUIRE(n == 2);
	CHECK(same_mapping(&m[0], &two_loads[0]));
	CHECK(same_mapping(&m[1], &two_loads[1]));
	REQUIRE(write_file(b, up_stored_profile(st), up_stored_symtab(st), m, n,
			   up_stored_names_only(st)) == 0);
	pa = test_pprof_unpack(a);
	pb = test_pprof_unpack(b);
	REQUIRE(pa && pb);
	REQUIRE(pb->n_mapping == 2);
	for (size_t i = 0; i < 2; i++) {
		CHECK_U64(pb->mapping[i]->memory_start, pa->mapping[i]->memory_start);
		CHECK_U64(pb->mapping[i]->memory_limit, pa->mapping[i]->memory_limit);
		CHECK_U64(pb->mapping[i]->file_offset, pa->mapping[i]->file_offset);
		CHECK_STR(pb->string_table[pb->mapping[i]->filename], "/boot/k.elf");
		CHECK_STR(pb->string_table[pb->mapping[i]->build_id], "aaaa");
	}
	CHECK(pa->n_location == pb->n_location);
	for (size_t i = 0; i < pa->n_location; i++) {
		const PbLocation *la = pa->location[i];
		bool found = false;

		for (size_t j = 0; j < pb->n_location; j++)
			if (pb->location[j]->address == la->address) {
				CHECK_U64(pb->location[j]->mapping_id, la->mapping_id);
				found = true;
			}
		CHECK(found);
	}
	perftools__profiles__profile__free_unpacked(pa, NULL);
	perftools__profiles__profile__free_unpacked(pb, NULL);
	up_stored_free(st);
	up_symtab_free(sym);
	up_profile_free(p);
	unlink(a);
	unlink(b);
}

/* Two builds merged (by name): each input's mappings kept, an identical
 * one once, written again as they were. Merged by address (--symbols)
 * they hold different code at the same addresses: refused in one line
 * naming both files; one build twice merges. */
static void test_merge_keeps_each_build(void)
{
	char a[] = "/tmp/test_pprof_mg_a.XXXXXX", b[] = "/tmp/test_pprof_mg_b.XXXXXX";
	char c[] = "/tmp/test_pprof_mg_c.XXXXXX", out[] = "/tmp/test_pprof_mg_o.XXXXXX";
	struct up_pprof_mapping other[2];
	struct up_profile *p = two_load_profile();
	struct up_symtab *sym;
	struct up_stored *st = NULL;
	const struct up_pprof_mapping *m;
	PbProfile *pm;
	size_t n = 0;
	int rc;

	memcpy(other, two_loads, sizeof(other));
	other[0].build_id = other[1].build_id = "bbbb";
	other[0].file = other[1].file = "/boot/k2.elf";
	REQUIRE(p && mkstemp(a) >= 0 && mkstemp(b) >= 0 && mkstemp(c) >= 0 &&
		mkstemp(out) >= 0);
	REQUIRE(up_symtab_load_mem(&sym, names_map, sizeof(names_map) - 1, "map") == 0);
	REQUIRE(write_file(a, p, sym, two_loads, 2, false) == 0);
	REQUIRE(write_file(b, p, sym, other, 2, false) == 0);
	REQUIRE(write_file(c, p, sym, two_loads, 2, false) == 0);

	REQUIRE(up_stored_load(&st, (const char *const[]){ a, b, c }, 3, NULL) == 0);
	CHECK(up_stored_names_only(st));
	m = up_stored_mappings(st, &n);
	REQUIRE(n == 4);
	CHECK(same_mapping(&m[0], &two_loads[0]) && same_mapping(&m[1], &two_loads[1]));
	CHECK(same_mapping(&m[2], &other[0]) && same_mapping(&m[3], &other[1]));
	CHECK_U64(up_profile_samples(up_stored_profile(st)), 6);
	REQUIRE(write_file(out, up_stored_profile(st), up_stored_symtab(st), m, n,
			   true) == 0);
	pm = test_pprof_unpack(out);
	REQUIRE(pm && pm->n_mapping == 4);
	CHECK_STR(pm->string_table[pm->mapping[0]->build_id], "aaaa");
	CHECK_STR(pm->string_table[pm->mapping[3]->build_id], "bbbb");
	CHECK_U64(pm->mapping[3]->file_offset, 0x3000);
	for (size_t i = 0; i < pm->n_location; i++)
		CHECK(pm->location[i]->mapping_id == 0 && pm->location[i]->address == 0);
	perftools__profiles__profile__free_unpacked(pm, NULL);
	up_stored_free(st);

	st = NULL;
	rc = up_stored_load(&st, (const char *const[]){ a, b }, 2, sym);
	CHECK(rc == UP_EINVAL && st == NULL);
	CHECK(strstr(up_error_last(), a) && strstr(up_error_last(), b) &&
	      strstr(up_error_last(), "aaaa") && strstr(up_error_last(), "bbbb") &&
	      !strchr(up_error_last(), '\n'));
	REQUIRE(up_stored_load(&st, (const char *const[]){ a, c }, 2, sym) == 0);
	CHECK(!up_stored_names_only(st));
	CHECK(up_stored_mappings(st, &n) && n == 2);
	up_stored_free(st);
	up_symtab_free(sym);
	up_profile_free(p);
	unlink(a);
	unlink(b);
	unlink(c);
	unlink(out);
}

/* Two builds at addresses apart, merged by address (-s): each keeps its
 * mappings, and the rewrite puts each location in its own build's. */
static void test_merge_by_address_keeps_builds(void)
{
	char a[] = "/tmp/test_pprof_ba_a.XXXXXX", b[] = "/tmp/test_pprof_ba_b.XXXXXX";
	char out[] = "/tmp/test_pprof_ba_o.XXXXXX";
	const struct up_pprof_mapping far = { 0x900000, 0x901000, 0x5000, "/boot/m.elf", "cccc" };
	uint64_t s3[] = { 0x900010 };
	struct up_profile *p = two_load_profile(), *q;
	struct up_symtab *sym;
	struct up_stored *st = NULL;
	const struct up_pprof_mapping *m;
	PbProfile *pm;
	size_t n = 0;

	REQUIRE(p && up_profile_new(&q, 1) == 0 && up_profile_add(q, 0, s3, 1, UP_TRUNC_NONE) == 0);
	REQUIRE(mkstemp(a) >= 0 && mkstemp(b) >= 0 && mkstemp(out) >= 0);
	REQUIRE(up_symtab_load_mem(&sym, names_map, sizeof(names_map) - 1, "map") == 0);
	REQUIRE(write_file(a, p, sym, two_loads, 2, false) == 0);
	REQUIRE(write_file(b, q, sym, &far, 1, false) == 0);
	REQUIRE(up_stored_load(&st, (const char *const[]){ a, b }, 2, sym) == 0);
	CHECK(!up_stored_names_only(st));
	m = up_stored_mappings(st, &n);
	REQUIRE(n == 3);
	CHECK(same_mapping(&m[2], &far));
	REQUIRE(write_file(out, up_stored_profile(st), up_stored_symtab(st), m, n,
			   false) == 0);
	pm = test_pprof_unpack(out);
	REQUIRE(pm && pm->n_mapping == 3);
	CHECK_STR(pm->string_table[pm->mapping[2]->build_id], "cccc");
	for (size_t i = 0; i < pm->n_location; i++) {
		uint64_t addr = pm->location[i]->address;

		if (addr >= 0x900000 && addr < 0x901000)
			CHECK_U64(pm->location[i]->mapping_id, 3);
		else if (addr >= 0x400000 && addr < 0x400800)
			CHECK_U64(pm->location[i]->mapping_id, 1);
	}
	perftools__profiles__profile__free_unpacked(pm, NULL);
	up_stored_free(st);
	up_symtab_free(sym);
	up_profile_free(p);
	up_profile_free(q);
	unlink(a);
	unlink(b);
	unlink(out);
}

/* --- several files on one clock ----------------------------------------- */

#define SEC 1000000000LL
#define T0 1700000000000000000LL

/* A run of one domain: stack a (f_a <- f_b) at 0.5 s, stack b at 1.5 s,
 * counted na and nb times; written at rate hz, starting at start (0: no
 * time_nanos), with comments and one mapping of that build-id. */
struct run {
	int64_t start;
	double hz;
	unsigned na, nb;
	const char *const *comments;
	size_t nr_comments;
	const char *build_id;
};

static int write_run(const char *path, const struct run *r,
		     const struct up_symtab *sym)
{
	uint64_t a[] = { 0x400010, 0x800020 }, b[] = { 0x400104, 0x800020 };
	struct up_pprof_mapping m[] = {
		{ 0x400000, 0x400800, 0x1000, "/boot/k.elf", r->build_id },
		{ 0x800000, 0x801000, 0x3000, "/boot/k.elf", r->build_id },
	};
	struct up_pprof_meta meta = {
		.version = UP_PPROF_META_VERSION,
		.hz = r->hz, .time_nanos = r->start, .duration_nanos = 2 * SEC,
		.mappings = m, .nr_mappings = 2,
		.comments = r->comments, .nr_comments = r->nr_comments,
	};
	struct up_profile *p;
	FILE *f;
	int rc;

	if (up_profile_new(&p, 1) < 0)
		return -1;
	up_profile_add_at(p, 0, a, 2, UP_TRUNC_NONE, UP_VCPU_BUSY, r->na, SEC / 2);
	up_profile_add_at(p, 0, b, 2, UP_TRUNC_NONE, UP_VCPU_BUSY, r->nb, 3 * SEC / 2);
	f = fopen(path, "wb");
	rc = f ? up_profile_write_pprof(p, sym, &meta, f) : -1;
	if (f && fclose(f) != 0)
		rc = -1;
	up_profile_free(p);
	return rc;
}

/* Samples taken in [from_s, to_s) of the merged run. */
static uint64_t in_range(const struct up_stored *st, double from_s, double to_s)
{
	struct up_profile *q;
	uint64_t n;

	if (up_profile_slice(up_stored_profile(st), (uint64_t)(from_s * 1e9),
			     (uint64_t)(to_s * 1e9), &q) < 0)
		return UINT64_MAX;
	n = up_profile_samples(q);
	up_profile_free(q);
	return n;
}

static const char *const web1[] = {
	"domain: web1", "type: pvh", "vcpus: 1", "frequency: 97 Hz", "samples: 5",
};
static const char *const web2[] = {
	"domain: web2", "vcpus: 2", "frequency: 97 Hz", "samples: 5",
};

/* Consecutive runs merged, the later given first: each file's times on
 * the earliest start's clock, so a range across files counts the samples
 * of both; the start the earliest, the duration to the latest end; every
 * build kept and written again, with the times; the header says both
 * domains, every file's own lines under its name. */
static void test_merge_on_one_clock(void)
{
	char a[] = "/tmp/test_pprof_ck_a.XXXXXX", b[] = "/tmp/test_pprof_ck_b.XXXXXX";
	char out[] = "/tmp/test_pprof_ck_o.XXXXXX";
	const struct run ra = { T0, 97, 3, 2, web1, 5, "aaaa" };
	const struct run rb = { T0 + 10 * SEC, 97, 4, 1, web2, 4, "bbbb" };
	struct up_symtab *sym;
	struct up_stored *st = NULL, *again = NULL;
	const struct up_pprof_mapping *m;
	const char *text;
	PbProfile *pm;
	size_t n = 0, line;

	REQUIRE(mkstemp(a) >= 0 && mkstemp(b) >= 0 && mkstemp(out) >= 0);
	REQUIRE(up_symtab_load_mem(&sym, names_map, sizeof(names_map) - 1, "map") == 0);
	REQUIRE(write_run(a, &ra, sym) == 0 && write_run(b, &rb, sym) == 0);
	REQUIRE(up_stored_load(&st, (const char *const[]){ b, a }, 2, NULL) == 0);
	CHECK(up_stored_warning(st) == NULL);
	CHECK(up_stored_time_nanos(st) == T0);
	CHECK(up_stored_duration_nanos(st) == 12 * SEC);
	CHECK(up_stored_hz(st) > 96.999 && up_stored_hz(st) < 97.001);
	CHECK_U64(up_profile_samples(up_stored_profile(st)), 10);
	CHECK_U64(up_profile_timed(up_stored_profile(st)), 10);
	CHECK_U64(up_profile_time_end(up_stored_profile(st)), 11 * SEC + SEC / 2);
	CHECK_U64(in_range(st, 0, 2), 5);
	CHECK_U64(in_range(st, 10, 12), 5);
	CHECK_U64(in_range(st, 1, 11), 2 + 4);
	CHECK_U64(in_range(st, 2, 10), 0);
	/* Both builds, both domains, each file's lines. */
	m = up_stored_mappings(st, &n);
	REQUIRE(n == 4);
	CHECK_STR(m[0].build_id, "bbbb");
	CHECK_STR(m[2].build_id, "aaaa");
	CHECK_STR(up_stored_comment(st, "merged"), "2 files, by function name");
	CHECK_STR(up_stored_comment(st, "domain"), "web2, web1 (2 files merged)");
	CHECK_STR(up_stored_comment(st, "vcpus"), "2, 1 (2 files merged)");
	CHECK_STR(up_stored_comment(st, "type"), "pvh (2 files merged, 1 without it)");
	CHECK_STR(up_stored_comment(st, "frequency"), "97 Hz");
	CHECK(up_stored_comment(st, "samples") == NULL);
	CHECK_U64(up_profile_nr_vcpus(up_stored_profile(st)), 2);
	for (line = 0; (text = up_stored_comment_line(st, line)); line++)
		if (strncmp(text, "input 2: ", 9) == 0)
			break;
	REQUIRE(text);
	CHECK_STR(text + 9, a);
	CHECK_STR(up_stored_comment_line(st, line + 1), "  [2] domain: web1");
	CHECK_STR(up_stored_comment_line(st, line + 5), "  [2] samples: 5");

	/* However few comment lines the bounds keep, the merged lines are
	 * every file's word. */
	{
		struct stored_limits saved = stored_limits;
		struct up_stored *few = NULL;

		stored_limits.comment_lines = 2;
		REQUIRE(up_stored_load(&few, (const char *const[]){ b, a }, 2, NULL) == 0);
		stored_limits = saved;
		CHECK_STR(up_stored_comment(few, "domain"), "web2, web1 (2 files merged)");
		CHECK_U64(up_profile_nr_vcpus(up_stored_profile(few)), 2);
		CHECK(up_stored_warning(few) && strstr(up_stored_warning(few), "left out"));
		up_stored_free(few);
	}

	/* Written again (as report -F pprof does), read back: the same. */
	{
		const char *lines[64];
		size_t nl = up_stored_nr_comments(st);
		struct up_pprof_meta meta = {
			.version = UP_PPROF_META_VERSION,
			.hz = up_stored_hz(st), .time_nanos = up_stored_time_nanos(st),
			.duration_nanos = up_stored_duration_nanos(st),
			.mappings = m, .nr_mappings = n, .names_only = true,
			.comments = lines, .nr_comments = nl,
		};
		FILE *f = fopen(out, "wb");

		REQUIRE(f && nl <= 64);
		for (size_t i = 0; i < nl; i++)
			lines[i] = up_stored_comment_line(st, i);
		REQUIRE(up_profile_write_pprof(up_stored_profile(st), up_stored_symtab(st),
					       &meta, f) == 0);
		fclose(f);
	}
	pm = test_pprof_unpack(out);
	REQUIRE(pm && pm->n_mapping == 4);
	CHECK(pm->time_nanos == T0 && pm->duration_nanos == 12 * SEC);
	perftools__profiles__profile__free_unpacked(pm, NULL);
	REQUIRE(up_stored_load(&again, (const char *const[]){ out }, 1, NULL) == 0);
	CHECK_U64(in_range(again, 1, 11), 6);
	CHECK_U64(in_range(again, 10, 12), 5);
	CHECK_STR(up_stored_comment(again, "domain"), "web2, web1 (2 files merged)");
	up_stored_free(again);
	up_stored_free(st);
	up_symtab_free(sym);
	unlink(a);
	unlink(b);
	unlink(out);
}

/* Files that cannot share the clock or the rate: one without time_nanos
 * and a folded one among timed files keep their samples untimed, named in
 * one warning line; a start thousands of years away drops every time (one
 * line) rather than make a range of 1e8 seconds; two rates make counts
 * of samples with no rate, one line naming both files and rates. */
static void test_merge_clock_and_rate_bounds(void)
{
	char a[] = "/tmp/test_pprof_cb_a.XXXXXX", b[] = "/tmp/test_pprof_cb_b.XXXXXX";
	char c[] = "/tmp/test_pprof_cb_c.XXXXXX", d[] = "/tmp/test_pprof_cb_d.XXXXXX";
	char fo[] = "/tmp/test_pprof_cb_f.XXXXXX";
	const struct run ra = { T0, 97, 3, 2, web1, 5, "aaaa" };
	const struct run untimed = { 0, 97, 1, 1, web1, 5, "aaaa" };
	const struct run far = { INT64_MAX - 10 * SEC, 97, 1, 1, web1, 5, "aaaa" };
	const struct run fast = { T0 + 10 * SEC, 997, 1, 1, web1, 5, "aaaa" };
	struct up_symtab *sym;
	struct up_stored *st = NULL;
	const char *w;
	FILE *f;

	REQUIRE(mkstemp(a) >= 0 && mkstemp(b) >= 0 && mkstemp(c) >= 0 &&
		mkstemp(d) >= 0 && mkstemp(fo) >= 0);
	REQUIRE(up_symtab_load_mem(&sym, names_map, sizeof(names_map) - 1, "map") == 0);
	REQUIRE(write_run(a, &ra, sym) == 0 && write_run(b, &untimed, sym) == 0 &&
		write_run(c, &far, sym) == 0 && write_run(d, &fast, sym) == 0);
	f = fopen(fo, "w");
	REQUIRE(f && fputs("f_b;f_a 7\n", f) >= 0 && fclose(f) == 0);

	REQUIRE(up_stored_load(&st, (const char *const[]){ a, b, fo }, 3, NULL) == 0);
	w = up_stored_warning(st);
	REQUIRE(w);
	CHECK(strstr(w, b) && strstr(w, fo) && strstr(w, "9 samples kept without a time"));
	CHECK(strstr(w, "no sampling rate") && !strchr(w, '\n'));
	CHECK(up_stored_hz(st) == 0);
	CHECK(up_stored_time_nanos(st) == T0);
	CHECK_U64(up_profile_timed(up_stored_profile(st)), 5);
	CHECK_U64(up_profile_samples(up_stored_profile(st)), 5 + 2 + 7);
	CHECK_U64(in_range(st, 0, 2), 5);
	up_stored_free(st);

	st = NULL;
	REQUIRE(up_stored_load(&st, (const char *const[]){ a, c }, 2, NULL) == 0);
	w = up_stored_warning(st);
	REQUIRE(w);
	CHECK(strstr(w, c) && strstr(w, a) && strstr(w, "days after") &&
	      strstr(w, "every sample kept without a time"));
	CHECK(!up_profile_has_times(up_stored_profile(st)));
	CHECK(up_stored_time_nanos(st) == 0);
	CHECK_U64(up_profile_samples(up_stored_profile(st)), 7);
	up_stored_free(st);

	/* Rates differ (uniprofd lowers its own): counted as samples, no
	 * rate, said once; the times still on one clock. */
	st = NULL;
	REQUIRE(up_stored_load(&st, (const char *const[]){ a, d }, 2, NULL) == 0);
	w = up_stored_warning(st);
	REQUIRE(w);
	CHECK(strstr(w, a) && strstr(w, d) && strstr(w, "97 Hz") &&
	      strstr(w, "997 Hz") && strstr(w, "no CPU time") && !strchr(w, '\n'));
	CHECK(up_stored_hz(st) == 0);
	CHECK_U64(up_profile_samples(up_stored_profile(st)), 7);
	CHECK_U64(in_range(st, 10, 12), 2);
	up_stored_free(st);
	up_symtab_free(sym);
	unlink(a);
	unlink(b);
	unlink(c);
	unlink(d);
	unlink(fo);
}

/* Folded stacks written as pprof: no rate, so samples/count alone, no
 * period, no cpu value of 0; no mapping. */
static void test_folded_written_without_rate(void)
{
	char fo[] = "/tmp/test_pprof_fw_f.XXXXXX", out[] = "/tmp/test_pprof_fw_o.XXXXXX";
	struct up_stored *st = NULL;
	struct up_pprof_meta meta = { .version = UP_PPROF_META_VERSION, .names_only = true };
	PbProfile *pm;
	FILE *f;

	REQUIRE(mkstemp(fo) >= 0 && mkstemp(out) >= 0);
	f = fopen(fo, "w");
	REQUIRE(f && fputs("main;work 3\nmain;idle 2\n", f) >= 0 && fclose(f) == 0);
	REQUIRE(up_stored_load(&st, (const char *const[]){ fo }, 1, NULL) == 0);
	CHECK(up_stored_hz(st) == 0);
	meta.hz = up_stored_hz(st);
	f = fopen(out, "wb");
	REQUIRE(f && up_profile_write_pprof(up_stored_profile(st), up_stored_symtab(st),
					    &meta, f) == 0);
	fclose(f);
	pm = test_pprof_unpack(out);
	REQUIRE(pm);
	REQUIRE(pm->n_sample_type == 1);
	CHECK_STR(pm->string_table[pm->sample_type[0]->type], "samples");
	CHECK_STR(pm->string_table[pm->sample_type[0]->unit], "count");
	CHECK(pm->period == 0 && pm->period_type == NULL && pm->n_mapping == 0);
	for (size_t i = 0; i < pm->n_sample; i++)
		CHECK(pm->sample[i]->n_value == 1);
	for (size_t i = 0; i < pm->n_string_table; i++)
		CHECK(strcmp(pm->string_table[i], "cpu") != 0);
	perftools__profiles__profile__free_unpacked(pm, NULL);
	up_stored_free(st);
	st = NULL;
	REQUIRE(up_stored_load(&st, (const char *const[]){ out }, 1, NULL) == 0);
	CHECK_U64(up_profile_samples(up_stored_profile(st)), 5);
	CHECK(up_stored_hz(st) == 0);
	up_stored_free(st);
	unlink(fo);
	unlink(out);
}

int main(void)
{
	/* The memory test first: the children start from this process's
	 * peak, kept low. */
	RUN(test_comments_bounded);
	RUN(test_function_ids_indexed);
	RUN(test_long_name_hashed_once);
	RUN(test_inlined_lines_made_once);
	RUN(test_frame_bound);
	RUN(test_mappings_bounded);
	RUN(test_inconsistent_mappings_by_name);
	RUN(test_round_trip_keeps_mappings);
	RUN(test_merge_keeps_each_build);
	RUN(test_merge_by_address_keeps_builds);
	RUN(test_merge_on_one_clock);
	RUN(test_merge_clock_and_rate_bounds);
	RUN(test_folded_written_without_rate);
	TEST_MAIN_END();
}
