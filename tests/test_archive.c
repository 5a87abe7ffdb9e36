/* test_archive.c - what a ledger move takes from the window, and the segment names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "archive.h"
#include "strv.h"

/* n ledger entries, the i-th at second i; kinds[i] when given, else charge */
static char **
window(size_t n, const char *const *kinds)
{
	char **v = strv_new(n);
	size_t i;

	for (i = 0; i < n; i++) {
		char buf[256];

		snprintf(buf, sizeof(buf), "{\"amount\":1,\"id\":\"r%zu\",\"kind\":\"%s\","
		    "\"time\":\"2026-12-04T10:%02zu:%02zu.000000Z\"}", i,
		    kinds && kinds[i] ? kinds[i] : "charge", i / 60, i % 60);
		v[i] = strdup(buf);
	}
	return v;
}

static int
moved(char *const *m, size_t i)
{
	char id[32];
	size_t k;

	snprintf(id, sizeof(id), "\"id\":\"r%zu\"", i);
	for (k = 0; m[k]; k++)
		if (strstr(m[k], id) != NULL)
			return 1;
	return 0;
}

static void
moves_all_but_the_newest(void **state)
{
	char **w = window(120, NULL), **none = strv_new(0), **m;
	size_t i;

	(void)state;
	/* the window is stored in no order: shuffle it */
	for (i = 0; i < 120; i += 7) {
		char *t = w[i];

		w[i] = w[119 - i];
		w[119 - i] = t;
	}
	m = arch_choose(w, none);
	assert_non_null(m);
	assert_int_equal(strv_len(m), 120 - ARCH_KEEP);
	for (i = 0; i < 120; i++)
		assert_int_equal(moved(m, i), i < 120 - ARCH_KEEP);
	strv_free(m);
	strv_free(w);
	strv_free(none);
}

static void
open_holds_stay(void **state)
{
	const char *kinds[40] = { [3] = "hold", [5] = "hold", [6] = "commit" };
	char **w = window(40, kinds), **holds = strv_of("r3 1 20261204110000Z", NULL), **m;

	(void)state;
	m = arch_choose(w, holds);
	assert_non_null(m);
	assert_false(moved(m, 3));	/* open: its commit will read it */
	assert_true(moved(m, 5));	/* settled by r6's... any settled hold goes */
	assert_true(moved(m, 6));
	assert_int_equal(strv_len(m), 40 - ARCH_KEEP - 1);
	strv_free(m);
	strv_free(w);
	strv_free(holds);
}

static void
a_small_window_stays(void **state)
{
	char **w = window(ARCH_KEEP, NULL), **none = strv_new(0), **m;

	(void)state;
	m = arch_choose(w, none);
	assert_non_null(m);
	assert_int_equal(strv_len(m), 0);
	strv_free(m);
	strv_free(w);
	/* an entry that is not privd's is left for the ledger check to name */
	w = window(40, NULL);
	free(w[0]);
	w[0] = strdup("not json");
	m = arch_choose(w, none);
	assert_non_null(m);
	assert_int_equal(strv_len(m), 39 - ARCH_KEEP);
	assert_false(moved(m, 0));
	assert_true(moved(m, 1));
	strv_free(m);
	strv_free(w);
	strv_free(none);
}

static void
segment_names_and_assertions(void **state)
{
	char *s, *p = NULL;

	(void)state;
	s = arch_dn("cn=print.pages@2026T3,uid=jdoe,ou=usage,dc=x", 12);
	assert_string_equal(s, "cn=12,cn=print.pages@2026T3,uid=jdoe,ou=usage,dc=x");
	assert_int_equal(arch_parent(s, &p), 0);
	assert_string_equal(p, "cn=print.pages@2026T3,uid=jdoe,ou=usage,dc=x");
	free(p);
	free(s);
	/* a usage entry is no segment, nor is a cn that is not a number */
	assert_int_equal(arch_parent("cn=print.pages@2026T3,uid=jdoe,ou=usage,dc=x", &p), -1);
	assert_int_equal(arch_parent("cn=12a,cn=x", &p), -1);
	assert_int_equal(arch_parent("uid=12,cn=x", &p), -1);
	s = arch_assert(0);
	assert_string_equal(s, "(|(privSegments=0)(!(privSegments=*)))");
	free(s);
	s = arch_assert(7);
	assert_string_equal(s, "(privSegments=7)");
	free(s);
}

FX_MAIN("archive",
    cmocka_unit_test(moves_all_but_the_newest),
    cmocka_unit_test(open_holds_stay),
    cmocka_unit_test(a_small_window_stays),
    cmocka_unit_test(segment_names_and_assertions))
