/*
 * report.c - usage reports: a quota's usage summed per node of the reason or
 * organisation tree, from the snapshot and the usage table (no LDAP), so a
 * report over 100,000 accounts takes a fraction of a second.
 */
#include <stdlib.h>
#include <string.h>

#include "path.h"
#include "qwrite.h"
#include "report.h"
#include "resolve.h"
#include "strmap.h"
#include "usage.h"

/* Whether the path p (len n) lies at or below under (every path when none). */
static int
within(const char *p, size_t n, const char *under)
{
	size_t ul = under ? strlen(under) : 0;

	return ul == 0 || (n >= ul && strncmp(p, under, ul) == 0 && (n == ul || p[ul] == '/'));
}

/*
 * The rows a membership in cell reaches: its node and each of its
 * ancestors, down to o->depth levels, at or below o->under, each a
 * subtree's row; fn(path, own, arg) for each, own when the row is the
 * membership's own node. The side left empty ("student@") is the row "".
 */
static int
rows_of(const char *cell, const struct report_opts *o,
    int (*fn)(const char *path, int own, void *arg), void *arg)
{
	const char *at = strchr(cell, '@'), *side;
	char buf[CELL_MAX_LEN + 1];
	size_t len, i;
	int d = 0;

	if (at == NULL)
		return 0;
	side = o->by_reason ? cell : at + 1;
	len = o->by_reason ? (size_t)(at - cell) : strlen(at + 1);
	if (len == 0)
		return o->under && *o->under ? 0 : fn("", 1, arg);
	if (len >= sizeof(buf))
		return 0;
	for (i = 0; i <= len; i++) {
		if (i < len && side[i] != '/')
			continue;
		if (o->depth > 0 && ++d > o->depth)
			break;
		if (!within(side, i, o->under))
			continue;
		memcpy(buf, side, i);
		buf[i] = '\0';
		if (fn(buf, i == len, arg) != 0)
			return -1;
	}
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

/* One account's rows, gathered: each once, own when any membership is its own node. */
struct reach {
	struct report *r;
	struct strmap *idx;
	size_t *cap;
	struct { long row; int own; } *hit;
	size_t n;
	long last;		/* the deepest row of the membership at hand */
	long deep[8];		/* the deepest rows of its memberships, each once */
	size_t ndeep;
};

static int
reach(const char *path, int own, void *arg)
{
	struct reach *h = arg;
	long w = row(h->r, h->idx, h->cap, path);
	size_t k;
	void *nh;

	if (w < 0)
		return -1;
	for (k = 0; k < h->n && h->hit[k].row != w; k++)
		;
	if (k == h->n) {
		if ((nh = realloc(h->hit, (h->n + 1) * sizeof(*h->hit))) == NULL)
			return -1;
		h->hit = nh;
		h->hit[h->n].row = w;
		h->hit[h->n++].own = 0;
	}
	h->hit[k].own |= own;
	h->last = w;
	return 0;
}

/* Whether rows x (n of them) hold two of which neither lies inside the other. */
static int
apart(const struct report *r, const long *x, size_t n)
{
	size_t i, j, a, b;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			const char *p = r->rows[x[i]].path, *q = r->rows[x[j]].path;

			a = strlen(p);
			b = strlen(q);
			if (a > b) {
				const char *t = p;

				p = q;
				q = t;
				a = b;
			}
			/* p the shorter: inside when a prefix at a '/' (or the root) */
			if (!(a == 0 || (strncmp(p, q, a) == 0 && (q[a] == '/' || q[a] == '\0'))))
				return 1;
		}
	return 0;
}

int
report_usage(const struct snap *s, const struct report_opts *o, struct report *out,
    struct err *e)
{
	struct strmap idx;
	const struct snap_account *a;
	size_t cap = 0, j, k, pos = 0;
	const char *quota = s->cfg->privs[o->priv].name;

	memset(out, 0, sizeof(*out));
	strmap_init(&idx);
	if ((out->top = calloc(s->naccounts + 1, sizeof(*out->top))) == NULL)
		goto oom;
	while ((a = snap_next(s, &pos)) != NULL) {
		struct resolve_val v;
		struct usage_val u, w;
		struct reach h = { out, &idx, &cap, NULL, 0, -1, { 0 }, 0 };

		/* the rows this account's memberships reach, each once */
		for (j = 0; j < a->nm; j++) {
			h.last = -1;
			if (rows_of(a->m[j]->cell, o, reach, &h) != 0) {
				free(h.hit);
				goto oom;
			}
			for (k = 0; h.last >= 0 && k < h.ndeep && h.deep[k] != h.last; k++)
				;
			if (h.last >= 0 && k == h.ndeep && h.ndeep < 8)
				h.deep[h.ndeep++] = h.last;
		}
		if (h.n == 0) {
			free(h.hit);
			continue;
		}
		if (resolve_combine(s->cfg, o->priv, a->m, a->nm, &v) != 0) {
			free(h.hit);
			goto oom;
		}
		usage_get_for(a->uid, quota, o->period, &u);
		/* the paid wallet has no periods: what it holds so far */
		usage_get_for(a->uid, quota, QUOTA_PAID_PERIOD, &w);
		out->accounts++;
		/* memberships in rows apart (not one inside the other's) */
		out->multi += apart(out, h.deep, h.ndeep);
		out->used += u.used;
		out->limit += v.num;
		out->credit += u.credit;
		out->held += u.held;
		out->paid_used += w.used;
		out->topped_up += w.credit;
		for (k = 0; k < h.n; k++) {
			struct report_row *rw = &out->rows[h.hit[k].row];

			rw->accounts++;
			rw->used += u.used;
			rw->limit += v.num;
			rw->credit += u.credit;
			rw->held += u.held;
			rw->paid_used += w.used;
			rw->topped_up += w.credit;
			if (h.hit[k].own) {
				rw->own_accounts++;
				rw->own_used += u.used;
			}
		}
		free(h.hit);
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
	strmap_free(&idx);
	return 0;
oom:
	strmap_free(&idx);
	report_free(out);
	return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
}
