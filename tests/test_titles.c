/* test_titles.c - ledger.titles: a job's title kept, hashed or dropped before it reaches a ledger. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "ledger.h"

static char *
run(int policy, const char *meta)
{
	struct cfg *c = fx_cfg();
	char *m = meta ? strdup(meta) : NULL;

	c->ledger_titles = policy;
	assert_int_equal(ledger_titles(c, &m), 0);
	cfg_free(c);
	return m;
}

static void
keep_hash_drop(void **state)
{
	const char *meta = "{\"copies\":2,\"job\":\"7\",\"title\":\"alice-copies\"}";
	char *a, *b, *other;

	(void)state;
	a = run(CFG_TITLES_KEEP, meta);
	assert_string_equal(a, meta);
	free(a);
	a = run(CFG_TITLES_DROP, meta);
	assert_string_equal(a, "{\"copies\":2,\"job\":\"7\"}");
	free(a);
	a = run(CFG_TITLES_HASH, meta);
	b = run(CFG_TITLES_HASH, meta);
	other = run(CFG_TITLES_HASH, "{\"title\":\"bob-thesis\"}");
	/* no trace of the words; equal titles hash equal, others not */
	assert_null(strstr(a, "alice"));
	assert_non_null(strstr(a, "\"title\":\"sha256:"));
	assert_string_equal(a, b);
	assert_string_not_equal(strstr(a, "sha256:"), strstr(other, "sha256:"));
	assert_non_null(strstr(a, "\"copies\":2"));
	free(a);
	free(b);
	free(other);
}

static void
nothing_to_change(void **state)
{
	char *a;

	(void)state;
	assert_null(run(CFG_TITLES_HASH, NULL));
	a = run(CFG_TITLES_DROP, "{\"job\":\"7\"}");
	assert_string_equal(a, "{\"job\":\"7\"}");
	free(a);
	/* a title that is not a string is not a job title: left alone */
	a = run(CFG_TITLES_DROP, "{\"title\":3}");
	assert_string_equal(a, "{\"title\":3}");
	free(a);
}

FX_MAIN("titles",
    cmocka_unit_test(keep_hash_drop),
    cmocka_unit_test(nothing_to_change))
