/* chgstate.c - a change's object states: kept in lists, encoded into its record and back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chgstate.h"
#include "strv.h"

void
chg_obj_free(struct chg_obj *o)
{
	size_t i;

	for (i = 0; i < o->nvals; i++)
		free(o->vals[i]);
	free(o->vals);
	free(o->key);
	memset(o, 0, sizeof(*o));
}

void
chg_list_free(struct chg_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		chg_obj_free(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

int
chg_put(struct chg_list *l, char kind, int present, const char *key,
    char *const *vals, size_t nvals)
{
	struct chg_obj *o;
	size_t i;

	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 16;
		struct chg_obj *nv = realloc(l->v, nc * sizeof(*nv));

		if (nv == NULL)
			return -1;
		l->v = nv;
		l->cap = nc;
	}
	o = &l->v[l->n];
	memset(o, 0, sizeof(*o));
	o->kind = kind;
	o->present = present;
	if ((o->key = strdup(key)) == NULL ||
	    (nvals && (o->vals = calloc(nvals, sizeof(char *))) == NULL))
		goto fail;
	for (i = 0; i < nvals; i++) {
		if (vals[i][0] == '\0')
			continue;	/* a membership that is not a cell of ours */
		if ((o->vals[o->nvals] = strdup(vals[i])) == NULL)
			goto fail;
		o->nvals++;
	}
	l->n++;
	return 0;
fail:
	chg_obj_free(o);
	return -1;
}

char *
chg_encode(const struct chg_obj *o)
{
	size_t n = strlen(o->key) + 3, i;
	char *s, *p;

	for (i = 0; i < o->nvals; i++)
		n += strlen(o->vals[i]) + 1;
	if ((s = malloc(n)) == NULL)
		return NULL;
	p = s + sprintf(s, "%c%c%s", o->kind, o->present ? '+' : '-', o->key);
	for (i = 0; i < o->nvals; i++)
		p += sprintf(p, "\t%s", o->vals[i]);
	return s;
}

int
chg_decode(const char *s, size_t len, struct chg_obj *o)
{
	const char *p, *end = s + len, *tab;
	size_t n = 0;

	memset(o, 0, sizeof(*o));
	if (len < 3 || strchr("rocapq", s[0]) == NULL || (s[1] != '+' && s[1] != '-'))
		return -1;
	o->kind = s[0];
	o->present = s[1] == '+';
	for (p = s + 2; p < end; p++)
		n += *p == '\t';
	if ((o->vals = calloc(n + 1, sizeof(char *))) == NULL)
		return -1;
	p = s + 2;
	tab = memchr(p, '\t', end - p);
	if ((o->key = strndup(p, (tab ? tab : end) - p)) == NULL)
		goto fail;
	while (tab != NULL) {
		p = tab + 1;
		tab = memchr(p, '\t', end - p);
		if ((o->vals[o->nvals] = strndup(p, (tab ? tab : end) - p)) == NULL)
			goto fail;
		o->nvals++;
	}
	if (o->key[0] == '\0' && o->kind != CHG_CELL)
		goto fail;
	return 0;
fail:
	chg_obj_free(o);
	return -1;
}

