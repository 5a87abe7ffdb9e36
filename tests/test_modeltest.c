/* test_modeltest.c - privd test FILE (modeltest.c): passes, failures with their explain, bad files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"
#include "modeltest.h"

static char dir[64];

static const char config[] =
    "ldap:\n"
    "  uri: ldap://127.0.0.1/\n"
    "  bind_dn: cn=privd,dc=example,dc=edu\n"
    "  bind_password_file: /nonexistent/ldap.secret\n"	/* a CI runner lacks it */
    "  base: ou=privileges,dc=example,dc=edu\n"
    "  people: ou=people,dc=example,dc=edu\n"
    "terms:\n"
    "  - { name: 2026T3, start: 2026-09-01, end: 2026-12-31 }\n"
    "privileges:\n"
    "  print.pages: { type: quota, period: term }\n"
    "  print.balance: { type: money, currency: AUD, period: term }\n"
    "  print.colour: { type: flag }\n"
    "  printer.access: { type: set }\n"
    "  login.max_sessions: { type: number }\n";

static const char model[] =
    "reasons: { staff: {}, student: {}, visitor: {} }\n"
    "organisations: { eng: { cse: {} } }\n"
    "grants:\n"
    "  '@': { print.pages: 50, print.balance: 500 }\n"
    "  'student@eng/cse': { print.pages: 300, print.balance: 1500 }\n"
    "  '@eng': { printer.access: [+laser] }\n"
    "  'visitor@': { printer.access: [-laser] }\n"
    "  'staff@': { print.colour: true, login.max_sessions: 5 }\n"
    "pools:\n"
    "  '@eng/cse': { print.pages: 1000 }\n"
    "accounts:\n"
    "  ann: [student@eng/cse]\n"
    "  vic: [visitor@eng/cse]\n"
    "  sam: [staff@eng]\n"
    "  tim: [{ cell: student@eng/cse, from: 2026-11-01 }]\n";

static void
put(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

/* Runs the test text: its exit and what it printed (out, n bytes). */
static int
run(const char *test, char *out, size_t n)
{
	char path[128], cfg[128];
	FILE *f = tmpfile();
	size_t got;
	int rc;

	assert_non_null(f);
	put("t.yaml", test);
	snprintf(path, sizeof(path), "%s/t.yaml", dir);
	snprintf(cfg, sizeof(cfg), "%s/privd.yaml", dir);
	rc = modeltest_run(path, cfg, f);
	rewind(f);
	got = fread(out, 1, n - 1, f);
	out[got] = '\0';
	fclose(f);
	return rc;
}

static int
setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/privd-modeltest.XXXXXX");
	if (mkdtemp(dir) == NULL)
		return -1;
	put("privd.yaml", config);
	put("model.yaml", model);
	return 0;
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Every kind of assertion, true of the model: exit 0. */
static void
a_true_model_passes(void **state)
{
	char out[4096];

	(void)state;
	assert_int_equal(run("model: model.yaml\n"
	    "now: 2026-10-01\n"
	    "expect:\n"
	    "  ann:\n"
	    "    print.pages: 300\n"
	    "    print.balance: 15.00\n"
	    "    print.colour: false\n"
	    "    printer.access: [laser]\n"
	    "    winner: { print.pages: student@eng/cse }\n"
	    "    pools: { print.pages: ['@eng/cse'] }\n"
	    "  vic:\n"
	    "    printer.access: { not: [laser] }\n"
	    "    refused: [printer.access=laser, print.colour]\n"
	    "  sam:\n"
	    "    print.balance: 500\n"
	    "    check: [print.colour, login.max_sessions=5, print.pages=50]\n"
	    "    refused: [login.max_sessions=6, print.pages=51]\n"
	    "    pools: { print.pages: [] }\n"
	    "  tim:\n"			/* a member from November only: nothing yet */
	    "    print.pages: 0\n", out, sizeof(out)), 0);
	assert_non_null(strstr(out, "17 passed, 0 failed"));
}

/* now decides dated memberships: tim is a student from November. */
static void
now_judges_dated_memberships(void **state)
{
	char out[4096];

	(void)state;
	assert_int_equal(run("model: model.yaml\nnow: 2026-11-02\n"
	    "expect: { tim: { print.pages: 300 } }\n", out, sizeof(out)), 0);
	assert_int_equal(run("model: model.yaml\nnow: 2026-10-31\n"
	    "expect: { tim: { print.pages: 300 } }\n", out, sizeof(out)), 1);
}

/* A wrong expectation: exit 1, its line, what was found, and the explain. */
static void
a_failure_says_why(void **state)
{
	char out[4096];

	(void)state;
	assert_int_equal(run("model: model.yaml\n"
	    "now: 2026-10-01\n"
	    "expect:\n"
	    "  ann:\n"
	    "    print.pages: 200\n"
	    "  vic:\n"
	    "    check: [printer.access=laser]\n"
	    "  sam:\n"
	    "    printer.access: [laser, colour]\n"
	    "    winner: { print.colour: '@' }\n"
	    "  nobody:\n"
	    "    print.colour: true\n", out, sizeof(out)), 1);
	assert_non_null(strstr(out, "FAIL "));
	assert_non_null(strstr(out, "t.yaml:5: ann: print.pages is 300, expected 200"));
	assert_non_null(strstr(out, "print.pages=300 on student@eng/cse (applied)"));
	assert_non_null(strstr(out, "print.pages=50 on @ (overridden, by student@eng/cse)"));
	assert_non_null(strstr(out, "t.yaml:7: vic: check printer.access=laser is refused, "
	    "expected allowed"));
	assert_non_null(strstr(out, "printer.access-=laser on visitor@ (applied)"));
	assert_non_null(strstr(out, "sam: printer.access: lacks colour"));
	assert_non_null(strstr(out, "sam: print.colour: no grant on @ gives the value"));
	assert_non_null(strstr(out, "t.yaml:11: nobody: no such account in the model"));
	assert_non_null(strstr(out, "1 passed, 5 failed"));
}

/* A bad test file is 2, and nothing is judged. */
static void
a_bad_test_file_is_2(void **state)
{
	char out[4096];

	(void)state;
	assert_int_equal(run("model: model.yaml\nexpect: { ann: { print.page: 300 } }\n", out,
	    sizeof(out)), 2);
	assert_int_equal(run("model: model.yaml\nexpct: {}\n", out, sizeof(out)), 2);
	assert_int_equal(run("expect: { ann: { print.pages: 300 } }\n", out, sizeof(out)), 2);
	assert_int_equal(run("model: missing.yaml\nexpect: {}\n", out, sizeof(out)), 2);
	assert_int_equal(run("model: model.yaml\nnow: someday\nexpect: {}\n", out, sizeof(out)), 2);
	assert_int_equal(run("model: model.yaml\nexpect: { ann: { print.pages: lots } }\n", out,
	    sizeof(out)), 2);
	assert_int_equal(run("model: model.yaml\nexpect: { ann: { printer.access: laser } }\n",
	    out, sizeof(out)), 2);
	assert_int_equal(run("model: model.yaml\nexpect: { ann: { check: [printer.access] } }\n",
	    out, sizeof(out)), 2);
	assert_int_equal(run("model: model.yaml\nexpect: { ann: { pools: { print.colour: [] } } }\n",
	    out, sizeof(out)), 2);
	assert_int_equal(run("model: model.yaml\nexpect: [\n", out, sizeof(out)), 2);
	/* a model the import would refuse */
	put("broken.yaml", "grants: { 'student@nowhere': { print.pages: 1 } }\n");
	assert_int_equal(run("model: broken.yaml\nexpect: {}\n", out, sizeof(out)), 2);
	assert_string_equal(out, "");
}

FX_GROUP("modeltest", setup, teardown,
	cmocka_unit_test(a_true_model_passes),
	cmocka_unit_test(now_judges_dated_memberships),
	cmocka_unit_test(a_failure_says_why),
	cmocka_unit_test(a_bad_test_file_is_2),
)
