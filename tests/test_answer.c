/* test_answer.c - the cached privileges answer: valid JSON, the resolved values, usage spliced in. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "answer.h"
#include "fixture.h"
#include "usage.h"

#define cfg fx_config

static void
answer_matches_resolution(void **state)
{
	const char *cells[] = { "student@|f=true|s+=b|s+=a|n=3|q=100", "@eng|s+=c|q=250", NULL };
	const char *accts[] = { "jdoe|student/undergrad@eng", NULL };
	struct snap *s = fx_snap(cfg, NULL, NULL, cells, accts);
	const struct snap_account *a = snap_account(s, "jdoe");
	struct usage_val u = { 40, 10, 5, 0, "20261203000000.000001Z#000000#000#000000" };
	char *t1, *t2;
	json_t *j, *p, *q;

	(void)state;
	usage_put("jdoe/q@all", &u);
	t1 = answer_privileges(s, a, 1);
	t2 = answer_privileges(s, a, 1);	/* the cached one */
	assert_non_null(t1);
	assert_string_equal(t1, t2);
	j = json_loads(t1, 0, NULL);
	if (j == NULL)
		fail_msg("not JSON: %s", t1);
	assert_string_equal(json_string_value(json_object_get(j, "account")), "jdoe");
	assert_true(json_is_true(json_object_get(j, "stale")));
	assert_int_equal(json_array_size(json_object_get(j, "memberships")), 1);
	p = json_object_get(j, "privileges");
	assert_int_equal(json_object_size(p), cfg->nprivs);
	assert_true(json_is_true(json_object_get(json_object_get(p, "f"), "value")));
	assert_int_equal(json_array_size(json_object_get(json_object_get(p, "s"), "value")), 3);
	assert_string_equal(json_string_value(json_array_get(json_object_get(json_object_get(p, "s"),
	    "value"), 0)), "a");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(p, "n"), "value")), 3);
	q = json_object_get(p, "q");
	/* max of 100 and 250, then the usage: 250 + 10 - 40 */
	assert_int_equal(json_integer_value(json_object_get(q, "limit")), 250);
	assert_int_equal(json_integer_value(json_object_get(q, "used")), 40);
	assert_int_equal(json_integer_value(json_object_get(q, "credit")), 10);
	assert_int_equal(json_integer_value(json_object_get(q, "held")), 5);
	assert_int_equal(json_integer_value(json_object_get(q, "remaining")), 220);
	assert_string_equal(json_string_value(json_object_get(q, "period")), "all");
	/* no grant: a limit of 0, nothing remaining */
	assert_int_equal(json_integer_value(json_object_get(json_object_get(p, "nmin"), "value")), 0);
	json_decref(j);
	free(t1);
	free(t2);
	/* usage changes show without a new snapshot */
	u.used = 250;
	strcpy(u.csn, "20261203000000.000002Z#000000#000#000000");
	usage_put("jdoe/q@all", &u);
	t1 = answer_privileges(s, a, 0);
	j = json_loads(t1, 0, NULL);
	q = json_object_get(json_object_get(j, "privileges"), "q");
	assert_int_equal(json_integer_value(json_object_get(q, "remaining")), 10);
	assert_true(json_is_false(json_object_get(j, "stale")));
	json_decref(j);
	free(t1);
	usage_clear();
	snap_free(s);
}

FX_GROUP("answer", fx_setup, fx_teardown,
    cmocka_unit_test(answer_matches_resolution))
