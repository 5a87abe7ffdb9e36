/* uidindex.h - a full build's accounts by key: indices into the caller's array. */
#ifndef PRIVD_UIDINDEX_H
#define PRIVD_UIDINDEX_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct uidx {
	/* hash << 32 | index + 1; 0: empty. Atomic: a build's lanes add at once */
	_Atomic uint64_t *slots;
	size_t cap;		/* a power of two, at least twice the entries */
};

/* The key of element i of arg's array. */
typedef const char *(*uidx_key_fn)(const void *arg, uint32_t i);

/* Room for n entries, all it will ever hold; -1 when out of memory. */
int uidx_init(struct uidx *x, size_t n);
void uidx_free(struct uidx *x);
/* Element i under key, which it does not hold yet; -1 when full. */
int uidx_put(struct uidx *x, const char *key, uint32_t i);
/*
 * Element i under key for a build's lanes, several threads at once (each
 * adding elements of its own, whose keys k reads once added). When key is
 * there already the lower element keeps it: the answer is the index that
 * holds key now, i or the one found below i; one found above i gives way
 * to i and its index is answered. -1 when full. The caller drops the
 * higher of i and the answer when they differ.
 */
long uidx_add(struct uidx *x, const char *key, uint32_t i, uidx_key_fn k, const void *arg);
/* Empties x, keeping its room. */
void uidx_clear(struct uidx *x);
/* The element under key, or -1. */
long uidx_get(const struct uidx *x, const char *key, uidx_key_fn k, const void *arg);

#endif
