/*
 * uidindex.c - the full build's accounts by folded uid. A strmap slot takes
 * 24 bytes (key, value, hash); here a slot is 8, an index into the core
 * array and half the key's hash, the key read from the element itself. It
 * is sized once for a build that never grows: 34 MB less at a million
 * accounts.
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

int
uidx_put(struct uidx *x, const char *key, uint32_t i)
{
	uint64_t h = strmap_hash(key) >> 32;
	size_t at, n;

	for (n = 0, at = h & (x->cap - 1); n < x->cap; n++, at = (at + 1) & (x->cap - 1))
		if (x->slots[at] == 0) {
			x->slots[at] = h << 32 | ((uint64_t)i + 1);
			return 0;
		}
	return -1;
}

long
uidx_get(const struct uidx *x, const char *key, uidx_key_fn k, const void *arg)
{
	uint64_t h = strmap_hash(key) >> 32, v;
	size_t at, n;

	for (n = 0, at = h & (x->cap - 1); n < x->cap && (v = x->slots[at]) != 0;
	    n++, at = (at + 1) & (x->cap - 1))
		if (v >> 32 == h && strcmp(k(arg, (uint32_t)(v & 0xffffffffu) - 1), key) == 0)
			return (long)(v & 0xffffffffu) - 1;
	return -1;
}
