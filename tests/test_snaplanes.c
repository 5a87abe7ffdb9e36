/*
 * test_snaplanes.c - a full build's accounts added on two threads (lanes)
 * give the snapshot the one thread gives: the same accounts in the same
 * order, the first of a uid on two entries kept (within a lane, across the
 * lanes, in another case), the same memberships resolved, the same count
 * of what was left out and the same next dated moment. The cells of a
 * large model, built on two threads too, keep their order and the first
 * of a name twice.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"

#define NACC 3000
#define NCELLS 40

static char uids[NACC][32];
static char cellv[NACC][3][96];
static const char *cellp[NACC][3];
static struct snap_in_account accts[NACC];
static char cellnames[NCELLS][48], grants[NCELLS][16];
static const char *grantp[NCELLS][1];
static struct snap_in_cell cells[NCELLS];

static void
make_input(struct snap_input *in)
{
	size_t i, k;

	for (i = 0; i < NCELLS; i++) {
		snprintf(cellnames[i], sizeof(cellnames[i]), "r%zu/x@o%zu", i % 7, i % 5);
		snprintf(grants[i], sizeof(grants[i]), "n=%zu", 10 + i);
		grantp[i][0] = grants[i];
		cells[i].name = cellnames[i];
		cells[i].grants = grantp[i];
		cells[i].ngrants = 1;
	}
	for (i = 0; i < NACC; i++) {
		/* uid twice: within the first half, across the halves (the
		 * earlier one in the first), and in another case */
		if (i % 97 == 5)
			snprintf(uids[i], sizeof(uids[i]), "u%zu", i - 3);
		else if (i % 101 == 7 && i > NACC / 2)
			snprintf(uids[i], sizeof(uids[i]), "u%zu", i - NACC / 2);
		else if (i % 103 == 9)
			snprintf(uids[i], sizeof(uids[i]), "U%zu", i - 1);
		else
			snprintf(uids[i], sizeof(uids[i]), "%s%zu", i % 11 == 0 ? "Mixed" : "u", i);
		accts[i].uid = uids[i];
		for (k = 0; k < 3; k++) {
			size_t c = (i * 7 + k * 13) % NCELLS;

			if (k == 2 && i % 9 == 0)
				snprintf(cellv[i][k], sizeof(cellv[i][k]),
				    "%s|%s|29991231000000Z", cellnames[c],
				    i % 2 ? "20000101000000Z" : "29000101000000Z");
			else if (k == 2 && i % 13 == 0)
				snprintf(cellv[i][k], sizeof(cellv[i][k]), "no cell");
			else
				snprintf(cellv[i][k], sizeof(cellv[i][k]), "%s", cellnames[c]);
			cellp[i][k] = cellv[i][k];
		}
		accts[i].cells = cellp[i];
		accts[i].ncells = 3;
	}
	memset(in, 0, sizeof(*in));
	in->cells = cells;
	in->ncells = NCELLS;
	in->accounts = accts;
	in->naccounts = NACC;
	in->now = 1700000000;
}

struct job {
	struct snap_lane *lane;
	size_t lo, hi;
};

static void *
run_lane(void *arg)
{
	struct job *j = arg;
	size_t i;

	for (i = j->lo; i < j->hi; i++)
		if (snap_lane_add(j->lane, &accts[i]) != 0)
			return (void *)1;
	return NULL;
}

static struct snap *
build_lanes(const struct cfg *c, const struct snap_input *in)
{
	struct snap_builder b;
	struct snap_lane lanes[2];
	struct job jobs[2];
	size_t i, nm = 0, counts[2] = { NACC / 2, NACC - NACC / 2 };
	pthread_t t;
	void *rc;
	struct err e;

	for (i = 0; i < NACC; i++)
		nm += accts[i].ncells;
	assert_int_equal(snap_build_start(&b, c, in, NACC, nm, &e), 0);
	assert_int_equal(snap_build_lanes(&b, lanes, 2, counts, &e), 0);
	jobs[0] = (struct job){ &lanes[0], 0, NACC / 2 };
	jobs[1] = (struct job){ &lanes[1], NACC / 2, NACC };
	assert_int_equal(pthread_create(&t, NULL, run_lane, &jobs[1]), 0);
	assert_null(run_lane(&jobs[0]));
	pthread_join(t, &rc);
	assert_null(rc);
	assert_int_equal(snap_build_join(&b, lanes, 2, &e), 0);
	return snap_build_finish(&b, &e);
}

static void
same_as_one_thread(void **state)
{
	struct snap_input in;
	struct snap *one, *two;
	struct err e;
	size_t i, j, p;

	(void)state;
	make_input(&in);
	assert_non_null(one = snap_build(fx_config, &in, &e));
	assert_non_null(two = build_lanes(fx_config, &in));
	/* the input holds what the rule is tested on */
	assert_true(one->ncore < NACC);
	assert_true(one->skipped > 0);
	assert_true(one->next_change != 0);

	assert_int_equal(two->ncore, one->ncore);
	assert_int_equal(two->skipped, one->skipped);
	assert_int_equal(two->next_change, one->next_change);
	assert_int_equal(two->nmres, one->nmres);
	for (i = 0; i < one->ncore; i++) {
		const struct snap_account *a = &one->core[i], *b = &two->core[i];

		assert_string_equal(b->uid, a->uid);
		assert_ptr_equal(snap_account(two, a->uid), b);
		assert_int_equal(b->nm, a->nm);
		assert_int_equal(b->ndated, a->ndated);
		for (j = 0; j < a->nm; j++) {
			assert_string_equal(b->m[j]->cell, a->m[j]->cell);
			for (p = 0; p < fx_config->nprivs; p++) {
				assert_int_equal(b->m[j]->pv[p].granted, a->m[j]->pv[p].granted);
				assert_int_equal(b->m[j]->pv[p].num, a->m[j]->pv[p].num);
			}
		}
	}
	/* each membership cell once, and who is in it */
	for (i = 0; i < two->nmres; i++) {
		const struct snap_mres *m = &two->mres[i];
		long k = -1;

		for (j = 0; j < one->nmres; j++)
			if (strcmp(one->mres[j].cell, m->cell) == 0)
				k = (long)j;
		assert_true(k >= 0);
		assert_int_equal(two->mres_first[i + 1] - two->mres_first[i],
		    one->mres_first[k + 1] - one->mres_first[k]);
	}
	snap_free(one);
	snap_free(two);
}

/* A lane given more accounts than counted fails the build, freeing it. */
static void
more_than_counted(void **state)
{
	struct snap_input in;
	struct snap_builder b;
	struct snap_lane lanes[2];
	size_t counts[2] = { 2, 1 };
	struct err e;

	(void)state;
	make_input(&in);
	assert_int_equal(snap_build_start(&b, fx_config, &in, 3, 9, &e), 0);
	assert_int_equal(snap_build_lanes(&b, lanes, 2, counts, &e), 0);
	assert_int_equal(snap_lane_add(&lanes[0], &accts[0]), 0);
	assert_int_equal(snap_lane_add(&lanes[0], &accts[1]), 0);
	assert_int_equal(snap_lane_add(&lanes[0], &accts[2]), -1);
	assert_int_equal(snap_lane_add(&lanes[1], &accts[3]), 0);
	assert_int_equal(snap_build_join(&b, lanes, 2, &e), -1);
	assert_int_equal(e.code, ERR_INTERNAL);
	assert_null(b.s);
}

/* 6,000 cells (built on two threads): every 100th with a grant privd cannot
 * use, every 250th a name an earlier cell has, with another value */
#define MANY 6000
static char mnames[MANY][32], mgrants[MANY][2][24];
static const char *mgp[MANY][2];
static struct snap_in_cell mcells[MANY];

static void
cells_on_two_threads(void **state)
{
	struct snap_input in;
	struct snap *s;
	struct err e;
	size_t i, bad = 0, twice = 0;

	(void)state;
	for (i = 0; i < MANY; i++) {
		size_t k = i % 250 == 249 ? i - 200 : i;

		snprintf(mnames[i], sizeof(mnames[i]), "r%zu@o%zu", k % 60, k / 60);
		snprintf(mgrants[i][0], sizeof(mgrants[i][0]), "n=%zu", i);
		snprintf(mgrants[i][1], sizeof(mgrants[i][1]), i % 100 == 7 ? "nonsense" : "f=true");
		mgp[i][0] = mgrants[i][0];
		mgp[i][1] = mgrants[i][1];
		mcells[i].name = mnames[i];
		mcells[i].grants = mgp[i];
		mcells[i].ngrants = 2;
		if (k != i)
			twice++;
		else if (i % 100 == 7)
			bad++;
	}
	memset(&in, 0, sizeof(in));
	in.cells = mcells;
	in.ncells = MANY;
	assert_non_null(s = snap_build(fx_config, &in, &e));
	assert_int_equal(s->ncore_cells, MANY - twice);
	assert_int_equal(s->skipped, bad + twice);
	for (i = 0; i < s->ncore_cells; i++) {
		const struct snap_cell *c = &s->core_cells[i];

		/* in order, each the first of its name */
		assert_true(i == 0 || c->grants[0].num > s->core_cells[i - 1].grants[0].num);
		assert_ptr_equal(strmap_get(&s->cell_by_name, c->name), c);
	}
	snap_free(s);
}

FX_GROUP("snaplanes", fx_setup, fx_teardown,
    cmocka_unit_test(same_as_one_thread),
    cmocka_unit_test(more_than_counted),
    cmocka_unit_test(cells_on_two_threads))
