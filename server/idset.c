/*
 * idset.c - a set of strings as 32-bit fingerprints (idset.h).
 *
 * segids.c remembers the request ids of busy accounts' ledger segments:
 * hundreds of thousands of ids, asked about once a charge and only ever
 * to learn that a new id is not among them. Kept as strings (strmap.h)
 * an id cost about 80 bytes; as a fingerprint in an open-addressed table
 * at most three quarters full it costs 5 to 11, and a fingerprint match
 * sends the caller to the directory, which knows for certain.
 */
#include <stdlib.h>

#include "idset.h"

uint32_t
idset_fingerprint(const char *id, size_t n)
{
	uint64_t h = 14695981039346656037ULL;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)id[i]) * 1099511628211ULL;
	/* FNV leaves the high bits of short keys poorly mixed */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return (uint32_t)h != 0 ? (uint32_t)h : 1;
}

/* The slot holding f, or the free one where it would go. */
static size_t
find(const uint32_t *slot, size_t cap, uint32_t f)
{
	size_t i = f & (cap - 1);

	while (slot[i] != 0 && slot[i] != f)
		i = (i + 1) & (cap - 1);
	return i;
}

static int
grow(struct idset *s)
{
	size_t cap = s->cap ? s->cap * 2 : 64, i;
	uint32_t *slot = calloc(cap, sizeof(*slot));

	if (slot == NULL)
		return -1;
	for (i = 0; i < s->cap; i++)
		if (s->slot[i] != 0)
			slot[find(slot, cap, s->slot[i])] = s->slot[i];
	free(s->slot);
	s->slot = slot;
	s->cap = cap;
	return 0;
}

int
idset_add(struct idset *s, const char *id, size_t n)
{
	return idset_add_fp(s, idset_fingerprint(id, n));
}

int
idset_add_fp(struct idset *s, uint32_t f)
{
	size_t i;

	if ((s->len + 1) * 4 > s->cap * 3 && grow(s) != 0)
		return -1;
	i = find(s->slot, s->cap, f);
	if (s->slot[i] == f)
		return 1;
	s->slot[i] = f;
	s->len++;
	return 0;
}

int
idset_maybe(const struct idset *s, const char *id, size_t n)
{
	uint32_t f;

	if (s->len == 0)
		return 0;
	f = idset_fingerprint(id, n);
	return s->slot[find(s->slot, s->cap, f)] == f;
}

size_t
idset_bytes(const struct idset *s)
{
	return s->cap * sizeof(*s->slot);
}

void
idset_free(struct idset *s)
{
	free(s->slot);
	s->slot = NULL;
	s->cap = s->len = 0;
}
