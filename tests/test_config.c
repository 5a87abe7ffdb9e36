/* test_config.c - the configuration parser: good files, and file:line errors for bad ones. */
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
#include "config.h"

#define BASE \
	"ldap:\n" \
	"  uri: ldap://127.0.0.1/\n" \
	"  base: ou=privileges,dc=example,dc=edu\n" \
	"  people: ou=people,dc=example,dc=edu\n"
#define PRIVS \
	"privileges:\n" \
	"  print.pages: { type: quota, period: week }\n"

static struct cfg *
parse(const char *text, struct err *e)
{
	struct cfg *c = NULL;

	memset(e, 0, sizeof(*e));
	if (cfg_parse(text, strlen(text), "t.yaml", &c, e) != 0)
		return NULL;
	return c;
}

/* Fails to parse, at line, with a message containing want. */
static void
refused(const char *text, int line, const char *want)
{
	struct err e;
	struct cfg *c = parse(text, &e);

	if (c != NULL) {
		cfg_free(c);
		fail_msg("accepted: %s", text);
	}
	assert_int_equal(e.code, ERR_INVALID);
	if (strstr(e.msg, want) == NULL)
		fail_msg("message '%s' lacks '%s'", e.msg, want);
	assert_int_equal(e.line, line);
}

static void
full_config(void **state)
{
	const char *text =
	    "http:\n"
	    "  listen: '[::1]:9090'\n"
	    "  threads: 4\n"
	    "  max_body: 2048\n"
	    "  metrics_public: true\n"
	    BASE
	    "  bind_dn: cn=privd,dc=example,dc=edu\n"
	    "  bind_password: s3cret\n"
	    "  uid_attribute: sAMAccountName\n"
	    "  create_people: yes\n"
	    "  away_allowance: 20\n"
	    "model: { reasons_leaf_only: false }\n"
	    "privileges:\n"
	    "  print.pages: { type: quota, period: term, combine: sum }\n"
	    "  print.colour: { type: flag }\n"
	    "  printer.access: { type: set }\n"
	    "  login.max_sessions: { type: number, combine: min }\n"
	    "terms:\n"
	    "  - { name: 2026T1, start: 2026-02-16, end: 2026-05-15 }\n"
	    "  - { name: 2026T2, start: 2026-06-01, end: 2026-08-28 }\n"
	    "keys:\n"
	    "  - name: printers\n"
	    "    sha256: ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n"
	    "    scopes: [read, charge]\n";
	struct err e;
	struct cfg *c = parse(text, &e);

	(void)state;
	if (c == NULL)
		fail_msg("%d: %s", e.line, e.msg);
	assert_string_equal(c->listen_host, "::1");
	assert_int_equal(c->listen_port, 9090);
	assert_int_equal(c->threads, 4);
	assert_int_equal(c->max_body, 2048);
	assert_true(c->metrics_public);
	assert_string_equal(c->bind_password, "s3cret");
	assert_string_equal(c->uid_attr, "sAMAccountName");
	assert_true(c->create_people);
	assert_int_equal(c->away_allowance, 20);
	assert_false(c->reason_leaf_only);
	assert_int_equal(c->nprivs, 4);
	assert_int_equal(c->privs[0].type, PRIV_QUOTA);
	assert_int_equal(c->privs[0].period, PERIOD_TERM);
	assert_int_equal(c->privs[0].combine, COMBINE_SUM);
	assert_int_equal(c->privs[3].combine, COMBINE_MIN);
	assert_int_equal(c->privs[1].period, PERIOD_NONE);
	assert_int_equal(c->nterms, 2);
	assert_int_equal(c->terms[0].start, cfg_days_from_civil(2026, 2, 16));
	assert_int_equal(c->nkeys, 1);
	assert_int_equal(c->keys[0].scopes, SCOPE_READ | SCOPE_CHARGE);
	assert_int_equal(c->keys[0].sha256[0], 0xba);
	assert_int_equal(c->keys[0].sha256[31], 0xad);
	cfg_free(c);
}

static void
defaults(void **state)
{
	struct err e;
	struct cfg *c = parse(BASE PRIVS, &e);

	(void)state;
	assert_non_null(c);
	assert_string_equal(c->listen_host, "127.0.0.1");
	assert_int_equal(c->listen_port, 8080);
	assert_int_equal(c->max_body, 1024 * 1024);
	assert_string_equal(c->uid_attr, "uid");
	assert_true(c->reason_leaf_only);
	assert_false(c->create_people);
	assert_int_equal(c->away_allowance, 0);
	assert_false(c->metrics_public);
	assert_int_equal(c->privs[0].combine, COMBINE_MAX);
	assert_int_equal(c->session_ttl_s, 12 * 3600);
	cfg_free(c);
	c = parse(BASE PRIVS "sessions:\n  ttl: 600\n", &e);
	assert_non_null(c);
	assert_int_equal(c->session_ttl_s, 600);
	cfg_free(c);
}

static void
unknown_keys(void **state)
{
	(void)state;
	refused(BASE PRIVS "colour: blue\n", 7, "unknown key 'colour' in the top level");
	refused("ldap:\n  uri: ldap://x/\n  bsae: dc=x\n", 3, "unknown key 'bsae' in ldap");
	refused(BASE "privileges:\n  p: { type: flag, colour: red }\n", 6, "unknown key 'colour'");
}

static void
bad_types(void **state)
{
	(void)state;
	refused("http:\n  threads: many\n" BASE PRIVS, 2, "http.threads: expected a whole number");
	refused("http:\n  threads: 0\n" BASE PRIVS, 2, "out of range");
	refused("http: [1, 2]\n" BASE PRIVS, 1, "http: expected a mapping");
	refused("http:\n  metrics_public: maybe\n" BASE PRIVS, 2, "expected true or false");
	refused("http:\n  listen: localhost\n" BASE PRIVS, 2, "expected HOST:PORT");
	refused("ldap:\n  uri: http://x/\n", 2, "not an ldap://");
	refused("ldap:\n  uri: ldap://x/\n  base: not a dn\n", 3, "not a valid DN");
	refused(BASE "privileges:\n  p: { type: counter }\n", 6, "unknown value 'counter'");
}

/* several providers: a list, kept in libldap's list form */
static void
write_providers(void **state)
{
	struct err e;
	struct cfg *c;

	(void)state;
	c = parse(BASE "  write_uri: [ldap://p1.example.edu/, ldaps://p2.example.edu:636/]\n" PRIVS,
	    &e);
	assert_non_null(c);
	assert_string_equal(c->write_uri, "ldap://p1.example.edu/ ldaps://p2.example.edu:636/");
	cfg_free(c);
	c = parse(BASE "  write_uri: ldap://p1.example.edu/\n" PRIVS, &e);
	assert_non_null(c);
	assert_string_equal(c->write_uri, "ldap://p1.example.edu/");
	cfg_free(c);
	refused(BASE "  write_uri: [ldap://p1/, http://p2/]\n" PRIVS, 5, "each provider must be one");
	refused(BASE "  write_uri: []\n" PRIVS, 5, "give 1 to 8 providers");
	refused(BASE "  write_uri: [ldap://a/, ldap://b/, ldap://c/, ldap://d/, ldap://e/, "
	    "ldap://f/, ldap://g/, ldap://h/, ldap://i/]\n" PRIVS, 5, "give 1 to 8 providers");
}

static void
money_quotas(void **state)
{
	struct err e;
	struct cfg *c;

	(void)state;
	c = parse(BASE "privileges:\n  b: { type: money, currency: AUD, period: month }\n"
	    "  p: { type: quota, period: week }\n", &e);
	assert_non_null(c);
	assert_int_equal(c->privs[0].type, PRIV_QUOTA);
	assert_string_equal(c->privs[0].currency, "AUD");
	assert_string_equal(cfg_priv_type(&c->privs[0]), "money");
	assert_string_equal(c->privs[1].currency, "");
	assert_string_equal(cfg_priv_type(&c->privs[1]), "quota");
	cfg_free(c);
	refused(BASE "privileges:\n  b: { type: money, period: week }\n", 6, "needs a currency");
	refused(BASE "privileges:\n  b: { type: money, currency: aud, period: week }\n", 6,
	    "three capital letters");
	refused(BASE "privileges:\n  b: { type: quota, currency: AUD, period: week }\n", 6,
	    "currency is only for type money");
	refused(BASE "privileges:\n  b: { type: money, currency: AUD }\n", 6, "needs a period");
}

/* Two wallets and notices: draw order, thresholds, the notify section. */
static void
wallets_and_notices(void **state)
{
	struct err e;
	struct cfg *c;

	(void)state;
	c = parse(BASE "privileges:\n  b: { type: money, currency: AUD, period: month, "
	    "draw: paid_first, notify: [20%, 0] }\n  p: { type: quota, period: week }\n", &e);
	assert_non_null(c);
	assert_true(c->privs[0].paid_first);
	assert_int_equal(c->privs[0].nnotify, 2);
	assert_true(c->privs[0].notify[0].percent);
	assert_int_equal(c->privs[0].notify[0].value, 20);
	assert_false(c->privs[0].notify[1].percent);
	assert_int_equal(c->privs[0].notify[1].value, 0);
	assert_false(c->privs[1].paid_first);
	assert_null(c->notify.smtp);
	cfg_free(c);
	refused(BASE "privileges:\n  b: { type: flag, draw: paid_first }\n", 6,
	    "draw (allowance_first or paid_first) is only for quotas");
	refused(BASE "privileges:\n  b: { type: quota, period: week, draw: both }\n", 6,
	    "draw");
	refused(BASE "privileges:\n  b: { type: quota, period: week, notify: [120%] }\n", 6,
	    "notify is a list of thresholds");
	refused(BASE "privileges:\n  b: { type: quota, period: week, notify: 20% }\n", 6,
	    "notify is a list of thresholds");
	refused(BASE "privileges:\n  b: { type: set, notify: [0] }\n", 6,
	    "notify (thresholds such as [20%, 0]) is only for quotas");
	refused(BASE PRIVS "notify:\n  smtp: mail.example.edu\n", 8,
	    "an SMTP URL");
	refused(BASE PRIVS "notify:\n  smtp: smtp://127.0.0.1\n  from: nobody\n", 9,
	    "notify.from: an address");
	refused(BASE PRIVS "notify:\n  smtp: smtp://127.0.0.1\n  from: a@b.c\n"
	    "  templates: /nonexistent\n", 10, "cannot read /nonexistent/low.txt");
	refused(BASE PRIVS "notify:\n  smtp: smtp://127.0.0.1\n  from: a@b.c\n", 8,
	    "needs smtp, from and templates");
	refused(BASE PRIVS "keys:\n  - { name: k, sha256: "
	    "9ccbefb574d7bba7bea3e320d3dfaaa63167461cff2bb215f77269bf7d494416, scopes: [pay] }\n",
	    8, "read, charge, admin, topup");
}

static void
missing_values(void **state)
{
	(void)state;
	refused(PRIVS, 1, "ldap: missing section");
	refused("ldap:\n  base: dc=x\n  people: dc=y\n" PRIVS, 2, "ldap.uri: missing");
	refused(BASE, 1, "privileges: missing section");
	refused(BASE "privileges:\n  p: { combine: max }\n", 6, "missing type");
	refused(BASE "privileges:\n  p: { type: quota }\n", 6, "a quota needs a period");
	refused(BASE "  bind_dn: cn=x\n" PRIVS, 2, "bind_dn needs bind_password");
}

static void
inconsistent_values(void **state)
{
	(void)state;
	refused(BASE "privileges:\n  p:\n    type: flag\n    combine: max\n", 8,
	    "combine is only for number and quota");
	refused(BASE "privileges:\n  p:\n    type: set\n    period: week\n", 8,
	    "period is only for quotas");
	refused(BASE "privileges:\n  p: { type: quota, period: term }\n", 1,
	    "no terms are defined");
	refused(BASE PRIVS "terms:\n  - { name: a, start: 2026-01-01, end: 2026-02-01 }\n"
	    "  - { name: b, start: 2026-02-01, end: 2026-03-01 }\n", 9, "overlaps");
	refused(BASE PRIVS "terms:\n  - { name: a, start: 2026-03-01, end: 2026-02-01 }\n", 8,
	    "ends before it starts");
	refused(BASE PRIVS "terms:\n  - { name: a, start: 2026-02-30, end: 2026-03-01 }\n", 8,
	    "expected a date");
	refused(BASE PRIVS "terms:\n  - { name: a, start: 2027-02-29, end: 2027-03-01 }\n", 8,
	    "not a leap year");
	refused(BASE PRIVS "http: {}\nhttp: {}\n", 8, "given twice");
	refused(BASE PRIVS "imports:\n  stale_after: 0\n", 8, "imports.stale_after: 0 is out of range");
	refused(BASE PRIVS "imports:\n  stale: 5\n", 8, "unknown key 'stale' in imports");
	refused(BASE PRIVS "sessions:\n  ttl: 5\n", 8, "sessions.ttl: 5 is out of range");
	refused(BASE PRIVS "sessions:\n  max: 5\n", 8, "unknown key 'max' in sessions");
	refused("ldap:\n  uri: ldap://x/\n  bulk_timeout: never\n", 3,
	    "ldap.bulk_timeout: expected a whole number");
	refused("ldap:\n  uri: ldap://x/\n  away_allowance: -1\n", 3,
	    "ldap.away_allowance: -1 is out of range");
}

static void
bad_keys(void **state)
{
	(void)state;
	refused(BASE PRIVS "keys:\n  - { name: k, sha256: abc, scopes: [read] }\n", 8, "64 hex digits");
	refused(BASE PRIVS "keys:\n  - { name: k, sha256: zz16bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad, scopes: [read] }\n",
	    8, "64 hex digits");
	refused(BASE PRIVS "keys:\n  - { name: k, sha256: ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad, scopes: [write] }\n",
	    8, "unknown value 'write'");
	refused(BASE PRIVS "keys:\n  - { name: k, scopes: [read] }\n", 8, "needs name, sha256 and scopes");
}

static void
yaml_syntax_error(void **state)
{
	(void)state;
	refused(BASE "privileges: {\n  p: [\n", 7, "YAML syntax");
	refused("", 1, "empty document");
}

static void
password_file(void **state)
{
	char path[] = "/tmp/privd-test-pw-XXXXXX";
	int fd = mkstemp(path);
	char text[512];
	struct err e;
	struct cfg *c;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "from-file\n", 10), 10);
	close(fd);
	snprintf(text, sizeof(text), BASE "  bind_dn: cn=p\n  bind_password_file: %s\n" PRIVS, path);
	c = parse(text, &e);
	unlink(path);
	assert_non_null(c);
	assert_string_equal(c->bind_password, "from-file");
	cfg_free(c);
	refused(BASE "  bind_password_file: /nonexistent/pw\n" PRIVS, 5, "cannot read");
}

/* The repository's development secrets are refused unless development:
 * true, which is itself refused off loopback; both name the line. */
static void
development_secrets(void **state)
{
	struct cfg *c;
	struct err e;

	(void)state;
	refused(BASE PRIVS "keys:\n  - { name: k, scopes: [read], sha256: "
	    "dfee8c6f066fd702cbd519d6d2612d9dcebb9799a46ce1f47a0a6a6a5e2b82c7 }\n", 8,
	    "development secrets");
	refused("ldap:\n  uri: ldap://127.0.0.1/\n  base: ou=p,dc=x\n  people: ou=people,dc=x\n"
	    "  bind_dn: cn=privd,dc=x\n  bind_password: privd-dev-secret\n" PRIVS, 6,
	    "development secrets");
	refused(BASE PRIVS "ui:\n  dir: /tmp\n  token_key: dev-ui-2f9c71e04ab85d63c1e7f0a94b2d8e56\n",
	    9, "ui.token_key: this is one of the development secrets");
	c = parse("development: true\n" BASE PRIVS "keys:\n  - { name: k, scopes: [read], sha256: "
	    "dfee8c6f066fd702cbd519d6d2612d9dcebb9799a46ce1f47a0a6a6a5e2b82c7 }\n", &e);
	assert_non_null(c);
	assert_true(c->development);
	cfg_free(c);
	refused("development: true\nhttp:\n  listen: 0.0.0.0:8080\n" BASE PRIVS, 1,
	    "loopback only");
	assert_true(cfg_loopback("127.0.0.1") && cfg_loopback("::1"));
	assert_false(cfg_loopback("10.0.0.1"));
}

static void
token_key_file(void **state)
{
	char path[] = "/tmp/privd-tk.XXXXXX", text[512];
	struct cfg *c;
	struct err e;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "0123456789abcdef0123456789abcdef\n", 33), 33);
	close(fd);
	snprintf(text, sizeof(text), BASE PRIVS "ui:\n  dir: /tmp\n  token_key_file: %s\n", path);
	c = parse(text, &e);
	assert_non_null(c);
	assert_string_equal(c->ui_token_key, "0123456789abcdef0123456789abcdef");
	cfg_free(c);
	snprintf(text, sizeof(text), BASE PRIVS "ui:\n  dir: /tmp\n  token_key_file: %s\n"
	    "  token_key: 0123456789abcdef0123456789abcdef\n", path);
	refused(text, 10, "not both");
	unlink(path);
	refused(BASE PRIVS "ui:\n  dir: /tmp\n  token_key_file: /nonexistent/key\n", 9,
	    "ui.token_key_file: cannot read '/nonexistent/key'");
}

FX_MAIN("config",
    cmocka_unit_test(full_config),
    cmocka_unit_test(defaults),
    cmocka_unit_test(unknown_keys),
    cmocka_unit_test(bad_types),
    cmocka_unit_test(write_providers),
    cmocka_unit_test(money_quotas),
    cmocka_unit_test(wallets_and_notices),
    cmocka_unit_test(missing_values),
    cmocka_unit_test(inconsistent_values),
    cmocka_unit_test(bad_keys),
    cmocka_unit_test(yaml_syntax_error),
    cmocka_unit_test(password_file),
    cmocka_unit_test(development_secrets),
    cmocka_unit_test(token_key_file))
