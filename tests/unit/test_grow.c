/* Growing arrays (core/util/grow.c): grow_array_populated keeps what the
 * array held across each growth, makes every element up to the one asked
 * present (mincore: resident) a chunk ahead, never past the capacity,
 * and leaves small arrays alone. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/grow.h"
#include "test.h"
#include "uniprof/error.h"

TEST_GLOBALS;

/* Whether every whole page in [p, p + n) is resident; -1 if mincore
 * cannot say. */
static int resident(const void *p, size_t n)
{
	const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t hi = ((uintptr_t)p + n) & ~(page - 1);
	unsigned char v[1024];

	if (hi <= lo)
		return 1;
	if ((hi - lo) / page > sizeof(v) || mincore((void *)lo, hi - lo, v) < 0)
		return -1;
	for (size_t i = 0; i < (hi - lo) / page; i++)
		if (!(v[i] & 1))
			return 0;
	return 1;
}

static bool kernel_populates(void)
{
#ifdef MADV_POPULATE_WRITE
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	bool ok = p != MAP_FAILED && madvise(p, 4096, MADV_POPULATE_WRITE) == 0;

	if (p != MAP_FAILED)
		munmap(p, 4096);
	return ok;
#else
	return false;
#endif
}

static void test_grows_keeping_contents(void)
{
	uint64_t *a = NULL;
	size_t cap = 0, done = 0;
	const size_t n = 300000;        /* 2.3 MiB: several chunks, several growths */

	for (size_t i = 0; i < n; i++) {
		REQUIRE(grow_array_populated(&a, &cap, i + 1, sizeof(*a), 256, &done) == 0);
		CHECK(cap >= i + 1);
		CHECK(done <= cap);
		if (cap * sizeof(*a) >= POPULATE_MIN_BYTES)
			CHECK(done >= i + 1);
		a[i] = i * 2654435761u;
	}
	bool same = true;

	for (size_t i = 0; i < n; i++)
		same = same && a[i] == i * 2654435761u;
	CHECK(same);
	free(a);
}

static void test_present_ahead(void)
{
	uint32_t *a = NULL;
	size_t cap = 0, done = 0;
	const size_t chunk = POPULATE_MIN_BYTES / sizeof(*a);

	if (!kernel_populates()) {
		printf("# skipped: this kernel has no MADV_POPULATE_WRITE\n");
		return;
	}
	/* Reserved for many, filled with few: only those and a chunk. */
	REQUIRE(grow_array_populated(&a, &cap, 1, sizeof(*a), 4 * chunk, &done) == 0);
	CHECK_U64(cap, 4 * chunk);
	CHECK_U64(done, chunk);
	CHECK(resident(a, done * sizeof(*a)) == 1);
	REQUIRE(grow_array_populated(&a, &cap, chunk + 10, sizeof(*a), 4 * chunk, &done) == 0);
	CHECK_U64(done, 2 * chunk);
	CHECK(resident(a, done * sizeof(*a)) == 1);
	/* Asked past the capacity: grown, populated up to what is asked. */
	REQUIRE(grow_array_populated(&a, &cap, 5 * chunk, sizeof(*a), 4 * chunk, &done) == 0);
	CHECK_U64(cap, 8 * chunk);
	CHECK(done >= 5 * chunk && done <= cap);
	CHECK(resident(a, 5 * chunk * sizeof(*a)) == 1);
	free(a);

	/* Smaller than a chunk: nothing populated, nothing counted. */
	a = NULL;
	cap = done = 0;
	REQUIRE(grow_array_populated(&a, &cap, 10, sizeof(*a), 16, &done) == 0);
	CHECK_U64(done, 0);
	free(a);
}

int main(void)
{
	RUN(test_grows_keeping_contents);
	RUN(test_present_ahead);
	TEST_MAIN_END();
}
