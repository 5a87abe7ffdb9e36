/*
 * report.c - usage reports: a quota's usage summed per node of the reason or
 * organisation tree, from the snapshot and the usage table (no LDAP), so a
 * report over 100,000 accounts takes a fraction of a second.
 */
#include <stdlib.h>
#include <string.h>

#include "path.h"
#include "report.h"
#include "resolve.h"
#include "strmap.h"
#include "usage.h"

/* The node of cell's side cut to depth into out; 0, or -1 when the
 * membership lies outside under. */
static int
node_of(const char *cell, const struct report_opts *o, char *out, size_t n)
{
	const char *at = strchr(cell, '@'), *side, *p;
	size_t len, ul = o->under ? strlen(o->under) : 0;
	int d = 0;

	if (at == NULL)
		return -1;
	side = o->by_reason ? cell : at + 1;
	len = o->by_reason ? (size_t)(at - cell) : strlen(at + 1);
	if (ul > 0 && !(len >= ul && strncmp(side, o->under, ul) == 0 &&
	    (len == ul || side[ul] == '/')))
		return -1;
	/* cut after depth segments */
	for (p = side; p < side + len; p++)
		if (*p == '/' && ++d == o->depth) {
			len = (size_t)(p - side);
			break;
		}
	if (len >= n)
		return -1;
	memcpy(out, side, len);
	out[len] = '\0';
	return 0;
}

static int
heaviest(const void *a, const void *b)
{
	const struct report_top *x = a, *y = b;

	if (x->used != y->used)
		return x->used < y->used ? 1 : -1;
	return strcmp(x->uid, y->uid);
}

static int
by_path(const void *a, const void *b)
{
	return strcmp(((const struct report_row *)a)->path, ((const struct report_row *)b)->path);
}

void
report_free(struct report *r)
{
	size_t i;

	for (i = 0; i < r->nrows; i++)
		free(r->rows[i].path);
	free(r->rows);
	free(r->top);
	memset(r, 0, sizeof(*r));
}

/* The index of path's row, added when new; -1 when out of memory. */
static long
row(struct report *r, struct strmap *idx, size_t *cap, const char *path)
{
	void *have = strmap_get(idx, path);
	struct report_row *w;
	int failed = 0;

	if (have != NULL)
		return (long)((size_t)have - 1);
	if (r->nrows == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;

		if ((w = realloc(r->rows, nc * sizeof(*w))) == NULL)
			return -1;
		r->rows = w;
		*cap = nc;
	}
	w = &r->rows[r->nrows];
	memset(w, 0, sizeof(*w));
	/* the index borrows the path, which stays put when rows move */
	if ((w->path = strdup(path)) == NULL)
		return -1;
	strmap_put(idx, w->path, (void *)(r->nrows + 1), &failed);
	if (failed) {
		free(w->path);
		return -1;
	}
	return (long)r->nrows++;
}

int
report_usage(const struct snap *s, const struct report_opts *o, struct report *out,
    struct err *e)
{
	struct strmap idx;
	long *hit = NULL;
	size_t cap = 0, i, j, k, nhit;
	const char *quota = s->cfg->privs[o->priv].name;
	char node[CELL_MAX_LEN + 1];

	memset(out, 0, sizeof(*out));
	strmap_init(&idx);
	if ((out->top = calloc(s->naccounts + 1, sizeof(*out->top))) == NULL)
		goto oom;
	for (i = 0; i < s->naccounts; i++) {
		const struct snap_account *a = &s->accounts[i];
		struct resolve_val v;
		struct usage_val u;
		long *nh, w;

		if ((nh = realloc(hit, (a->nm + 1) * sizeof(*hit))) == NULL)
			goto oom;
		hit = nh;
		/* the rows this account's memberships reach, each once */
		for (nhit = 0, j = 0; j < a->nm; j++) {
			if (node_of(a->m[j]->cell, o, node, sizeof(node)) != 0)
				continue;
			if ((w = row(out, &idx, &cap, node)) < 0)
				goto oom;
			for (k = 0; k < nhit && hit[k] != w; k++)
				;
			if (k == nhit)
				hit[nhit++] = w;
		}
		if (nhit == 0)
			continue;
		if (resolve_combine(s->cfg, o->priv, a->m, a->nm, &v) != 0)
			goto oom;
		usage_get_for(a->uid, quota, o->period, &u);
		out->accounts++;
		out->multi += nhit > 1;
		out->used += u.used;
		out->limit += v.num;
		out->credit += u.credit;
		out->held += u.held;
		for (k = 0; k < nhit; k++) {
			struct report_row *rw = &out->rows[hit[k]];

			rw->accounts++;
			rw->used += u.used;
			rw->limit += v.num;
			rw->credit += u.credit;
			rw->held += u.held;
		}
		out->top[out->ntop++] = (struct report_top){ a->uid, u.used, v.num, u.credit };
		resolve_val_clear(&v);
	}
	/* never qsort a NULL array, even an empty one */
	if (out->nrows > 0)
		qsort(out->rows, out->nrows, sizeof(*out->rows), by_path);
	if (out->ntop > 0)
		qsort(out->top, out->ntop, sizeof(*out->top), heaviest);
	if (out->ntop > o->top)
		out->ntop = o->top;
	free(hit);
	strmap_free(&idx);
	return 0;
oom:
	free(hit);
	strmap_free(&idx);
	report_free(out);
	return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
}
