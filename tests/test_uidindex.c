/* test_uidindex.c - the core accounts' index: every key found at its element,
 * absent keys and keys sharing a hash half not mistaken, a full table refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "uidindex.h"

#define N 20000

static char keys[N][16];

static const char *
key_of(const void *arg, uint32_t i)
{
	(void)arg;
	return keys[i];
}

static void
put_and_get(void **state)
{
	struct uidx x;
	char miss[16];
	int i;

	(void)state;
	assert_int_equal(uidx_init(&x, N), 0);
	assert_true(x.cap >= 2 * N);
	assert_int_equal(uidx_get(&x, "u0", key_of, NULL), -1);
	for (i = 0; i < N; i++) {
		snprintf(keys[i], sizeof(keys[i]), "u%06d", i);
		assert_int_equal(uidx_put(&x, keys[i], (uint32_t)i), 0);
	}
	for (i = 0; i < N; i++)
		assert_int_equal(uidx_get(&x, keys[i], key_of, NULL), i);
	for (i = 0; i < N; i++) {
		snprintf(miss, sizeof(miss), "v%06d", i);
		assert_int_equal(uidx_get(&x, miss, key_of, NULL), -1);
	}
	uidx_free(&x);
	assert_int_equal(uidx_get(&x, keys[0], key_of, NULL), -1);
}

static void
full_is_refused(void **state)
{
	struct uidx x;
	uint32_t i;

	(void)state;
	assert_int_equal(uidx_init(&x, 0), 0);
	for (i = 0; i < x.cap; i++) {
		snprintf(keys[i], sizeof(keys[i]), "k%u", (unsigned)i);
		assert_int_equal(uidx_put(&x, keys[i], i), 0);
	}
	assert_int_equal(uidx_put(&x, "one more", i), -1);
	for (i = 0; i < x.cap; i++)
		assert_int_equal(uidx_get(&x, keys[i], key_of, NULL), (long)i);
	/* a full table still answers a key it lacks */
	assert_int_equal(uidx_get(&x, "absent", key_of, NULL), -1);
	uidx_free(&x);
}

FX_MAIN("uidindex",
    cmocka_unit_test(put_and_get),
    cmocka_unit_test(full_is_refused))
