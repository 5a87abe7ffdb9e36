/* entmap.h - a hash map of entries that hold their own 16-byte key. */
#ifndef PRIVD_ENTMAP_H
#define PRIVD_ENTMAP_H

#include <stddef.h>

#define ENTMAP_KEY 16		/* an entryUUID, as bytes */

struct entmap {
	void **slots;		/* the entries; NULL: empty */
	unsigned char *tags;	/* per slot: 0 empty, else 0x80 | 7 bits of the key's hash */
	size_t cap;		/* a power of two, or 0 */
	size_t len;
	size_t key_off;		/* where an entry's key (ENTMAP_KEY bytes) starts in it */
};

void entmap_init(struct entmap *m, size_t key_off);
/* Frees the table, not the entries. */
void entmap_free(struct entmap *m);
void *entmap_get(const struct entmap *m, const unsigned char *key);
/* e in place of the entry with e's key: that one returned (NULL when
 * new), or *failed set when out of memory (e is then not in the map). */
void *entmap_put(struct entmap *m, void *e, int *failed);
/* Removes the entry with key; returns it, NULL when absent. */
void *entmap_del(struct entmap *m, const unsigned char *key);

#endif
