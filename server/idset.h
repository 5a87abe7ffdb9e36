/* idset.h - a set of strings kept as 32-bit fingerprints: 4-8 bytes a member. */
#ifndef PRIVD_IDSET_H
#define PRIVD_IDSET_H

#include <stddef.h>
#include <stdint.h>

/*
 * The strings themselves are not kept, so a "maybe" may be another string
 * with the same fingerprint (about len / 2^32 of the strings not added):
 * the caller asks whoever holds the strings then. A "no" is certain.
 * Zeroed is empty.
 */
struct idset {
	uint32_t *slot;		/* 0: free */
	size_t cap;		/* a power of two, or 0 */
	size_t len;
};

/* 0 added, 1 its fingerprint was there, -1 out of memory (s unchanged). */
int idset_add(struct idset *s, const char *id, size_t n);
/* id's fingerprint (never 0), and idset_add of it: for a caller that
 * gathers fingerprints before it knows which to add. */
uint32_t idset_fingerprint(const char *id, size_t n);
int idset_add_fp(struct idset *s, uint32_t f);
/* 1: id may have been added; 0: it was not. */
int idset_maybe(const struct idset *s, const char *id, size_t n);
/* Bytes held by s. */
size_t idset_bytes(const struct idset *s);
/* Frees s's table; s is empty again. */
void idset_free(struct idset *s);

#endif
