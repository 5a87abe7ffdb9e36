/* test_entmap.c - the map of entries holding their key: many entries, one
 * replaced by another with its key, deletions keeping probe runs whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "entmap.h"
#include "fixture.h"

#define N 5000

struct ent {
	int n;
	unsigned char key[ENTMAP_KEY];
};

/* entryUUIDs are time-based: keys alike but for a few bytes, as there */
static void
key_for(unsigned char *k, int i)
{
	memset(k, 0x5a, ENTMAP_KEY);
	k[0] = (unsigned char)i;
	k[1] = (unsigned char)(i >> 8);
	k[6] = 0x11;
}

static void
put_get_del(void **state)
{
	static struct ent e[N], again;
	struct entmap m;
	unsigned char x[ENTMAP_KEY];
	int i, failed;

	(void)state;
	entmap_init(&m, offsetof(struct ent, key));
	key_for(x, N + 1);
	assert_null(entmap_get(&m, x));
	assert_null(entmap_del(&m, x));
	for (i = 0; i < N; i++) {
		e[i].n = i;
		key_for(e[i].key, i);
		assert_null(entmap_put(&m, &e[i], &failed));
		assert_false(failed);
	}
	assert_int_equal(m.len, N);
	/* an entry with a key already there takes its place */
	again = e[7];
	assert_ptr_equal(entmap_put(&m, &again, &failed), &e[7]);
	assert_int_equal(m.len, N);
	/* delete every other key; the rest must all still be found */
	for (i = 0; i < N; i += 2)
		assert_non_null(entmap_del(&m, e[i].key));
	assert_null(entmap_del(&m, e[0].key));
	for (i = 0; i < N; i++) {
		struct ent *v = entmap_get(&m, e[i].key);

		if (i % 2 == 0)
			assert_null(v);
		else if (i == 7)
			assert_ptr_equal(v, &again);
		else
			assert_ptr_equal(v, &e[i]);
	}
	assert_int_equal(m.len, N / 2);
	/* and put back, every key once */
	for (i = 0; i < N; i += 2)
		assert_null(entmap_put(&m, &e[i], &failed));
	assert_int_equal(m.len, N);
	for (i = 0; i < N; i++)
		assert_ptr_equal(entmap_get(&m, e[i].key), i == 7 ? &again : &e[i]);
	/* a key that differs from one held in its last byte only is another */
	memcpy(x, e[3].key, ENTMAP_KEY);
	x[ENTMAP_KEY - 1] ^= 1;
	assert_null(entmap_get(&m, x));
	entmap_free(&m);
	assert_null(entmap_get(&m, e[1].key));
}

FX_MAIN("entmap", cmocka_unit_test(put_get_del))
