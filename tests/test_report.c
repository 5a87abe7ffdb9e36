/* test_report.c - usage reports: rows along either tree, depth and under, counting each account once per row. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "report.h"
#include "usage.h"

static struct snap *s;

static int
setup(void **state)
{
	const char *cells[] = { "student@|q=100", "staff@|q=1000", NULL };
	const char *accts[] = {
		"ann|student/undergrad@eng/cse/compeng",
		"ben|student/undergrad@eng/cse/softeng",
		"cat|staff/academic@eng",			/* the Head of School */
		"dan|student/postgrad@sci",
		/* two memberships: in two rows, once in the totals */
		"eve|staff/academic@eng/cse|student/postgrad@sci/maths",
		"fay|staff/academic@",			/* the whole organisation tree */
		NULL };
	const struct { const char *uid; long long used; } u[] = {
		{ "ann", 10 }, { "ben", 20 }, { "cat", 30 }, { "dan", 40 }, { "eve", 50 }, { "fay", 5 } };
	size_t i;

	if (fx_setup(state) != 0 || (s = fx_snap(fx_config, NULL, NULL, cells, accts)) == NULL)
		return -1;
	usage_clear();
	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		struct usage_val v = { u[i].used, 1, 0, 0, "20261204000000.000001Z#000000#000#000000" };
		char key[USAGE_KEY_MAX];

		usage_key(key, u[i].uid, "q", "all");
		usage_put(key, &v);
	}
	return 0;
}

static int
teardown(void **state)
{
	snap_free(s);
	usage_clear();
	return fx_teardown(state);
}

static const struct report_row *
find(const struct report *r, const char *path)
{
	size_t i;

	for (i = 0; i < r->nrows; i++)
		if (strcmp(r->rows[i].path, path) == 0)
			return &r->rows[i];
	fail_msg("no row '%s'", path);
	return NULL;
}

/* x and y alike: every row, every total, the heaviest in order. */
static void
same(const struct report *x, const struct report *y)
{
	size_t i;

	assert_int_equal(x->nrows, y->nrows);
	for (i = 0; i < x->nrows; i++) {
		const struct report_row *a = &x->rows[i], *b = &y->rows[i];

		assert_string_equal(a->path, b->path);
		assert_int_equal(a->accounts, b->accounts);
		assert_int_equal(a->own_accounts, b->own_accounts);
		assert_true(a->used == b->used && a->limit == b->limit && a->credit == b->credit &&
		    a->held == b->held && a->own_used == b->own_used &&
		    a->paid_used == b->paid_used && a->topped_up == b->topped_up);
	}
	assert_int_equal(x->accounts, y->accounts);
	assert_int_equal(x->multi, y->multi);
	assert_true(x->used == y->used && x->limit == y->limit && x->credit == y->credit &&
	    x->held == y->held && x->paid_used == y->paid_used && x->topped_up == y->topped_up);
	assert_int_equal(x->ntop, y->ntop);
	for (i = 0; i < x->ntop; i++) {
		assert_string_equal(x->top[i].uid, y->top[i].uid);
		assert_true(x->top[i].used == y->top[i].used && x->top[i].limit == y->top[i].limit);
	}
}

/* The report of o over d on one thread; on two lanes it must be the same. */
static struct report
run_on(const struct snap *d, struct report_opts o)
{
	struct report r, two;
	struct err e;

	memset(&e, 0, sizeof(e));
	o.lanes = 1;
	assert_int_equal(report_usage(d, &o, &r, &e), 0);
	o.lanes = 2;
	assert_int_equal(report_usage(d, &o, &two, &e), 0);
	same(&r, &two);
	report_free(&two);
	return r;
}

/* s with the n people of set changed, as the follower derives it. */
static struct snap *
derived(struct snap_in_account *set, size_t n)
{
	struct snap_change ch = { set, n, NULL, 0, NULL, 0, NULL, 0 };
	struct snap *d;
	struct err e;

	memset(&e, 0, sizeof(e));
	assert_non_null(d = snap_derive(s, &ch, &e));
	return d;
}

static struct report
run(int by_reason, int depth, const char *under, size_t top)
{
	struct report_opts o = { cfg_priv_find(fx_config, "q"), "all", by_reason, depth, under, top, 0 };

	return run_on(s, o);
}

static void
top_nodes_of_the_organisation_tree(void **state)
{
	struct report r = run(0, 1, NULL, 0);

	(void)state;
	/* "" (fay's empty side), eng, sci */
	assert_int_equal(r.nrows, 3);
	assert_int_equal(find(&r, "")->used, 5);
	assert_int_equal(find(&r, "eng")->accounts, 4);	/* ann ben cat eve */
	assert_int_equal(find(&r, "eng")->used, 10 + 20 + 30 + 50);
	assert_int_equal(find(&r, "sci")->accounts, 2);	/* dan eve */
	assert_int_equal(find(&r, "sci")->used, 90);
	/* totals count eve once; she is the one account in two rows */
	assert_int_equal(r.accounts, 6);
	assert_int_equal(r.used, 155);
	assert_int_equal(r.multi, 1);
	assert_int_equal(r.credit, 6);
	/* limits resolved per account: students 100, staff 1000, eve max */
	assert_int_equal(find(&r, "eng")->limit, 100 + 100 + 1000 + 1000);
	report_free(&r);
}

static void
an_internal_node_counts_its_subtree(void **state)
{
	struct report r = run(0, 2, NULL, 0);

	(void)state;
	/* the Head of School's row is the school: cat at eng, and all below */
	assert_int_equal(find(&r, "eng")->accounts, 4);		/* ann ben cat eve */
	assert_int_equal(find(&r, "eng")->used, 10 + 20 + 30 + 50);
	/* with its own members' usage apart */
	assert_int_equal(find(&r, "eng")->own_accounts, 1);	/* cat */
	assert_int_equal(find(&r, "eng")->own_used, 30);
	assert_int_equal(find(&r, "eng/cse")->accounts, 3);	/* ann ben eve */
	assert_int_equal(find(&r, "eng/cse")->own_used, 50);	/* eve */
	assert_int_equal(find(&r, "sci/maths")->accounts, 1);
	assert_int_equal(find(&r, "sci")->accounts, 2);		/* dan eve */
	assert_int_equal(find(&r, "sci")->own_accounts, 1);	/* dan */
	/* eve is in rows apart (eng/cse, sci/maths); the rest in one line each */
	assert_int_equal(r.multi, 1);
	assert_int_equal(r.used, 155);
	report_free(&r);
	/* depth 0: whole paths */
	r = run(0, 0, NULL, 0);
	assert_int_equal(find(&r, "eng/cse/compeng")->used, 10);
	report_free(&r);
}

static void
paid_wallets_are_counted_per_row(void **state)
{
	struct usage_val v = { 40, 100, 0, 0, "20261204000000.000001Z#000000#000#000000" };
	char key[USAGE_KEY_MAX];
	struct report r;

	(void)state;
	usage_key(key, "ann", "q", "paid");
	usage_put(key, &v);
	r = run(0, 1, NULL, 0);
	assert_int_equal(find(&r, "eng")->paid_used, 40);
	assert_int_equal(find(&r, "eng")->topped_up, 100);
	assert_int_equal(find(&r, "sci")->topped_up, 0);
	assert_int_equal(r.topped_up, 100);
	/* the allowance's usage is apart from the paid wallet's */
	assert_int_equal(find(&r, "eng")->used, 10 + 20 + 30 + 50);
	report_free(&r);
	usage_del(key);
}

static void
under_keeps_one_subtree(void **state)
{
	struct report r = run(0, 3, "eng/cse", 0);

	(void)state;
	assert_int_equal(r.nrows, 3);	/* eng/cse, compeng, softeng */
	assert_int_equal(find(&r, "eng/cse")->used, 10 + 20 + 50);
	assert_int_equal(find(&r, "eng/cse")->own_used, 50);	/* eve */
	assert_int_equal(find(&r, "eng/cse/compeng")->used, 10);
	assert_int_equal(r.accounts, 3);
	assert_int_equal(r.multi, 0);	/* eve's other membership is outside */
	report_free(&r);
	/* a prefix of a name is not a parent: "en" holds nothing */
	r = run(0, 1, "en", 0);
	assert_int_equal(r.nrows, 0);
	report_free(&r);
}

static void
the_reason_tree_and_the_heaviest(void **state)
{
	struct report r = run(1, 1, NULL, 2);

	(void)state;
	assert_int_equal(find(&r, "student")->accounts, 4);	/* ann ben dan eve */
	assert_int_equal(find(&r, "staff")->accounts, 3);	/* cat eve fay */
	assert_int_equal(r.ntop, 2);
	assert_string_equal(r.top[0].uid, "eve");
	assert_int_equal(r.top[0].used, 50);
	assert_string_equal(r.top[1].uid, "dan");
	report_free(&r);
}

/* usage read in one pass: a changed person (in the overlay of a derived
 * snapshot) and a new one count; keys of another quota, period, spelling
 * of a uid, or a pool's holder do not */
static void
usage_of_changed_people_and_other_keys(void **state)
{
	static const char *dan[] = { "student/postgrad@sci/maths" }, *gus[] = { "staff/academic@sci" };
	struct snap_in_account set[] = { { "dan", dan, 1, NULL }, { "gus", gus, 1, NULL } };
	struct report_opts o = { cfg_priv_find(fx_config, "q"), "all", 0, 1, NULL, 3, 0 };
	static const char *keys[] = { "gus/q@all", "ANN/q@all", "ann/q@other", "ann/r@all",
	    "pool:staff@eng/q@all", NULL };
	struct usage_val v = { 7, 0, 0, 0, "20261204000000.000001Z#000000#000#000000" };
	struct snap *d = derived(set, 2);
	struct report r;
	size_t i;

	(void)state;
	for (i = 0; keys[i]; i++)
		usage_put(keys[i], &v);
	r = run_on(d, o);
	assert_int_equal(r.accounts, 7);
	assert_int_equal(r.used, 155 + 7);
	assert_int_equal(find(&r, "sci")->accounts, 3);		/* dan eve gus */
	assert_int_equal(find(&r, "sci")->used, 40 + 50 + 7);
	assert_int_equal(find(&r, "eng")->used, 10 + 20 + 30 + 50);
	assert_int_equal(r.ntop, 3);
	assert_string_equal(r.top[0].uid, "eve");
	assert_string_equal(r.top[1].uid, "dan");
	assert_string_equal(r.top[2].uid, "cat");
	report_free(&r);
	for (i = 0; keys[i]; i++)
		usage_del(keys[i]);
	snap_free(d);
}

/* a derived snapshot where the one person in a row moved out: the row is
 * gone, on two lanes too (which count over every membership record) */
static void
a_row_whose_people_moved_out_is_gone(void **state)
{
	static const char *fay[] = { "staff/academic@eng" };
	struct snap_in_account set[] = { { "fay", fay, 1, NULL } };
	struct report_opts o = { cfg_priv_find(fx_config, "q"), "all", 0, 1, NULL, 0, 0 };
	struct snap *d = derived(set, 1);
	struct report r;
	size_t i;

	(void)state;
	r = run_on(d, o);
	for (i = 0; i < r.nrows; i++)
		assert_string_not_equal(r.rows[i].path, "");
	assert_int_equal(r.nrows, 2);
	assert_int_equal(find(&r, "eng")->accounts, 5);		/* ann ben cat eve fay */
	assert_int_equal(r.accounts, 6);
	report_free(&r);
	snap_free(d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(top_nodes_of_the_organisation_tree),
		cmocka_unit_test(an_internal_node_counts_its_subtree),
		cmocka_unit_test(paid_wallets_are_counted_per_row),
		cmocka_unit_test(under_keeps_one_subtree),
		cmocka_unit_test(the_reason_tree_and_the_heaviest),
		cmocka_unit_test(usage_of_changed_people_and_other_keys),
		cmocka_unit_test(a_row_whose_people_moved_out_is_gone),
	};

	return cmocka_run_group_tests_name("report", tests, setup, teardown);
}
