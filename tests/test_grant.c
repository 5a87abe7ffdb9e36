/* test_grant.c - grant syntax, tree paths, cell names and uids. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "grant.h"
#include "path.h"

#define cfg fx_config

static void
good(const char *text, enum grant_op op, long long num, const char *elem,
    const char *canon)
{
	struct grant g;
	struct err e;

	if (grant_parse(cfg, text, &g, &e) != 0)
		fail_msg("%s: %s", text, e.msg);
	assert_int_equal(g.op, op);
	assert_int_equal(g.num, num);
	if (elem)
		assert_string_equal(g.elem, elem);
	else
		assert_null(g.elem);
	assert_string_equal(g.text, canon);
	grant_clear(&g);
}

static void
bad(const char *text, enum err_code code, const char *want)
{
	struct grant g;
	struct err e;

	if (grant_parse(cfg, text, &g, &e) == 0) {
		grant_clear(&g);
		fail_msg("accepted: %s", text);
	}
	assert_int_equal(e.code, code);
	if (strstr(e.msg, want) == NULL)
		fail_msg("'%s': message '%s' lacks '%s'", text, e.msg, want);
}

static void
grant_forms(void **state)
{
	(void)state;
	good("f=true", GRANT_SET, 1, NULL, "f=true");
	good("f=false", GRANT_SET, 0, NULL, "f=false");
	good("n=3", GRANT_SET, 3, NULL, "n=3");
	good("q=300", GRANT_SET, 300, NULL, "q=300");
	good("s+=eng-laser", GRANT_ADD, 0, "eng-laser", "s+=eng-laser");
	good("s-=colour.a3", GRANT_DEL, 0, "colour.a3", "s-=colour.a3");
}

static void
grant_errors(void **state)
{
	(void)state;
	bad("nope=1", ERR_NOT_FOUND, "unknown privilege 'nope'");
	bad("f", ERR_INVALID, "is not PRIV=VALUE");
	bad("=1", ERR_INVALID, "is not PRIV=VALUE");
	bad("f=yes", ERR_INVALID, "true or false");
	bad("f+=x", ERR_INVALID, "is a flag");
	bad("n=-1", ERR_INVALID, "whole number");
	bad("n=12abc", ERR_INVALID, "whole number");
	bad("n=99999999999999999999", ERR_INVALID, "whole number");
	bad("q=1000000000001", ERR_INVALID, "whole number");
	bad("n+=1", ERR_INVALID, "is a number");
	bad("s=x", ERR_INVALID, "is a set");
	bad("s+=", ERR_INVALID, "bad element");
	bad("s+=a b", ERR_INVALID, "bad element");
	bad("s+=(uid=*)", ERR_INVALID, "bad element");
}

static void
grant_from_import_values(void **state)
{
	struct grant g;
	struct err e;

	(void)state;
	assert_int_equal(grant_make(cfg, cfg_priv_find(cfg, "s"), "laser", &g, &e), 0);
	assert_int_equal(g.op, GRANT_ADD);
	assert_string_equal(g.text, "s+=laser");
	grant_clear(&g);
	assert_int_equal(grant_make(cfg, cfg_priv_find(cfg, "s"), "-laser", &g, &e), 0);
	assert_int_equal(g.op, GRANT_DEL);
	grant_clear(&g);
	assert_int_equal(grant_make(cfg, cfg_priv_find(cfg, "n"), "7", &g, &e), 0);
	assert_string_equal(g.text, "n=7");
	grant_clear(&g);
	assert_int_not_equal(grant_make(cfg, cfg_priv_find(cfg, "f"), "1", &g, &e), 0);
}

static void
paths(void **state)
{
	struct err e;

	(void)state;
	assert_int_equal(path_check("", "p", &e), 0);
	assert_int_equal(path_check("engineering/cse/comp-eng_2", "p", &e), 0);
	assert_int_not_equal(path_check("Engineering", "p", &e), 0);
	assert_int_not_equal(path_check("/engineering", "p", &e), 0);
	assert_int_not_equal(path_check("engineering//cse", "p", &e), 0);
	assert_int_not_equal(path_check("engineering/", "p", &e), 0);
	assert_int_not_equal(path_check("-x", "p", &e), 0);
	assert_int_not_equal(path_check("a,b", "p", &e), 0);
	assert_int_not_equal(path_check("a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q", "p", &e), 0);
	assert_true(path_covers("", "a/b"));
	assert_true(path_covers("a", "a/b"));
	assert_true(path_covers("a/b", "a/b"));
	assert_false(path_covers("a/b", "a"));
	assert_false(path_covers("eng", "engineering"));
	assert_int_equal(path_depth(""), 0);
	assert_int_equal(path_depth("a/b/c"), 3);
	assert_int_equal(path_parent_len("a/b/c"), 3);
	assert_int_equal(path_parent_len("a"), 0);
	assert_string_equal(path_leaf("a/b/c"), "c");
}

static void
cells(void **state)
{
	char r[PATH_MAX_LEN + 1], o[PATH_MAX_LEN + 1], out[CELL_MAX_LEN + 1];
	struct err e;

	(void)state;
	assert_int_equal(cell_split("student/undergrad@engineering/cse", r, o, &e), 0);
	assert_string_equal(r, "student/undergrad");
	assert_string_equal(o, "engineering/cse");
	assert_int_equal(cell_split("@", r, o, &e), 0);
	assert_string_equal(r, "");
	assert_string_equal(o, "");
	assert_int_equal(cell_split("student@", r, o, &e), 0);
	assert_int_not_equal(cell_split("student", r, o, &e), 0);
	assert_int_not_equal(cell_split("a@b@c", r, o, &e), 0);
	assert_int_not_equal(cell_split("a@B", r, o, &e), 0);
	assert_non_null(strstr(e.msg, "cell 'a@B'"));
	cell_join(out, "staff", "");
	assert_string_equal(out, "staff@");
}

static void
uids(void **state)
{
	struct err e;

	(void)state;
	assert_int_equal(uid_check("jdoe", &e), 0);
	assert_int_equal(uid_check("J.Doe-2_x", &e), 0);
	assert_int_not_equal(uid_check("", &e), 0);
	assert_int_not_equal(uid_check(".jdoe", &e), 0);
	assert_int_not_equal(uid_check("j*", &e), 0);
	assert_int_not_equal(uid_check("a,b", &e), 0);
	assert_int_not_equal(uid_check("a b", &e), 0);
}

FX_GROUP("grant", fx_setup, fx_teardown,
    cmocka_unit_test(grant_forms),
    cmocka_unit_test(grant_errors),
    cmocka_unit_test(grant_from_import_values),
    cmocka_unit_test(paths),
    cmocka_unit_test(cells),
    cmocka_unit_test(uids))
