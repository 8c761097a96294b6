/* Writing pprof (core/pprof/write.c): the Mappings as the image's
 * executable PT_LOADs say (read by the kernel map), one per segment, each
 * Location in the mapping that holds its address; none made up without
 * an image. What was written is read by libprotobuf-c. */
#include <elf.h>
#include <zlib.h>

#include "pprof/profile.pb-c.h"
#include "uniprof/uniprof.h"
#include "private.h"
#include "guest.h"
#include "pprof_unpack.h"
#include "test.h"

TEST_GLOBALS;

typedef Perftools__Profiles__Profile PbProfile;
typedef Perftools__Profiles__Mapping PbMapping;
typedef Perftools__Profiles__Location PbLocation;
typedef Perftools__Profiles__Sample PbSample;
typedef Perftools__Profiles__Label PbLabel;

/* Functions in the two code segments of the image below, and one in its
 * data segment (an address no code mapping holds). */
static const char nm_map[] =
	"0000000000400000 T f_a\n"
	"0000000000400100 T f_a2\n"
	"0000000000600000 D d_data\n"
	"0000000000800000 T f_b\n"
	"0000000000800400 T f_b2\n"
	"0000000000900000 T far_away\n";

/* p written as pprof with meta, gunzipped and unpacked (NULL: failed). */
static PbProfile *written(const struct up_profile *p, const struct up_symtab *s,
			  const struct up_pprof_meta *meta)
{
	char path[] = "/tmp/test_pprof_write.XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	PbProfile *pb = NULL;

	if (!f)
		return NULL;
	if (up_profile_write_pprof(p, s, meta, f) == 0 && fclose(f) == 0)
		pb = test_pprof_unpack(path);
	unlink(path);
	return pb;
}

static const PbLocation *location_at(const PbProfile *pb, uint64_t addr)
{
	for (size_t i = 0; i < pb->n_location; i++)
		if (pb->location[i]->address == addr)
			return pb->location[i];
	return NULL;
}

/* The mapping id of the location at addr; -1 when there is none. */
static long mapping_at(const PbProfile *pb, uint64_t addr)
{
	const PbLocation *l = location_at(pb, addr);

	return l ? (long)l->mapping_id : -1;
}

static const char *str(const PbProfile *pb, int64_t i)
{
	return i >= 0 && (size_t)i < pb->n_string_table ? pb->string_table[i] : "?";
}

/* The mappings of the segments of kernel map k, as xl profile makes them. */
static size_t segments_as_mappings(const struct up_kernel_map *k,
				   struct up_pprof_mapping *out, const char *bid)
{
	size_t n = up_kernel_map_segments(k);

	for (size_t i = 0; i < n; i++) {
		const struct up_kernel_segment *g = up_kernel_map_segment(k, i);

		out[i] = (struct up_pprof_mapping){ g->start, g->limit, g->file_offset,
						    up_kernel_map_image(k), bid };
	}
	return n;
}

/* An image of two executable PT_LOADs around a data one: two Mappings in
 * program-header order, every field as the header says (the code's file
 * offset, not 0; memsz, not filesz), each location in its segment's. */
static void test_mappings_of_multi_load_image(void)
{
	static const struct tg_load loads[] = {
		{ PF_R | PF_X, 0x1000, 0x400000, 0x800, 0x800 },
		{ PF_R | PF_W, 0x2000, 0x600000, 0x100, 0x4000 },
		{ PF_R | PF_X, 0x3000, 0x800000, 0x400, 0x1000 },
	};
	struct up_pprof_mapping maps[UP_KERNEL_MAX_TEXT];
	struct up_pprof_meta meta = { .version = UP_PPROF_META_VERSION,
				      .hz = 97, .mappings = maps };
	uint64_t s1[] = { 0x400010, 0x800020 }, s2[] = { 0x600010, 0x400104 };
	uint64_t s3[] = { 0x900000, 0x800404 };
	struct up_kernel_map *k;
	struct up_symtab *sym;
	struct up_profile *p;
	PbProfile *pb;
	size_t len;
	uint8_t *elf = tg_elf_loads(loads, 3, &len);

	REQUIRE(up_kernel_map_load_mem(&k, elf, len, "/boot/multi.elf", NULL) == 0);
	free(elf);
	REQUIRE(up_kernel_map_segments(k) == 2);
	CHECK_U64(up_kernel_map_segment(k, 0)->start, 0x400000);
	CHECK_U64(up_kernel_map_segment(k, 0)->limit, 0x400800);
	CHECK_U64(up_kernel_map_segment(k, 0)->file_offset, 0x1000);
	CHECK_U64(up_kernel_map_segment(k, 1)->start, 0x800000);
	CHECK_U64(up_kernel_map_segment(k, 1)->limit, 0x801000);
	CHECK_U64(up_kernel_map_segment(k, 1)->file_offset, 0x3000);
	CHECK_STR(up_kernel_map_image(k), "/boot/multi.elf");
	meta.nr_mappings = segments_as_mappings(k, maps, "00112233");

	REQUIRE(up_symtab_load_mem(&sym, nm_map, sizeof(nm_map) - 1, "map") == 0);
	REQUIRE(up_profile_new(&p, 2) == 0);
	REQUIRE(up_profile_add(p, 0, s1, 2, UP_TRUNC_NONE) == 0);
	REQUIRE(up_profile_add(p, 1, s2, 2, UP_TRUNC_NONE) == 0);
	REQUIRE(up_profile_add(p, 1, s3, 2, UP_TRUNC_OUTSIDE_TEXT) == 0);
	REQUIRE(up_profile_add_unseen(p, 0, 3) == 0);
	pb = written(p, sym, &meta);
	REQUIRE(pb != NULL);
	REQUIRE(pb->n_mapping == 2);
	for (size_t i = 0; i < 2; i++) {
		const PbMapping *m = pb->mapping[i];

		CHECK_U64(m->id, i + 1);
		CHECK_U64(m->memory_start, i ? 0x800000 : 0x400000);
		CHECK_U64(m->memory_limit, i ? 0x801000 : 0x400800);
		CHECK_U64(m->file_offset, i ? 0x3000 : 0x1000);
		CHECK_STR(str(pb, m->filename), "/boot/multi.elf");
		CHECK_STR(str(pb, m->build_id), "00112233");
		CHECK(m->has_functions);
		CHECK(!m->has_line_numbers);        /* no DWARF here */
	}
	CHECK(mapping_at(pb, 0x400010) == 1);
	CHECK(mapping_at(pb, 0x400104) == 1);
	CHECK(mapping_at(pb, 0x800020) == 2);
	CHECK(mapping_at(pb, 0x800404) == 2);
	CHECK(mapping_at(pb, 0x600010) == 0);       /* data: no code mapping */
	CHECK(mapping_at(pb, 0x900000) == 0);       /* outside the image */
	/* [unseen] and [truncated]: at 0, in no mapping. */
	for (size_t i = 0; i < pb->n_location; i++)
		if (pb->location[i]->address == 0)
			CHECK(pb->location[i]->mapping_id == 0);
	perftools__profiles__profile__free_unpacked(pb, NULL);
	up_profile_free(p);
	up_symtab_free(sym);
	up_kernel_map_free(k);
}

/* Mappings given by hand may nest: a location is in the innermost that
 * holds it (the latest start); an empty one holds nothing but is written. */
static void test_location_in_innermost_mapping(void)
{
	static const struct up_pprof_mapping maps[] = {
		{ 0x1000, 0x9000, 0, "outer", NULL },
		{ 0x2000, 0x3000, 0x1000, "inner", "beef" },
		{ 0x5000, 0x5000, 0, "empty", NULL },
	};
	const struct up_pprof_meta meta = { .version = UP_PPROF_META_VERSION,
					    .hz = 100, .mappings = maps,
					    .nr_mappings = 3 };
	static const uint64_t at[] = { 0x1500, 0x2500, 0x2fff, 0x3000, 0x5000,
				       0x8fff, 0x9000, 0x500 };
	static const long want[] = { 1, 2, 2, 1, 1, 1, 0, 0 };
	struct up_profile *p;
	PbProfile *pb;

	REQUIRE(up_profile_new(&p, 1) == 0);
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
		REQUIRE(up_profile_add(p, 0, &at[i], 1, UP_TRUNC_NONE) == 0);
	pb = written(p, NULL, &meta);
	REQUIRE(pb != NULL);
	REQUIRE(pb->n_mapping == 3);
	CHECK_STR(str(pb, pb->mapping[2]->filename), "empty");
	CHECK_STR(str(pb, pb->mapping[1]->build_id), "beef");
	CHECK_STR(str(pb, pb->mapping[0]->build_id), "");
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		if (mapping_at(pb, at[i]) != want[i])
			fprintf(stderr, "# %#" PRIx64 ": mapping %ld, want %ld\n",
				at[i], mapping_at(pb, at[i]), want[i]);
		CHECK(mapping_at(pb, at[i]) == want[i]);
	}
	/* Nothing named: no mapping claims to be symbolized (tools may
	 * symbolize it from the image). */
	for (size_t i = 0; i < pb->n_mapping; i++)
		CHECK(!pb->mapping[i]->has_functions && !pb->mapping[i]->has_filenames);
	perftools__profiles__profile__free_unpacked(pb, NULL);
	up_profile_free(p);
}

/* Without an image's layout no Mapping is made up: addresses stay, in no
 * mapping. Names without addresses (folded stacks) are in none either,
 * whatever mappings the inputs had (those are written as they were). */
static void test_no_mapping_made_up(void)
{
	static const struct up_pprof_mapping kept = { 0x400000, 0x400800, 0x1000,
						      "/boot/k.elf", "aa" };
	struct up_pprof_meta meta = { .version = UP_PPROF_META_VERSION, .hz = 97 };
	uint64_t st[] = { 0x400010, 0x800020 };
	struct up_symtab *sym;
	struct up_profile *p;
	PbProfile *pb;

	REQUIRE(up_symtab_load_mem(&sym, nm_map, sizeof(nm_map) - 1, "map") == 0);
	REQUIRE(up_profile_new(&p, 1) == 0);
	REQUIRE(up_profile_add(p, 0, st, 2, UP_TRUNC_NONE) == 0);
	pb = written(p, sym, &meta);
	REQUIRE(pb != NULL);
	CHECK(pb->n_mapping == 0);
	CHECK(mapping_at(pb, 0x400010) == 0);
	CHECK(mapping_at(pb, 0x800020) == 0);
	perftools__profiles__profile__free_unpacked(pb, NULL);

	meta.names_only = true;
	meta.mappings = &kept;
	meta.nr_mappings = 1;
	pb = written(p, sym, &meta);
	REQUIRE(pb != NULL);
	REQUIRE(pb->n_mapping == 1);
	CHECK_U64(pb->mapping[0]->file_offset, 0x1000);
	CHECK(pb->n_location == 2);
	for (size_t i = 0; i < pb->n_location; i++)
		CHECK(pb->location[i]->address == 0 && pb->location[i]->mapping_id == 0);
	perftools__profiles__profile__free_unpacked(pb, NULL);
	up_profile_free(p);
	up_symtab_free(sym);
}

/* The function of a location (its last line's), or 0 for none. */
static uint64_t function_of(const PbProfile *pb, uint64_t addr)
{
	const PbLocation *l = location_at(pb, addr);

	return l && l->n_line ? l->line[l->n_line - 1]->function_id : 0;
}

/* A frame's function is its symbol's name, looked up once per symbol:
 * two symbols of one name are one function, every frame of a symbol has
 * its function however often it comes, a return address just past a
 * symbol's end is its symbol's, an address no symbol holds has none. */
static void test_functions_by_symbol(void)
{
	static const char nm_dup[] =
		"0000000000400000 T dup\n"
		"0000000000400100 T dup\n"
		"0000000000400200 T other\n";
	struct up_pprof_meta meta = { .version = UP_PPROF_META_VERSION, .hz = 97 };
	uint64_t a[] = { 0x400010, 0x400210, 0x10 };
	uint64_t b[] = { 0x400110, 0x400100, 0x400020 };
	struct up_symtab *sym;
	struct up_profile *p;
	size_t named_dup = 0;
	PbProfile *pb;

	REQUIRE(up_symtab_load_mem(&sym, nm_dup, sizeof(nm_dup) - 1, "dup") == 0);
	REQUIRE(up_profile_new(&p, 1) == 0);
	REQUIRE(up_profile_add(p, 0, a, 3, UP_TRUNC_NONE) == 0);
	REQUIRE(up_profile_add(p, 0, b, 3, UP_TRUNC_NONE) == 0);
	REQUIRE(up_profile_add(p, 0, b, 2, UP_TRUNC_NONE) == 0);
	pb = written(p, sym, &meta);
	REQUIRE(pb != NULL);
	for (size_t i = 0; i < pb->n_function; i++)
		named_dup += strcmp(str(pb, pb->function[i]->name), "dup") == 0;
	CHECK(named_dup == 1);
	CHECK(pb->n_function == 2);
	CHECK(function_of(pb, 0x400010) != 0);
	CHECK(function_of(pb, 0x400010) == function_of(pb, 0x400110));
	CHECK(function_of(pb, 0x400010) == function_of(pb, 0x400020));
	/* 0x400100 as a return address: the call before it, in the first. */
	CHECK(function_of(pb, 0x400100) == function_of(pb, 0x400010));
	CHECK(function_of(pb, 0x400210) != 0 &&
	      function_of(pb, 0x400210) != function_of(pb, 0x400010));
	CHECK(location_at(pb, 0x10) && function_of(pb, 0x10) == 0);
	perftools__profiles__profile__free_unpacked(pb, NULL);
	up_profile_free(p);
	up_symtab_free(sym);
}

static const PbLabel *label_of(const PbProfile *pb, const PbSample *sm,
				const char *key)
{
	for (size_t j = 0; j < sm->n_label; j++)
		if (strcmp(str(pb, sm->label[j]->key), key) == 0)
			return sm->label[j];
	return NULL;
}

/* Labels tools can filter on: vcpu a number (-tagfocus=vcpu=1), elapsed
 * ns since the start in nanoseconds (-tagfocus=elapsed=2s:5s), and the
 * periods credited for missed samples marked credited=missed; read back,
 * the times and the credited count are as they were. */
static void test_labels(void)
{
	struct up_pprof_meta meta = { .version = UP_PPROF_META_VERSION,
				      .hz = 100, .time_nanos = 1700000000000000000LL };
	uint64_t st[] = { 0x400010, 0x800020 };
	char path[] = "/tmp/test_pprof_labels.XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	uint64_t credited = 0, sampled = 0, in_range = 0;
	struct up_symtab *sym;
	struct up_profile *p, *slice;
	struct up_stored *back;
	PbProfile *pb;

	REQUIRE(f != NULL);
	REQUIRE(up_symtab_load_mem(&sym, nm_map, sizeof(nm_map) - 1, "map") == 0);
	REQUIRE(up_profile_new(&p, 2) == 0);
	REQUIRE(up_profile_add_at(p, 1, st, 2, UP_TRUNC_NONE, UP_VCPU_BUSY, 1,
				  2500000000ULL) == 0);
	REQUIRE(up_profile_add_credited(p, 1, st, 2, UP_TRUNC_NONE, UP_VCPU_BUSY,
					3, 2510000000ULL) == 0);
	REQUIRE(up_profile_add_at(p, 0, st, 2, UP_TRUNC_NONE, UP_VCPU_BUSY, 1,
				  7000000000ULL) == 0);
	CHECK_U64(up_profile_credited(p), 3);
	REQUIRE(up_profile_write_pprof(p, sym, &meta, f) == 0 && fclose(f) == 0);
	pb = test_pprof_unpack(path);
	REQUIRE(pb != NULL);
	CHECK(pb->n_sample == 3);
	for (size_t i = 0; i < pb->n_sample; i++) {
		const PbSample *sm = pb->sample[i];
		const PbLabel *v = label_of(pb, sm, "vcpu");
		const PbLabel *t = label_of(pb, sm, "elapsed");
		const PbLabel *c = label_of(pb, sm, "credited");

		REQUIRE(v && t);
		CHECK(v->str == 0 && (v->num == 0 || v->num == 1));
		CHECK_STR(str(pb, t->num_unit), "nanoseconds");
		CHECK(t->num == 2500000000LL || t->num == 2510000000LL ||
		      t->num == 7000000000LL);
		CHECK(label_of(pb, sm, "time_ns") == NULL);
		if (c) {
			CHECK_STR(str(pb, c->str), "missed");
			CHECK(t->num == 2510000000LL);
			credited += (uint64_t)sm->value[0];
		} else {
			sampled += (uint64_t)sm->value[0];
		}
	}
	CHECK_U64(credited, 3);
	CHECK_U64(sampled, 2);
	perftools__profiles__profile__free_unpacked(pb, NULL);
	/* Read back: times since the start, credited ones still credited. */
	REQUIRE(up_stored_load(&back, (const char *const[]){ path }, 1, NULL) == 0);
	CHECK_U64(up_profile_samples(up_stored_profile(back)), 5);
	CHECK_U64(up_profile_credited(up_stored_profile(back)), 3);
	CHECK_U64(up_profile_timed(up_stored_profile(back)), 5);
	CHECK_U64(up_profile_time_end(up_stored_profile(back)), 7000000000ULL);
	REQUIRE(up_profile_slice(up_stored_profile(back), 2000000000ULL,
				 3000000000ULL, &slice) == 0);
	in_range = up_profile_samples(slice);
	CHECK_U64(in_range, 4);
	CHECK_U64(up_profile_credited(slice), 3);
	CHECK_U64(up_profile_vcpu_samples(slice, 1), 4);
	up_profile_free(slice);
	up_stored_free(back);
	unlink(path);
	up_profile_free(p);
	up_symtab_free(sym);
}

/* Two runs' files, the later one given first, merged: each file's
 * elapsed times put on the earlier run's clock by its start. */
static void test_elapsed_merged(void)
{
	static const int64_t start = 1700000000000000000LL;
	uint64_t st[] = { 0x400010, 0x800020 };
	char a[] = "/tmp/test_pprof_merge_a.XXXXXX", b[] = "/tmp/test_pprof_merge_b.XXXXXX";
	char *paths[] = { b, a };
	struct up_symtab *sym;
	struct up_profile *p, *slice;
	struct up_stored *back;

	REQUIRE(up_symtab_load_mem(&sym, nm_map, sizeof(nm_map) - 1, "map") == 0);
	for (int k = 0; k < 2; k++) {
		struct up_pprof_meta meta = { .version = UP_PPROF_META_VERSION, .hz = 100,
					      .time_nanos = start + k * 10000000000LL,
					      .duration_nanos = 2000000000LL };
		int fd = mkstemp(k ? b : a);
		FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;

		REQUIRE(f != NULL);
		REQUIRE(up_profile_new(&p, 1) == 0);
		REQUIRE(up_profile_add_at(p, 0, st, 2, UP_TRUNC_NONE, UP_VCPU_BUSY,
					  2 + (uint64_t)k, 1000000000ULL) == 0);
		REQUIRE(up_profile_write_pprof(p, sym, &meta, f) == 0 && fclose(f) == 0);
		up_profile_free(p);
	}
	REQUIRE(up_stored_load(&back, (const char *const *)paths, 2, NULL) == 0);
	CHECK(up_stored_time_nanos(back) == start);
	CHECK_U64(up_profile_timed(up_stored_profile(back)), 5);
	CHECK_U64(up_profile_time_end(up_stored_profile(back)), 11000000000ULL);
	REQUIRE(up_profile_slice(up_stored_profile(back), 10000000000ULL,
				 12000000000ULL, &slice) == 0);
	CHECK_U64(up_profile_samples(slice), 3);
	up_profile_free(slice);
	REQUIRE(up_profile_slice(up_stored_profile(back), 0, 2000000000ULL,
				 &slice) == 0);
	CHECK_U64(up_profile_samples(slice), 2);
	up_profile_free(slice);
	up_stored_free(back);
	unlink(a);
	unlink(b);
	up_symtab_free(sym);
}

/* pprof metadata says its layout by its version: the init macro and
 * function agree, and a version this library does not know is refused by
 * the init function and the writer, with one line saying so and nothing
 * written; no metadata is the defaults. */
static void test_meta_version(void)
{
	const struct up_pprof_meta lit = UP_PPROF_META_INIT;
	struct up_pprof_meta m;
	uint64_t st[] = { 0x400010 };
	struct up_symtab *sym;
	struct up_profile *p;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(up_pprof_meta_init(&m, UP_PPROF_META_VERSION) == 0);
	CHECK(memcmp(&m, &lit, sizeof(m)) == 0);
	CHECK(m.version == UP_PPROF_META_VERSION && m.hz == 0 && !m.mappings);
	CHECK(up_pprof_meta_init(&m, UP_PPROF_META_VERSION + 1) == UP_EINVAL);
	CHECK(strstr(up_error_last(), "pprof metadata version 2 unknown") != NULL);
	REQUIRE(up_symtab_load_mem(&sym, nm_map, sizeof(nm_map) - 1, "map") == 0);
	REQUIRE(up_profile_new(&p, 1) == 0);
	REQUIRE(up_profile_add(p, 0, st, 1, UP_TRUNC_NONE) == 0);
	m = lit;
	m.version = 0;
	CHECK(up_profile_write_pprof(p, sym, &m, f) == UP_EINVAL);
	CHECK(strstr(up_error_last(), "pprof metadata version 0 unknown") != NULL);
	fflush(f);
	CHECK(len == 0);
	CHECK(up_profile_write_pprof(p, sym, NULL, f) == 0);
	fclose(f);
	CHECK(len > 0);
	free(buf);
	up_profile_free(p);
	up_symtab_free(sym);
}

int main(void)
{
	RUN(test_meta_version);
	RUN(test_labels);
	RUN(test_elapsed_merged);
	RUN(test_mappings_of_multi_load_image);
	RUN(test_location_in_innermost_mapping);
	RUN(test_no_mapping_made_up);
	RUN(test_functions_by_symbol);
	TEST_MAIN_END();
}
