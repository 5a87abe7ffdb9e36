/*
 * test_echo.c - names that come back in error messages: a corpus of 600
 * names (a letter, then 0-39 of one of 15 kinds of character: two-, three-
 * and four-byte UTF-8, their first bytes alone, bytes of no character,
 * control bytes, quotes, backslashes) through every field that privd echoes,
 * in YAML, JSON and the path. Each answer must be a 4xx whose body is a JSON
 * error (or, for a name that is a good one, a JSON success): never a 5xx,
 * never an empty body, never text jansson refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "harness.h"

static const char *const kinds[] = {
	"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9d\x84\x9e", "\xc3", "\xe2\x82", "\xf0\x9d\x84",
	"\xff", "\x80", "\x01", "\x7f", "\"", "\\", "'", "%", "a",
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))
#define NLENS 40

static int
setup(void **state)
{
	return it_group_setup_model(state,
	    "reasons: { student: { undergrad: {} } }\norganisations: { lab: {} }\n"
	    "grants:\n  \"student@\": { print.pages: 100 }\n"
	    "accounts:\n  jdoe: [student/undergrad@lab]\n");
}

/* name number i of the corpus into out */
static void
corpus(size_t i, char *out, size_t n)
{
	size_t kind = i % NKINDS, len = i / NKINDS, k = 0, j;

	out[k++] = 'a';
	for (j = 0; j < len && k + 5 < n; j++)
		k += (size_t)snprintf(out + k, n - k, "%s", kinds[kind]);
	out[k] = '\0';
}

/* s quoted for a YAML or JSON double-quoted string (both take \" \\ \u00XX) */
static void
quoted(const char *s, char *out, size_t n)
{
	size_t k = 0;

	for (; *s && k + 8 < n; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			k += (size_t)snprintf(out + k, n - k, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			k += (size_t)snprintf(out + k, n - k, "\\u%04x", c);
		else
			out[k++] = (char)c;
	}
	out[k] = '\0';
}

/* s with every byte that is not unreserved %-escaped, for a path segment */
static void
escaped(const char *s, char *out, size_t n)
{
	size_t k = 0;

	for (; *s && k + 4 < n; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-')
			out[k++] = (char)c;
		else
			k += (size_t)snprintf(out + k, n - k, "%%%02X", c);
	}
	out[k] = '\0';
}

static int bad, refused;

static void
answer_is_a_json_error(const char *what, size_t i, long st, const char *text)
{
	json_t *j = text ? json_loads(text, 0, NULL) : NULL;

	refused += st >= 400;
	/* a name that is a good one (a, aaa) may be taken; any other is a 4xx */
	if (st < 200 || st > 499 || !json_is_object(j) || (st >= 400 &&
	    (!json_is_string(json_object_get(j, "error")) ||
	    !json_is_string(json_object_get(j, "message"))))) {
		if (bad++ < 5)
			fprintf(stderr, "echo: %s, name %zu: %ld %.200s\n", what, i, st,
			    text ? text : "(no body)");
	}
	json_decref(j);
}

static void
every_echoing_field_answers_json(void **state)
{
	char name[300], q[2000], e[1000], body[2400], path[1200];
	size_t i, asked = 0;

	(void)state;
	for (i = 0; i < NKINDS * NLENS; i++) {
		long st;
		char *t;

		corpus(i, name, sizeof(name));
		quoted(name, q, sizeof(q));
		escaped(name, e, sizeof(e));

		snprintf(body, sizeof(body), "reasons: { \"%s\": {} }\n", q);
		t = it_request("POST", "/v1/import?dry_run=1", ADMIN_KEY, body, strlen(body), &st);
		answer_is_a_json_error("import reason", i, st, t);
		free(t);
		snprintf(body, sizeof(body), "reasons: { student: {} }\ngrants:\n"
		    "  \"student@%s\": { print.pages: 1 }\n", q);
		t = it_request("POST", "/v1/import?dry_run=1", ADMIN_KEY, body, strlen(body), &st);
		answer_is_a_json_error("import cell", i, st, t);
		free(t);
		snprintf(body, sizeof(body), "{\"cell\":\"%s@lab\",\"grants\":[\"print.pages=1\"]}", q);
		t = it_request("POST", "/v1/grants", ADMIN_KEY, body, strlen(body), &st);
		answer_is_a_json_error("grant cell", i, st, t);
		free(t);
		snprintf(body, sizeof(body), "{\"cell\":\"student@lab\",\"grants\":[\"%s=1\"]}", q);
		t = it_request("POST", "/v1/grants", ADMIN_KEY, body, strlen(body), &st);
		answer_is_a_json_error("grant privilege", i, st, t);
		free(t);
		snprintf(body, sizeof(body), "{\"request_id\":\"%s\",\"amount\":1}", q);
		t = it_request("POST", "/v1/accounts/jdoe/quotas/print.pages/charges", CHARGE_KEY,
		    body, strlen(body), &st);
		answer_is_a_json_error("charge request_id", i, st, t);
		free(t);
		snprintf(path, sizeof(path), "/v1/accounts/%s/privileges", e);
		t = it_request("GET", path, READ_KEY, NULL, 0, &st);
		answer_is_a_json_error("account in the path", i, st, t);
		free(t);
		snprintf(path, sizeof(path), "/v1/accounts/jdoe/quotas/%s", e);
		t = it_request("GET", path, READ_KEY, NULL, 0, &st);
		answer_is_a_json_error("quota in the path", i, st, t);
		free(t);
		asked += 7;
	}
	fprintf(stderr, "echo: %zu names, %zu requests through 7 echoing fields: %d refused, "
	    "%d answers neither taken nor a JSON 4xx\n", NKINDS * NLENS, asked, refused, bad);
	assert_int_equal(bad, 0);
	assert_true(refused > (int)asked / 2);
	assert_true(it_ready());
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_echoing_field_answers_json),
	};

	return cmocka_run_group_tests(tests, setup, it_group_teardown);
}
