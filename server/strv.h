/* strv.h - NULL-terminated arrays of malloc'd strings, as libldap's mods take them. */
#ifndef PRIVD_STRV_H
#define PRIVD_STRV_H

#include <stddef.h>

/* Room for n strings and the NULL; free with strv_free. */
char **strv_new(size_t n);
/* One or two copied values (b may be NULL). */
char **strv_of(const char *a, const char *b);
/* Copies of n strings. */
char **strv_dup(char *const *v, size_t n);
void strv_free(char **v);

#endif
