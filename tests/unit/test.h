/* Minimal unit-test support: CHECK records a failure and goes on, so one
 * run shows every broken assertion; the exit code is what automake reads. */
#ifndef UP_TEST_H
#define UP_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern int test_failures;
extern const char *test_current;

#define CHECK(cond)                                                        \
	do {                                                               \
		if (!(cond)) {                                             \
			fprintf(stderr, "%s:%d: %s: CHECK failed: %s\n",   \
				__FILE__, __LINE__, test_current, #cond);  \
			test_failures++;                                   \
		}                                                          \
	} while (0)

#define CHECK_U64(a, b)                                                    \
	do {                                                               \
		uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);           \
		if (a_ != b_) {                                            \
			fprintf(stderr,                                    \
				"%s:%d: %s: %s == %#" PRIx64               \
				", expected %s == %#" PRIx64 "\n",         \
				__FILE__, __LINE__, test_current, #a, a_,  \
				#b, b_);                                   \
			test_failures++;                                   \
		}                                                          \
	} while (0)

#define CHECK_STR(a, b)                                                    \
	do {                                                               \
		const char *a_ = (a), *b_ = (b);                           \
		if (!a_ || !b_ || strcmp(a_, b_) != 0) {                   \
			fprintf(stderr, "%s:%d: %s: %s is \"%s\", expected \"%s\"\n", \
				__FILE__, __LINE__, test_current, #a,      \
				a_ ? a_ : "(null)", b_ ? b_ : "(null)");   \
			test_failures++;                                   \
		}                                                          \
	} while (0)

/* Stop the test (not the run) when a precondition fails. */
#define REQUIRE(cond)                                                      \
	do {                                                               \
		if (!(cond)) {                                             \
			fprintf(stderr, "%s:%d: %s: REQUIRE failed: %s (%s)\n", \
				__FILE__, __LINE__, test_current, #cond,   \
				up_error_last());                          \
			test_failures++;                                   \
			return;                                            \
		}                                                          \
	} while (0)

#define RUN(fn)                                                            \
	do {                                                               \
		int before_ = test_failures;                               \
		test_current = #fn;                                        \
		fn();                                                      \
		printf("%s - %s\n", test_failures == before_ ? "ok" : "not ok", #fn); \
	} while (0)

/* Occurrences of needle in len bytes of buf. Not a strstr loop: a
 * sanitized strstr measures its whole haystack on every call, which makes
 * counting in a large output quadratic (minutes, not milliseconds). */
/* A xorshift64 step: reproducible pseudo-random input for tests. */
static inline uint64_t test_xorshift(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

static inline size_t test_count(const char *buf, size_t len, const char *needle)
{
	size_t n = strlen(needle), count = 0;

	for (size_t i = 0; buf && n && i + n <= len; i++)
		if (buf[i] == needle[0] && memcmp(buf + i, needle, n) == 0)
			count++;
	return count;
}

/* The path of fixture name, built in top_builddir's tests/unit, in buf;
 * false, said in one line, when it is missing. */
static inline int test_fixture(char *buf, size_t len, const char *name)
{
	const char *dir = getenv("top_builddir");

	snprintf(buf, len, "%s/tests/unit/%s", dir ? dir : ".", name);
	if (access(buf, R_OK) == 0)
		return 1;
	fprintf(stderr, "fixture %s missing\n", buf);
	return 0;
}

#define TEST_MAIN_END() return test_failures ? 1 : 0

#define TEST_GLOBALS                                                       \
	int test_failures;                                                 \
	const char *test_current

#endif
