/* test_away.c - the allowance of charges away from home, and counter swaps as a modify. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "away.h"
#include "wop.h"

/* each key has its own allowance, used up and given back */
static void
allowance(void **state)
{
	(void)state;
	away_clear();
	assert_int_equal(away_take("a/print.pages@2026T3", 3, 5), 0);
	assert_int_equal(away_take("a/print.pages@2026T3", 2, 5), 0);
	assert_int_equal(away_take("a/print.pages@2026T3", 1, 5), -1);
	/* another key is untouched */
	assert_int_equal(away_take("b/print.pages@2026T3", 5, 5), 0);
	/* a refused charge gives its amount back */
	assert_int_equal(away_take("a/print.pages@2026T3", -2, 5), 0);
	assert_int_equal(away_take("a/print.pages@2026T3", 2, 5), 0);
	assert_int_equal(away_take("a/print.pages@2026T3", 1, 5), -1);
	/* written at home again: whole again */
	away_forget("a/print.pages@2026T3");
	assert_int_equal(away_take("a/print.pages@2026T3", 5, 5), 0);
	/* allowance 0: nothing goes */
	assert_int_equal(away_take("c/print.pages@2026T3", 1, 0), -1);
	away_clear();
	assert_int_equal(away_take("b/print.pages@2026T3", 5, 5), 0);
	away_clear();
}

/* a swap is a delete of the old value and an add of the new one, never
 * an increment; no change, no modification */
static void
swap(void **state)
{
	struct wop o;

	(void)state;
	memset(&o, 0, sizeof(o));
	assert_int_equal(wop_swap(&o, "privUsed", 7, 9), 0);
	assert_int_equal(o.nmod, 2);
	assert_int_equal(o.mod[0].mod_op, LDAP_MOD_DELETE);
	assert_string_equal(o.mod[0].mod_type, "privUsed");
	assert_string_equal(o.mod[0].mod_values[0], "7");
	assert_int_equal(o.mod[1].mod_op, LDAP_MOD_ADD);
	assert_string_equal(o.mod[1].mod_values[0], "9");
	assert_int_equal(wop_swap(&o, "privHeld", 4, 4), 0);
	assert_int_equal(o.nmod, 2);
	assert_int_equal(wop_swap(&o, "privHeld", 4, -1), 0);
	assert_string_equal(o.mod[3].mod_values[0], "-1");
	/* full: refused whole, not half written */
	assert_int_equal(wop_swap(&o, "privCredit", 0, 1), 0);
	assert_int_equal(wop_swap(&o, "privCredit", 1, 2), 0);
	assert_int_equal(o.nmod, WOP_MODS);
	assert_int_equal(wop_swap(&o, "privUsed", 9, 10), -1);
	assert_int_equal(o.nmod, WOP_MODS);
	wop_free(&o);
}

FX_MAIN("away",
    cmocka_unit_test(allowance),
    cmocka_unit_test(swap))
