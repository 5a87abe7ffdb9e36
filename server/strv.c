/* strv.c - NULL-terminated arrays of malloc'd strings. */
#include <stdlib.h>
#include <string.h>

#include "strv.h"

char **
strv_new(size_t n)
{
	return calloc(n + 1, sizeof(char *));
}

void
strv_free(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

char **
strv_of(const char *a, const char *b)
{
	char **v = strv_new(2);

	if (v == NULL)
		return NULL;
	if ((v[0] = strdup(a)) == NULL || (b && (v[1] = strdup(b)) == NULL)) {
		strv_free(v);
		return NULL;
	}
	return v;
}

char **
strv_copy(char *const *v, size_t n)
{
	char **c = strv_new(n);
	size_t i;

	for (i = 0; c && i < n; i++)
		if ((c[i] = strdup(v[i])) == NULL) {
			strv_free(c);
			return NULL;
		}
	return c;
}

size_t
strv_len(char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

int
strv_same(char *const *a, size_t na, char *const *b, size_t nb)
{
	size_t i, j;

	if (na != nb)
		return 0;
	for (i = 0; i < na; i++) {
		for (j = 0; j < nb && strcmp(a[i], b[j]) != 0; j++)
			;
		if (j == nb)
			return 0;
	}
	return 1;
}

char **
strv_lacking(char *const *a, char *const *b)
{
	size_t n = 0, i, k;
	char **out = calloc(strv_len(a) + 1, sizeof(char *));

	for (i = 0; out && a && a[i]; i++) {
		for (k = 0; b && b[k] && strcmp(a[i], b[k]) != 0; k++)
			;
		if (b == NULL || b[k] == NULL)
			out[n++] = a[i];
	}
	return out;
}

char *
strv_keyed(char *const *v, const char *key)
{
	size_t i, kl = strlen(key);

	for (i = 0; v && v[i]; i++)
		if (strncmp(v[i], key, kl) == 0 && v[i][kl] == ' ')
			return v[i];
	return NULL;
}
