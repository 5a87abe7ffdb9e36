/* test_body.c - request bodies checked field by field, errors naming the field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "body.h"
#include "quota.h"

static const char *const allowed[] = { "request_id", "amount", "metadata", "partial", NULL };

static json_t *
load(const char *text, struct err *e)
{
	memset(e, 0, sizeof(*e));
	return body_object(text, strlen(text), allowed, e);
}

static void
objects_only_with_known_fields(void **state)
{
	struct err e;

	(void)state;
	assert_null(load("", &e));
	assert_string_equal(e.key, "body");
	assert_null(load("[1]", &e));
	assert_string_equal(e.key, "body");
	assert_null(load("{\"amount\":1", &e));
	assert_non_null(strstr(e.msg, "not JSON"));
	assert_null(load("{\"amount\":1,\"amount\":2}", &e));
	assert_null(load("{\"colour\":true}", &e));
	assert_string_equal(e.key, "colour");
	json_decref(load("{\"amount\":1}", &e));
}

static void
fields_by_type_and_range(void **state)
{
	struct err e0;
	json_t *o = load("{\"request_id\":\"job-1\",\"amount\":12,\"partial\":true,"
	    "\"metadata\":{\"b\":1,\"a\":\"x\"}}", &e0);
	const char *id;
	long long n;
	char *meta;
	int b;
	struct err e;

	(void)state;
	memset(&e, 0, sizeof(e));
	assert_non_null(o);
	assert_int_equal(body_id(o, "request_id", 0, &id, &e), 0);
	assert_string_equal(id, "job-1");
	assert_int_equal(body_int(o, "amount", 1, 100, -1, &n, &e), 0);
	assert_int_equal(n, 12);
	assert_int_equal(body_int(o, "amount", 13, 100, -1, &n, &e), -1);
	assert_string_equal(e.key, "amount");
	assert_int_equal(body_int(o, "ttl_s", 1, 10, 5, &n, &e), 0);	/* absent: default */
	assert_int_equal(n, 5);
	assert_int_equal(body_int(o, "ttl_s", 1, 10, -1, &n, &e), -1);	/* absent: required */
	assert_int_equal(body_bool(o, "partial", &b, &e), 0);
	assert_true(b);
	assert_int_equal(body_meta(o, &meta, &e), 0);
	assert_string_equal(meta, "{\"a\":\"x\",\"b\":1}");	/* compact, keys sorted */
	free(meta);
	assert_int_equal(body_id(o, "charge_id", 1, &id, &e), 0);	/* optional */
	assert_null(id);
	json_decref(o);
	o = load("{\"request_id\":\"a b\",\"amount\":1.5,\"partial\":1,\"metadata\":[]}", &e);
	assert_int_equal(body_id(o, "request_id", 0, &id, &e), -1);
	assert_string_equal(e.key, "request_id");
	assert_int_equal(body_int(o, "amount", 1, 100, -1, &n, &e), -1);
	assert_int_equal(body_bool(o, "partial", &b, &e), -1);
	assert_string_equal(e.key, "partial");
	assert_int_equal(body_meta(o, &meta, &e), -1);
	assert_string_equal(e.key, "metadata");
	json_decref(o);
}

static void
strings_bounded(void **state)
{
	static const char *const a[] = { "reason", NULL };
	struct err e;
	const char *s;
	json_t *o = body_object("{\"reason\":\"thesis\"}", 19, a, &e);

	(void)state;
	assert_int_equal(body_str(o, "reason", 6, 1, &s, &e), 0);
	assert_string_equal(s, "thesis");
	assert_int_equal(body_str(o, "reason", 5, 1, &s, &e), -1);
	assert_int_equal(body_str(o, "other", 5, 0, &s, &e), 0);
	assert_null(s);
	json_decref(o);
	/* an embedded NUL is no string for privd */
	o = body_object("{\"reason\":\"a\\u0000b\"}", 21, a, &e);
	assert_int_equal(body_str(o, "reason", 100, 1, &s, &e), -1);
	json_decref(o);
}

FX_MAIN("body",
    cmocka_unit_test(objects_only_with_known_fields),
    cmocka_unit_test(fields_by_type_and_range),
    cmocka_unit_test(strings_bounded))
