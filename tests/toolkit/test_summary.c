/* The JSON summary parses whatever bytes the names hold: function names
 * from a hostile kernel image, a domain name and paths that are not
 * UTF-8. Checked by python3's json module (strict UTF-8). A stored
 * profile's JSON says what the pprof recorded; a live run's, what the
 * stall budget did. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../unit/test.h"
#include "budget_run.h"
#include "toolkit/run_output.h"
#include "toolkit/summary.h"
#include "uniprof/uniprof.h"
#include "private.h"

TEST_GLOBALS;

static const char hostile_map[] =
	"0000000000001000 T main\n"
	"0000000000002000 T bad\xff" "\xfe" "end\n"
	"0000000000003000 T surrogate\xed\xa0\x80" "end\n"
	"0000000000004000 T nonchar\xef\xbf\xbe" "end\n"
	"0000000000005000 T esc\x1b[31mred\n"
	"0000000000006000 T quote\"back\\slash\n"
	"0000000000007000 T cut\xe2\x82\n"
	"000000000000f000 B _end\n";

/* Every string valid, no U+FFFE/U+FFFF, the hostile names present as
 * top entries (with U+FFFD), and the dropped-stack count reported. */
static const char check_json[] =
	"import json, sys\n"
	"t = open(sys.argv[1], \"rb\").read().decode(\"utf-8\")\n"
	"assert \"\\ufffe\" not in t and \"\\uffff\" not in t\n"
	"d = json.loads(t)\n"
	"names = [e[\"function\"] for e in d[\"top\"]]\n"
	"assert \"bad\\ufffd\\ufffdend\" in names, names\n"
	"assert \"esc\\x1b[31mred\" in names, names\n"
	"assert \"quote\\\"back\\\\slash\" in names, names\n"
	"assert \"nonchar\\ufffdend\" in names, names\n"
	"assert d[\"domain\"][\"name\"] == \"dom\\ufffd\", d[\"domain\"]\n"
	"assert d[\"dropped_stacks\"] == 2, d[\"dropped_stacks\"]\n"
	"assert d[\"credited_stacks\"] == 3, d[\"credited_stacks\"]\n"
	/* the folded file's lines: six named stacks and [dropped] */
	"assert d[\"distinct_stacks\"] == 7, d[\"distinct_stacks\"]\n";

/* A JSON document, written to a file by write (from arg) and read by a
 * Python checker (a JSON reader nobody here wrote): true when the checker
 * exits 0. */
static bool json_file_passes(int (*write_json)(const void *arg, FILE *out),
			     const void *arg, const char *checker)
{
	char script[] = "/tmp/uniprof-json-py-XXXXXX";
	char json[] = "/tmp/uniprof-json-XXXXXX";
	char cmd[256];
	bool ok = false;
	FILE *f;
	int fd = mkstemp(json), sfd;

	if (fd < 0 || (f = fdopen(fd, "w")) == NULL)
		return false;
	if (write_json(arg, f) == 0 && fclose(f) == 0 &&
	    (sfd = mkstemp(script)) >= 0) {
		ok = write(sfd, checker, strlen(checker)) == (ssize_t)strlen(checker);
		close(sfd);
		snprintf(cmd, sizeof(cmd), "python3 %s %s", script, json);
		ok = ok && system(cmd) == 0;
		unlink(script);
	}
	unlink(json);
	return ok;
}

static int report_json(const void *r, FILE *out)
{
	return tk_run_json(r, out);
}

static int summary_json(const void *s, FILE *out)
{
	return tk_summary_json(s, out);
}

/* The report's JSON, read by the Python checker. */
static bool json_passes(const struct tk_run *r, const char *checker)
{
	return json_file_passes(report_json, r, checker);
}

static void test_json_hostile_names(void)
{
	struct up_symtab *s;
	struct up_profile *p;
	const struct tk_run_settings asked = { .hz = 100, .top = 20 };
	struct tk_domain dom = { .domid = 7, .name = "dom\xff", .type = "pv",
				  .kernel = "/k/\xc3" "kernel" };
	struct up_sampler_stats stats = { .samples = 5 };
	struct tk_run r = {
		.asked = asked, .dom = &dom, .profile = NULL, .stats = &stats,
		.symbols_used = "/k/syms\xe2\x82", .hypercalls = "direct",
		.files = { "/out/\xff.svg" }, .nr_files = 1,
	};

	REQUIRE(up_symtab_load_mem(&s, hostile_map, sizeof(hostile_map) - 1,
				   "map") == 0);
	REQUIRE(up_profile_new(&p, 1) == 0);
	for (uint64_t fn = 2; fn <= 7; fn++) {
		uint64_t st[] = { fn * 0x1000 + 1, 0x1001 };

		up_profile_add(p, 0, st, 2, UP_TRUNC_NONE);
	}
	{       /* three periods missed, credited to the stack before */
		uint64_t st[] = { 7 * 0x1000 + 1, 0x1001 };

		up_profile_add_credited(p, 0, st, 2, UP_TRUNC_NONE,
					UP_VCPU_UNKNOWN, 3, 5000000);
	}
	up_profile_set_limits(p, 6, 0);         /* full: two more are dropped */
	for (uint64_t fn = 8; fn <= 9; fn++) {
		uint64_t st[] = { fn * 0x1000 + 1, 0x1001 };

		up_profile_add(p, 0, st, 2, UP_TRUNC_NONE);
	}
	r.symtab = s;
	r.profile = p;
	CHECK(json_passes(&r, check_json));
	up_profile_free(p);
	up_symtab_free(s);
}

static const char check_budget_json[] =
	"import json, sys\n"
	"d = json.loads(open(sys.argv[1]).read())\n"
	"b = d[\"stall_budget\"]\n"
	"assert b[\"max_stall_pct\"] == 5 and b[\"hz_asked\"] == 997, b\n"
	"assert b[\"hz_final\"] == 99.7 and b[\"hz_lowest\"] == 83.083, b\n"
	"assert b[\"factor\"] == 10 and b[\"factor_max\"] == 12, b\n"
	"assert b[\"rate_lowered_at_s\"] == 0.25 and b[\"budget_periods\"] == 900, b\n"
	"assert b[\"effective_samples\"] == 80 and b[\"stood_still_pct\"] == 4, b\n"
	"assert d[\"rate_short\"] is False, d\n";

/* What the stall budget did, in the JSON summary; a rate lowered by it
 * is no shortfall of the sampler's (the samples stand for the periods
 * asked). */
static void test_stall_budget_json(void)
{
	struct up_profile *p;
	struct budget_run b;

	budget_run_init(&b);
	REQUIRE(up_profile_new(&p, 1) == 0);
	b.r.profile = p;
	CHECK(json_passes(&b.r, check_budget_json));
	up_profile_free(p);
}

/* report -F json of a stored pprof: the domain's id and arch as the
 * pprof's comments recorded them (as a live run's JSON has them), and
 * distinct_stacks the folded file's lines, which the stored profile's
 * address stacks outnumber (stacks that name alike are one line). */
static void test_stored_json(void)
{
	const char *top = getenv("top_srcdir");
	char path[512], checker[512], *folded = NULL, *in[1] = { path };
	size_t len = 0, lines = 0;
	struct up_stored *st = NULL;
	struct tk_summary s = { .cmd = "test", .tool = "test", .top = 20,
				 .view = UP_OUTPUT_OPTS_INIT, .inputs = in,
				 .nr_inputs = 1 };
	const char *paths[1] = { path };
	struct up_output_opts o;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/fuzz/corpus/fuzz_stored/tg-times.pb",
		 top ? top : ".");
	REQUIRE(up_stored_load(&st, paths, 1, NULL) == 0);
	s.stored = st;
	s.profile = up_stored_profile(st);
	s.names = up_stored_symtab(st);
	o = tk_folded_opts(&s.view);
	f = open_memstream(&folded, &len);
	REQUIRE(f);
	CHECK(up_profile_write_folded(s.profile, s.names, &o, f) == 0);
	fclose(f);
	for (size_t i = 0; i < len; i++)
		lines += folded[i] == '\n';
	free(folded);
	CHECK(lines > 0 && lines < up_profile_unique_stacks(s.profile));
	snprintf(checker, sizeof(checker),
		 "import json, sys\n"
		 "d = json.load(open(sys.argv[1]))\n"
		 "assert d[\"domain\"] == {\"name\": \"tg-time\", \"id\": 5, \"type\": \"pv\", "
		 "\"arch\": \"x86_64\", \"kernel\": \"/guests/tg-fp.elf\"}, d[\"domain\"]\n"
		 "assert d[\"distinct_stacks\"] == %zu, d[\"distinct_stacks\"]\n", lines);
	CHECK(json_file_passes(summary_json, &s, checker));
	up_stored_free(st);
}

int main(void)
{
	RUN(test_json_hostile_names);
	RUN(test_stall_budget_json);
	RUN(test_stored_json);
	TEST_MAIN_END();
}
