/* entitle.c - the entitlements a model gives, and their differences (entitle.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dn.h"
#include "entitle.h"
#include "resolve.h"

void
ent_init(struct ent_state *st)
{
	memset(st, 0, sizeof(*st));
	strmap_init(&st->groups);
	strmap_init(&st->people);
}

static void
list_free(struct ent_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

void
ent_free(struct ent_state *st)
{
	size_t i;

	for (i = 0; i < st->groups.cap; i++) {
		struct ent_list *l = st->groups.slots[i].val;

		if (st->groups.slots[i].key == NULL)
			continue;
		free((char *)st->groups.slots[i].key);
		list_free(l);
		free(l);
	}
	for (i = 0; i < st->people.cap; i++) {
		struct ent_person *p = st->people.slots[i].val;

		if (st->people.slots[i].key == NULL)
			continue;
		free((char *)st->people.slots[i].key);
		list_free(&p->vals);
		free(p->dn);
		free(p);
	}
	strmap_free(&st->groups);
	strmap_free(&st->people);
	memset(st, 0, sizeof(*st));
}

static int
list_add(struct ent_list *l, const char *s)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 4;
		char **nv = realloc(l->v, cap * sizeof(*nv));

		if (nv == NULL)
			return -1;
		l->v = nv;
		l->cap = cap;
	}
	if ((l->v[l->n] = strdup(s)) == NULL)
		return -1;
	l->n++;
	return 0;
}

/* the entry of key in m, made (by make) when absent; NULL when out of memory */
static void *
slot(struct strmap *m, const char *key, size_t size)
{
	void *v = strmap_get(m, key);
	char *k;
	int failed = 0;

	if (v != NULL)
		return v;
	if ((k = strdup(key)) == NULL || (v = calloc(1, size)) == NULL) {
		free(k);
		return NULL;
	}
	strmap_put(m, k, v, &failed);
	if (failed) {
		free(k);
		free(v);
		return NULL;
	}
	return v;
}

int
ent_add_member(struct ent_state *st, const char *cn, const char *dn)
{
	struct ent_list *l = slot(&st->groups, cn, sizeof(*l));

	if (l == NULL || list_add(l, dn) != 0)
		return -1;
	st->values++;
	return 0;
}

int
ent_add_value(struct ent_state *st, const char *uid, const char *dn, const char *val)
{
	char key[512];
	struct ent_person *p;

	/* keyed as the snapshot keys accounts; a uid longer than any account's
	 * key names no account privd serves */
	if (snap_fold_uid(uid, key, sizeof(key)) != 0)
		return 0;
	if ((p = slot(&st->people, key, sizeof(*p))) == NULL)
		return -1;
	if (p->dn == NULL && (p->dn = strdup(dn)) == NULL)
		return -1;
	if (list_add(&p->vals, val) != 0)
		return -1;
	st->values++;
	return 0;
}

static int
cmp_case(const void *a, const void *b)
{
	return strcasecmp(*(char *const *)a, *(char *const *)b);
}

static int
cmp_exact(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
list_sort(struct ent_list *l, int (*cmp)(const void *, const void *), size_t *values)
{
	size_t i, j;

	if (l->n > 1)
		qsort(l->v, l->n, sizeof(*l->v), cmp);
	for (i = j = 0; i < l->n; i++) {
		if (j > 0 && cmp(&l->v[j - 1], &l->v[i]) == 0) {
			free(l->v[i]);
			(*values)--;
			continue;
		}
		l->v[j++] = l->v[i];
	}
	l->n = j;
}

void
ent_sort(struct ent_state *st)
{
	size_t i;

	for (i = 0; i < st->groups.cap; i++)
		if (st->groups.slots[i].key != NULL)
			list_sort(st->groups.slots[i].val, cmp_case, &st->values);
	for (i = 0; i < st->people.cap; i++)
		if (st->people.slots[i].key != NULL)
			list_sort(&((struct ent_person *)st->people.slots[i].val)->vals, cmp_exact,
			    &st->values);
}

int
ent_group_cn(const char *priv, const char *elem, char *out, size_t n)
{
	int w = elem ? snprintf(out, n, "%s=%s", priv, elem) : snprintf(out, n, "%s", priv);

	return w < 0 || (size_t)w >= n ? -1 : 0;
}

/* the tokens account a has of privilege p, published as pub says */
static int
add_account_priv(const struct snap *s, const struct snap_account *a, const char *dn, int p,
    struct ent_state *out)
{
	const struct cfg *c = s->cfg;
	const struct cfg_priv *pv = &c->privs[p];
	struct resolve_val v;
	char cn[512], uri[768];
	size_t i, n;
	int rc = -1;

	if (resolve_account(s, p, a, &v) != 0)
		return -1;
	n = pv->type == PRIV_FLAG ? (v.num != 0) : v.nelems;
	for (i = 0; i < n; i++) {
		const char *elem = pv->type == PRIV_FLAG ? NULL : v.elems[i];

		if (ent_group_cn(pv->name, elem, cn, sizeof(cn)) != 0)
			continue;	/* names are bounded: cannot happen */
		if ((pv->publish & CFG_PUB_GROUPS) && ent_add_member(out, cn, dn) != 0)
			goto done;
		if (pv->publish & CFG_PUB_ATTRIBUTE) {
			snprintf(uri, sizeof(uri), "%s%s%s%s", c->publish.prefix, pv->name,
			    elem ? ":" : "", elem ? elem : "");
			if (ent_add_value(out, a->uid, dn, uri) != 0)
				goto done;
		}
	}
	rc = 0;
done:
	resolve_val_clear(&v);
	return rc;
}

int
ent_from_snap(const struct cfg *c, const struct snap *s, struct ent_state *out)
{
	const struct snap_account *a;
	size_t p, pos = 0;
	int any = cfg_publishes(c) != 0;

	ent_init(out);
	while (any && (a = snap_next(s, &pos)) != NULL) {
		char *dn = a->dn ? NULL : dn_child(c->uid_attr, a->uid, c->people_dn);
		int rc = 0;

		if (a->dn == NULL && dn == NULL)
			goto fail;
		for (p = 0; p < c->nprivs && rc == 0; p++)
			if (c->privs[p].publish)
				rc = add_account_priv(s, a, a->dn ? a->dn : dn, (int)p, out);
		free(dn);
		if (rc != 0)
			goto fail;
	}
	ent_sort(out);
	return 0;
fail:
	ent_free(out);
	return -1;
}

/* the differences of two sorted lists: what want adds to have and what it drops */
static int
list_diff(const struct ent_list *have, const struct ent_list *want,
    int (*cmp)(const void *, const void *), struct ent_list *add, struct ent_list *del)
{
	size_t i = 0, j = 0;
	size_t nh = have ? have->n : 0, nw = want ? want->n : 0;

	add->n = del->n = 0;
	if ((add->v = calloc(nw + 1, sizeof(char *))) == NULL ||
	    (del->v = calloc(nh + 1, sizeof(char *))) == NULL)
		return -1;
	while (i < nh || j < nw) {
		int d = i == nh ? 1 : j == nw ? -1 : cmp(&have->v[i], &want->v[j]);

		if (d < 0)
			del->v[del->n++] = have->v[i++];
		else if (d > 0)
			add->v[add->n++] = want->v[j++];
		else
			i++, j++;
	}
	return 0;
}

static int
diff_one(const char *group, const char *uid, const char *dn, const struct ent_list *h,
    const struct ent_list *w, int (*fn)(const struct ent_change *, void *), void *arg)
{
	struct ent_list add = { 0 }, del = { 0 };
	struct ent_change ch;
	int rc = -1;

	if (list_diff(h, w, group ? cmp_case : cmp_exact, &add, &del) != 0)
		goto done;
	rc = 0;
	if (add.n == 0 && del.n == 0)
		goto done;	/* a group has members: an empty one is never had nor wanted */
	memset(&ch, 0, sizeof(ch));
	ch.group = group;
	ch.uid = uid;
	ch.dn = dn;
	ch.add = add.v;
	ch.nadd = add.n;
	ch.del = del.v;
	ch.ndel = del.n;
	ch.create = group != NULL && h == NULL;
	ch.remove = group != NULL && (w == NULL || w->n == 0);
	ch.fresh = group == NULL && (h == NULL || h->n == 0);
	if (ch.create && ch.remove)
		goto done;	/* nothing there, nothing wanted */
	rc = fn(&ch, arg);
done:
	free(add.v);
	free(del.v);
	return rc;
}

int
ent_diff(const struct ent_state *have, const struct ent_state *want,
    int (*fn)(const struct ent_change *, void *), void *arg)
{
	size_t i;
	int rc;

	/* what is wanted, then what is had and no longer wanted */
	for (i = 0; i < want->groups.cap; i++) {
		const char *k = want->groups.slots[i].key;

		if (k != NULL && (rc = diff_one(k, NULL, NULL, strmap_get(&have->groups, k),
		    want->groups.slots[i].val, fn, arg)) != 0)
			return rc;
	}
	for (i = 0; i < have->groups.cap; i++) {
		const char *k = have->groups.slots[i].key;

		if (k != NULL && strmap_get(&want->groups, k) == NULL &&
		    (rc = diff_one(k, NULL, NULL, have->groups.slots[i].val, NULL, fn, arg)) != 0)
			return rc;
	}
	for (i = 0; i < want->people.cap; i++) {
		const char *k = want->people.slots[i].key;
		const struct ent_person *w = want->people.slots[i].val, *h;

		if (k == NULL)
			continue;
		h = strmap_get(&have->people, k);
		if ((rc = diff_one(NULL, k, w->dn, h ? &h->vals : NULL, &w->vals, fn, arg)) != 0)
			return rc;
	}
	for (i = 0; i < have->people.cap; i++) {
		const char *k = have->people.slots[i].key;
		const struct ent_person *h = have->people.slots[i].val;

		if (k != NULL && strmap_get(&want->people, k) == NULL &&
		    (rc = diff_one(NULL, k, h->dn, &h->vals, NULL, fn, arg)) != 0)
			return rc;
	}
	return 0;
}
