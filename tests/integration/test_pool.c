/*
 * test_pool.c - shared budgets against a real slapd and privd: a course's
 * pool drawn on by two of its students and refused to another course's;
 * fallback from an exhausted personal quota; 10 chargers of 10 accounts
 * racing on one pool of 150 end at exactly 150; replays charge nothing; a
 * refund lands back in the pool; export then import changes nothing; the
 * ledger check covers pools; explain says why.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "harness.h"

#define COURSE "/v1/pools/student@eng/cse/courses/c1/quotas/print.pages"

static const char model[] =
    "reasons: { student: { undergrad: {} }, staff: { academic: {} } }\n"
    "organisations: { eng: { cse: { courses: { c1: {}, c2: {} }, research: { net: {} } } } }\n"
    "grants:\n"
    "  \"student@\": { print.pages: 10 }\n"
    "pools:\n"
    "  \"student@eng/cse/courses/c1\": { print.pages: 150 }\n"
    "  \"@eng/cse/research/net\": { print.pages: 500, print.colour_pages: 20 }\n"
    "  \"student@eng\": { print.pages: 40 }\n"
    "accounts:\n"
    "  s1: [student/undergrad@eng/cse/courses/c1]\n"
    "  s2: [student/undergrad@eng/cse/courses/c1]\n"
    "  s3: [student/undergrad@eng/cse/courses/c2]\n"
    "  g1: [staff/academic@eng/cse/research/net]\n"
    "  r0: [student/undergrad@eng/cse/courses/c1]\n"
    "  r1: [student/undergrad@eng/cse/courses/c1]\n"
    "  r2: [student/undergrad@eng/cse/courses/c1]\n"
    "  r3: [student/undergrad@eng/cse/courses/c1]\n"
    "  r4: [student/undergrad@eng/cse/courses/c1]\n"
    "  r5: [student/undergrad@eng/cse/courses/c1]\n"
    "  r6: [student/undergrad@eng/cse/courses/c1]\n"
    "  r7: [student/undergrad@eng/cse/courses/c1]\n"
    "  r8: [student/undergrad@eng/cse/courses/c1]\n"
    "  r9: [student/undergrad@eng/cse/courses/c1]\n";

static int
setup(void **state)
{
	return it_group_setup_model(state, model);
}

static json_int_t
pool_used(const char *path)
{
	return it_number(path, "used");
}

static void
two_students_draw_another_course_may_not(void **state)
{
	json_t *j;

	(void)state;
	j = it_call("POST", COURSE "/charges", CHARGE_KEY,
	    "{\"request_id\":\"c-1\",\"amount\":7,\"account\":\"s1\"}", 201);
	assert_string_equal(json_string_value(json_object_get(j, "pool")),
	    "student@eng/cse/courses/c1");
	assert_string_equal(json_string_value(json_object_get(j, "account")), "s1");
	assert_int_equal(it_num(j, "used"), 7);
	assert_int_equal(it_num(j, "limit"), 150);
	json_decref(j);
	/* the cell written with %2F arrives as the same pool */
	j = it_call("POST", "/v1/pools/student@eng%2Fcse%2Fcourses%2Fc1/quotas/print.pages/charges",
	    CHARGE_KEY, "{\"request_id\":\"c-2\",\"amount\":5,\"account\":\"S2\"}", 201);
	assert_int_equal(it_num(j, "used"), 12);
	assert_string_equal(json_string_value(json_object_get(j, "account")), "s2");
	json_decref(j);
	j = it_call("POST", COURSE "/charges", CHARGE_KEY,
	    "{\"request_id\":\"c-3\",\"amount\":5,\"account\":\"s3\"}", 403);
	assert_string_equal(json_string_value(json_object_get(j, "error")), "not_a_member");
	assert_string_equal(json_string_value(json_object_get(j, "field")), "account");
	json_decref(j);
	/* bad input names its field; nothing charged */
	j = it_call("POST", COURSE "/charges", CHARGE_KEY,
	    "{\"request_id\":\"c-4\",\"amount\":5}", 400);
	assert_string_equal(json_string_value(json_object_get(j, "field")), "account");
	json_decref(j);
	j = it_call("POST", "/v1/pools/student@eng/cse/courses/c2/quotas/print.pages/charges",
	    CHARGE_KEY, "{\"request_id\":\"c-5\",\"amount\":5,\"account\":\"s3\"}", 404);
	assert_string_equal(json_string_value(json_object_get(j, "error")), "unknown_pool");
	json_decref(j);
	j = it_call("POST", "/v1/accounts/s1/quotas/print.pages/charges", CHARGE_KEY,
	    "{\"request_id\":\"c-6\",\"amount\":1,\"account\":\"s2\"}", 400);
	json_decref(j);
	assert_int_equal(pool_used(COURSE), 12);
	/* the ledger names who drew */
	j = it_get(COURSE "/ledger", 200);
	assert_int_equal(it_num(j, "total"), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
	    json_object_get(j, "entries"), 0), "account")), "s2");
	json_decref(j);
}

static void
replays_and_refunds(void **state)
{
	json_t *j;

	(void)state;
	j = it_call("POST", COURSE "/charges", CHARGE_KEY,
	    "{\"request_id\":\"c-1\",\"amount\":7,\"account\":\"s1\"}", 200);
	assert_true(json_is_true(json_object_get(j, "replayed")));
	json_decref(j);
	j = it_call("POST", COURSE "/charges", CHARGE_KEY,
	    "{\"request_id\":\"c-1\",\"amount\":8,\"account\":\"s1\"}", 409);
	assert_string_equal(json_string_value(json_object_get(j, "error")), "request_id_reused");
	json_decref(j);
	assert_int_equal(pool_used(COURSE), 12);
	j = it_call("POST", COURSE "/refunds", CHARGE_KEY,
	    "{\"request_id\":\"rf-1\",\"charge_id\":\"c-1\",\"amount\":7}", 201);
	assert_int_equal(it_num(j, "used"), 5);
	json_decref(j);
	j = it_call("POST", COURSE "/refunds", CHARGE_KEY,
	    "{\"request_id\":\"rf-2\",\"charge_id\":\"c-1\",\"amount\":1}", 409);
	assert_string_equal(json_string_value(json_object_get(j, "error")), "refund_exceeds_charge");
	json_decref(j);
	assert_int_equal(pool_used(COURSE), 5);
	/* a hold on the pool, committed at its own path */
	j = it_call("POST", COURSE "/holds", CHARGE_KEY,
	    "{\"request_id\":\"h-1\",\"amount\":10,\"account\":\"s2\"}", 201);
	assert_string_equal(json_string_value(json_object_get(j, "commit")),
	    COURSE "/holds/h-1/commit");
	json_decref(j);
	j = it_call("POST", COURSE "/holds/h-1/commit", CHARGE_KEY, "{\"amount\":4}", 200);
	assert_int_equal(it_num(j, "used"), 9);
	json_decref(j);
	/* a credit raises the pool's limit for the period */
	j = it_call("POST", COURSE "/credits", ADMIN_KEY,
	    "{\"request_id\":\"cr-1\",\"amount\":0}", 400);
	json_decref(j);
}

static int
net_hold_released(void)
{
	return it_number("/v1/pools/@eng/cse/research/net/quotas/print.pages", "held") == 0;
}

/* privd's reaper finds a pool's holds too (their usage sits under cn=CELL) */
static void
pool_holds_expire(void **state)
{
	json_t *j;

	(void)state;
	j = it_call("POST", "/v1/pools/@eng/cse/research/net/quotas/print.pages/holds", CHARGE_KEY,
	    "{\"request_id\":\"hx-1\",\"amount\":30,\"ttl_s\":1,\"account\":\"g1\"}", 201);
	assert_int_equal(it_num(j, "held"), 30);
	json_decref(j);
	assert_true(it_within(8000, net_hold_released) >= 0);
	assert_int_equal(it_number("/v1/pools/@eng/cse/research/net/quotas/print.pages", "used"), 0);
	j = it_get("/v1/pools/@eng/cse/research/net/quotas/print.pages/ledger", 200);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
	    json_object_get(j, "entries"), 0), "kind")), "expire");
	json_decref(j);
}

/* request i of racer t, drawn by account rT */
static void
race_body(int t, int i, char *buf, size_t n)
{
	snprintf(buf, n, "{\"request_id\":\"race-%d-%d\",\"amount\":1,\"account\":\"r%d\"}",
	    t, i, t);
}

static void
ten_accounts_race_to_the_limit(void **state)
{
	json_int_t before = pool_used(COURSE);
	struct it_tally n;

	(void)state;
	n = it_race(10, 20, COURSE "/charges", CHARGE_KEY, race_body);
	/* 200 asked, 150 - before left: exactly that many land */
	assert_int_equal(n.other, 0);
	assert_int_equal(n.ok, 150 - before);
	assert_int_equal(n.refused, 200 - (150 - before));
	assert_int_equal(pool_used(COURSE), 150);
	it_check_ledger();
}

static void
fallback_from_an_exhausted_personal_quota(void **state)
{
	const char *own = "/v1/accounts/s3/quotas/print.pages";
	json_t *j;

	(void)state;
	/* s3 has 10 of its own and may draw on student@eng (40), not the course */
	j = it_call("POST", "/v1/accounts/s3/quotas/print.pages/charges", CHARGE_KEY,
	    "{\"request_id\":\"f-1\",\"amount\":8,\"fallback\":\"pools\"}", 201);
	assert_string_equal(json_string_value(json_object_get(j, "charged_to")), "personal");
	json_decref(j);
	j = it_call("POST", "/v1/accounts/s3/quotas/print.pages/charges", CHARGE_KEY,
	    "{\"request_id\":\"f-2\",\"amount\":6,\"fallback\":\"pools\"}", 201);
	assert_string_equal(json_string_value(json_object_get(j, "charged_to")), "student@eng");
	assert_int_equal(it_num(j, "used"), 6);
	json_decref(j);
	assert_int_equal(it_number(own, "used"), 8);
	assert_int_equal(pool_used("/v1/pools/student@eng/quotas/print.pages"), 6);
	/* a retry after s3's own quota regained room is still the pool's charge */
	j = it_call("POST", "/v1/accounts/s3/quotas/print.pages/credits", ADMIN_KEY,
	    "{\"request_id\":\"cr-s3\",\"amount\":20}", 201);
	json_decref(j);
	j = it_call("POST", "/v1/accounts/s3/quotas/print.pages/charges", CHARGE_KEY,
	    "{\"request_id\":\"f-2\",\"amount\":6,\"fallback\":\"pools\"}", 200);
	assert_true(json_is_true(json_object_get(j, "replayed")));
	assert_string_equal(json_string_value(json_object_get(j, "charged_to")), "student@eng");
	json_decref(j);
	assert_int_equal(it_number(own, "used"), 8);
	assert_int_equal(pool_used("/v1/pools/student@eng/quotas/print.pages"), 6);
	/* neither has room: the personal refusal, nothing charged */
	j = it_call("POST", "/v1/accounts/s3/quotas/print.pages/charges", CHARGE_KEY,
	    "{\"request_id\":\"f-3\",\"amount\":35,\"fallback\":\"pools\"}", 409);
	assert_string_equal(json_string_value(json_object_get(j, "error")), "quota_exceeded");
	json_decref(j);
	j = it_call("POST", "/v1/accounts/s3/quotas/print.pages/charges", CHARGE_KEY,
	    "{\"request_id\":\"f-4\",\"amount\":3,\"fallback\":\"elsewhere\"}", 400);
	assert_string_equal(json_string_value(json_object_get(j, "field")), "fallback");
	json_decref(j);
	assert_int_equal(it_number(own, "used"), 8);
	assert_int_equal(pool_used("/v1/pools/student@eng/quotas/print.pages"), 6);
	it_check_ledger();
}

static void
account_pools_members_and_why(void **state)
{
	json_t *j, *p;

	(void)state;
	j = it_get("/v1/accounts/s1/pools", 200);
	p = json_object_get(j, "pools");
	assert_int_equal(json_array_size(p), 2);
	/* most specific first */
	assert_string_equal(json_string_value(json_object_get(json_array_get(p, 0), "cell")),
	    "student@eng/cse/courses/c1");
	assert_string_equal(json_string_value(json_object_get(json_array_get(p, 1), "cell")),
	    "student@eng");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(json_object_get(
	    json_array_get(p, 0), "quotas"), "print.pages"), "remaining")), 0);
	json_decref(j);
	j = it_get("/v1/pools/student@eng/cse/courses/c1/members", 200);
	assert_int_equal(it_num(j, "total"), 12);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
	    json_object_get(j, "accounts"), 0), "account")), "r0");
	json_decref(j);
	j = it_get("/v1/accounts/s3/pools?cell=student@eng/cse/courses/c1", 200);
	assert_false(json_is_true(json_object_get(j, "may_draw")));
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(
	    json_object_get(j, "memberships"), 0), "why")),
	    "organisation eng/cse/courses/c2 is not eng/cse/courses/c1"));
	json_decref(j);
	j = it_get("/v1/accounts/g1/pools?cell=@eng/cse/research/net", 200);
	assert_true(json_is_true(json_object_get(j, "may_draw")));
	assert_string_equal(json_string_value(json_object_get(j, "via")),
	    "staff/academic@eng/cse/research/net");
	json_decref(j);
}

static void
export_import_changes_nothing(void **state)
{
	char *text;
	long st;
	json_t *j, *c;
	size_t i;

	(void)state;
	text = it_request("GET", "/v1/export", ADMIN_KEY, NULL, 0, &st);
	assert_int_equal(st, 200);
	assert_non_null(strstr(text, "pools:"));
	assert_non_null(strstr(text, "\"student@eng/cse/courses/c1\": {print.pages: 150}"));
	j = it_call("POST", "/v1/import?dry_run=1", ADMIN_KEY, text, 200);
	/* no cell changes (the directory's own people without memberships
	 * come back as "now followed", which has nothing to do with pools) */
	assert_int_equal(it_num(j, "cells_added"), 0);
	assert_int_equal(it_num(j, "cells_changed"), 0);
	assert_int_equal(it_num(j, "accounts_created"), 0);
	json_array_foreach(json_object_get(j, "changes"), i, c)
		assert_non_null(strstr(json_string_value(c), "(now followed by privd)"));
	json_decref(j);
	free(text);
	/* an import naming a cell under grants only keeps its pool */
	j = it_call("POST", "/v1/import?dry_run=1", ADMIN_KEY,
	    "grants: { \"student@eng\": { print.pages: 12 } }\n", 200);
	assert_int_equal(json_array_size(json_object_get(j, "changes")), 1);
	assert_null(strstr(json_string_value(json_array_get(json_object_get(j, "changes"), 0)),
	    "pool"));
	json_decref(j);
	/* a bad pool is refused naming its line; nothing written */
	j = it_call("POST", "/v1/import", ADMIN_KEY,
	    "pools:\n  \"student@\": { print.colour: 3 }\n", 400);
	assert_non_null(strstr(json_string_value(json_object_get(j, "message")), "only quotas"));
	json_decref(j);
	/* the admin edit and its revoke */
	j = it_call("POST", "/v1/pools", ADMIN_KEY,
	    "{\"cell\":\"staff@eng\",\"pools\":[\"print.pages=30\"]}", 200);
	json_decref(j);
	assert_int_equal(it_number("/v1/pools/staff@eng/quotas/print.pages", "limit"), 30);
	j = it_call("DELETE", "/v1/pools?cell=staff@eng&quota=print.pages", ADMIN_KEY, NULL, 200);
	json_decref(j);
	j = it_call("GET", "/v1/pools/staff@eng/quotas/print.pages", READ_KEY, NULL, 404);
	json_decref(j);
	it_check_ledger();
}

static char out[1 << 16];

#define privctl(...) it_privctl(out, sizeof(out), __VA_ARGS__)

static void
privctl_pool_commands(void **state)
{
	(void)state;
	assert_int_equal(privctl("pool grant staff@eng print.colour=true"), 1);
	assert_non_null(strstr(out, "only quotas have pools"));
	assert_int_equal(privctl("pool grant staff@eng print.pages=25"), 0);
	assert_non_null(strstr(out, "cell staff@eng: +pool print.pages=25"));
	assert_int_equal(privctl("pool list"), 0);
	assert_non_null(strstr(out, "staff@eng\n  print.pages            0 used of 25, 25 left"));
	assert_int_equal(privctl("pool credit staff@eng print.pages 5"), 0);
	assert_non_null(strstr(out, "30 left of 30"));
	assert_int_equal(privctl("pool show staff@eng"), 0);
	assert_non_null(strstr(out, "1 accounts may draw on it"));
	assert_int_equal(privctl("pool members staff@eng"), 0);
	assert_non_null(strstr(out, "g1               via staff/academic@eng/cse/research/net"));
	assert_int_equal(privctl("pool ledger staff@eng print.pages"), 0);
	assert_non_null(strstr(out, "credit"));
	assert_int_equal(privctl("show s1"), 0);
	assert_non_null(strstr(out, "pools it may draw on (most specific first):\n"
	    "  student@eng/cse/courses/c1 (via student/undergrad@eng/cse/courses/c1)"));
	assert_int_equal(privctl("explain s3 --pool student@eng/cse/courses/c1"), 0);
	assert_non_null(strstr(out, "s3 may not draw on the pools of student@eng/cse/courses/c1"));
	assert_int_equal(privctl("explain g1 --pool @eng/cse/research/net"), 0);
	assert_non_null(strstr(out, "g1 may draw"));
	assert_int_equal(privctl("pool show nobody@"), 1);
	assert_int_equal(privctl("pool frob"), 2);
	assert_int_equal(privctl("pool revoke staff@eng print.pages"), 0);
	assert_int_equal(privctl("pool show staff@eng"), 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(two_students_draw_another_course_may_not),
		cmocka_unit_test(replays_and_refunds),
		cmocka_unit_test(pool_holds_expire),
		cmocka_unit_test(ten_accounts_race_to_the_limit),
		cmocka_unit_test(fallback_from_an_exhausted_personal_quota),
		cmocka_unit_test(account_pools_members_and_why),
		cmocka_unit_test(export_import_changes_nothing),
		cmocka_unit_test(privctl_pool_commands),
	};

	return cmocka_run_group_tests(tests, setup, it_group_teardown);
}
