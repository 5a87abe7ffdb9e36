/*
 * test_api.c - integration tests: a real slapd and a real privd (started by
 * env.sh), spoken to over HTTP with libcurl and changed behind privd's back
 * with ldapmodify.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <curl/curl.h>
#include <jansson.h>

#include "harness.h"

static void
schema_both_forms_load(void **state)
{
	(void)state;
	it_sh("tests/integration/schema.sh");
}

static void
health_and_auth(void **state)
{
	json_t *j;

	(void)state;
	j = it_call("GET", "/healthz", NULL, NULL, 200);
	assert_string_equal(json_string_value(json_object_get(j, "status")), "ok");
	json_decref(j);
	j = it_call("GET", "/v1/accounts/jdoe/privileges", NULL, NULL, 401);
	assert_string_equal(json_string_value(json_object_get(j, "error")), "unauthorized");
	json_decref(j);
	j = it_call("GET", "/v1/accounts/jdoe/privileges", "not-a-key", NULL, 401);
	json_decref(j);
	j = it_call("POST", "/v1/import", READ_KEY, "reasons: {}\n", 403);
	assert_string_equal(json_string_value(json_object_get(j, "error")), "forbidden");
	json_decref(j);
	j = it_call("GET", "/metrics", NULL, NULL, 401);
	json_decref(j);
	j = it_get("/v1/nothing/here", 404);
	assert_string_equal(json_string_value(json_object_get(j, "error")), "not_found");
	json_decref(j);
	j = it_call("DELETE", "/v1/import", ADMIN_KEY, NULL, 405);
	json_decref(j);
}

static void
bad_imports_write_nothing(void **state)
{
	int before = it_ldap_count(BASE, "(objectClass=*)");
	json_t *j;

	(void)state;
	j = it_call("POST", "/v1/import", ADMIN_KEY,
	    "reasons: { student: { undergrad: {} } }\n"
	    "grants:\n"
	    "  \"student@\":\n"
	    "    print.pages: 100\n"
	    "    print.page: 3\n", 400);
	assert_string_equal(json_string_value(json_object_get(j, "error")), "invalid_import");
	assert_int_equal(json_integer_value(json_object_get(j, "line")), 5);
	assert_string_equal(json_string_value(json_object_get(j, "field")), "print.page");
	json_decref(j);
	j = it_call("POST", "/v1/import", ADMIN_KEY,
	    "reasons: { student: { undergrad: {} } }\n"
	    "accounts:\n"
	    "  jdoe: [\"student@\"]\n", 400);
	assert_non_null(strstr(json_string_value(json_object_get(j, "message")), "not a leaf"));
	assert_int_equal(json_integer_value(json_object_get(j, "line")), 3);
	json_decref(j);
	j = it_call("POST", "/v1/import", ADMIN_KEY,
	    "reasons: { student: { undergrad: {} } }\n"
	    "accounts:\n"
	    "  jdoe: [\"student/undergrad@nowhere\"]\n", 400);
	assert_non_null(strstr(json_string_value(json_object_get(j, "message")),
	    "unknown organisation node 'nowhere'"));
	json_decref(j);
	j = it_call("POST", "/v1/import", ADMIN_KEY,
	    "grants:\n  \"student@\": { printer.access: [\"+a\", \"bad one\"] }\n", 400);
	json_decref(j);
	j = it_call("POST", "/v1/import", ADMIN_KEY, "reasons: [\n", 400);
	json_decref(j);
	/* every refusal came before a write */
	assert_int_equal(it_ldap_count(BASE, "(objectClass=*)"), before);
	assert_int_equal(it_ldap_count("ou=people,dc=example,dc=edu", "(objectClass=privAccount)"), 0);
}

static int
jdoe_visible(void)
{
	long status;
	char *t = it_request("GET", "/v1/accounts/jdoe/privileges", READ_KEY, NULL, 0, &status);

	free(t);
	return status == 200;
}

static void
import_demo(void **state)
{
	char *demo = it_slurp("config/demo.yaml", NULL);
	json_t *j;

	(void)state;
	j = it_call("POST", "/v1/import?dry_run=1", ADMIN_KEY, demo, 200);
	assert_true(json_is_true(json_object_get(j, "dry_run")));
	assert_int_equal(json_integer_value(json_object_get(j, "cells_added")), 22);
	json_decref(j);
	assert_int_equal(it_ldap_count(BASE, "(objectClass=privCell)"), 0);	/* dry run */

	j = it_call("POST", "/v1/import", ADMIN_KEY, demo, 200);
	assert_int_equal(json_integer_value(json_object_get(j, "reasons_added")), 11);
	assert_int_equal(json_integer_value(json_object_get(j, "organisations_added")), 25);
	assert_int_equal(json_integer_value(json_object_get(j, "cells_added")), 22);
	/* jdoe, mwhite and bchen exist in the directory; the others are created */
	assert_int_equal(json_integer_value(json_object_get(j, "accounts_changed")), 3);
	assert_int_equal(json_integer_value(json_object_get(j, "accounts_created")), 6);
	json_decref(j);
	/* read-your-writes: the answer came once this privd's reads show it */
	assert_true(jdoe_visible());
	assert_int_equal(it_limit_of("bchen", "print.pages"), 5000);
	assert_int_equal(it_ldap_count(BASE, "(objectClass=privCell)"), 22);
	/* an existing person keeps its entry and gains the auxiliary class */
	assert_int_equal(it_ldap_count("uid=jdoe,ou=people,dc=example,dc=edu",
	    "(&(objectClass=inetOrgPerson)(objectClass=privAccount))"), 1);

	/* the same file again changes nothing */
	j = it_call("POST", "/v1/import", ADMIN_KEY, demo, 200);
	assert_int_equal(json_integer_value(json_object_get(j, "cells_added")), 0);
	assert_int_equal(json_integer_value(json_object_get(j, "cells_changed")), 0);
	assert_int_equal(json_integer_value(json_object_get(j, "accounts_changed")), 0);
	assert_int_equal(json_integer_value(json_object_get(j, "accounts_created")), 0);
	json_decref(j);
	free(demo);
}

static void
resolution_through_api(void **state)
{
	json_t *j, *p, *v;
	const char *s;

	(void)state;
	j = it_get("/v1/accounts/jdoe/privileges", 200);
	assert_string_equal(json_string_value(json_object_get(j, "account")), "jdoe");
	assert_false(json_is_true(json_object_get(j, "stale")));
	v = json_object_get(j, "memberships");
	assert_int_equal(json_array_size(v), 1);
	assert_string_equal(json_string_value(json_array_get(v, 0)),
	    "student/undergrad@engineering/cse/programs/compeng");
	p = json_object_get(j, "privileges");
	assert_int_equal(json_object_size(p), 7);	/* every declared privilege */
	/* a money quota: cents, with its currency (student@engineering/cse) */
	v = json_object_get(p, "print.balance");
	assert_string_equal(json_string_value(json_object_get(v, "currency")), "AUD");
	assert_int_equal(json_integer_value(json_object_get(v, "limit")), 1500);
	v = json_object_get(p, "print.pages");
	assert_string_equal(json_string_value(json_object_get(v, "type")), "quota");
	assert_int_equal(json_integer_value(json_object_get(v, "limit")), 300);
	assert_int_equal(json_integer_value(json_object_get(v, "remaining")), 300);
	assert_non_null(json_string_value(json_object_get(v, "period")));
	v = json_object_get(json_object_get(p, "printer.access"), "value");
	assert_int_equal(json_array_size(v), 1);
	assert_string_equal(json_string_value(json_array_get(v, 0)), "eng-laser");
	assert_true(json_is_false(json_object_get(json_object_get(p, "print.colour"), "value")));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(p,
	    "login.max_sessions"), "value")), 3);
	json_decref(j);

	/* two memberships: the tutor's staff budget beats the student's */
	assert_int_equal(it_limit_of("bchen", "print.pages"), 5000);
	assert_int_equal(it_limit_of("bchen", "print.colour_pages"), 500);
	/* the Head of School, at the root of the organisation */
	assert_int_equal(it_limit_of("mwhite", "print.pages"), 5000);

	/* deny wins for the visitor; only the School Office has its printer */
	assert_false(it_allowed("vguest/check?privilege=printer.access&value=eng-laser"));
	assert_true(it_allowed("kpatel/check?privilege=printer.access&value=office-colour"));
	assert_false(it_allowed("jdoe/check?privilege=printer.access&value=office-colour"));
	assert_false(it_allowed("jdoe/check?privilege=print.colour"));
	assert_true(it_allowed("mwhite/check?privilege=print.colour"));
	assert_false(it_allowed("jdoe/check?privilege=login.max_sessions&value=4"));

	/* provenance: the winner and what it overrode */
	j = it_get("/v1/accounts/jdoe/privileges/print.pages?explain=1", 200);
	v = json_object_get(j, "sources");
	assert_int_equal(json_array_size(v), 3);
	for (size_t i = 0; i < 3; i++) {
		json_t *src = json_array_get(v, i);
		const char *cell = json_string_value(json_object_get(src, "cell"));

		s = json_string_value(json_object_get(src, "result"));
		if (strcmp(cell, "student@engineering/cse") == 0) {
			assert_string_equal(s, "applied");
			assert_string_equal(json_string_value(json_object_get(src, "grant")),
			    "print.pages=300");
		} else {
			assert_string_equal(s, "overridden");
			assert_string_equal(json_string_value(json_object_get(src, "overridden_by")),
			    "student@engineering/cse");
		}
	}
	json_decref(j);

	/* errors name what was wrong */
	j = it_get("/v1/accounts/nobody/privileges", 404);
	assert_string_equal(json_string_value(json_object_get(j, "error")), "unknown_account");
	json_decref(j);
	j = it_get("/v1/accounts/jdoe/privileges/print.nothing", 404);
	assert_string_equal(json_string_value(json_object_get(j, "error")), "unknown_privilege");
	json_decref(j);
	j = it_get("/v1/accounts/jdoe/check?privilege=printer.access", 400);
	assert_string_equal(json_string_value(json_object_get(j, "field")), "value");
	json_decref(j);
	j = it_get("/v1/accounts/jdoe/check", 400);
	assert_string_equal(json_string_value(json_object_get(j, "field")), "privilege");
	json_decref(j);
}

static json_int_t want_pages;

static int
jdoe_has_want_pages(void)
{
	return it_limit_of("jdoe", "print.pages") == want_pages;
}

static int
jdoe_has_colour(void)
{
	return it_allowed("jdoe/check?privilege=print.colour");
}

static void
ldap_change_reaches_api(void **state)
{
	long ms, derived = it_metric("privd_snapshot_builds_total{kind=\"derived\"} ");

	(void)state;
	assert_true(derived >= 0);
	it_ldapmodify("dn: cn=student@engineering/cse,ou=cells," BASE "\n"
	    "changetype: modify\n"
	    "replace: privGrant\n"
	    "privGrant: print.pages=350\n"
	    "privGrant: login.max_sessions=3\n");
	want_pages = 350;
	ms = it_within(1000, jdoe_has_want_pages);
	print_message("grant change visible after %ld ms\n", ms);
	assert_true(ms >= 0);

	/* a membership added directly in LDAP: jdoe joins COMP3421 */
	it_ldapmodify("dn: uid=jdoe,ou=people,dc=example,dc=edu\n"
	    "changetype: modify\n"
	    "add: privMembership\n"
	    "privMembership: cn=student/undergrad@engineering/cse/courses/year3/comp3421,ou=cells," BASE "\n");
	ms = it_within(1000, jdoe_has_colour);
	print_message("membership change visible after %ld ms\n", ms);
	assert_true(ms >= 0);
	/* neither rebuilt the model: each derived the next snapshot (snapderive.c) */
	assert_true(it_metric("privd_snapshot_builds_total{kind=\"derived\"} ") >= derived + 2);
}

static int
stale_answers(void)
{
	json_t *j = it_get("/v1/accounts/jdoe/privileges", 200);
	int stale = json_is_true(json_object_get(j, "stale"));

	json_decref(j);
	return stale;
}

static void
sync_drops_and_resyncs(void **state)
{
	json_t *j;
	char *text;
	long status;

	(void)state;
	it_sh("tests/integration/env.sh slapd-stop %s/env", it_dir);
	assert_true(it_within(3000, it_not_ready) >= 0);
	j = it_call("GET", "/readyz", NULL, NULL, 503);
	assert_true(json_is_true(json_object_get(j, "stale")));
	json_decref(j);
	/* reads go on from the snapshot, marked stale */
	assert_true(it_within(1000, stale_answers) >= 0);
	assert_int_equal(it_limit_of("jdoe", "print.pages"), 350);
	/* imports fail closed */
	j = it_call("POST", "/v1/import", ADMIN_KEY, "reasons: { extra: {} }\n", 503);
	assert_string_equal(json_string_value(json_object_get(j, "error")), "ldap_unavailable");
	json_decref(j);

	it_sh("tests/integration/env.sh slapd-start %s/env", it_dir);
	assert_true(it_within(5000, it_ready) >= 0);
	assert_false(stale_answers());
	/* and it follows changes again, without a restart */
	it_ldapmodify("dn: cn=student@engineering/cse,ou=cells," BASE "\n"
	    "changetype: modify\n"
	    "replace: privGrant\n"
	    "privGrant: print.pages=400\n");
	want_pages = 400;
	assert_true(it_within(1000, jdoe_has_want_pages) >= 0);
	text = it_request("GET", "/metrics", READ_KEY, NULL, 0, &status);
	assert_int_equal(status, 200);
	assert_null(strstr(text, "privd_ldap_reconnects_total 0\n"));
	assert_non_null(strstr(text, "privd_stale 0\n"));
	free(text);
}

static void
metrics_exposition(void **state)
{
	char *text;
	long status;

	(void)state;
	text = it_request("GET", "/metrics", READ_KEY, NULL, 0, &status);
	assert_int_equal(status, 200);
	assert_non_null(strstr(text, "privd_http_requests_total{route=\"privileges\",status=\"200\"}"));
	assert_non_null(strstr(text, "privd_http_requests_total{route=\"privileges\",status=\"404\"}"));
	assert_non_null(strstr(text, "privd_http_requests_total{route=\"import\",status=\"400\"}"));
	assert_non_null(strstr(text, "privd_http_request_duration_seconds_bucket{le=\"+Inf\"}"));
	assert_non_null(strstr(text, "privd_snapshot_accounts 9\n"));
	assert_non_null(strstr(text, "privd_snapshot_cells 22\n"));
	assert_non_null(strstr(text, "privd_snapshot_age_seconds"));
	free(text);
}

/* privd itself refuses to start on a bad file, naming file and line. */
static void
bad_config_stops_privd(void **state)
{
	const char *bin = getenv("PRIVD_BIN") ? getenv("PRIVD_BIN") : "server/privd";
	char path[256], cmd[1024], out[1024];
	size_t n;
	FILE *f, *p;
	int rc;

	(void)state;
	snprintf(path, sizeof(path), "%s/bad.yaml", it_dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("ldap:\n  uri: ldap://127.0.0.1/\n  bsae: dc=x\n", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s -c %s 2>&1", bin, path);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	rc = pclose(p);
	assert_int_not_equal(rc, 0);
	snprintf(cmd, sizeof(cmd), "%s:3: unknown key 'bsae' in ldap", path);
	if (strstr(out, cmd) == NULL)
		fail_msg("privd said: %s", out);
}

static void
body_limit(void **state)
{
	size_t n = 3 << 20;
	char *big = malloc(n);
	long status;
	char *text;

	(void)state;
	assert_non_null(big);
	memset(big, '#', n);
	text = it_request("POST", "/v1/import", ADMIN_KEY, big, n, &status);
	assert_int_equal(status, 413);
	assert_non_null(strstr(text, "body_too_large"));
	free(text);
	free(big);
	assert_true(it_ready());
}

/* uid matches without case in LDAP; privd looks accounts up the same way,
 * answers with the stored uid, and edits the existing entry */
static void
uids_as_ldap_compares_them(void **state)
{
	json_t *j;
	int before = it_ldap_count("ou=people,dc=example,dc=edu", "(objectClass=*)");

	(void)state;
	j = it_get("/v1/accounts/JDOE/privileges", 200);
	assert_string_equal(json_string_value(json_object_get(j, "account")), "jdoe");
	json_decref(j);
	j = it_get("/v1/accounts/JDoe/quotas/print.pages", 200);
	assert_string_equal(json_string_value(json_object_get(j, "account")), "jdoe");
	json_decref(j);
	j = it_call("POST", "/v1/accounts/JDOE/quotas/print.pages/charges", CHARGE_KEY,
	    "{\"request_id\":\"case-1\",\"amount\":2}", 201);
	json_decref(j);
	/* the same account and usage entry, whichever spelling charged it */
	assert_int_equal(it_number("/v1/accounts/jdoe/quotas/print.pages", "used"), 2);
	j = it_call("POST", "/v1/accounts/jdoe/quotas/print.pages/charges", CHARGE_KEY,
	    "{\"request_id\":\"case-1\",\"amount\":2}", 200);
	json_decref(j);
	j = it_call("POST", "/v1/memberships", ADMIN_KEY,
	    "{\"account\":\"Jdoe\",\"cell\":\"student/undergrad@engineering/cse/courses/year3/comp3421\"}", 200);
	json_decref(j);
	j = it_get("/v1/accounts/jdoe/privileges", 200);
	assert_int_equal(json_array_size(json_object_get(j, "memberships")), 2);
	json_decref(j);
	assert_int_equal(it_ldap_count("ou=people,dc=example,dc=edu", "(objectClass=*)"), before);
	j = it_call("DELETE", "/v1/memberships?account=JDOE&cell=student/undergrad@engineering/cse/courses/year3/comp3421",
	    ADMIN_KEY, NULL, 200);
	json_decref(j);
	j = it_get("/v1/accounts/jdoe/privileges", 200);
	assert_int_equal(json_array_size(json_object_get(j, "memberships")), 1);
	json_decref(j);
}

struct editor {
	int n;
	long status;
};

static void *
edit_grant(void *arg)
{
	struct editor *ed = arg;
	char body[160];

	snprintf(body, sizeof(body), "{\"cell\":\"@engineering\","
	    "\"grants\":[\"printer.access+=race-%d\"]}", ed->n);
	free(it_try_request("POST", "/v1/grants", ADMIN_KEY, body, strlen(body), &ed->status));
	return NULL;
}

/* Edits of one cell at once: each lands, or answers 409 and leaves no trace;
 * none is lost by another's write over it. */
static void
parallel_edits_of_one_cell(void **state)
{
	struct editor ed[8];
	pthread_t t[8];
	json_t *j, *v;
	int i, k, landed = 0;

	(void)state;
	for (i = 0; i < 8; i++) {
		ed[i] = (struct editor){ i, 0 };
		assert_int_equal(pthread_create(&t[i], NULL, edit_grant, &ed[i]), 0);
	}
	for (i = 0; i < 8; i++)
		pthread_join(t[i], NULL);
	j = it_get("/v1/accounts/jdoe/privileges/printer.access", 200);
	v = json_object_get(j, "value");
	for (i = 0; i < 8; i++) {
		char want[32];
		int found = 0;

		assert_true(ed[i].status == 200 || ed[i].status == 409);
		snprintf(want, sizeof(want), "race-%d", i);
		for (k = 0; k < (int)json_array_size(v); k++)
			found |= strcmp(json_string_value(json_array_get(v, (size_t)k)), want) == 0;
		assert_int_equal(found, ed[i].status == 200);
		landed += ed[i].status == 200;
	}
	fprintf(stderr, "8 edits of one cell at once: %d landed, %d answered 409\n", landed,
	    8 - landed);
	assert_true(landed >= 1);
	json_decref(j);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(schema_both_forms_load),
		cmocka_unit_test(health_and_auth),
		cmocka_unit_test(bad_imports_write_nothing),
		cmocka_unit_test(import_demo),
		cmocka_unit_test(resolution_through_api),
		cmocka_unit_test(uids_as_ldap_compares_them),
		cmocka_unit_test(ldap_change_reaches_api),
		cmocka_unit_test(sync_drops_and_resyncs),
		cmocka_unit_test(metrics_exposition),
		cmocka_unit_test(body_limit),
		cmocka_unit_test(bad_config_stops_privd),
		cmocka_unit_test(parallel_edits_of_one_cell),
	};

	return cmocka_run_group_tests_name("integration", tests, it_group_setup, it_group_teardown);
}
