/* test_resolve.c - one test per resolution rule of DESIGN.md section 1. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "resolve.h"

#define cfg fx_config

/* The effective value of priv for uid in s (the caller clears it). */
static struct resolve_val
value(const struct snap *s, const char *uid, const char *priv)
{
	const struct snap_account *a = snap_account(s, uid);
	struct resolve_val v;

	assert_non_null(a);
	assert_int_equal(resolve_combine(cfg, cfg_priv_find(cfg, priv), a->m, a->nm, &v), 0);
	return v;
}

static long long
num(const struct snap *s, const char *uid, const char *priv)
{
	struct resolve_val v = value(s, uid, priv);
	long long n = v.num;

	resolve_val_clear(&v);
	return n;
}

static int
has(const struct snap *s, const char *uid, const char *elem)
{
	struct resolve_val v = value(s, uid, "s");
	int h = resolve_has(&v, elem);

	resolve_val_clear(&v);
	return h;
}

/* Rule 1: a grant applies to every membership in a cell it covers, and only those. */
static void
rule1_covering_cells_apply(void **state)
{
	const char *cells[] = { "student@|n=7", "staff@|n=9",
	    "student/undergrad@engineering/cse/compeng|n=11", NULL };
	const char *accts[] = { "jdoe|student/undergrad@engineering/cse", NULL };
	struct snap *s = fx_snap(cfg, NULL, NULL, cells, accts);

	(void)state;
	/* staff@ does not cover a student; the deeper cell does not cover jdoe */
	assert_int_equal(num(s, "jdoe", "n"), 7);
	snap_free(s);
}

/* Rule 2: the most specific grant wins; the ones it covers are overridden. */
static void
rule2_most_specific_wins(void **state)
{
	const char *cells[] = { "@|n=50", "student@|n=200", "student@engineering/cse|n=300",
	    "@engineering|n=1", NULL };
	const char *accts[] = { "jdoe|student/undergrad@engineering/cse/compeng", NULL };
	struct snap *s = fx_snap(cfg, NULL, NULL, cells, accts);
	const struct snap_account *a;
	struct snap_src *src;
	size_t i, nsrc, won = 0;

	(void)state;
	/* student@engineering/cse is covered by every other cell: it alone wins,
	 * even over a larger value on @engineering */
	assert_int_equal(num(s, "jdoe", "n"), 300);
	a = snap_account(s, "jdoe");
	assert_int_equal(resolve_sources(s, a->m[0], cfg_priv_find(cfg, "n"), &src, &nsrc), 0);
	assert_int_equal(nsrc, 4);
	for (i = 0; i < nsrc; i++) {
		if (src[i].by == NULL) {
			won++;
			assert_string_equal(src[i].cell->name, "student@engineering/cse");
		} else
			assert_string_equal(src[i].by->name, "student@engineering/cse");
	}
	assert_int_equal(won, 1);
	free(src);
	snap_free(s);
}

/* Rule 2 along one axis: the deeper reason wins when organisations are equal. */
static void
rule2_specific_on_one_axis(void **state)
{
	const char *cells[] = { "student@|f=true", "student/undergrad@|f=false",
	    "staff@engineering|f=false", "staff/academic@engineering|f=true", NULL };
	const char *accts[] = { "u|student/undergrad@science", "a|staff/academic@engineering", NULL };
	struct snap *s = fx_snap(cfg, NULL, NULL, cells, accts);

	(void)state;
	assert_int_equal(num(s, "u", "f"), 0);	/* the more specific false wins */
	assert_int_equal(num(s, "a", "f"), 1);	/* the more specific true wins */
	snap_free(s);
}

/* Rule 2 for sets works per element: each element has its own winner. */
static void
rule2_set_elements_independent(void **state)
{
	const char *cells[] = { "@engineering|s+=laser|s+=plotter",
	    "@engineering/cse|s-=laser", "visitor@|s-=lab", "visitor@engineering|s+=lab", NULL };
	const char *accts[] = { "u|student/undergrad@engineering/cse",
	    "v|visitor@engineering/elec", NULL };
	struct snap *s = fx_snap(cfg, NULL, NULL, cells, accts);

	(void)state;
	assert_false(has(s, "u", "laser"));	/* the deeper deny wins for laser */
	assert_true(has(s, "u", "plotter"));	/* ...and says nothing about plotter */
	assert_true(has(s, "v", "lab"));	/* a deeper grant beats a general deny */
	assert_true(has(s, "v", "laser"));
	snap_free(s);
}

/* Rule 3: incomparable winners, flags: deny (false) wins. */
static void
rule3_flag_tie_deny_wins(void **state)
{
	const char *cells[] = { "student@|f=true", "@engineering|f=false", NULL };
	const char *cells2[] = { "student@|f=true", "@engineering|f=true", NULL };
	const char *accts[] = { "jdoe|student/undergrad@engineering/cse", NULL };
	struct snap *s = fx_snap(cfg, NULL, NULL, cells, accts);
	struct snap *s2 = fx_snap(cfg, NULL, NULL, cells2, accts);

	(void)state;
	assert_int_equal(num(s, "jdoe", "f"), 0);
	assert_int_equal(num(s2, "jdoe", "f"), 1);
	snap_free(s);
	snap_free(s2);
}

/* Rule 3: incomparable winners, set elements: -x wins over +x, also on one cell. */
static void
rule3_set_tie_deny_wins(void **state)
{
	const char *cells[] = { "student@|s+=laser|s+=lab", "@engineering|s-=laser",
	    "staff@|s+=x|s-=x", NULL };
	const char *accts[] = { "jdoe|student/undergrad@engineering/cse",
	    "t|staff/academic@science", NULL };
	struct snap *s = fx_snap(cfg, NULL, NULL, cells, accts);

	(void)state;
	assert_false(has(s, "jdoe", "laser"));
	assert_true(has(s, "jdoe", "lab"));
	assert_false(has(s, "t", "x"));
	snap_free(s);
}

/* Rule 3: incomparable winners, numbers: the privilege's combine (max, min, sum). */
static void
rule3_number_tie_combine(void **state)
{
	const char *cells[] = { "student@|n=100|nmin=100|nsum=100|q=100",
	    "@engineering|n=300|nmin=300|nsum=300|q=300", NULL };
	const char *accts[] = { "jdoe|student/undergrad@engineering/cse", NULL };
	struct snap *s = fx_snap(cfg, NULL, NULL, cells, accts);

	(void)state;
	assert_int_equal(num(s, "jdoe", "n"), 300);
	assert_int_equal(num(s, "jdoe", "nmin"), 100);
	assert_int_equal(num(s, "jdoe", "nsum"), 400);
	assert_int_equal(num(s, "jdoe", "q"), 300);	/* quotas combine like numbers */
	snap_free(s);
}

/* Rule 4: across memberships, flag OR, set union, numbers by combine. */
static void
rule4_across_memberships(void **state)
{
	const char *cells[] = {
	    "student@|f=false|s+=student-laser|n=300|nmin=300|nsum=300",
	    "staff@|f=true|s+=staff-laser|n=1000|nmin=1000|nsum=1000",
	    "visitor@|nsum=5", NULL };
	const char *accts[] = { "bchen|student/undergrad@engineering|staff/academic@engineering",
	    "one|student/undergrad@engineering", "mix|student/undergrad@x|visitor@x", NULL };
	struct snap *s = fx_snap(cfg, NULL, NULL, cells, accts);

	(void)state;
	assert_int_equal(num(s, "bchen", "f"), 1);
	assert_true(has(s, "bchen", "student-laser"));
	assert_true(has(s, "bchen", "staff-laser"));
	assert_int_equal(num(s, "bchen", "n"), 1000);
	assert_int_equal(num(s, "bchen", "nmin"), 300);
	assert_int_equal(num(s, "bchen", "nsum"), 1300);
	assert_int_equal(num(s, "one", "f"), 0);
	/* a membership without a grant takes no part in min; sum adds each */
	assert_int_equal(num(s, "mix", "nmin"), 300);
	assert_int_equal(num(s, "mix", "nsum"), 305);
	snap_free(s);
}

/* Rule 4: a deny in one membership does not take away what another allows. */
static void
rule4_set_deny_stays_in_its_membership(void **state)
{
	const char *cells[] = { "visitor@|s-=laser", "staff@|s+=laser", NULL };
	const char *accts[] = { "x|visitor@engineering|staff/academic@engineering", NULL };
	struct snap *s = fx_snap(cfg, NULL, NULL, cells, accts);

	(void)state;
	assert_true(has(s, "x", "laser"));
	snap_free(s);
}

/* Rule 5: no grant means false, empty, 0. */
static void
rule5_no_grant_defaults(void **state)
{
	const char *cells[] = { "staff@|f=true|s+=a|n=4|q=9", NULL };
	const char *accts[] = { "jdoe|student/undergrad@engineering", "none|", NULL };
	struct snap *s = fx_snap(cfg, NULL, NULL, cells, accts);
	struct resolve_val v;

	(void)state;
	assert_int_equal(num(s, "jdoe", "f"), 0);
	assert_int_equal(num(s, "jdoe", "n"), 0);
	assert_int_equal(num(s, "jdoe", "q"), 0);
	v = value(s, "jdoe", "s");
	assert_int_equal(v.nelems, 0);
	resolve_val_clear(&v);
	assert_int_equal(num(s, "none", "n"), 0);
	snap_free(s);
}

/* Internal organisation nodes hold members: the Head of School at the top. */
static void
internal_organisation_node(void **state)
{
	const char *cells[] = { "@engineering|s+=eng-laser", "@engineering/cse|s+=cse-laser",
	    "staff/academic@engineering|n=5000", NULL };
	const char *accts[] = { "hos|staff/academic@engineering", NULL };
	struct snap *s = fx_snap(cfg, NULL, NULL, cells, accts);

	(void)state;
	assert_true(has(s, "hos", "eng-laser"));
	assert_false(has(s, "hos", "cse-laser"));	/* below her node: not hers */
	assert_int_equal(num(s, "hos", "n"), 5000);
	snap_free(s);
}

/* Empty sides: "student@" every student, "@engineering" everyone there, "@" everyone. */
static void
empty_sides(void **state)
{
	const char *cells[] = { "@|s+=all", "student@|s+=students", "@engineering|s+=eng", NULL };
	const char *accts[] = { "stu|student/postgrad/research@science",
	    "eng|staff/professional/technical@engineering/elec", "vis|visitor@", NULL };
	struct snap *s = fx_snap(cfg, NULL, NULL, cells, accts);

	(void)state;
	assert_true(has(s, "stu", "all"));
	assert_true(has(s, "stu", "students"));
	assert_false(has(s, "stu", "eng"));
	assert_true(has(s, "eng", "all"));
	assert_true(has(s, "eng", "eng"));
	assert_false(has(s, "eng", "students"));
	assert_true(has(s, "vis", "all"));
	assert_false(has(s, "vis", "eng"));
	snap_free(s);
}

/* Path prefixes are whole segments: "eng" does not cover "engineering". */
static void
prefix_is_by_segment(void **state)
{
	const char *cells[] = { "@eng|n=1", "stu@|n=2", NULL };
	const char *accts[] = { "x|student/undergrad@engineering", NULL };
	struct snap *s = fx_snap(cfg, NULL, NULL, cells, accts);

	(void)state;
	assert_int_equal(num(s, "x", "n"), 0);
	snap_free(s);
}

/* Provenance: applied, overridden and outweighed, per membership and element. */
static void
provenance_reasons(void **state)
{
	const char *cells[] = { "@|n=50", "student@|n=300", "staff@|n=1000",
	    "@engineering|s+=laser", "visitor@|s-=laser", NULL };
	const char *accts[] = { "b|student/undergrad@engineering|staff/academic@engineering",
	    "v|visitor@engineering", NULL };
	struct snap *s = fx_snap(cfg, NULL, NULL, cells, accts);
	const struct snap_account *a = snap_account(s, "b");
	int n = cfg_priv_find(cfg, "n"), set = cfg_priv_find(cfg, "s");
	struct resolve_val v;
	struct snap_src *srcs;
	size_t k, i, nsrc;
	int applied = 0, overridden = 0, outweighed = 0;

	(void)state;
	assert_int_equal(resolve_combine(cfg, n, a->m, a->nm, &v), 0);
	for (k = 0; k < a->nm; k++) {
		assert_int_equal(resolve_sources(s, a->m[k], n, &srcs, &nsrc), 0);
		for (i = 0; i < nsrc; i++) {
			const struct snap_src *src = &srcs[i];

			switch (resolve_why(cfg, n, a->m[k], src, &v)) {
			case WHY_APPLIED:
				applied++;
				assert_string_equal(src->cell->name, "staff@");
				break;
			case WHY_OVERRIDDEN:
				overridden++;
				assert_string_equal(src->cell->name, "@");
				break;
			case WHY_OUTWEIGHED:
				outweighed++;
				assert_string_equal(src->cell->name, "student@");
				break;
			}
		}
		free(srcs);
	}
	resolve_val_clear(&v);
	assert_int_equal(applied, 1);
	assert_int_equal(overridden, 2);	/* "@" in each membership */
	assert_int_equal(outweighed, 1);

	a = snap_account(s, "v");
	assert_int_equal(resolve_combine(cfg, set, a->m, a->nm, &v), 0);
	assert_int_equal(resolve_sources(s, a->m[0], set, &srcs, &nsrc), 0);
	assert_int_equal(nsrc, 2);
	for (i = 0; i < 2; i++) {
		const struct snap_src *src = &srcs[i];
		enum resolve_why w = resolve_why(cfg, set, a->m[0], src, &v);

		/* the deny applied; the grant it beat in the tie is outweighed */
		assert_int_equal(w, src->grant->op == GRANT_DEL ? WHY_APPLIED : WHY_OUTWEIGHED);
	}
	free(srcs);
	resolve_val_clear(&v);
	snap_free(s);
}

/* Bad input in the directory is skipped, not fatal, and counted. */
static void
bad_entries_are_skipped(void **state)
{
	const char *cells[] = { "student@|n=5|nope=1|f=maybe|s=x", "Bad Cell|n=1", NULL };
	const char *accts[] = { "jdoe|student/undergrad@cse|not-a-cell", NULL };
	struct snap *s = fx_snap(cfg, NULL, NULL, cells, accts);

	(void)state;
	assert_non_null(s);
	assert_int_equal(num(s, "jdoe", "n"), 5);
	assert_int_equal(snap_account(s, "jdoe")->nm, 1);
	assert_true(s->skipped >= 5);
	snap_free(s);
}

/* The tree: leaves are reasons without children. */
static void
reason_leaves(void **state)
{
	const char *reasons[] = { "staff", "staff/academic", "student", NULL };
	const char *orgs[] = { "engineering", NULL };
	struct snap *s = fx_snap(cfg, reasons, orgs, NULL, NULL);

	(void)state;
	assert_false(snap_reason_is_leaf(s, "staff"));
	assert_true(snap_reason_is_leaf(s, "staff/academic"));
	assert_true(snap_reason_is_leaf(s, "student"));
	assert_false(snap_reason_is_leaf(s, "nothing"));
	assert_true(snap_org_exists(s, "engineering"));
	assert_false(snap_org_exists(s, "science"));
	snap_free(s);
}

/* Rule 4 for sets when one membership grants no element (a regression:
 * UBSan saw memcpy from NULL with a zero length). */
static void
rule4_set_union_with_an_empty_membership(void **state)
{
	const char *cells[] = { "student@|s+=x", "staff@|n=1", NULL };
	const char *accts[] = { "both|staff/academic@|student/undergrad@", NULL };
	struct snap *s = fx_snap(cfg, NULL, NULL, cells, accts);
	struct resolve_val v;

	(void)state;
	v = value(s, "both", "s");
	assert_int_equal(v.nelems, 1);
	assert_string_equal(v.elems[0], "x");
	resolve_val_clear(&v);
	snap_free(s);
}

FX_GROUP("resolve", fx_setup, fx_teardown,
    cmocka_unit_test(rule1_covering_cells_apply),
    cmocka_unit_test(rule2_most_specific_wins),
    cmocka_unit_test(rule2_specific_on_one_axis),
    cmocka_unit_test(rule2_set_elements_independent),
    cmocka_unit_test(rule3_flag_tie_deny_wins),
    cmocka_unit_test(rule3_set_tie_deny_wins),
    cmocka_unit_test(rule3_number_tie_combine),
    cmocka_unit_test(rule4_across_memberships),
    cmocka_unit_test(rule4_set_deny_stays_in_its_membership),
    cmocka_unit_test(rule5_no_grant_defaults),
    cmocka_unit_test(internal_organisation_node),
    cmocka_unit_test(empty_sides),
    cmocka_unit_test(prefix_is_by_segment),
    cmocka_unit_test(provenance_reasons),
    cmocka_unit_test(bad_entries_are_skipped),
    cmocka_unit_test(reason_leaves),
    cmocka_unit_test(rule4_set_union_with_an_empty_membership))
