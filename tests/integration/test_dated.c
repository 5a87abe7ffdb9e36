/*
 * test_dated.c - memberships that start and end, against a real slapd and
 * privd: the answer changes at the bound by itself (no write, no restart),
 * within a second; the bounds show in the answer and explain; export and
 * import keep them; a bad date is refused naming its line or field; a
 * move keeps them; privctl adds, lists what ends soon and purges.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "harness.h"

/* t as the import format's date-time, UTC */
static void
iso(time_t t, char out[32])
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static time_t ends, starts;

static int
setup(void **state)
{
	char model[1024], e[32], s[32];
	json_t *j;

	if (it_group_setup(state) != 0)
		return -1;
	/* whole seconds, a little ahead: the test watches both bounds pass */
	ends = time(NULL) + 4;
	starts = ends + 3;
	iso(ends, e);
	iso(starts, s);
	snprintf(model, sizeof(model),
	    "reasons: { student: { undergrad: {} }, staff: { academic: {} } }\n"
	    "organisations: { eng: { cse: {} } }\n"
	    "grants:\n"
	    "  \"student@\": { print.pages: 100 }\n"
	    "  \"staff@\": { print.pages: 1000 }\n"
	    "accounts:\n"
	    "  tutor:\n"
	    "    - { cell: student/undergrad@eng/cse, until: \"%s\" }\n"
	    "    - { cell: staff/academic@eng/cse, from: \"%s\" }\n"
	    "  plain: [student/undergrad@eng/cse]\n", e, s);
	j = it_call("POST", "/v1/import", ADMIN_KEY, model, 200);
	json_decref(j);
	return 0;
}

static json_int_t
limit(void)
{
	return it_limit_of("tutor", "print.pages");
}

/* Polls until the limit is want; the milliseconds after t it took. */
static long
switched(json_int_t want, time_t t)
{
	struct timespec ts;
	int i;

	for (i = 0; i < 400; i++) {
		if (limit() == want) {
			clock_gettime(CLOCK_REALTIME, &ts);
			return (long)(ts.tv_sec - t) * 1000 + ts.tv_nsec / 1000000;
		}
		usleep(20000);
	}
	fail_msg("the limit never became %lld", (long long)want);
	return -1;
}

static void
answers_switch_at_the_bounds(void **state)
{
	json_t *j, *d;
	long ms;

	(void)state;
	assert_int_equal(limit(), 100);
	j = it_get("/v1/accounts/tutor/privileges", 200);
	d = json_object_get(j, "dated_memberships");
	assert_int_equal(json_array_size(d), 2);
	assert_int_equal(json_array_size(json_object_get(j, "memberships")), 1);
	json_decref(j);
	/* explain says when the membership that decides ends */
	j = it_get("/v1/accounts/tutor/privileges/print.pages?explain=1", 200);
	assert_non_null(json_object_get(json_array_get(json_object_get(j, "sources"), 0),
	    "membership_until"));
	json_decref(j);
	ms = switched(0, ends);
	fprintf(stderr, "dated: the ended membership left the answer %ld ms after its end\n", ms);
	assert_true(ms >= 0 && ms <= 1000);
	ms = switched(1000, starts);
	fprintf(stderr, "dated: the new membership came into force %ld ms after its start\n", ms);
	assert_true(ms >= 0 && ms <= 1000);
	assert_int_equal(it_limit_of("plain", "print.pages"), 100);
}

static void
export_and_import_keep_them(void **state)
{
	char *text;
	long status;
	json_t *j;

	(void)state;
	text = it_request("GET", "/v1/export", ADMIN_KEY, NULL, 0, &status);
	assert_int_equal(status, 200);
	assert_non_null(strstr(text, "{cell: staff/academic@eng/cse, from: "));
	assert_non_null(strstr(text, "cell: student/undergrad@eng/cse"));
	assert_non_null(strstr(text, "until: "));
	/* the same text again changes none of the dated accounts (people the
	 * directory holds without privAccount export as "x: []" and would be
	 * followed: that is not the dates' doing) */
	j = it_call("POST", "/v1/import?dry_run=1", ADMIN_KEY, text, 200);
	{
		json_t *c;
		size_t k;

		json_array_foreach(json_object_get(j, "changes"), k, c) {
			const char *line = json_string_value(c);

			if (strstr(line, "tutor") || strstr(line, "plain") || strstr(line, "cell "))
				fail_msg("the round trip changes: %s", line);
		}
	}
	json_decref(j);
	free(text);
}

static void
bad_dates_are_named(void **state)
{
	json_t *j;

	(void)state;
	j = it_call("POST", "/v1/import", ADMIN_KEY,
	    "accounts:\n  plain:\n    - student/undergrad@eng/cse\n"
	    "    - { cell: staff/academic@eng/cse, until: 2026-13-01 }\n", 400);
	assert_non_null(strstr(json_string_value(json_object_get(j, "message")), "line 4"));
	assert_non_null(strstr(json_string_value(json_object_get(j, "message")), "2026-13-01"));
	json_decref(j);
	j = it_call("POST", "/v1/import", ADMIN_KEY,
	    "accounts:\n  plain:\n    - { cell: staff/academic@eng/cse, from: 2026-12-02, "
	    "until: 2026-12-01 }\n", 400);
	assert_non_null(strstr(json_string_value(json_object_get(j, "message")), "ends before"));
	json_decref(j);
	j = it_call("POST", "/v1/memberships", ADMIN_KEY,
	    "{\"account\":\"plain\",\"cell\":\"staff/academic@eng/cse\",\"until\":\"soon\"}", 400);
	assert_string_equal(json_string_value(json_object_get(j, "field")), "until");
	json_decref(j);
	assert_int_equal(it_limit_of("plain", "print.pages"), 100);
}

static char out[1 << 14];

#define privctl(...) it_privctl(out, sizeof(out), __VA_ARGS__)

static void
privctl_adds_lists_and_purges(void **state)
{
	char soon[32];
	json_t *j;

	(void)state;
	iso(time(NULL) + 1800, soon);
	assert_int_equal(privctl("add plain staff/academic@eng/cse --until %s", soon), 0);
	assert_non_null(strstr(out, "staff/academic@eng/cse (until "));
	assert_int_equal(it_limit_of("plain", "print.pages"), 1000);
	assert_int_equal(privctl("expiring --within 1h"), 0);
	assert_non_null(strstr(out, "plain"));
	assert_null(strstr(out, "tutor"));	/* its until has passed */
	assert_int_equal(privctl("expiring --within forever"), 1);
	/* tutor's student membership has ended: purge it, and only it */
	assert_int_equal(privctl("purge-expired --dry-run"), 0);
	assert_non_null(strstr(out, "tutor"));
	assert_null(strstr(out, "plain"));
	assert_int_equal(privctl("purge-expired"), 0);
	j = it_get("/v1/accounts/tutor/privileges", 200);
	assert_int_equal(json_array_size(json_object_get(j, "dated_memberships")), 1);
	json_decref(j);
	assert_int_equal(privctl("purge-expired"), 0);
	assert_non_null(strstr(out, "0 changes") ? strstr(out, "0 changes") : strstr(out, "no change"));
}

static void
a_move_keeps_the_bounds(void **state)
{
	json_t *j, *d;
	const char *until;
	char before[32];

	(void)state;
	j = it_get("/v1/accounts/plain/privileges", 200);
	d = json_array_get(json_object_get(j, "dated_memberships"), 0);
	assert_non_null(d);
	snprintf(before, sizeof(before), "%s", json_string_value(json_object_get(d, "until")));
	json_decref(j);
	json_decref(it_call("POST", "/v1/nodes/organisations/move", ADMIN_KEY,
	    "{\"from\":\"eng/cse\",\"to\":\"eng/comp\"}", 200));
	j = it_get("/v1/accounts/plain/privileges", 200);
	d = json_array_get(json_object_get(j, "dated_memberships"), 0);
	assert_string_equal(json_string_value(json_object_get(d, "cell")), "staff/academic@eng/comp");
	until = json_string_value(json_object_get(d, "until"));
	assert_string_equal(until, before);
	assert_int_equal(it_limit_of("plain", "print.pages"), 1000);
	json_decref(j);
}

/* A person written straight into LDAP, in a sub-tree of the people, with a
 * plain membership, a dated one in force and one that names no cell: the
 * follower reads the entry in one pass (mirror.c read_person) and keeps
 * each as the directory says. */
static json_int_t want_deep;

/* deep's limit is want_deep; 404 until the follower has the new entry */
static int
deep_has_want(void)
{
	long status = 0;
	char *body = it_try_request("GET", "/v1/accounts/deep/privileges/print.pages", READ_KEY,
	    NULL, 0, &status);
	json_t *j = status == 200 && body ? json_loads(body, 0, NULL) : NULL;
	int ok = j != NULL && json_integer_value(json_object_get(j, "limit")) == want_deep;

	json_decref(j);
	free(body);
	return ok;
}

static void
a_person_read_straight_from_ldap(void **state)
{
	json_t *j, *d, *m;

	(void)state;
	it_ldapmodify("dn: ou=staff,ou=people,dc=example,dc=edu\n"
	    "changetype: add\nobjectClass: organizationalUnit\nou: staff\n");
	it_ldapmodify("dn: uid=deep,ou=staff,ou=people,dc=example,dc=edu\n"
	    "changetype: add\nobjectClass: account\nobjectClass: privAccount\nuid: deep\n"
	    "privMembership: cn=student/undergrad@eng,ou=cells," BASE "\n"
	    "privMembership: cn=staff/academic@eng,ou=cells," BASE "\n"
	    "privMembership: cn=nowhere,ou=elsewhere,dc=example,dc=edu\n"
	    "privMembershipDates: staff/academic@eng 20000101000000Z 29991231000000Z\n");
	want_deep = 1000;
	assert_true(it_within(2000, deep_has_want) >= 0);
	j = it_get("/v1/accounts/deep/privileges", 200);
	m = json_object_get(j, "memberships");
	assert_int_equal(json_array_size(m), 2);
	d = json_object_get(j, "dated_memberships");
	assert_int_equal(json_array_size(d), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(d, 0), "cell")),
	    "staff/academic@eng");
	assert_string_equal(json_string_value(json_object_get(json_array_get(d, 0), "until")),
	    "2999-12-31T00:00:00Z");
	json_decref(j);
	/* the dated one ends: only the plain one is left */
	it_ldapmodify("dn: uid=deep,ou=staff,ou=people,dc=example,dc=edu\n"
	    "changetype: modify\nreplace: privMembershipDates\n"
	    "privMembershipDates: staff/academic@eng 20000101000000Z 20010101000000Z\n");
	want_deep = 100;
	assert_true(it_within(2000, deep_has_want) >= 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(answers_switch_at_the_bounds),
		cmocka_unit_test(export_and_import_keep_them),
		cmocka_unit_test(bad_dates_are_named),
		cmocka_unit_test(privctl_adds_lists_and_purges),
		cmocka_unit_test(a_move_keeps_the_bounds),
		cmocka_unit_test(a_person_read_straight_from_ldap),
	};

	return cmocka_run_group_tests_name("dated", tests, setup, it_group_teardown);
}
