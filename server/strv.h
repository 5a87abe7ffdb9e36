/* strv.h - NULL-terminated arrays of malloc'd strings, as libldap's mods take them. */
#ifndef PRIVD_STRV_H
#define PRIVD_STRV_H

#include <stddef.h>

/* Room for n strings and the NULL; free with strv_free. */
char **strv_new(size_t n);
/* One or two copied values (b may be NULL). */
char **strv_of(const char *a, const char *b);
/* Copies of v's n strings. */
char **strv_copy(char *const *v, size_t n);
void strv_free(char **v);
/* The number of strings before the NULL (0 for NULL). */
size_t strv_len(char *const *v);
/* The first string of v that is key followed by a space ("ID N ..." state
 * values), or NULL. */
char *strv_keyed(char *const *v, const char *key);
/* Whether a and b hold the same strings, in any order (no duplicates). */
int strv_same(char *const *a, size_t na, char *const *b, size_t nb);
/* The strings of a that b lacks (borrowed from a), NULL-terminated; free
 * the array alone. NULL when out of memory. */
char **strv_lacking(char *const *a, char *const *b);

#endif
