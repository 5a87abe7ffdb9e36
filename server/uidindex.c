/*
 * uidindex.c - the full build's accounts by folded uid. A strmap slot takes
 * 24 bytes (key, value, hash); here a slot is 8, an index into the core
 * array and half the key's hash, the key read from the element itself. It
 * is sized once for a build that never grows: 34 MB less at a million
 * accounts. A full build adds its accounts from two threads (snapbuild.c):
 * a slot is claimed by compare-and-swap, and slots are never emptied while
 * a build adds, so a key is found on its probe run by whoever comes second.
 */
#include <stdlib.h>
#include <string.h>

#include "strmap.h"
#include "uidindex.h"

int
uidx_init(struct uidx *x, size_t n)
{
	size_t cap = 16;

	while (cap < 2 * n)
		cap *= 2;
	x->cap = 0;
	if ((x->slots = calloc(cap, sizeof(*x->slots))) == NULL)
		return -1;
	x->cap = cap;
	return 0;
}

void
uidx_free(struct uidx *x)
{
	free(x->slots);
	x->slots = NULL;
	x->cap = 0;
}

void
uidx_clear(struct uidx *x)
{
	size_t i;

	for (i = 0; i < x->cap; i++)
		atomic_store_explicit(&x->slots[i], 0, memory_order_relaxed);
}

static uint32_t
elem(uint64_t v)
{
	return (uint32_t)(v & 0xffffffffu) - 1;
}

int
uidx_put(struct uidx *x, const char *key, uint32_t i)
{
	uint64_t h = strmap_hash(key) >> 32;
	size_t at, n;

	for (n = 0, at = h & (x->cap - 1); n < x->cap; n++, at = (at + 1) & (x->cap - 1))
		if (atomic_load_explicit(&x->slots[at], memory_order_relaxed) == 0) {
			atomic_store_explicit(&x->slots[at], h << 32 | ((uint64_t)i + 1),
			    memory_order_relaxed);
			return 0;
		}
	return -1;
}

long
uidx_add(struct uidx *x, const char *key, uint32_t i, uidx_key_fn k, const void *arg)
{
	uint64_t h = strmap_hash(key) >> 32, mine = h << 32 | ((uint64_t)i + 1), v;
	size_t at, n;

	for (n = 0, at = h & (x->cap - 1); n < x->cap; n++, at = (at + 1) & (x->cap - 1)) {
		v = atomic_load(&x->slots[at]);
		for (;;) {
			if (v == 0) {
				if (atomic_compare_exchange_strong(&x->slots[at], &v, mine))
					return i;
				continue;	/* v: what the other thread put there */
			}
			if (v >> 32 != h || strcmp(k(arg, elem(v)), key) != 0)
				break;
			if (elem(v) < i)
				return elem(v);
			if (atomic_compare_exchange_strong(&x->slots[at], &v, mine))
				return elem(v);
		}
	}
	return -1;
}

long
uidx_get(const struct uidx *x, const char *key, uidx_key_fn k, const void *arg)
{
	uint64_t h = strmap_hash(key) >> 32, v;
	size_t at, n;

	for (n = 0, at = h & (x->cap - 1);
	    n < x->cap && (v = atomic_load_explicit(&x->slots[at], memory_order_relaxed)) != 0;
	    n++, at = (at + 1) & (x->cap - 1))
		if (v >> 32 == h && strcmp(k(arg, elem(v)), key) == 0)
			return (long)elem(v);
	return -1;
}
