/* Reading pprof profiles that fight back (core/pprof/read.c): a string a
 * file names many times, function ids not 1..n, a long name named by
 * every frame, a location of many lines named by every sample. Each is
 * read in a child, its CPU time and peak memory measured against a plain
 * profile of the same shape read the same way (a busy machine slows both
 * alike); the old code takes seconds or hundreds of MiB where these take
 * what the plain one takes. With UNIPROF_SEED_DIR set, small copies of the
 * hostile files are written there (tests/fuzz/corpus/fuzz_stored). */
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pprof/profile.pb-c.h"
#include "profile/stored_impl.h"
#include "uniprof/uniprof.h"
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
	PbMapping map = PERFTOOLS__PROFILES__MAPPING__INIT, *mapp = &map;
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
	    !smp || !lab || !labp || !ids || !val || !com)
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
	map.id = 1;
	map.memory_start = 0x1000;
	map.memory_limit = 0x1000 + 16 * nloc;
	pb.n_sample_type = 1;
	pb.sample_type = &vtp;
	pb.n_mapping = 1;
	pb.mapping = &mapp;
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

int main(void)
{
	/* The memory test first: the children start from this process's
	 * peak, kept low. */
	RUN(test_comments_bounded);
	RUN(test_function_ids_indexed);
	RUN(test_long_name_hashed_once);
	RUN(test_inlined_lines_made_once);
	RUN(test_frame_bound);
	TEST_MAIN_END();
}
