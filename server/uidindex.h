/* uidindex.h - a full build's accounts by key: indices into the caller's array. */
#ifndef PRIVD_UIDINDEX_H
#define PRIVD_UIDINDEX_H

#include <stddef.h>
#include <stdint.h>

struct uidx {
	uint64_t *slots;	/* hash << 32 | index + 1; 0: empty */
	size_t cap;		/* a power of two, at least twice the entries */
};

/* The key of element i of arg's array. */
typedef const char *(*uidx_key_fn)(const void *arg, uint32_t i);

/* Room for n entries, all it will ever hold; -1 when out of memory. */
int uidx_init(struct uidx *x, size_t n);
void uidx_free(struct uidx *x);
/* Element i under key, which it does not hold yet; -1 when full. */
int uidx_put(struct uidx *x, const char *key, uint32_t i);
/* The element under key, or -1. */
long uidx_get(const struct uidx *x, const char *key, uidx_key_fn k, const void *arg);

#endif
