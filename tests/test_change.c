/* test_change.c - the states a change records: chg_put, chg_encode, chg_decode. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "change.h"

static void
round_trip(void **state)
{
	char *grants[] = { "print.pages=300", "printer.access+=eng-laser", "" };
	struct chg_list l = { NULL, 0, 0 };
	struct chg_obj o;
	char *s;

	(void)state;
	assert_int_equal(chg_put(&l, CHG_CELL, 1, "student@engineering/cse", grants, 3), 0);
	assert_int_equal(chg_put(&l, CHG_PERSON, 0, "jdoe", NULL, 0), 0);
	/* a membership that is not a cell of ours ("") is not kept */
	assert_int_equal(l.v[0].nvals, 2);
	s = chg_encode(&l.v[0]);
	assert_string_equal(s, "c+student@engineering/cse\tprint.pages=300\tprinter.access+=eng-laser");
	assert_int_equal(chg_decode(s, strlen(s), &o), 0);
	assert_int_equal(o.kind, CHG_CELL);
	assert_true(o.present);
	assert_string_equal(o.key, "student@engineering/cse");
	assert_int_equal(o.nvals, 2);
	assert_string_equal(o.vals[1], "printer.access+=eng-laser");
	chg_obj_free(&o);
	free(s);
	s = chg_encode(&l.v[1]);
	assert_string_equal(s, "p-jdoe");
	assert_int_equal(chg_decode(s, strlen(s), &o), 0);
	assert_int_equal(o.kind, CHG_PERSON);
	assert_false(o.present);
	assert_int_equal(o.nvals, 0);
	chg_obj_free(&o);
	free(s);
	chg_list_free(&l);
}

/* "@" (everyone) is a cell; an empty key is no other object */
static void
the_whole_model_cell(void **state)
{
	struct chg_obj o;

	(void)state;
	assert_int_equal(chg_decode("c+@\tprint.colour=true", 21, &o), 0);
	assert_string_equal(o.key, "@");
	chg_obj_free(&o);
	assert_int_equal(chg_decode("a+", 2, &o), -1);
	assert_int_equal(chg_decode("r-", 2, &o), -1);
}

static void
malformed(void **state)
{
	static const char *bad[] = { "", "c", "x+key", "c*key", "+ckey", NULL };
	struct chg_obj o;
	int i;

	(void)state;
	for (i = 0; bad[i]; i++)
		assert_int_equal(chg_decode(bad[i], strlen(bad[i]), &o), -1);
	/* the length bounds the value: no NUL needed, nothing read past it */
	assert_int_equal(chg_decode("a+jdoe\tcell@x", 6, &o), 0);
	assert_string_equal(o.key, "jdoe");
	assert_int_equal(o.nvals, 0);
	chg_obj_free(&o);
}

FX_MAIN("change",
    cmocka_unit_test(round_trip),
    cmocka_unit_test(the_whole_model_cell),
    cmocka_unit_test(malformed))
