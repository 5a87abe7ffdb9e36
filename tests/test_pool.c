/* test_pool.c - shared budgets: which memberships a pool's cell covers, in what order an account's pools come, and a pool's limit is never a grant. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "grant.h"
#include "import.h"
#include "pool.h"
#include "resolve.h"
#include "strv.h"

static void
covers_along_both_trees(void **state)
{
	(void)state;
	/* ancestor-or-self on both sides */
	assert_true(pool_covers("student@eng/cse", "student/ug@eng/cse/c1"));
	assert_true(pool_covers("student/ug@eng/cse/c1", "student/ug@eng/cse/c1"));
	assert_false(pool_covers("student/ug@eng/cse/c1", "student/ug@eng/cse"));
	assert_false(pool_covers("student@eng/cse/c1", "student/ug@eng/cse/c2"));
	assert_false(pool_covers("staff@eng", "student/ug@eng"));
	/* a path is not covered by a prefix of a segment */
	assert_false(pool_covers("@eng/cs", "student/ug@eng/cse"));
	assert_false(pool_covers("stud@", "student/ug@eng"));
}

static void
covers_internal_organisation_nodes(void **state)
{
	(void)state;
	/* the Head of School sits at engineering itself, not below it */
	assert_true(pool_covers("@engineering", "staff/academic@engineering"));
	assert_true(pool_covers("staff@engineering", "staff/academic@engineering"));
	assert_false(pool_covers("@engineering/cse", "staff/academic@engineering"));
}

static void
covers_empty_sides(void **state)
{
	(void)state;
	assert_true(pool_covers("@", "visitor@science"));
	assert_true(pool_covers("student@", "student/ug@science/maths"));
	assert_true(pool_covers("@eng", "visitor@eng/cse"));
	/* a membership with an empty side is covered only by an empty side */
	assert_false(pool_covers("student@eng", "student@"));
	assert_true(pool_covers("student@", "student@"));
	assert_false(pool_covers("not a cell", "student@"));
}

static void
why_in_words(void **state)
{
	char buf[512];

	(void)state;
	assert_false(pool_why("student@eng/cse/c1", "student/ug@eng/cse/c2", buf, sizeof(buf)));
	assert_string_equal(buf, "organisation eng/cse/c2 is not eng/cse/c1 or below it");
	assert_false(pool_why("staff@eng", "student/ug@eng", buf, sizeof(buf)));
	assert_string_equal(buf, "reason student/ug is not staff or below it");
	assert_true(pool_why("@eng", "student/ug@eng/cse", buf, sizeof(buf)));
	assert_non_null(strstr(buf, "@eng covers student/ug@eng/cse"));
}

static void
depth_orders_specificity(void **state)
{
	(void)state;
	assert_int_equal(pool_depth("@"), 0);
	assert_int_equal(pool_depth("student@"), 1);
	assert_int_equal(pool_depth("student/ug@eng/cse"), 4);
}

static void
pool_text_round_trip(void **state)
{
	struct cfg *c = fx_cfg();
	struct grant g;
	struct err e;

	(void)state;
	memset(&e, 0, sizeof(e));
	assert_int_equal(grant_parse(c, "pool q=150", &g, &e), 0);
	assert_true(g.pool);
	assert_int_equal(g.num, 150);
	assert_string_equal(g.text, "pool q=150");
	grant_clear(&g);
	assert_int_equal(grant_make_pool(c, cfg_priv_find(c, "q"), "7", &g, &e), 0);
	assert_string_equal(g.text, "pool q=7");
	grant_clear(&g);
	/* only quotas have pools, and a limit is a whole number */
	assert_int_equal(grant_parse(c, "pool f=true", &g, &e), -1);
	assert_non_null(strstr(e.msg, "only quotas"));
	assert_int_equal(grant_parse(c, "pool q=-3", &g, &e), -1);
	assert_int_equal(grant_parse(c, "pool nosuch=3", &g, &e), -1);
	assert_int_equal(e.code, ERR_NOT_FOUND);
	cfg_free(c);
}

static const char *const reasons[] = { "student", "student/ug", "staff", "staff/ac", NULL };
static const char *const orgs[] = { "eng", "eng/cse", "eng/cse/c1", "eng/cse/c2", NULL };

static void
account_pools_most_specific_first(void **state)
{
	static const char *const cells[] = {
		"student@|q=10|pool q=1000",
		"student@eng/cse/c1|pool q=150",
		"@eng|pool q=500",
		"staff@|pool q=99",
		NULL };
	static const char *const accounts[] = {
		"s1|student/ug@eng/cse/c1",
		"s3|student/ug@eng/cse/c2",
		"tutor|student/ug@eng/cse/c2|staff/ac@eng/cse/c1",
		"none|student/ug@eng/cse/c2", NULL };
	struct cfg *c = fx_cfg();
	struct snap *s = fx_snap(c, reasons, orgs, cells, accounts);
	struct pool_ref *v;
	size_t n;
	int q = cfg_priv_find(c, "q");

	(void)state;
	assert_non_null(s);
	assert_int_equal(s->npooled, 4);
	assert_int_equal(pool_for_account(s, snap_account(s, "s1"), q, &v, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].cell->name, "student@eng/cse/c1");
	assert_string_equal(v[0].via, "student/ug@eng/cse/c1");
	assert_int_equal(v[0].limit->num, 150);
	assert_string_equal(v[1].cell->name, "@eng");
	assert_string_equal(v[2].cell->name, "student@");
	free(v);
	/* another course's student: not the course's pool */
	assert_int_equal(pool_for_account(s, snap_account(s, "s3"), q, &v, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].cell->name, "@eng");
	assert_string_equal(v[1].cell->name, "student@");
	free(v);
	/* two memberships: each pool once, through the membership it covers */
	assert_int_equal(pool_for_account(s, snap_account(s, "tutor"), q, &v, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].cell->name, "@eng");
	assert_string_equal(v[0].via, "student/ug@eng/cse/c2");
	assert_string_equal(v[1].cell->name, "staff@");
	assert_string_equal(v[1].via, "staff/ac@eng/cse/c1");
	free(v);
	assert_string_equal(pool_member_via(snap_account(s, "tutor"), "staff@"),
	    "staff/ac@eng/cse/c1");
	assert_null(pool_member_via(snap_account(s, "s3"), "student@eng/cse/c1"));
	snap_free(s);
	cfg_free(c);
}

static void
limit_is_not_a_grant(void **state)
{
	static const char *const cells[] = { "student@|pool q=1000", "@eng|q=5", NULL };
	static const char *const accounts[] = { "s1|student/ug@eng/cse/c1", NULL };
	struct cfg *c = fx_cfg();
	struct snap *s = fx_snap(c, reasons, orgs, cells, accounts);
	const struct snap_account *a;
	struct resolve_val v;
	int q = cfg_priv_find(c, "q");

	(void)state;
	assert_non_null(s);
	a = snap_account(s, "s1");
	assert_int_equal(resolve_combine(c, q, a->m, a->nm, &v), 0);
	/* the pool on student@ does not raise the personal limit */
	assert_int_equal(v.num, 5);
	resolve_val_clear(&v);
	assert_int_equal(snap_cell(s, "student@")->ngrants, 0);
	assert_int_equal(snap_cell(s, "student@")->npools, 1);
	assert_non_null(pool_limit(snap_cell(s, "student@"), q));
	assert_null(pool_limit(snap_cell(s, "@eng"), q));
	snap_free(s);
	cfg_free(c);
}

static void
cell_values_split_for_ldap(void **state)
{
	char *vals[] = { "q=10", "pool q=150", "s+=x", "pool q2=3" };
	char **g, **p;
	size_t ng, np;

	(void)state;
	assert_int_equal(pool_split_vals(vals, 4, &g, &ng, &p, &np), 0);
	assert_int_equal(ng, 2);
	assert_int_equal(np, 2);
	assert_string_equal(g[0], "q=10");
	assert_string_equal(g[1], "s+=x");
	assert_string_equal(p[0], "q=150");
	assert_string_equal(p[1], "q2=3");
	assert_null(g[2]);
	strv_free(g);
	strv_free(p);
}

static void
import_reads_pools(void **state)
{
	static const char doc[] =
	    "pools:\n"
	    "  \"student@eng\": { q: 40 }\n"
	    "grants:\n"
	    "  \"student@eng\": { q: 10 }\n"
	    "  \"staff@\": { f: true }\n";
	static const char bad[] =
	    "grants: {}\n"
	    "pools:\n"
	    "  \"student@\": { f: 3 }\n";
	struct cfg *c = fx_cfg();
	struct import_doc d;
	struct err e;

	(void)state;
	memset(&e, 0, sizeof(e));
	assert_int_equal(import_parse(c, doc, sizeof(doc) - 1, &d, &e), 0);
	/* one cell for both sections, before and after each other */
	assert_int_equal(d.ncells, 2);
	assert_string_equal(d.cells[0].name, "student@eng");
	assert_true(d.cells[0].in_pools);
	assert_true(d.cells[0].in_grants);
	assert_int_equal(d.cells[0].ngrants, 2);
	assert_string_equal(d.cells[0].grants[0].text, "pool q=40");
	assert_string_equal(d.cells[0].grants[1].text, "q=10");
	assert_false(d.cells[1].in_pools);
	import_free(&d);
	assert_int_equal(import_parse(c, bad, sizeof(bad) - 1, &d, &e), -1);
	assert_int_equal(e.line, 3);
	assert_non_null(strstr(e.msg, "pools 'student@': f is a flag: only quotas have pools"));
	cfg_free(c);
}

FX_MAIN("pool",
    cmocka_unit_test(covers_along_both_trees),
    cmocka_unit_test(covers_internal_organisation_nodes),
    cmocka_unit_test(covers_empty_sides),
    cmocka_unit_test(why_in_words),
    cmocka_unit_test(depth_orders_specificity),
    cmocka_unit_test(pool_text_round_trip),
    cmocka_unit_test(account_pools_most_specific_first),
    cmocka_unit_test(limit_is_not_a_grant),
    cmocka_unit_test(cell_values_split_for_ldap),
    cmocka_unit_test(import_reads_pools))
