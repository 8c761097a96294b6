/* xl profile --once and core's printing (xl-plugin/stack_print.c): each
 * vCPU's frames with their own addresses and names, the source file and
 * line of each frame and the calls inlined there (from the inlining
 * fixture's DWARF), in text and JSON; a vCPU without a stack says why. */
#include <unistd.h>
#include <yajl/yajl_gen.h>

#include "test.h"
#include "toolkit/json_write.h"
#include "stack_print.h"
#include "private.h"

TEST_GLOBALS;

static char fixture[4096];

static const struct up_symbol *by_name(const struct up_symtab *s, const char *n)
{
	for (size_t i = 0; i < up_symtab_count(s); i++)
		if (strcmp(up_symtab_symbol(s, i)->name, n) == 0)
			return up_symtab_symbol(s, i);
	return NULL;
}

/* An address of fx_outer inside fx_mix (three source frames), or 0. */
static uint64_t addr_in_mix(const struct up_symtab *s)
{
	const struct up_symbol *fn = by_name(s, "fx_outer");
	struct up_src_frame f[UP_SRC_MAX_FRAMES];

	for (uint64_t a = fn ? fn->addr : 0; fn && a < fn->addr + fn->size; a++)
		if (up_symtab_source(s, a, false, f, UP_SRC_MAX_FRAMES) == 3)
			return a;
	return 0;
}

static void test_text_and_json(void)
{
	struct up_symtab *s;
	struct up_profile *p;
	uint64_t frames[2];
	char buf[8192], want[128];
	FILE *out;

	REQUIRE(up_symtab_load(&s, fixture) == 0);
	REQUIRE((frames[0] = addr_in_mix(s)) != 0);
	frames[1] = by_name(s, "main")->addr + 5;
	REQUIRE(up_profile_new(&p, 2) == 0);
	REQUIRE(up_profile_add(p, 0, frames, 2, UP_TRUNC_NONE) == 0);

	struct xlp_stack_print sp = { .profile = p, .symtab = s, .vcpu = -1,
				      .missing_why = "offline" };
	out = fmemopen(buf, sizeof(buf), "w");
	REQUIRE(out);
	CHECK(xlp_print_stacks_text(&sp, out) == 1);
	fclose(out);
	/* Frame 0: the two inlined calls, then the function, each line with
	 * the frame's number and its own address. */
	snprintf(want, sizeof(want), "  #0   0x%016" PRIx64 "  fx_mix (inlined) at ",
		 frames[0]);
	CHECK(strstr(buf, want) != NULL);
	snprintf(want, sizeof(want), "  #0   0x%016" PRIx64 "  fx_twice (inlined) at ",
		 frames[0]);
	CHECK(strstr(buf, want) != NULL);
	snprintf(want, sizeof(want), "  #0   0x%016" PRIx64 "  fx_outer+0x", frames[0]);
	CHECK(strstr(buf, want) != NULL);
	snprintf(want, sizeof(want), "  #1   0x%016" PRIx64 "  main+0x5 at ", frames[1]);
	CHECK(strstr(buf, want) != NULL);
	CHECK(strstr(buf, "/fixture_lines.c:") != NULL);
	CHECK(strstr(buf, "vcpu1: no stack (offline)") != NULL);
	if (test_failures)
		fprintf(stderr, "%s", buf);

	/* JSON: the function's file and line, and its inlined calls. */
	{
		yajl_gen g = yajl_gen_alloc(NULL);
		const unsigned char *j;
		size_t len;

		REQUIRE(g);
		yajl_gen_map_open(g);
		CHECK(xlp_print_stacks_json(&sp, g) == 1);
		yajl_gen_map_close(g);
		REQUIRE(yajl_gen_get_buf(g, &j, &len) == yajl_gen_status_ok);
		CHECK(strstr((const char *)j, "\"inlined\":[{\"function\":\"fx_mix\"") != NULL);
		CHECK(strstr((const char *)j, "\"function\":\"fx_twice\"") != NULL);
		CHECK(strstr((const char *)j, "\"function\":\"fx_outer\"") != NULL);
		CHECK(strstr((const char *)j, "fixture_lines.c\",\"line\":") != NULL);
		yajl_gen_free(g);
	}
	up_profile_free(p);
	up_symtab_free(s);
}

int main(void)
{
	if (!test_fixture(fixture, sizeof(fixture), "fixture_lines"))
		return 1;
	RUN(test_text_and_json);
	TEST_MAIN_END();
}
