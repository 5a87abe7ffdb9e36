/* test_uidindex.c - the core accounts' index: every key found at its element,
 * absent keys and keys sharing a hash half not mistaken, a full table refused;
 * two threads adding at once, a key held by its lowest element. */
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
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

/* Two threads add 0..N/2-1 and N/2..N-1, each key held by three elements
 * (i % (N/3)): every key ends at its lowest, and every other is answered
 * as the one to drop, once. */
#define M (N / 3)
static struct uidx shared;
static atomic_int out[N];

static void *
adder(void *arg)
{
	uint32_t lo = *(const uint32_t *)arg, i;

	for (i = lo; i < lo + N / 2; i++) {
		long r = uidx_add(&shared, keys[i], i, key_of, NULL);

		if (r < 0)
			return (void *)1;
		if ((uint32_t)r != i)
			atomic_fetch_add(&out[(uint32_t)r > i ? (uint32_t)r : i], 1);
	}
	return NULL;
}

static void
two_threads_add(void **state)
{
	uint32_t lo[2] = { 0, N / 2 };
	pthread_t t;
	void *rc;
	int i;

	(void)state;
	for (i = 0; i < N; i++)
		snprintf(keys[i], sizeof(keys[i]), "k%06d", i % M);
	assert_int_equal(uidx_init(&shared, N), 0);
	assert_int_equal(pthread_create(&t, NULL, adder, &lo[1]), 0);
	assert_null(adder(&lo[0]));
	pthread_join(t, &rc);
	assert_null(rc);
	for (i = 0; i < N; i++) {
		assert_int_equal(uidx_get(&shared, keys[i], key_of, NULL), i % M);
		assert_int_equal(atomic_load(&out[i]), i < M ? 0 : 1);
	}
	uidx_clear(&shared);
	assert_int_equal(uidx_get(&shared, keys[0], key_of, NULL), -1);
	uidx_free(&shared);
}

FX_MAIN("uidindex",
    cmocka_unit_test(put_and_get),
    cmocka_unit_test(full_is_refused),
    cmocka_unit_test(two_threads_add))
