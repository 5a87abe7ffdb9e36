/* test_cfglive.c - a reload (cfglive.c): what changes, what waits for a restart and is named. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "cfglive.h"
#include "cfgread.h"
#include "config.h"

#define LDAP(uri, timeout) \
	"ldap:\n" \
	"  uri: " uri "\n" \
	"  timeout: " timeout "\n" \
	"  base: ou=privileges,dc=example,dc=edu\n" \
	"  people: ou=people,dc=example,dc=edu\n"
#define KEY_A "  - { name: a, sha256: " \
	"a76449cad3fedd4268b84c5c43e7e5fa6cf63096f6e057951a30f2a3a8d44f95, scopes: [read] }\n"
#define KEY_B "  - { name: b, sha256: " \
	"260992d077ce7d7f4ce2a538a6cf52359570e1cf51da027fc5c5e8273c513082, scopes: [admin] }\n"

static struct cfg *
parse(const char *text)
{
	struct cfg *c = NULL;
	struct err e;

	memset(&e, 0, sizeof(e));
	if (cfg_parse(text, strlen(text), "t.yaml", &c, &e) != 0)
		fail_msg("%d: %s", e.line, e.msg);
	return c;
}

static char said[512];

static void
note(const char *what)
{
	strncat(said, what, sizeof(said) - strlen(said) - 2);
	strcat(said, ";");
}

/* the first file's terms, privileges and keys */
#define FIRST_MODEL \
    "terms:\n" \
    "  - { name: T1, start: 2026-01-01, end: 2026-06-30 }\n" \
    "privileges:\n" \
    "  print.pages: { type: quota, period: term, notify: [20%] }\n" \
    "  print.colour: { type: flag }\n" \
    "keys:\n" KEY_A

static const char first[] =
    "http: { connection_limit: 100, max_body: 4096 }\n"
    LDAP("ldap://127.0.0.1/", "5")
    FIRST_MODEL;

/* Keys, terms, limits, thresholds and the log from the new file. */
static void
reloadable_settings_change(void **state)
{
	struct cfg *c = parse(first), *n;
	const struct cfg *now;
	struct err e;

	(void)state;
	said[0] = '\0';
	cfglive_start(c);
	assert_ptr_equal(cfglive_get(), c);
	n = parse("http: { connection_limit: 50, max_body: 8192 }\n"
	    LDAP("ldap://127.0.0.1/", "5")
	    "log: { level: debug, format: json }\n"
	    "terms:\n"
	    "  - { name: T1, start: 2026-01-01, end: 2026-03-31 }\n"
	    "  - { name: T2, start: 2026-04-01, end: 2026-06-30 }\n"
	    "privileges:\n"
	    "  print.pages: { type: quota, period: term, notify: [50%, 0] }\n"
	    "  print.colour: { type: flag }\n"
	    "keys:\n" KEY_B);
	memset(&e, 0, sizeof(e));
	assert_int_equal(cfglive_reload(n, note, &e), 0);
	now = cfglive_get();
	assert_ptr_not_equal(now, c);
	assert_string_equal(said, "");
	assert_int_equal(now->nkeys, 1);
	assert_string_equal(now->keys[0].name, "b");
	assert_int_equal(now->nterms, 2);
	assert_string_equal(now->terms[1].name, "T2");
	assert_int_equal(now->conn_limit, 50);
	assert_int_equal(now->max_body, 8192);
	assert_int_equal(now->log_debug, 1);
	assert_int_equal(now->log_json, 1);
	assert_int_equal(now->privs[0].nnotify, 2);
	assert_int_equal(now->privs[0].notify[0].value, 50);
	/* the one started with is untouched: a request may still read it */
	assert_int_equal(c->nkeys, 1);
	assert_string_equal(c->keys[0].name, "a");
	assert_int_equal(c->privs[0].nnotify, 1);
	cfglive_stop();
	assert_ptr_equal(cfglive_get(), c);
	cfg_free(c);
}

/* LDAP, privileges and a raised connection limit keep the started values, named. */
static void
restart_settings_are_named_and_kept(void **state)
{
	struct cfg *c = parse(first), *n;
	const struct cfg *now;
	struct err e;

	(void)state;
	said[0] = '\0';
	cfglive_start(c);
	n = parse("http: { connection_limit: 500 }\n"
	    LDAP("ldap://10.0.0.1/", "9")
	    "terms:\n"
	    "  - { name: T1, start: 2026-01-01, end: 2026-06-30 }\n"
	    "privileges:\n"
	    "  print.pages: { type: quota, period: week }\n"
	    "  print.colour: { type: flag }\n"
	    "keys:\n" KEY_A);
	memset(&e, 0, sizeof(e));
	assert_int_equal(cfglive_reload(n, note, &e), 0);
	now = cfglive_get();
	assert_non_null(strstr(said, "ldap.uri;"));
	assert_non_null(strstr(said, "ldap.timeout;"));
	assert_non_null(strstr(said, "privileges (a type, period"));
	assert_non_null(strstr(said, "http.connection_limit"));
	assert_string_equal(now->ldap_uri, "ldap://127.0.0.1/");
	assert_int_equal(now->ldap_timeout_s, 5);
	assert_int_equal(now->privs[0].period, PERIOD_TERM);
	assert_int_equal(now->conn_limit, 100);
	/* a second reload starts again from the started values */
	said[0] = '\0';
	n = parse(first);
	assert_int_equal(cfglive_reload(n, note, &e), 0);
	assert_string_equal(said, "");
	cfglive_stop();
	cfg_free(c);
}

/* Every row of the table of scalar settings says whether it reloads; only
 * numbers reload in place (a string's owner would have to move). */
static void
every_setting_says_whether_it_reloads(void **state)
{
	const struct cfgr_setting *t;
	size_t i, n;

	(void)state;
	t = cfg_settings(&n);
	assert_true(n > 30);
	for (i = 0; i < n; i++) {
		if (t[i].when != CFGR_RELOADS && t[i].when != CFGR_RESTART)
			fail_msg("%s does not say whether it reloads", t[i].name);
		if (t[i].when == CFGR_RELOADS && (t[i].type == CFGR_DN || t[i].type == CFGR_FILE))
			fail_msg("%s is a string marked to reload in place", t[i].name);
	}
}

/* The table decides a reload: a row that reloads is taken, one that waits is named. */
static void
the_table_decides_a_reload(void **state)
{
	struct cfg *c = parse(first), *n;
	const struct cfg *now;
	struct err e;

	(void)state;
	said[0] = '\0';
	cfglive_start(c);
	n = parse("http: { connection_limit: 100, max_body: 4096, request_timeout: 7, "
	    "connection_timeout: 9 }\n"
	    LDAP("ldap://127.0.0.1/", "5")
	    "sessions: { ttl: 600 }\n"
	    "ledger: { titles: drop }\n"
	    FIRST_MODEL);
	memset(&e, 0, sizeof(e));
	assert_int_equal(cfglive_reload(n, note, &e), 0);
	now = cfglive_get();
	assert_string_equal(said, "ledger.titles;sessions.ttl;");
	assert_int_equal(now->session_ttl_s, c->session_ttl_s);
	assert_int_equal(now->ledger_titles, c->ledger_titles);
	assert_int_equal(now->request_timeout_s, 7);
	assert_int_equal(now->conn_timeout_s, 9);
	cfglive_stop();
	cfg_free(c);
}

/* development: changes nothing while running. */
static void
development_needs_a_restart(void **state)
{
	struct cfg *c = parse(first), *n;
	struct err e;

	(void)state;
	cfglive_start(c);
	n = parse("development: true\n" LDAP("ldap://127.0.0.1/", "5")
	    "privileges:\n  print.colour: { type: flag }\n");
	memset(&e, 0, sizeof(e));
	assert_int_equal(cfglive_reload(n, note, &e), -1);
	assert_non_null(strstr(e.msg, "development"));
	assert_ptr_equal(cfglive_get(), c);
	cfglive_stop();
	cfg_free(c);
}

FX_MAIN("cfglive",
	cmocka_unit_test(reloadable_settings_change),
	cmocka_unit_test(restart_settings_are_named_and_kept),
	cmocka_unit_test(development_needs_a_restart),
	cmocka_unit_test(every_setting_says_whether_it_reloads),
	cmocka_unit_test(the_table_decides_a_reload),
)
