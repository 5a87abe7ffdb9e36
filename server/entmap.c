/*
 * entmap.c - a hash map whose entries hold their key (the mirror's, by
 * entryUUID): a slot is the entry's pointer alone, 8 bytes where a strmap
 * slot takes 24 (key, value, hash): 34 MB less over a million people. The
 * key is the UUID's 16 bytes, not its 33 of hex: 16 MB less again. A probe
 * reads the key from the entry, and growing hashes the keys again. Open
 * addressing, linear probing; deletion shifts the probe run back. Beside
 * the slots a byte per slot holds 7 bits of the key's hash: a probe reads
 * those, 64 to a cache line, and follows a pointer to an entry only where
 * they match. A million people's refresh spent 0.3 s following pointers to
 * entries that were not the one asked for.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "entmap.h"

static const unsigned char *
key_of(const struct entmap *m, const void *e)
{
	return (const unsigned char *)e + m->key_off;
}

/* Both halves folded and mixed (splitmix64's finaliser): entryUUIDs are
 * time-based, so no part of one can be trusted to vary alone. */
static size_t
hash(const unsigned char *k)
{
	uint64_t a, b, h;

	memcpy(&a, k, 8);
	memcpy(&b, k + 8, 8);
	h = a ^ (b * 0x9e3779b97f4a7c15ULL);
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
	return (size_t)(h ^ (h >> 31));
}

static unsigned char
tag_of(size_t h)
{
	return (unsigned char)(0x80 | (((uint64_t)h >> 57) & 0x7f));
}

void
entmap_init(struct entmap *m, size_t key_off)
{
	m->slots = NULL;
	m->tags = NULL;
	m->cap = m->len = 0;
	m->key_off = key_off;
}

void
entmap_free(struct entmap *m)
{
	free(m->slots);
	free(m->tags);
	m->slots = NULL;
	m->tags = NULL;
	m->cap = m->len = 0;
}

/* The slot of key (of hash h), or the empty one where it would go. */
static size_t
find(const struct entmap *m, const unsigned char *key, size_t h)
{
	size_t i = h & (m->cap - 1);
	unsigned char t = tag_of(h);

	while (m->tags[i] != 0 &&
	    (m->tags[i] != t || memcmp(key_of(m, m->slots[i]), key, ENTMAP_KEY) != 0))
		i = (i + 1) & (m->cap - 1);
	return i;
}

static int
grow(struct entmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 16, i, j, h;
	void **ns = calloc(cap, sizeof(*ns));
	unsigned char *nt = calloc(cap, 1);

	if (ns == NULL || nt == NULL) {
		free(ns);
		free(nt);
		return -1;
	}
	for (i = 0; i < m->cap; i++) {
		if (m->slots[i] == NULL)
			continue;
		h = hash(key_of(m, m->slots[i]));
		for (j = h & (cap - 1); nt[j] != 0; j = (j + 1) & (cap - 1))
			;
		ns[j] = m->slots[i];
		nt[j] = tag_of(h);
	}
	free(m->slots);
	free(m->tags);
	m->slots = ns;
	m->tags = nt;
	m->cap = cap;
	return 0;
}

void *
entmap_get(const struct entmap *m, const unsigned char *key)
{
	return m->cap == 0 ? NULL : m->slots[find(m, key, hash(key))];
}

void *
entmap_put(struct entmap *m, void *e, int *failed)
{
	size_t i, h;
	void *prev;

	*failed = 0;
	if ((m->len + 1) * 4 > m->cap * 3 && grow(m) != 0) {
		*failed = 1;
		return NULL;
	}
	h = hash(key_of(m, e));
	i = find(m, key_of(m, e), h);
	prev = m->slots[i];
	m->slots[i] = e;
	m->tags[i] = tag_of(h);
	if (prev == NULL)
		m->len++;
	return prev;
}

void *
entmap_del(struct entmap *m, const unsigned char *key)
{
	size_t i, j, home;
	void *e;

	if (m->cap == 0 || (e = m->slots[i = find(m, key, hash(key))]) == NULL)
		return NULL;
	m->slots[i] = NULL;
	m->tags[i] = 0;
	m->len--;
	/* shift later members of the probe run back into the hole */
	for (j = (i + 1) & (m->cap - 1); m->slots[j] != NULL; j = (j + 1) & (m->cap - 1)) {
		home = hash(key_of(m, m->slots[j])) & (m->cap - 1);
		if (((j - home) & (m->cap - 1)) >= ((j - i) & (m->cap - 1))) {
			m->slots[i] = m->slots[j];
			m->tags[i] = m->tags[j];
			m->slots[j] = NULL;
			m->tags[j] = 0;
			i = j;
		}
	}
	return e;
}
