/* strmap.h - an open-addressing hash map from borrowed C strings to pointers. */
#ifndef PRIVD_STRMAP_H
#define PRIVD_STRMAP_H

#include <stddef.h>
#include <stdint.h>

struct strmap_slot {
	const char *key;	/* borrowed: the caller keeps it alive */
	void *val;
	uint64_t hash;		/* key's: a probe compares it before the string */
};

struct strmap {
	struct strmap_slot *slots;
	size_t cap;		/* a power of two, or 0 */
	size_t len;
};

void strmap_init(struct strmap *m);
/* The hash a key is kept under (FNV-1a, mixed). */
uint64_t strmap_hash(const char *key);
/* Frees the table, not the keys or values. */
void strmap_free(struct strmap *m);
/* Inserts or replaces; returns the old value (NULL when new), or sets
 * *failed on allocation failure when failed is not NULL. */
void *strmap_put(struct strmap *m, const char *key, void *val, int *failed);
void *strmap_get(const struct strmap *m, const char *key);
/* As strmap_put, but a key already there is replaced by key too: for
 * values that own their key, so the map never borrows a key from the value
 * it no longer holds. */
void *strmap_replace(struct strmap *m, const char *key, void *val, int *failed);
/* dst (uninitialised) as a copy of src, keys and values borrowed alike;
 * -1 when out of memory (dst then empty). */
int strmap_copy(struct strmap *dst, const struct strmap *src);
/* Removes key; returns its value, NULL when absent. */
void *strmap_del(struct strmap *m, const char *key);

#endif
