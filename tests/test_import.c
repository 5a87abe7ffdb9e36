/* test_import.c - the import format: the demo file, and errors that name line and key. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config.h"
#include "import.h"

static struct cfg *cfg;

static int
setup(void **state)
{
	struct err e;

	(void)state;
	if (cfg_load("config/dev.yaml", &cfg, &e) != 0)
		fail_msg("config/dev.yaml:%d: %s", e.line, e.msg);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	cfg_free(cfg);
	return 0;
}

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = malloc(1 << 20);

	assert_non_null(f);
	assert_non_null(buf);
	*len = fread(buf, 1, (1 << 20) - 1, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

static void
demo_file(void **state)
{
	struct import_doc d;
	struct err e;
	size_t len, i;
	char *text = slurp("config/demo.yaml", &len);
	int found = 0;

	(void)state;
	if (import_parse(cfg, text, len, &d, &e) != 0)
		fail_msg("demo.yaml:%d: %s", e.line, e.msg);
	free(text);
	assert_int_equal(import_check(cfg, &d, NULL, 0, NULL, 0, &e), 0);
	/* parents come before children, and internal nodes are listed */
	assert_string_equal(d.reasons[0].path, "staff");
	assert_string_equal(d.reasons[1].path, "staff/academic");
	for (i = 0; i < d.norgs; i++)
		found += strcmp(d.orgs[i].path, "engineering/cse/support/office") == 0;
	assert_int_equal(found, 1);
	for (i = 0; i < d.naccounts; i++)
		if (strcmp(d.accounts[i].uid, "bchen") == 0)
			assert_int_equal(d.accounts[i].ncells, 2);
	for (i = 0; i < d.ncells; i++)
		if (strcmp(d.cells[i].name, "visitor@") == 0) {
			assert_int_equal(d.cells[i].ngrants, 1);
			assert_string_equal(d.cells[i].grants[0].text, "printer.access-=eng-laser");
		}
	import_free(&d);
}

/* Parsing fails at line, naming key, with want in the message. */
static void
refused(const char *text, int line, const char *key, const char *want)
{
	struct import_doc d;
	struct err e;

	memset(&e, 0, sizeof(e));
	if (import_parse(cfg, text, strlen(text), &d, &e) == 0) {
		import_free(&d);
		fail_msg("accepted: %s", text);
	}
	if (strstr(e.msg, want) == NULL)
		fail_msg("message '%s' lacks '%s'", e.msg, want);
	assert_int_equal(e.line, line);
	if (key)
		assert_string_equal(e.key, key);
}

static void
parse_errors(void **state)
{
	(void)state;
	refused("grants:\n  \"student@\":\n    print.page: 3\n", 3, "print.page",
	    "unknown privilege 'print.page'");
	refused("grants:\n  \"student@\": { print.colour: maybe }\n", 2, NULL, "true or false");
	refused("grants:\n  \"student@\": { printer.access: [+ok, \"+bad one\"] }\n", 2, NULL,
	    "bad element");
	refused("grants:\n  \"student@\": { print.pages: [1, 2] }\n", 2, "print.pages", "not a set");
	refused("grants:\n  \"Student@\": {}\n", 2, "Student@", "bad character");
	refused("grants:\n  \"student\": {}\n", 2, NULL, "reason@organisation");
	refused("accounts:\n  \"j doe\": [\"@\"]\n", 2, "j doe", "bad character");
	refused("accounts:\n  jdoe: [\"student\"]\n", 2, NULL, "reason@organisation");
	refused("accounts:\n  jdoe: [\"a@b\", \"a@b\"]\n", 2, "a@b", "listed twice");
	refused("reasons:\n  staff: { Academic: {} }\n", 2, "Academic", "bad node name");
	refused("reasons:\n  staff: [a]\n", 2, NULL, "must hold a mapping");
	refused("colours: {}\n", 1, "colours", "unknown key 'colours'");
	refused("accounts:\n  jdoe: []\n  jdoe: []\n", 3, "jdoe", "given twice");
	refused("reasons: {\n", 2, NULL, "YAML syntax");
	refused("- a\n- b\n", 1, NULL, "is a mapping");
}

/* A pool's contacts ride beside its limits; anything but addresses is refused. */
static void
pool_contacts(void **state)
{
	const char *text = "pools:\n  \"@eng\": { print.pages: 20, contacts: [a@example.edu, "
	    "b@example.edu] }\n";
	struct import_doc d;
	struct err e;

	(void)state;
	if (import_parse(cfg, text, strlen(text), &d, &e) != 0)
		fail_msg("%d: %s", e.line, e.msg);
	assert_int_equal(d.ncells, 1);
	assert_int_equal(d.cells[0].ngrants, 1);
	assert_int_equal(d.cells[0].ncontacts, 2);
	assert_string_equal(d.cells[0].contacts[1], "b@example.edu");
	import_free(&d);
	refused("pools:\n  \"@eng\": { contacts: [someone] }\n", 2, "contacts",
	    "'someone' is not an address");
	refused("pools:\n  \"@eng\": { contacts: a@b.c }\n", 2, "contacts",
	    "a list of addresses");
	/* grants have no contacts */
	refused("grants:\n  \"@eng\": { contacts: [a@b.c] }\n", 2, "contacts",
	    "unknown privilege 'contacts'");
}

static void
check(const char *text, const char *const *reasons, size_t nr, int ok, const char *want)
{
	struct import_doc d;
	struct err e;
	int rc;

	if (import_parse(cfg, text, strlen(text), &d, &e) != 0)
		fail_msg("%d: %s", e.line, e.msg);
	memset(&e, 0, sizeof(e));
	rc = import_check(cfg, &d, reasons, nr, NULL, 0, &e);
	import_free(&d);
	if (ok) {
		if (rc != 0)
			fail_msg("refused: %s", e.msg);
		return;
	}
	assert_int_not_equal(rc, 0);
	if (strstr(e.msg, want) == NULL)
		fail_msg("message '%s' lacks '%s'", e.msg, want);
}

static void
check_against_directory(void **state)
{
	const char *have[] = { "staff", "staff/academic" };

	(void)state;
	/* a node the directory has is known, one in neither is not */
	check("accounts:\n  x: [\"staff/academic@\"]\n", have, 2, 1, NULL);
	check("accounts:\n  x: [\"student/undergrad@\"]\n", have, 2, 0, "unknown reason node");
	check("organisations: { eng: {} }\ngrants:\n  \"@eng/cse\": {}\n", NULL, 0, 0,
	    "unknown organisation node 'eng/cse'");
	/* non-leaf reasons refuse members, whether the child is in the file or LDAP */
	check("accounts:\n  x: [\"staff@\"]\n", have, 2, 0, "not a leaf");
	check("reasons: { visitor: { short: {} } }\naccounts:\n  x: [\"visitor@\"]\n", NULL, 0,
	    0, "not a leaf");
	check("accounts:\n  x: [\"@\"]\n", NULL, 0, 0, "not a leaf");
	/* grants may sit on internal nodes */
	check("grants:\n  \"staff@\": { print.pages: 3 }\n", have, 2, 1, NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(demo_file),
		cmocka_unit_test(parse_errors),
		cmocka_unit_test(pool_contacts),
		cmocka_unit_test(check_against_directory),
	};

	return cmocka_run_group_tests_name("import", tests, setup, teardown);
}
