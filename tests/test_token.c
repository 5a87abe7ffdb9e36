/* test_token.c - the web page's sign-in tokens and its ui configuration: signed, expiring, tamper-evident. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "config.h"
#include "token.h"

#define LDAP_PART \
	"ldap:\n  uri: ldap://127.0.0.1:1/\n  base: ou=p,dc=x\n  people: ou=people,dc=x\n" \
	"privileges:\n  q: { type: quota, period: never }\n"

static struct cfg *
parse(const char *text, struct err *e)
{
	struct cfg *c = NULL;

	memset(e, 0, sizeof(*e));
	if (cfg_parse(text, strlen(text), "/etc/privd/privd.yaml", &c, e) != 0)
		return NULL;
	return c;
}

static struct cfg *
ui_cfg(void)
{
	struct err e;
	struct cfg *c = parse(LDAP_PART "ui:\n  dir: web\n  token_key: "
	    "0123456789abcdef0123456789abcdef\n  token_ttl: 60\n  admins: [MWhite, root]\n", &e);

	if (c == NULL)
		fail_msg("%s", e.msg);
	return c;
}

static void
config_reads_ui(void **state)
{
	struct cfg *c = ui_cfg();

	(void)state;
	/* a relative dir is relative to the configuration file */
	assert_string_equal(c->ui_dir, "/etc/privd/web");
	assert_int_equal(c->ui_token_ttl_s, 60);
	assert_int_equal(c->nui_admins, 2);
	assert_true(token_admin(c, "mwhite"));
	assert_false(token_admin(c, "jdoe"));
	cfg_free(c);
}

static void
config_refuses_bad_ui(void **state)
{
	struct err e;

	(void)state;
	assert_null(parse(LDAP_PART "ui:\n  dir: web\n  token_key: short\n", &e));
	assert_int_equal(e.line, 9);
	assert_non_null(strstr(e.msg, "at least 32"));
	assert_null(parse(LDAP_PART "ui:\n  dir: web\n", &e));
	assert_non_null(strstr(e.msg, "needs dir and token_key"));
	assert_null(parse(LDAP_PART "ui:\n  dir: web\n  token_key: "
	    "0123456789abcdef0123456789abcdef\n  admins: [\"no body\"]\n", &e));
	assert_non_null(strstr(e.msg, "is not a uid"));
	assert_null(parse(LDAP_PART "ui:\n  dir: web\n  token_key: "
	    "0123456789abcdef0123456789abcdef\n  token_ttl: 5\n", &e));
	assert_non_null(strstr(e.msg, "out of range"));
	assert_null(parse(LDAP_PART "ui:\n  colour: blue\n", &e));
	assert_non_null(strstr(e.msg, "unknown key 'colour' in ui"));
}

static void
tokens_sign_and_expire(void **state)
{
	struct cfg *c = ui_cfg();
	char tok[TOKEN_MAX];
	struct token t;
	time_t exp;

	(void)state;
	assert_int_equal(token_make(c, "mwhite", 1, 1000, tok, &exp), 0);
	assert_int_equal(exp, 1060);
	assert_int_equal(token_check(c, tok, 1000, &t), 0);
	assert_string_equal(t.uid, "mwhite");
	assert_true(t.admin);
	assert_int_equal(t.expires, 1060);
	assert_int_equal(token_check(c, tok, 1059, &t), 0);
	/* expired at its expiry */
	assert_int_equal(token_check(c, tok, 1060, &t), -1);
	assert_int_equal(token_make(c, "j.doe-2", 0, 1000, tok, &exp), 0);
	assert_int_equal(token_check(c, tok, 1000, &t), 0);
	assert_string_equal(t.uid, "j.doe-2");
	assert_false(t.admin);
	/* no token for what is not a uid */
	assert_int_equal(token_make(c, "a~b", 0, 1000, tok, &exp), -1);
	cfg_free(c);
}

static void
tokens_resist_tampering(void **state)
{
	struct cfg *c = ui_cfg(), *other;
	char tok[TOKEN_MAX], forged[TOKEN_MAX];
	struct token t;
	struct err e;
	time_t exp;
	char *p;

	(void)state;
	assert_int_equal(token_make(c, "jdoe", 0, 1000, tok, &exp), 0);
	/* made an administrator: the signature no longer matches */
	snprintf(forged, sizeof(forged), "%s", tok);
	p = strstr(forged, "~0~");
	assert_non_null(p);
	p[1] = '1';
	assert_int_equal(token_check(c, forged, 1000, &t), -1);
	/* another uid, a later expiry, a flipped signature digit, garbage */
	snprintf(forged, sizeof(forged), "%s", tok);
	forged[4] = 'k';
	assert_int_equal(token_check(c, forged, 1000, &t), -1);
	snprintf(forged, sizeof(forged), "%s", tok);
	p = strrchr(forged, '~');
	p[1] = p[1] == 'a' ? 'b' : 'a';
	assert_int_equal(token_check(c, forged, 1000, &t), -1);
	assert_int_equal(token_check(c, "", 1000, &t), -1);
	assert_int_equal(token_check(c, "pt1~jdoe~0~99999999999~", 1000, &t), -1);
	/* another key does not take it */
	other = parse(LDAP_PART "ui:\n  dir: web\n  token_key: "
	    "fedcba9876543210fedcba9876543210\n", &e);
	assert_non_null(other);
	assert_int_equal(token_check(other, tok, 1000, &t), -1);
	cfg_free(other);
	cfg_free(c);
}

/* A reload's key and administrators replace the configuration's: tokens
 * signed with the old key stop, a removed administrator is one no more. */
static void
reload_rotates_the_key_and_the_admins(void **state)
{
	struct cfg *c = ui_cfg(), *n;
	char tok[TOKEN_MAX];
	struct token t;
	struct err e;
	time_t exp;

	(void)state;
	assert_int_equal(token_use(c), 0);
	assert_int_equal(token_make(c, "mwhite", 1, 1000, tok, &exp), 0);
	assert_int_equal(token_check(c, tok, 1001, &t), 0);
	assert_true(token_admin(c, "mwhite"));
	n = parse(LDAP_PART "ui:\n  dir: web\n  token_key: "
	    "fedcba9876543210fedcba9876543210\n  admins: [root]\n", &e);
	assert_non_null(n);
	assert_int_equal(token_use(n), 0);
	cfg_free(n);
	/* c still holds the old key: what is in force is the reloaded one */
	assert_int_equal(token_check(c, tok, 1001, &t), -1);
	assert_false(token_admin(c, "mwhite"));
	assert_true(token_admin(c, "root"));
	assert_int_equal(token_make(c, "mwhite", 0, 1000, tok, &exp), 0);
	assert_int_equal(token_check(c, tok, 1001, &t), 0);
	token_forget();
	/* back to each call's configuration */
	assert_int_equal(token_check(c, tok, 1001, &t), -1);
	assert_true(token_admin(c, "mwhite"));
	cfg_free(c);
}

FX_MAIN("token",
    cmocka_unit_test(config_reads_ui),
    cmocka_unit_test(config_refuses_bad_ui),
    cmocka_unit_test(tokens_sign_and_expire),
    cmocka_unit_test(tokens_resist_tampering),
    cmocka_unit_test(reload_rotates_the_key_and_the_admins))
