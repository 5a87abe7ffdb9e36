/* test_strmap.c - the hash map: many keys, replacement, deletion keeping probe runs whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "strmap.h"

#define N 5000

static void
put_get_del(void **state)
{
	static char keys[N][16];
	struct strmap m;
	int i, failed;

	(void)state;
	strmap_init(&m);
	assert_null(strmap_get(&m, "x"));
	assert_null(strmap_del(&m, "x"));
	for (i = 0; i < N; i++) {
		snprintf(keys[i], sizeof(keys[i]), "k%d", i);
		assert_null(strmap_put(&m, keys[i], (void *)(uintptr_t)(i + 1), &failed));
		assert_false(failed);
	}
	assert_int_equal(m.len, N);
	assert_ptr_equal(strmap_put(&m, keys[7], (void *)(uintptr_t)99, NULL), (void *)(uintptr_t)8);
	assert_int_equal(m.len, N);
	/* delete every other key; the rest must all still be found */
	for (i = 0; i < N; i += 2)
		assert_non_null(strmap_del(&m, keys[i]));
	for (i = 0; i < N; i++) {
		void *v = strmap_get(&m, keys[i]);

		if (i % 2 == 0)
			assert_null(v);
		else if (i == 7)
			assert_ptr_equal(v, (void *)(uintptr_t)99);
		else
			assert_ptr_equal(v, (void *)(uintptr_t)(i + 1));
	}
	assert_int_equal(m.len, N / 2);
	strmap_free(&m);
}

/* put keeps the key it has; replace takes the new one (values that own
 * their key: the old one may be freed with the old value) */
static void
replace_takes_the_new_key(void **state)
{
	char a[] = "same", b[] = "same";
	struct strmap m;
	size_t i;
	int failed;

	(void)state;
	strmap_init(&m);
	assert_null(strmap_replace(&m, a, a, &failed));
	assert_false(failed);
	assert_ptr_equal(strmap_put(&m, b, b, NULL), a);
	for (i = 0; i < m.cap && m.slots[i].key == NULL; i++)
		;
	assert_ptr_equal(m.slots[i].key, a);
	assert_ptr_equal(strmap_replace(&m, b, b, NULL), b);
	assert_ptr_equal(m.slots[i].key, b);
	assert_int_equal(m.len, 1);
	strmap_free(&m);
}

FX_MAIN("strmap", cmocka_unit_test(put_get_del), cmocka_unit_test(replace_takes_the_new_key))
