/*
 * test_snapderive.c - a snapshot derived for a few changed accounts answers
 * as the full build of the same model would: the changed, the added, the
 * removed and the untouched, derived from a derived one, with the snapshot
 * it came from unchanged and freed in any order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <jansson.h>

#include "answer.h"
#include "fixture.h"
#include "report.h"
#include "resolve.h"

static const char *cells[] = { "@|n=50", "student@|q=100|f=true", "staff@|q=1000|s+=laser",
	"student/undergrad@eng/cse|q=300|s+=plotter", "staff@eng|f=false", "visitor@|s-=laser",
	NULL };

/* A snap_in_account from "uid|cell|cell" (the fields point into *copy). */
static void
in_account(const char *spec, char **copy, const char **vals, struct snap_in_account *a)
{
	char *p;
	size_t n = 0;

	*copy = strdup(spec);
	a->uid = *copy;
	for (p = strchr(*copy, '|'); p != NULL; p = strchr(p, '|')) {
		*p++ = '\0';
		vals[n++] = p;
	}
	a->cells = vals;
	a->ncells = n;
	a->dn = NULL;
}

/* Whether membership k's sources of privilege p (?explain) in d are those
 * in full: the same grants on the same cells, won or overridden alike. */
static void
same_sources(const struct snap *d, const struct snap_account *a,
    const struct snap *full, const struct snap_account *b, size_t k, int p)
{
	const struct snap_mres *m = snap_mres_of(d, a->m[k]);
	struct snap_src *x, *y;
	size_t nx, ny, i;

	assert_non_null(m);
	assert_string_equal(m->cell, b->m[k]->cell);
	assert_int_equal(resolve_sources(d, m, p, &x, &nx), 0);
	assert_int_equal(resolve_sources(full, b->m[k], p, &y, &ny), 0);
	assert_int_equal(nx, ny);
	for (i = 0; i < nx; i++) {
		assert_string_equal(x[i].cell->name, y[i].cell->name);
		assert_string_equal(x[i].grant->text, y[i].grant->text);
		assert_true((x[i].by == NULL) == (y[i].by == NULL));
		if (x[i].by != NULL)
			assert_string_equal(x[i].by->name, y[i].by->name);
	}
	free(x);
	free(y);
}

/* Whether uid's privileges in d are those in full, privilege by privilege. */
static void
same_account(const struct snap *d, const struct snap *full, const char *uid)
{
	const struct snap_account *a = snap_account(d, uid), *b = snap_account(full, uid);
	size_t p, i, k;

	assert_non_null(a);
	assert_non_null(b);
	assert_string_equal(a->uid, b->uid);
	assert_int_equal(a->nm, b->nm);
	for (p = 0; p < full->cfg->nprivs; p++) {
		struct resolve_val x, y;

		assert_int_equal(resolve_account(d, (int)p, a, &x), 0);
		assert_int_equal(resolve_account(full, (int)p, b, &y), 0);
		assert_int_equal(x.num, y.num);
		assert_int_equal(x.nelems, y.nelems);
		for (i = 0; i < x.nelems; i++)
			assert_string_equal(x.elems[i], y.elems[i]);
		resolve_val_clear(&x);
		resolve_val_clear(&y);
		for (k = 0; k < a->nm; k++)
			same_sources(d, a, full, b, k, (int)p);
	}
}

/* Every account of full in d, each once, and no other. */
static void
same_model(const struct snap *d, const struct snap *full)
{
	const struct snap_account *a;
	size_t pos = 0, n = 0;

	assert_int_equal(d->naccounts, full->naccounts);
	while ((a = snap_next(d, &pos)) != NULL) {
		assert_non_null(snap_account(full, a->uid));
		same_account(d, full, a->uid);
		n++;
	}
	assert_int_equal(n, full->naccounts);
}

static struct snap *
derive_cells(const struct snap *old, const char *const *set, const char *const *gone,
    const char *const *cset, const char *const *cgone)
{
	struct snap_in_account in[8] = { { 0 } };
	struct snap_in_cell ic[8] = { { 0 } };
	struct snap_in_account tmp;
	const char *vals[16][8];
	char *copies[16];
	struct snap_change ch;
	size_t nset = 0, ngone = 0, nc = 0, ncg = 0, i;
	struct snap *s;
	struct err e;

	for (; set && set[nset]; nset++)
		in_account(set[nset], &copies[nset], vals[nset], &in[nset]);
	for (; cset && cset[nc]; nc++) {
		/* "name|grant|grant": the same split as an account's */
		in_account(cset[nc], &copies[8 + nc], vals[8 + nc], &tmp);
		ic[nc].name = tmp.uid;
		ic[nc].grants = tmp.cells;
		ic[nc].ngrants = tmp.ncells;
	}
	for (; gone && gone[ngone]; ngone++)
		;
	for (; cgone && cgone[ncg]; ncg++)
		;
	ch = (struct snap_change){ in, nset, gone, ngone, ic, nc, cgone, ncg };
	s = snap_derive(old, &ch, &e);
	for (i = 0; i < nset; i++)
		free(copies[i]);
	for (i = 0; i < nc; i++)
		free(copies[8 + i]);
	return s;
}

static struct snap *
derive(const struct snap *old, const char *const *set, const char *const *gone)
{
	return derive_cells(old, set, gone, NULL, NULL);
}

/* Every cell of full in d with the same grants, and no other. */
static void
same_cells(const struct snap *d, const struct snap *full)
{
	const struct snap_cell *c, *f;
	size_t pos = 0, n = 0, k;

	assert_int_equal(d->ncells, full->ncells);
	while ((c = snap_next_cell(d, &pos)) != NULL) {
		assert_non_null(f = snap_cell(full, c->name));
		assert_ptr_equal(snap_cell(d, c->name), c);
		assert_int_equal(c->ngrants, f->ngrants);
		for (k = 0; k < c->ngrants; k++)
			assert_string_equal(c->grants[k].text, f->grants[k].text);
		assert_int_equal(c->npools, f->npools);
		n++;
	}
	assert_int_equal(n, full->ncells);
	assert_int_equal(d->npooled, full->npooled);
}

static void
changed_added_and_removed_resolve_as_a_full_build(void **state)
{
	const char *before[] = { "ann|student/undergrad@eng/cse", "ben|staff@eng", "cat|visitor@",
		"dan|student@eng", NULL };
	const char *after[] = { "ann|staff@eng", "ben|staff@eng|student/undergrad@eng/cse/compeng",
		"dan|student@eng", "Eve|visitor@eng", NULL };
	const char *set[] = { "ann|staff@eng",
		/* a cell no account of the full build is in: resolved anew */
		"ben|staff@eng|student/undergrad@eng/cse/compeng", "Eve|visitor@eng", NULL };
	const char *gone[] = { "CAT", "nobody", NULL };
	struct snap *old = fx_snap(fx_config, NULL, NULL, cells, before);
	struct snap *full = fx_snap(fx_config, NULL, NULL, cells, after);
	struct snap *d = derive(old, set, gone);

	(void)state;
	assert_non_null(d);
	same_model(d, full);
	assert_null(snap_account(d, "cat"));
	/* uids match without case, as LDAP's do */
	assert_non_null(snap_account(d, "eve"));
	assert_string_equal(snap_account(d, "EVE")->uid, "Eve");
	/* what the derive came from is as it was */
	assert_non_null(snap_account(old, "cat"));
	assert_null(snap_account(old, "eve"));
	assert_int_equal(snap_account(old, "ann")->nm, 1);
	assert_true(d->gen > old->gen);
	snap_free(old);
	/* the core lives on in d */
	same_model(d, full);
	snap_free(d);
	snap_free(full);
}

static void
derived_from_derived_carries_the_overlay(void **state)
{
	const char *before[] = { "ann|student@", "ben|staff@", "cat|visitor@", NULL };
	const char *set1[] = { "ann|student/undergrad@eng/cse", "dee|staff@eng", NULL };
	const char *set2[] = { "ben|student/undergrad@eng/cse", "dee|visitor@", NULL };
	const char *gone2[] = { "ann", NULL };
	const char *set3[] = { "ann|staff@", NULL };
	const char *after2[] = { "ben|student/undergrad@eng/cse", "cat|visitor@", "dee|visitor@",
		NULL };
	const char *after3[] = { "ann|staff@", "ben|student/undergrad@eng/cse", "cat|visitor@",
		"dee|visitor@", NULL };
	struct snap *s0 = fx_snap(fx_config, NULL, NULL, cells, before);
	struct snap *s1 = derive(s0, set1, NULL);
	struct snap *s2, *s3, *full;

	(void)state;
	assert_non_null(s1);
	s2 = derive(s1, set2, gone2);
	assert_non_null(s2);
	/* the snapshots before go first, as readers leave them */
	snap_free(s0);
	snap_free(s1);
	full = fx_snap(fx_config, NULL, NULL, cells, after2);
	same_model(s2, full);
	snap_free(full);
	/* a uid removed, then back */
	s3 = derive(s2, set3, NULL);
	assert_non_null(s3);
	full = fx_snap(fx_config, NULL, NULL, cells, after3);
	same_model(s3, full);
	snap_free(full);
	snap_free(s2);
	same_model(s3, s3);
	snap_free(s3);
}

static void
no_change_is_the_same_model(void **state)
{
	const char *accts[] = { "ann|student@", "ben|staff@eng", NULL };
	struct snap *s = fx_snap(fx_config, NULL, NULL, cells, accts);
	struct snap *d = derive(s, NULL, NULL);

	(void)state;
	assert_non_null(d);
	same_model(d, s);
	assert_int_equal(d->over.len, 0);
	snap_free(s);
	snap_free(d);
}

/* The model with the cells below: a derived snapshot after cell changes
 * against the full build of the model after them. */
static const char *people[] = { "ann|student/undergrad@eng/cse", "ben|staff@eng",
	"cat|visitor@", "dan|student@eng", "eve|student/undergrad@eng/cse|staff@", NULL };

static void
a_grant_reaches_its_members_and_no_one_else(void **state)
{
	const char *after[] = { "@|n=50", "student@|q=100|f=true", "staff@|q=1000|s+=laser",
		"student/undergrad@eng/cse|q=7|s+=plotter", "staff@eng|f=false", "visitor@|s-=laser",
		NULL };
	const char *cset[] = { "student/undergrad@eng/cse|q=7|s+=plotter", NULL };
	struct snap *old = fx_snap(fx_config, NULL, NULL, cells, people);
	struct snap *full = fx_snap(fx_config, NULL, NULL, after, people);
	struct snap *d = derive_cells(old, NULL, NULL, cset, NULL);

	(void)state;
	assert_non_null(d);
	same_cells(d, full);
	same_model(d, full);
	/* the two in that cell were copied over with the new value, no one else */
	assert_int_equal(d->over.len, 2);
	assert_non_null(snap_account(d, "ann")->over);
	assert_null(snap_account(d, "ben")->over);
	snap_free(old);
	snap_free(full);
	snap_free(d);
}

static void
cells_added_and_removed_and_then_people(void **state)
{
	const char *after1[] = { "@|n=50", "student@|q=100|f=true", "staff@|q=1000|s+=laser",
		"student/undergrad@eng/cse|q=300|s+=plotter", "staff@eng|f=false",
		"@eng|n=70|pool q=500", NULL };
	const char *cset1[] = { "@eng|n=70|pool q=500", NULL };
	const char *cgone1[] = { "visitor@", "no/such@cell", NULL };
	const char *set2[] = { "cat|student/undergrad@eng/cse/compeng", NULL };
	const char *cset2[] = { "visitor@|s+=laser", "student@|q=5", NULL };
	const char *after2[] = { "@|n=50", "student@|q=5", "staff@|q=1000|s+=laser",
		"student/undergrad@eng/cse|q=300|s+=plotter", "staff@eng|f=false",
		"@eng|n=70|pool q=500", "visitor@|s+=laser", NULL };
	const char *people2[] = { "ann|student/undergrad@eng/cse", "ben|staff@eng",
		"cat|student/undergrad@eng/cse/compeng", "dan|student@eng",
		"eve|student/undergrad@eng/cse|staff@", NULL };
	struct snap *s0 = fx_snap(fx_config, NULL, NULL, cells, people);
	struct snap *s1 = derive_cells(s0, NULL, NULL, cset1, cgone1), *s2, *full;

	(void)state;
	assert_non_null(s1);
	full = fx_snap(fx_config, NULL, NULL, after1, people);
	same_cells(s1, full);
	same_model(s1, full);
	assert_null(snap_cell(s1, "visitor@"));
	snap_free(full);
	/* a cell changed again, one back, and a person moved into a new cell */
	s2 = derive_cells(s1, set2, NULL, cset2, NULL);
	assert_non_null(s2);
	snap_free(s0);
	snap_free(s1);
	full = fx_snap(fx_config, NULL, NULL, after2, people2);
	same_cells(s2, full);
	same_model(s2, full);
	snap_free(full);
	snap_free(s2);
}

/* uid's privileges answer (answer.c, cached per snapshot) alike in d and full. */
static void
same_answer(const struct snap *d, const struct snap *full, const char *uid)
{
	char *x = answer_privileges(d, snap_account(d, uid), 0);
	char *y = answer_privileges(full, snap_account(full, uid), 0);
	json_t *jx = json_loads(x, 0, NULL), *jy = json_loads(y, 0, NULL);

	assert_non_null(jx);
	assert_non_null(jy);
	if (!json_equal(json_object_get(jx, "privileges"), json_object_get(jy, "privileges")))
		fail_msg("%s: derived %s, full %s", uid, x, y);
	json_decref(jx);
	json_decref(jy);
	free(x);
	free(y);
}

/* The quota q's report by organisation alike in d and full, row by row. */
static void
same_report(const struct snap *d, const struct snap *full)
{
	struct report_opts o = { cfg_priv_find(fx_config, "q"), "all", 0, 2, NULL, 3, 1 };
	struct report x, y;
	struct err e;
	size_t i;
	int lanes;

	assert_int_equal(report_usage(full, &o, &y, &e), 0);
	/* d on one thread, and split in two lanes (its overlay's people and
	 * a wide change's memberships left to the serial walk) */
	for (lanes = 1; lanes <= 2; lanes++) {
		o.lanes = lanes;
		assert_int_equal(report_usage(d, &o, &x, &e), 0);
		assert_int_equal(x.accounts, y.accounts);
		assert_true(x.limit == y.limit);
		assert_int_equal(x.nrows, y.nrows);
		for (i = 0; i < x.nrows; i++) {
			assert_string_equal(x.rows[i].path, y.rows[i].path);
			assert_true(x.rows[i].limit == y.rows[i].limit);
			assert_int_equal(x.rows[i].accounts, y.rows[i].accounts);
		}
		report_free(&x);
	}
	report_free(&y);
}

/* More people than an overlay takes: p0000..., even ones students in
 * eng/cse, odd ones staff in eng, every fifth a visitor too; then extra
 * (NULL-terminated, may be NULL). Free with free_people. */
#define MANY (SNAP_OVER_MAX + 64)
static char **
many_people(const char *const *extra)
{
	char **v = calloc(MANY + 16, sizeof(*v));
	size_t i, n = 0;

	assert_non_null(v);
	for (i = 0; i < MANY; i++) {
		char buf[128];

		snprintf(buf, sizeof(buf), "p%05zu|%s%s", i,
		    i % 2 ? "staff@eng" : "student/undergrad@eng/cse", i % 5 ? "" : "|visitor@");
		assert_non_null(v[n++] = strdup(buf));
	}
	for (i = 0; extra && extra[i]; i++)
		assert_non_null(v[n++] = strdup(extra[i]));
	return v;
}

static void
free_people(char **v)
{
	size_t i;

	for (i = 0; v[i]; i++)
		free(v[i]);
	free(v);
}

static void
a_change_to_everyone_is_resolved_in_place(void **state)
{
	const char *cset1[] = { "@|n=60", NULL };
	const char *after1[] = { "@|n=60", "student@|q=100|f=true", "staff@|q=1000|s+=laser",
		"student/undergrad@eng/cse|q=300|s+=plotter", "staff@eng|f=false", "visitor@|s-=laser",
		NULL };
	/* then a few people and a cell of few members: the overlay, over the table */
	const char *set2[] = { "p00002|visitor@", "zed|staff@eng", NULL };
	const char *cset2[] = { "visitor@|s-=laser|n=70", NULL };
	const char *after2[] = { "@|n=60", "student@|q=100|f=true", "staff@|q=1000|s+=laser",
		"student/undergrad@eng/cse|q=300|s+=plotter", "staff@eng|f=false",
		"visitor@|s-=laser|n=70", NULL };
	/* then everyone again, and the overlay's people with them */
	const char *cset3[] = { "student@|q=5", "staff@|q=999|s+=laser|s+=plotter", NULL };
	const char *after3[] = { "@|n=60", "student@|q=5", "staff@|q=999|s+=laser|s+=plotter",
		"student/undergrad@eng/cse|q=300|s+=plotter", "staff@eng|f=false",
		"visitor@|s-=laser|n=70", NULL };
	const char *extra[] = { "zed|staff@eng", NULL };
	char **people = many_people(NULL), **people2 = many_people(extra);
	struct snap *s0, *d1, *d2, *d3, *full;
	char *before;

	(void)state;
	free(people2[2]);
	assert_non_null(people2[2] = strdup("p00002|visitor@"));
	s0 = fx_snap(fx_config, NULL, NULL, cells, (const char *const *)people);
	/* an answer cached in the full build must not outlive the change */
	assert_non_null(before = answer_privileges(s0, snap_account(s0, "p00001"), 0));
	assert_non_null(d1 = derive_cells(s0, NULL, NULL, cset1, NULL));
	assert_non_null(d1->wide);
	assert_int_equal(d1->over.len, 0);
	full = fx_snap(fx_config, NULL, NULL, after1, (const char *const *)people);
	same_answer(d1, full, "p00001");
	same_model(d1, full);
	same_cells(d1, full);
	same_report(d1, full);
	snap_free(full);
	free(before);

	assert_non_null(d2 = derive_cells(d1, set2, NULL, cset2, NULL));
	assert_ptr_equal(d2->wide, d1->wide);
	assert_true(d2->over.len > MANY / 5);
	snap_free(s0);	/* the full build's snapshot goes first; its core stays */
	full = fx_snap(fx_config, NULL, NULL, after2, (const char *const *)people2);
	same_answer(d2, full, "p00005");
	same_answer(d2, full, "p00002");
	same_model(d2, full);
	/* d1 is as it was */
	assert_null(snap_account(d1, "zed"));
	assert_int_equal(snap_account(d1, "p00002")->nm, 1);
	snap_free(full);

	assert_non_null(d3 = derive_cells(d2, NULL, NULL, cset3, NULL));
	assert_true(d3->wide != d2->wide);
	snap_free(d1);
	full = fx_snap(fx_config, NULL, NULL, after3, (const char *const *)people2);
	same_answer(d3, full, "p00005");	/* in the overlay */
	same_answer(d3, full, "p00001");	/* in the core */
	same_answer(d3, full, "zed");
	same_model(d3, full);
	same_report(d3, full);
	snap_free(d2);
	same_model(d3, full);
	snap_free(full);
	snap_free(d3);
	free_people(people);
	free_people(people2);
}

FX_GROUP("snapderive", fx_setup, fx_teardown,
	cmocka_unit_test(a_grant_reaches_its_members_and_no_one_else),
	cmocka_unit_test(a_change_to_everyone_is_resolved_in_place),
	cmocka_unit_test(cells_added_and_removed_and_then_people),
	cmocka_unit_test(changed_added_and_removed_resolve_as_a_full_build),
	cmocka_unit_test(derived_from_derived_carries_the_overlay),
	cmocka_unit_test(no_change_is_the_same_model))
