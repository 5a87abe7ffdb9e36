/* test_membership.c - dated memberships: dates parsed, encoded and laid over, in force, and judged by the snapshot. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "membership.h"
#include "strv.h"

/* 2026-09-01T00:00:00Z */
#define SEP1 1788220800

static void
dates_parse(void **state)
{
	struct cfg *c = fx_cfg();
	struct err e;
	time_t t;

	(void)state;
	memset(&e, 0, sizeof(e));
	assert_int_equal(membership_date(c, "2026-09-01", 0, &t, &e), 0);
	assert_int_equal(t, SEP1);
	/* as an until, a whole day keeps its last day */
	assert_int_equal(membership_date(c, "2026-09-01", 1, &t, &e), 0);
	assert_int_equal(t, SEP1 + 86400);
	assert_int_equal(membership_date(c, "2026-09-01T08:30", 0, &t, &e), 0);
	assert_int_equal(t, SEP1 + 8 * 3600 + 30 * 60);
	assert_int_equal(membership_date(c, "2026-09-01T08:30:15Z", 0, &t, &e), 0);
	assert_int_equal(t, SEP1 + 8 * 3600 + 30 * 60 + 15);
	assert_int_equal(membership_date(c, "2026-13-01", 0, &t, &e), -1);
	assert_string_equal(e.key, "from");
	assert_non_null(strstr(e.msg, "2026-13-01"));
	assert_int_equal(membership_date(c, "2026-09-01T25:00", 1, &t, &e), -1);
	assert_string_equal(e.key, "until");
	assert_int_equal(membership_date(c, "tomorrow", 0, &t, &e), -1);
	assert_int_equal(membership_date(c, "2026-09-01x", 0, &t, &e), -1);
	cfg_free(c);
}

static void
terms_give_their_bounds(void **state)
{
	static const char text[] =
	    "ldap:\n  uri: ldap://127.0.0.1:1/\n  base: ou=p,dc=x\n  people: ou=people,dc=x\n"
	    "privileges:\n  q: { type: quota, period: term }\n"
	    "terms:\n  - { name: 2026T3, start: 2026-09-01, end: 2026-12-31 }\n";
	struct cfg *c = NULL;
	struct err e;
	time_t t;

	(void)state;
	memset(&e, 0, sizeof(e));
	assert_int_equal(cfg_parse(text, strlen(text), "t.yaml", &c, &e), 0);
	/* from: its first day; until: the end of its last */
	assert_int_equal(membership_date(c, "2026T3", 0, &t, &e), 0);
	assert_int_equal(t, SEP1);
	assert_int_equal(membership_date(c, "2026T3", 1, &t, &e), 0);
	assert_int_equal(t, SEP1 + 122 * 86400);	/* 2027-01-01 */
	assert_int_equal(membership_date(c, "2026T4", 1, &t, &e), -1);
	cfg_free(c);
}

static void
encode_split_and_lay_over(void **state)
{
	char cell[MEMBERSHIP_MAX], text[200];
	time_t f, u;
	char *m = membership_encode("staff/academic@eng", SEP1, 0), **cells;
	char *dates[] = { "staff/academic@eng 20260901000000Z -", "gone@x - -", NULL };

	(void)state;
	assert_string_equal(m, "staff/academic@eng|20260901000000Z|-");
	assert_int_equal(membership_split(m, cell, sizeof(cell), &f, &u), 0);
	assert_string_equal(cell, "staff/academic@eng");
	assert_int_equal(f, SEP1);
	assert_int_equal(u, 0);
	membership_text(m, text, sizeof(text));
	assert_string_equal(text, "staff/academic@eng (from 2026-09-01T00:00:00Z)");
	assert_true(membership_same_cell(m, "staff/academic@eng"));
	assert_false(membership_same_cell(m, "staff/academic@en"));
	free(m);
	m = membership_encode("student@", 0, 0);
	assert_string_equal(m, "student@");
	free(m);
	assert_int_equal(membership_split("a@b|nope|-", cell, sizeof(cell), &f, &u), -1);
	/* privMembershipDates laid over what privMembership says */
	cells = strv_of("student@eng", "staff/academic@eng");
	assert_int_equal(membership_apply_dates(cells, 2, dates), 0);
	assert_string_equal(cells[0], "student@eng");
	assert_string_equal(cells[1], "staff/academic@eng|20260901000000Z|-");
	strv_free(cells);
	assert_true(membership_in_force(0, 0, SEP1));
	assert_false(membership_in_force(SEP1, 0, SEP1 - 1));
	assert_true(membership_in_force(SEP1, 0, SEP1));
	assert_false(membership_in_force(0, SEP1, SEP1));
}

/* The snapshot keeps only what is in force at its moment, and knows when
 * that changes next. */
static void
the_snapshot_judges_at_its_moment(void **state)
{
	struct cfg *c = fx_cfg();
	const char *cells[] = { "student@|q=100", NULL };
	const char *simple[] = { "ann|student/undergrad@eng", NULL };
	const struct snap_account *a;
	struct snap *s;

	(void)state;
	/* nothing dated: nothing to wait for */
	s = fx_snap(c, NULL, NULL, cells, simple);
	assert_non_null(s);
	assert_int_equal(s->next_change, 0);
	snap_free(s);
	{
		struct snap_in_account in[1] = { { 0 } };
		const char *m[] = { "student/undergrad@eng|-|20000101000000Z",
		    "staff/academic@eng|20000101000000Z|29991231000000Z",
		    "staff/academic@eng/cse|29991231000000Z|-" };
		struct snap_in_cell ic[2] = { { "student@", NULL, 0 }, { "staff@", NULL, 0 } };
		struct snap_input si;
		struct err e;

		memset(&si, 0, sizeof(si));
		memset(&e, 0, sizeof(e));
		in[0].uid = "cat";
		in[0].cells = m;
		in[0].ncells = 3;
		si.cells = ic;
		si.ncells = 2;
		si.accounts = in;
		si.naccounts = 1;
		si.now = SEP1;
		s = snap_build(c, &si, &e);
		assert_non_null(s);
		a = snap_account(s, "cat");
		assert_non_null(a);
		/* ended, in force, not yet */
		assert_int_equal(a->nm, 1);
		assert_string_equal(a->m[0]->cell, "staff/academic@eng");
		assert_int_equal(a->ndated, 3);
		/* 2999-12-31: the next bound after 2026-09-01 */
		assert_int_equal(s->next_change, (time_t)32503593600LL);
		snap_free(s);
	}
	cfg_free(c);
}

/* The mirror hands a cell's memberships over as one string at one address,
 * which the full build remembers: people sharing a plain value, a dated one
 * and a bad one each come out as if their strings were their own. */
static void
memberships_shared_by_address(void **state)
{
	struct cfg *c = fx_cfg();
	static const char plain[] = "student/undergrad@eng";
	static const char dated[] = "staff/academic@eng|20000101000000Z|29991231000000Z";
	static const char ended[] = "staff/academic@eng/cse|-|20000101000000Z";
	static const char bad[] = "no-at-sign";
	const char *m1[] = { plain, dated, ended, bad }, *m2[] = { bad, ended, dated, plain };
	struct snap_in_account in[3] = { { 0 } };
	struct snap_in_cell ic[2] = { { "student@", NULL, 0 }, { "staff@", NULL, 0 } };
	const struct snap_account *a;
	struct snap_input si;
	struct snap *s;
	struct err e;
	int k;

	(void)state;
	memset(&si, 0, sizeof(si));
	memset(&e, 0, sizeof(e));
	in[0].uid = "amy";
	in[1].uid = "bob";
	in[2].uid = "cid";
	in[0].cells = in[1].cells = m1;
	in[2].cells = m2;
	in[0].ncells = in[1].ncells = in[2].ncells = 4;
	si.cells = ic;
	si.ncells = 2;
	si.accounts = in;
	si.naccounts = 3;
	si.now = SEP1;
	assert_non_null(s = snap_build(c, &si, &e));
	for (k = 0; k < 3; k++) {
		assert_non_null(a = snap_account(s, in[k].uid));
		/* the plain one and the dated one in force; both dated ones kept */
		assert_int_equal(a->nm, 2);
		assert_int_equal(a->ndated, 2);
		assert_string_equal(a->m[k < 2 ? 0 : 1]->cell, "student/undergrad@eng");
		assert_string_equal(a->m[k < 2 ? 1 : 0]->cell, "staff/academic@eng");
	}
	assert_ptr_equal(snap_account(s, "amy")->m[0], snap_account(s, "cid")->m[1]);
	assert_int_equal(s->skipped, 3);	/* the bad one, each time */
	snap_free(s);
	cfg_free(c);
}

FX_MAIN("membership",
    cmocka_unit_test(dates_parse),
    cmocka_unit_test(terms_give_their_bounds),
    cmocka_unit_test(encode_split_and_lay_over),
    cmocka_unit_test(the_snapshot_judges_at_its_moment),
    cmocka_unit_test(memberships_shared_by_address))
