/* test_idset.c - request ids as fingerprints: nothing added is ever missed,
 * ids never added are rarely taken for one (about len / 2^32 of them), an id
 * added twice counts once, and the table stays within 11 bytes an id. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "idset.h"

#define N 200000

static size_t
id(char *b, size_t cap, const char *kind, int i)
{
	return (size_t)snprintf(b, cap, "cups:print%d.example.edu:%s:%d", i % 7, kind, i);
}

static void
empty_has_nothing(void **state)
{
	struct idset s = { 0 };

	(void)state;
	assert_int_equal(idset_maybe(&s, "a", 1), 0);
	assert_int_equal(idset_bytes(&s), 0);
	idset_free(&s);
	assert_int_equal(s.len, 0);
}

static void
added_ids_are_never_missed(void **state)
{
	struct idset s = { 0 };
	char b[80];
	size_t n;
	int i, rc, dup = 0, maybe = 0;

	(void)state;
	for (i = 0; i < N; i++) {
		n = id(b, sizeof(b), "mono", i);
		rc = idset_add(&s, b, n);
		assert_true(rc == 0 || rc == 1);
		dup += rc;
	}
	/* distinct ids that share a fingerprint: about N^2 / 2^33, under 5 */
	assert_true(dup < 50);
	assert_int_equal(s.len, (size_t)(N - dup));
	assert_true(idset_bytes(&s) <= (size_t)N * 11);
	for (i = 0; i < N; i++) {
		n = id(b, sizeof(b), "mono", i);
		assert_int_equal(idset_maybe(&s, b, n), 1);
	}
	/* N ids never added: about N * N / 2^32 (9) match a fingerprint */
	for (i = 0; i < N; i++) {
		n = id(b, sizeof(b), "colour", i);
		maybe += idset_maybe(&s, b, n);
	}
	assert_true(maybe < 100);
	/* the same id again is there already */
	n = id(b, sizeof(b), "mono", 17);
	assert_int_equal(idset_add(&s, b, n), 1);
	assert_int_equal(s.len, (size_t)(N - dup));
	idset_free(&s);
	assert_int_equal(idset_maybe(&s, b, n), 0);
	assert_int_equal(s.len, 0);
}

/* the length counts, not the NUL: "ab" and "abc" are two ids */
static void
length_is_part_of_the_id(void **state)
{
	struct idset s = { 0 };

	(void)state;
	assert_int_equal(idset_add(&s, "abc", 2), 0);
	assert_int_equal(idset_maybe(&s, "ab", 2), 1);
	assert_int_equal(idset_maybe(&s, "abc", 3), 0);
	idset_free(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(empty_has_nothing),
		cmocka_unit_test(added_ids_are_never_missed),
		cmocka_unit_test(length_is_part_of_the_id),
	};

	return cmocka_run_group_tests_name("idset", tests, NULL, NULL);
}
