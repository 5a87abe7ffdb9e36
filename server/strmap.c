/*
 * strmap.c - linear probing with backward-shift deletion (no tombstones).
 * Each slot keeps its key's hash: a probe run past other keys then costs
 * a compare of numbers, not a strcmp through a pointer to a cold string
 * (the snapshot of a million accounts spent a fifth of its load there).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strmap.h"

uint64_t
strmap_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 1099511628211ULL;
	}
	return h ^ (h >> 29);
}

void
strmap_init(struct strmap *m)
{
	m->slots = NULL;
	m->cap = 0;
	m->len = 0;
}

void
strmap_free(struct strmap *m)
{
	free(m->slots);
	strmap_init(m);
}

static size_t
find(const struct strmap *m, const char *key, uint64_t h)
{
	size_t i = h & (m->cap - 1);

	while (m->slots[i].key != NULL &&
	    (m->slots[i].hash != h || strcmp(m->slots[i].key, key) != 0))
		i = (i + 1) & (m->cap - 1);
	return i;
}

/* The empty slot a key of hash h goes to (it is not in the map). */
static size_t
find_free(const struct strmap *m, uint64_t h)
{
	size_t i = h & (m->cap - 1);

	while (m->slots[i].key != NULL)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static int
grow(struct strmap *m)
{
	struct strmap old = *m;
	size_t cap = m->cap ? m->cap * 2 : 16;
	size_t i;

	m->slots = calloc(cap, sizeof(*m->slots));
	if (m->slots == NULL) {
		*m = old;
		return -1;
	}
	m->cap = cap;
	m->len = 0;
	for (i = 0; i < old.cap; i++) {
		if (old.slots[i].key == NULL)
			continue;
		m->slots[find_free(m, old.slots[i].hash)] = old.slots[i];
		m->len++;
	}
	free(old.slots);
	return 0;
}

/* Inserts or replaces; rekey: a replaced entry takes key as its key too. */
static void *
put(struct strmap *m, const char *key, void *val, int *failed, int rekey)
{
	uint64_t h = strmap_hash(key);
	size_t i;
	void *prev;

	if (failed)
		*failed = 0;
	if ((m->len + 1) * 4 > m->cap * 3 && grow(m) != 0) {
		if (failed)
			*failed = 1;
		return NULL;
	}
	i = find(m, key, h);
	if (m->slots[i].key != NULL) {
		prev = m->slots[i].val;
		m->slots[i].val = val;
		if (rekey)
			m->slots[i].key = key;
		return prev;
	}
	m->slots[i].key = key;
	m->slots[i].val = val;
	m->slots[i].hash = h;
	m->len++;
	return NULL;
}

void *
strmap_put(struct strmap *m, const char *key, void *val, int *failed)
{
	return put(m, key, val, failed, 0);
}

void *
strmap_replace(struct strmap *m, const char *key, void *val, int *failed)
{
	return put(m, key, val, failed, 1);
}

void *
strmap_get(const struct strmap *m, const char *key)
{
	size_t i;

	if (m->cap == 0)
		return NULL;
	i = find(m, key, strmap_hash(key));
	return m->slots[i].key ? m->slots[i].val : NULL;
}

int
strmap_copy(struct strmap *dst, const struct strmap *src)
{
	strmap_init(dst);
	if (src->cap == 0)
		return 0;
	if ((dst->slots = malloc(src->cap * sizeof(*dst->slots))) == NULL)
		return -1;
	memcpy(dst->slots, src->slots, src->cap * sizeof(*dst->slots));
	dst->cap = src->cap;
	dst->len = src->len;
	return 0;
}

void *
strmap_del(struct strmap *m, const char *key)
{
	size_t i, j, home;
	void *val;

	if (m->cap == 0)
		return NULL;
	i = find(m, key, strmap_hash(key));
	if (m->slots[i].key == NULL)
		return NULL;
	val = m->slots[i].val;
	m->slots[i].key = NULL;
	m->len--;
	/* shift later members of the probe run back into the hole */
	j = i;
	for (;;) {
		j = (j + 1) & (m->cap - 1);
		if (m->slots[j].key == NULL)
			break;
		home = m->slots[j].hash & (m->cap - 1);
		if (((j - home) & (m->cap - 1)) >= ((j - i) & (m->cap - 1))) {
			m->slots[i] = m->slots[j];
			m->slots[j].key = NULL;
			i = j;
		}
	}
	return val;
}
