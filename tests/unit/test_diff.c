/* xl profile diff between a profile with inlined calls and one without
 * (a build with DWARF and one without, or --no-inline on one side): the
 * inlined frames are no change of path. The text table and the flame
 * graph fold them on both sides alike, so the SVG's colours say what the
 * table says; with inlined calls on both sides they stay. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "uniprof/uniprof.h"
#include "private.h"

TEST_GLOBALS;

static const struct up_output_opts on_cpu = UP_OUTPUT_OPTS_INIT;

static struct up_stored *folded(const char *text)
{
	struct up_stored *st = NULL;

	if (up_stored_load_mem(&st, text, strlen(text), "test.folded", NULL) < 0)
		return NULL;
	return st;
}

struct diff {
	struct up_stored *s[2];
	struct up_diff_entry *e;
	size_t n;
	uint64_t kept[2];
	char *svg;
};

static int run(struct diff *d, const char *before, const char *after)
{
	size_t len = 0;
	FILE *f;
	int rc;

	memset(d, 0, sizeof(*d));
	d->s[0] = folded(before);
	d->s[1] = folded(after);
	if (!d->s[0] || !d->s[1])
		return -1;
	rc = up_profile_diff(up_stored_profile(d->s[0]), up_stored_symtab(d->s[0]),
			     up_stored_profile(d->s[1]), up_stored_symtab(d->s[1]),
			     &on_cpu, &d->e, &d->n, &d->kept[0], &d->kept[1]);
	f = open_memstream(&d->svg, &len);
	if (rc < 0 || !f)
		return -1;
	rc = up_profile_write_diff_svg(up_stored_profile(d->s[0]), up_stored_symtab(d->s[0]),
				       up_stored_profile(d->s[1]), up_stored_symtab(d->s[1]),
				       &on_cpu, "diff", f);
	fclose(f);
	return rc;
}

static int inline_of(const struct diff *d)
{
	return up_profile_diff_inline(up_stored_profile(d->s[0]), up_stored_symtab(d->s[0]),
				      up_stored_profile(d->s[1]), up_stored_symtab(d->s[1]),
				      &on_cpu);
}

static void done(struct diff *d)
{
	up_diff_free(d->e, d->n);
	up_stored_free(d->s[0]);
	up_stored_free(d->s[1]);
	free(d->svg);
}

static const struct up_diff_entry *entry(const struct diff *d, const char *name)
{
	for (size_t i = 0; i < d->n; i++)
		if (strcmp(d->e[i].name, name) == 0)
			return &d->e[i];
	return NULL;
}

/* The SVG frame's change, in points, from its title: NAN when not drawn. */
static double svg_points(const struct diff *d, const char *name)
{
	char want[128];
	const char *at;
	double pts;

	snprintf(want, sizeof(want), "<title>%s (", name);
	at = d->svg ? strstr(d->svg, want) : NULL;
	if (!at || !(at = strstr(at, " after, ")) ||
	    sscanf(at, " after, %lf points", &pts) != 1)
		return NAN;
	return pts;
}

/* The same run, one side with an inlined call: nothing changed. */
static void test_inline_one_side_is_no_change(void)
{
	static const char without[] = "main;work;leaf 60\nmain;other 40\n";
	static const char with[] = "main;work;helper (inlined);leaf 60\nmain;other 40\n";
	struct diff d;

	REQUIRE(run(&d, without, with) == 0);
	CHECK(inline_of(&d) == UP_DIFF_INLINE_ONLY_AFTER);
	CHECK(entry(&d, "helper (inlined)") == NULL);
	for (size_t i = 0; i < d.n; i++)
		CHECK(fabs(d.e[i].delta) < 0.005);
	/* Drawn without the inlined frame, every frame unchanged (pale). */
	CHECK(strstr(d.svg, "(inlined)") == NULL);
	CHECK(strstr(d.svg, "only AFTER has them") != NULL);
	CHECK(fabs(svg_points(&d, "leaf")) < 0.005);
	CHECK(fabs(svg_points(&d, "work")) < 0.005);
	CHECK(strstr(d.svg, "leaf (60 samples, 60.00% before, 60.00% after, +0.00 points)") != NULL);
	done(&d);

	/* The other way round, the same. */
	REQUIRE(run(&d, with, without) == 0);
	CHECK(inline_of(&d) == UP_DIFF_INLINE_ONLY_BEFORE);
	CHECK(strstr(d.svg, "only BEFORE has them") != NULL);
	CHECK(fabs(svg_points(&d, "leaf")) < 0.005);
	for (size_t i = 0; i < d.n; i++)
		CHECK(fabs(d.e[i].delta) < 0.005);
	done(&d);
}

/* A real change beside the inlined call: the SVG's colours and the
 * table agree (leaf's share fell 30 points; the subtree is no new path). */
static void test_svg_agrees_with_table(void)
{
	static const char before[] = "main;work;leaf 60\nmain;other 40\n";
	static const char after[] = "main;work;helper (inlined);leaf 30\nmain;other 70\n";
	const struct up_diff_entry *leaf, *other;
	struct diff d;

	REQUIRE(run(&d, before, after) == 0);
	leaf = entry(&d, "leaf");
	other = entry(&d, "other");
	REQUIRE(leaf && other);
	CHECK(fabs(leaf->delta + 30) < 0.005);
	CHECK(fabs(other->delta - 30) < 0.005);
	CHECK(fabs(svg_points(&d, "leaf") - leaf->delta) < 0.005);
	CHECK(fabs(svg_points(&d, "other") - other->delta) < 0.005);
	CHECK(fabs(svg_points(&d, "work") + 30) < 0.005);
	/* The deepest blue for the largest change, not red. */
	CHECK(strstr(d.svg, "leaf (30 samples, 60.00% before, 30.00% after, -30.00 points)</title><rect") != NULL);
	done(&d);
}

/* Inlined calls on both sides are frames like any other: compared, drawn. */
static void test_inline_both_sides_kept(void)
{
	static const char before[] = "main;work;helper (inlined);leaf 60\nmain;other 40\n";
	static const char after[] = "main;work;helper (inlined);leaf 20\nmain;work;leaf 20\nmain;other 60\n";
	const struct up_diff_entry *h;
	struct diff d;

	REQUIRE(run(&d, before, after) == 0);
	CHECK(inline_of(&d) == UP_DIFF_INLINE_ALIKE);
	h = entry(&d, "helper (inlined)");
	REQUIRE(h);
	CHECK(fabs(h->total_before_pct - 60) < 0.005 && fabs(h->total_after_pct - 20) < 0.005);
	CHECK(fabs(svg_points(&d, "helper (inlined)") + 40) < 0.005);
	CHECK(strstr(d.svg, "has them") == NULL);
	done(&d);
	/* --no-inline: nothing left to tell apart. */
	REQUIRE(run(&d, before, "main;work;leaf 60\nmain;other 40\n") == 0);
	{
		struct up_output_opts o = on_cpu;

		o.no_inline = true;
		CHECK(up_profile_diff_inline(up_stored_profile(d.s[0]), up_stored_symtab(d.s[0]),
					     up_stored_profile(d.s[1]), up_stored_symtab(d.s[1]),
					     &o) == UP_DIFF_INLINE_ALIKE);
	}
	done(&d);
}

int main(void)
{
	RUN(test_inline_one_side_is_no_change);
	RUN(test_svg_agrees_with_table);
	RUN(test_inline_both_sides_kept);
	TEST_MAIN_END();
}
