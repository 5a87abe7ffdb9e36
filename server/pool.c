/* pool.c - shared budgets held by cells: who may draw, and their values in LDAP. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grant.h"
#include "ldapconn.h"
#include "path.h"
#include "pool.h"
#include "strv.h"

char **
pool_cell_vals(LDAP *ld, LDAPMessage *m)
{
	char **g = ldapc_get_strv(ld, m, "privGrant"), **p = ldapc_get_strv(ld, m, "privPool");
	char **v = NULL;
	size_t ng, np, i;

	if (g == NULL || p == NULL)
		goto done;
	ng = strv_len(g);
	np = strv_len(p);
	if ((v = strv_new(ng + np)) == NULL)
		goto done;
	for (i = 0; i < ng; i++) {
		v[i] = g[i];
		g[i] = NULL;
	}
	for (i = 0; i < np; i++)
		if (asprintf(&v[ng + i], GRANT_POOL "%s", p[i]) < 0) {
			v[ng + i] = NULL;
			strv_free(v);
			v = NULL;
			break;
		}
done:
	strv_free(g);
	strv_free(p);
	return v;
}

int
pool_split_vals(char *const *vals, size_t n, char ***grants, size_t *ngrants,
    char ***pools, size_t *npools)
{
	size_t i;

	*ngrants = *npools = 0;
	*grants = strv_new(n);
	*pools = strv_new(n);
	if (*grants == NULL || *pools == NULL)
		goto oom;
	for (i = 0; i < n; i++) {
		const char *pt = grant_pool_text(vals[i]);
		char *s = strdup(pt ? pt : vals[i]);

		if (s == NULL)
			goto oom;
		if (pt != NULL)
			(*pools)[(*npools)++] = s;
		else
			(*grants)[(*ngrants)++] = s;
	}
	return 0;
oom:
	strv_free(*grants);
	strv_free(*pools);
	*grants = *pools = NULL;
	return -1;
}

int
pool_covers(const char *pool, const char *member)
{
	return pool_why(pool, member, NULL, 0);
}

int
pool_why(const char *pool, const char *member, char *buf, size_t n)
{
	char pr[PATH_MAX_LEN + 1], po[PATH_MAX_LEN + 1];
	char mr[PATH_MAX_LEN + 1], mo[PATH_MAX_LEN + 1];
	int r, o;

	if (cell_split(pool, pr, po, NULL) != 0 || cell_split(member, mr, mo, NULL) != 0) {
		if (buf != NULL)
			snprintf(buf, n, "not a cell");
		return 0;
	}
	r = path_covers(pr, mr);
	o = path_covers(po, mo);
	if (buf == NULL)
		return r && o;	/* pool_covers: the answer only */
	if (r && o)
		snprintf(buf, n, "%s covers %s: reason %s is %s, organisation %s is %s", pool,
		    member, *mr ? mr : "(all)", *pr ? "under or at the pool's" : "any (the pool "
		    "takes every reason)", *mo ? mo : "(all)", *po ? "under or at the pool's" :
		    "any (the pool takes every organisation)");
	else if (!r)
		snprintf(buf, n, "reason %s is not %s or below it", *mr ? mr : "(all)", pr);
	else
		snprintf(buf, n, "organisation %s is not %s or below it", *mo ? mo : "(all)", po);
	return r && o;
}

int
pool_depth(const char *cell)
{
	char r[PATH_MAX_LEN + 1], o[PATH_MAX_LEN + 1];

	if (cell_split(cell, r, o, NULL) != 0)
		return 0;
	return path_depth(r) + path_depth(o);
}

const struct grant *
pool_limit(const struct snap_cell *cell, int priv)
{
	size_t i;

	for (i = 0; i < cell->npools; i++)
		if (cell->pools[i].priv == priv)
			return &cell->pools[i];
	return NULL;
}

const char *
pool_member_via(const struct snap_account *a, const char *cell)
{
	size_t i;

	for (i = 0; i < a->nm; i++)
		if (pool_covers(cell, a->m[i]->cell))
			return a->m[i]->cell;
	return NULL;
}

static int
specific_first(const void *x, const void *y)
{
	const struct pool_ref *a = x, *b = y;
	int da = pool_depth(a->cell->name), db = pool_depth(b->cell->name);

	if (da != db)
		return db - da;
	return strcmp(a->cell->name, b->cell->name);
}

int
pool_for_account(const struct snap *s, const struct snap_account *a, int priv,
    struct pool_ref **out, size_t *n)
{
	struct pool_ref *v = calloc(s->npooled ? s->npooled : 1, sizeof(*v));
	size_t i;

	*n = 0;
	if ((*out = v) == NULL)
		return -1;
	for (i = 0; i < s->npooled; i++) {
		const struct snap_cell *c = s->pooled[i];
		const struct grant *g = priv >= 0 ? pool_limit(c, priv) : NULL;
		const char *via;

		if ((priv >= 0 && g == NULL) || (via = pool_member_via(a, c->name)) == NULL)
			continue;
		v[*n].cell = c;
		v[*n].limit = g;
		v[*n].via = via;
		(*n)++;
	}
	qsort(v, *n, sizeof(*v), specific_first);
	return 0;
}
