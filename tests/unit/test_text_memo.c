/* The memo of texts by (key, kind) (core/util/text_memo.c): what is put
 * is got back byte for byte, the first text stays, kinds are apart, the
 * bounds keep nothing past them, and texts stay where they are as the
 * table and the blocks grow. */
#include "config.h"

#include "util/text_memo.h"
#include "test.h"
#include "uniprof/error.h"

TEST_GLOBALS;

static bool has(const struct text_memo *m, uint64_t key, unsigned kind,
		const char *want, unsigned want_tag)
{
	size_t len;
	unsigned tag;
	const char *t = text_memo_get(m, key, kind, &len, &tag);

	return t && len == strlen(want) && memcmp(t, want, len) == 0 &&
	       tag == want_tag;
}

static void test_put_get(void)
{
	struct text_memo *m = text_memo_new(100, 1 << 20);
	size_t len;
	unsigned tag;

	REQUIRE(m);
	CHECK(!text_memo_get(m, 1, 0, &len, &tag));
	CHECK(text_memo_put(m, 1, 0, "one;two", 7, 2));
	CHECK(has(m, 1, 0, "one;two", 2));
	/* Another kind of the same key is another entry. */
	CHECK(!text_memo_get(m, 1, 1, &len, &tag));
	CHECK(text_memo_put(m, 1, 1, "uno", 3, 1));
	CHECK(has(m, 1, 1, "uno", 1) && has(m, 1, 0, "one;two", 2));
	/* The first text stays. */
	CHECK(!text_memo_put(m, 1, 0, "other", 5, 1));
	CHECK(has(m, 1, 0, "one;two", 2));
	/* An empty text is a text. */
	CHECK(text_memo_put(m, 0, 3, "", 0, 0));
	CHECK(has(m, 0, 3, "", 0));
	CHECK(text_memo_put(m, UINT64_MAX, TEXT_MEMO_MAX_KIND, "x", 1,
			    TEXT_MEMO_MAX_TAG));
	CHECK(has(m, UINT64_MAX, TEXT_MEMO_MAX_KIND, "x", TEXT_MEMO_MAX_TAG));
	text_memo_free(m);
	/* No memo: nothing kept, nothing found. */
	CHECK(!text_memo_put(NULL, 1, 0, "a", 1, 0));
	CHECK(!text_memo_get(NULL, 1, 0, &len, &tag));
	text_memo_free(NULL);
}

static void test_bounds(void)
{
	struct text_memo *m = text_memo_new(3, 10);
	static char big[TEXT_MEMO_MAX_LEN + 2];
	size_t len;
	unsigned tag;

	REQUIRE(m);
	/* What one entry cannot hold is refused, never cut. */
	CHECK(!text_memo_put(m, 1, TEXT_MEMO_MAX_KIND + 1, "a", 1, 0));
	CHECK(!text_memo_put(m, 1, 0, "a", 1, TEXT_MEMO_MAX_TAG + 1));
	CHECK(!text_memo_get(m, 1, TEXT_MEMO_MAX_KIND + 1, &len, &tag));
	/* Bytes: 10 in all. */
	CHECK(text_memo_put(m, 1, 0, "12345678", 8, 0));
	CHECK(!text_memo_put(m, 2, 0, "123", 3, 0));
	CHECK(text_memo_put(m, 2, 0, "12", 2, 0));
	/* Entries: 3 in all. */
	CHECK(text_memo_put(m, 3, 0, "", 0, 0));
	CHECK(!text_memo_put(m, 4, 0, "", 0, 0));
	CHECK(has(m, 1, 0, "12345678", 0) && has(m, 2, 0, "12", 0) &&
	      has(m, 3, 0, "", 0) && !text_memo_get(m, 4, 0, &len, &tag));
	text_memo_free(m);

	m = text_memo_new(10, 1u << 30);
	REQUIRE(m);
	memset(big, 'b', sizeof(big));
	CHECK(!text_memo_put(m, 1, 0, big, TEXT_MEMO_MAX_LEN + 1, 0));
	CHECK(text_memo_put(m, 1, 0, big, TEXT_MEMO_MAX_LEN, 0));
	CHECK(text_memo_get(m, 1, 0, &len, &tag) && len == TEXT_MEMO_MAX_LEN);
	text_memo_free(m);
}

/* Many entries: the table rehashed and the texts in several blocks, each
 * got back as put, and a pointer got early still reads the same. */
static void test_many(void)
{
	struct text_memo *m = text_memo_new(1u << 20, 64u << 20);
	uint64_t rng = 0x2545f4914f6cdd1dULL;
	const char *early;
	size_t len, bad = 0;
	unsigned tag;
	char text[64];

	REQUIRE(m);
	for (uint64_t k = 0; k < 300000; k++) {
		int n = snprintf(text, sizeof(text), "fn_%" PRIu64 ";inl (inlined)",
				 k * 7919);

		CHECK(text_memo_put(m, k * 16 + 0x400000, (unsigned)(k % 5), text,
				    (size_t)n, (unsigned)(k % 17)));
	}
	early = text_memo_get(m, 0x400000, 0, &len, &tag);
	REQUIRE(early && len == strlen("fn_0;inl (inlined)"));
	for (uint64_t i = 0; i < 100000; i++) {
		uint64_t k = test_xorshift(&rng) % 300000;
		int n = snprintf(text, sizeof(text), "fn_%" PRIu64 ";inl (inlined)",
				 k * 7919);
		const char *t = text_memo_get(m, k * 16 + 0x400000,
					      (unsigned)(k % 5), &len, &tag);

		bad += !t || len != (size_t)n || memcmp(t, text, len) != 0 ||
		       tag != k % 17;
		/* Not kept under another kind. */
		bad += text_memo_get(m, k * 16 + 0x400000, (unsigned)(k % 5) + 5,
				     &len, &tag) != NULL;
	}
	CHECK(bad == 0);
	CHECK(memcmp(early, "fn_0;inl (inlined)", strlen("fn_0;inl (inlined)")) == 0);
	text_memo_free(m);
}

int main(void)
{
	RUN(test_put_get);
	RUN(test_bounds);
	RUN(test_many);
	TEST_MAIN_END();
}
