/*
 * report.c - usage reports: a quota's usage summed per node of the reason or
 * organisation tree, from the snapshot and the usage table (no LDAP). The
 * rows a membership cell reaches are worked out once per cell, and only the
 * heaviest accounts asked for are kept (a heap), so the cost per account is
 * its usage lookups and a few additions.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "path.h"
#include "period.h"
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

/* The rows one membership cell reaches, in rows_of's order (the deepest
 * last): worked out once per cell and report, not once per account. */
struct reach {
	struct report *r;
	struct strmap *idx;
	size_t *cap;
	struct crow { long row; int own; } *rows;
	size_t n;
};

static int
reach(const char *path, int own, void *arg)
{
	struct reach *h = arg;
	long w = row(h->r, h->idx, h->cap, path);
	void *nr;

	if (w < 0 || (nr = realloc(h->rows, (h->n + 1) * sizeof(*h->rows))) == NULL)
		return -1;
	h->rows = nr;
	h->rows[h->n].row = w;
	h->rows[h->n++].own = own;
	return 0;
}

/* A membership cell's rows (NULL when out of memory), from cache or made. */
static const struct reach *
rows_for(const char *cell, const struct report_opts *o, struct report *r, struct strmap *idx,
    size_t *cap, struct strmap *cache)
{
	struct reach *h = strmap_get(cache, cell);
	int failed;

	if (h != NULL)
		return h;
	if ((h = calloc(1, sizeof(*h))) == NULL)
		return NULL;
	*h = (struct reach){ r, idx, cap, NULL, 0 };
	if (rows_of(cell, o, reach, h) != 0)
		goto fail;
	strmap_put(cache, cell, h, &failed);
	if (failed)
		goto fail;
	return h;
fail:
	free(h->rows);
	free(h);
	return NULL;
}

static void
cache_free(struct strmap *cache)
{
	size_t i;

	for (i = 0; i < cache->cap; i++)
		if (cache->slots[i].key != NULL) {
			free(((struct reach *)cache->slots[i].val)->rows);
			free(cache->slots[i].val);
		}
	strmap_free(cache);
}

/* Keeps the o->top heaviest in out->top: a heap with the lightest on top
 * while it fills, so a million accounts cost no sort of a million. */
static void
keep_top(struct report *out, size_t max, struct report_top t)
{
	struct report_top *h = out->top;
	size_t i, c;

	if (max == 0)
		return;
	if (out->ntop < max) {
		/* sift up: a parent is lighter than (sorts after) its children */
		for (i = out->ntop++; i > 0 && heaviest(&h[(i - 1) / 2], &t) < 0; i = (i - 1) / 2)
			h[i] = h[(i - 1) / 2];
		h[i] = t;
		return;
	}
	if (heaviest(&t, &h[0]) >= 0)
		return;		/* no heavier than the lightest kept */
	for (i = 0; (c = 2 * i + 1) < out->ntop; i = c) {
		if (c + 1 < out->ntop && heaviest(&h[c + 1], &h[c]) > 0)
			c++;
		if (heaviest(&h[c], &t) <= 0)
			break;
		h[i] = h[c];
	}
	h[i] = t;
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

/*
 * The report's usage, taken from the table in one pass rather than looked
 * up for each account (two hashed lookups under a lock, a million times:
 * 300 ms once 100,000 accounts had usage): each entry of this quota in
 * the period or the paid wallet, with its account, sorted by the
 * account's index in the full build, which the walk follows in order.
 */
struct uhit {
	uint32_t idx;		/* in s->core; UINT32_MAX: an overlay account */
	unsigned char paid;	/* the paid wallet's; else the period's */
	const struct snap_account *a;
	long long used, credit, held;
};

struct uset {
	const struct snap *s;
	char per[PRIV_NAME_MAX + PERIOD_KEY_MAX + 3], paid[PRIV_NAME_MAX + 16];
	size_t lper, lpaid;
	struct uhit *h;
	size_t n, cap, at;	/* at: the walk's place among the core's */
	int oom;
};

/* a's index in s->core, UINT32_MAX when it is an overlay account */
static uint32_t
core_index(const struct snap *s, const struct snap_account *a)
{
	return a >= s->core && a < s->core + s->ncore ? (uint32_t)(a - s->core) : UINT32_MAX;
}

static int
uset_take(void *arg, const char *key, const struct usage_val *v)
{
	struct uset *u = arg;
	size_t kl = strlen(key), ul;
	const struct snap_account *a;
	char uid[256];
	int paid;

	if (kl > u->lper && strcmp(key + kl - u->lper, u->per) == 0) {
		paid = 0;
		ul = kl - u->lper;
	} else if (kl > u->lpaid && strcmp(key + kl - u->lpaid, u->paid) == 0) {
		paid = 1;
		ul = kl - u->lpaid;
	} else
		return 0;
	if (ul >= sizeof(uid))
		return 0;
	memcpy(uid, key, ul);
	uid[ul] = '\0';
	/* the account's own spelling only, as a lookup by a->uid would */
	if ((a = snap_account(u->s, uid)) == NULL || strcmp(a->uid, uid) != 0)
		return 0;
	if (u->n == u->cap) {
		size_t nc = u->cap ? 2 * u->cap : 1024;
		struct uhit *nh = realloc(u->h, nc * sizeof(*nh));

		if (nh == NULL) {
			u->oom = 1;
			return -1;
		}
		u->h = nh;
		u->cap = nc;
	}
	u->h[u->n++] = (struct uhit){ core_index(u->s, a), (unsigned char)paid, a, v->used,
	    v->credit, v->held };
	return 0;
}

static int
uhit_order(const void *x, const void *y)
{
	const struct uhit *a = x, *b = y;

	if (a->idx != b->idx)
		return a->idx < b->idx ? -1 : 1;
	return a->a < b->a ? -1 : a->a > b->a;
}

/* a's usage in the period (*u) and in the paid wallet (*w), zero when none. */
static void
uset_get(struct uset *us, const struct snap_account *a, struct usage_val *u, struct usage_val *w)
{
	uint32_t idx = core_index(us->s, a);
	size_t k;

	memset(u, 0, sizeof(*u));
	memset(w, 0, sizeof(*w));
	if (idx != UINT32_MAX) {
		while (us->at < us->n && us->h[us->at].idx < idx)
			us->at++;
		k = us->at;
	} else {
		/* the overlay's few: the first of a's entries, by halves */
		size_t lo = us->at, hi = us->n;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (us->h[mid].idx < idx || (us->h[mid].idx == idx && us->h[mid].a < a))
				lo = mid + 1;
			else
				hi = mid;
		}
		k = lo;
	}
	for (; k < us->n && us->h[k].idx == idx && us->h[k].a == a; k++) {
		struct usage_val *t = us->h[k].paid ? w : u;

		t->used = us->h[k].used;
		t->credit = us->h[k].credit;
		t->held = us->h[k].held;
	}
}

/*
 * A membership cell of the full build in a report, by its index in s->mres:
 * where its rows start in the pool, how many, and the quota it grants. A
 * million accounts visit these in no order; kept together (a few MB at
 * 50,000 cells), they stay in the cache where a pointer per cell missed it.
 */
struct mrec {
	uint32_t off, n;
	long long num;
	unsigned char done, granted;
};

struct pool {
	struct crow *rows;
	size_t n, cap;
};

/*
 * The walk's cache misses, asked for early: a million accounts meet their
 * memberships' records, then those records' rows, in no order (two misses
 * a membership, two thirds of a report's time at a million accounts).
 * Records are fetched REC_AHEAD accounts before the walk reaches them,
 * rows ROWS_AHEAD before, by when the record is in the cache.
 */
#define REC_AHEAD 8
#define ROWS_AHEAD 4

static void
ahead(const struct snap *s, size_t pos, const struct mrec *recs, const struct pool *pl)
{
	const struct snap_account *b;
	size_t j;
	long mi;

	if (pos + REC_AHEAD < s->ncore) {
		b = &s->core[pos + REC_AHEAD];
		for (j = 0; j < b->nm; j++)
			if ((mi = snap_mres_idx(s, b->m[j])) >= 0)
				__builtin_prefetch(&recs[mi]);
	}
	if (pos + ROWS_AHEAD < s->ncore) {
		b = &s->core[pos + ROWS_AHEAD];
		for (j = 0; j < b->nm; j++)
			if ((mi = snap_mres_idx(s, b->m[j])) >= 0 && recs[mi].done &&
			    recs[mi].n > 0)
				__builtin_prefetch(pl->rows + recs[mi].off);
	}
}

/* rec for the core membership m: its rows appended to the pool. */
static int
core_rec(struct mrec *rec, const struct snap_mres *m, const struct report_opts *o,
    struct report *r, struct strmap *idx, size_t *cap, struct pool *pl)
{
	struct reach h = { r, idx, cap, NULL, 0 };

	if (rows_of(m->cell, o, reach, &h) != 0)
		goto fail;
	if (pl->n + h.n > pl->cap) {
		size_t nc = pl->cap ? pl->cap * 2 : 1024;
		struct crow *nr;

		while (nc < pl->n + h.n)
			nc *= 2;
		if ((nr = realloc(pl->rows, nc * sizeof(*nr))) == NULL)
			goto fail;
		pl->rows = nr;
		pl->cap = nc;
	}
	if (h.n > 0)
		memcpy(pl->rows + pl->n, h.rows, h.n * sizeof(*h.rows));
	rec->off = (uint32_t)pl->n;
	rec->n = (uint32_t)h.n;
	pl->n += h.n;
	rec->granted = m->pv[o->priv].granted != 0;
	rec->num = m->pv[o->priv].num;
	rec->done = 1;
	free(h.rows);
	return 0;
fail:
	free(h.rows);
	return -1;
}

int
report_usage(const struct snap *s, const struct report_opts *o, struct report *out,
    struct err *e)
{
	struct strmap idx, cache;
	struct mrec *recs = NULL;	/* the full build's memberships, by index */
	struct pool pl = { NULL, 0, 0 };
	const struct snap_account *a;
	struct crow first[64], *hit = first;	/* one account's rows, each once */
	size_t cap = 0, i, j, k, pos = 0, hcap = 64;
	const struct cfg_priv *def = &s->cfg->privs[o->priv];
	const char *quota = def->name;
	/* a number's limit is combined here; other types by resolve_combine */
	int numeric = def->type == PRIV_QUOTA || def->type == PRIV_NUMBER;
	struct uset us;

	memset(out, 0, sizeof(*out));
	memset(&us, 0, sizeof(us));
	strmap_init(&idx);
	strmap_init(&cache);
	us.s = s;
	us.lper = (size_t)snprintf(us.per, sizeof(us.per), "/%s@%s", quota, o->period);
	us.lpaid = (size_t)snprintf(us.paid, sizeof(us.paid), "/%s@%s", quota, QUOTA_PAID_PERIOD);
	if (us.lper >= sizeof(us.per) || us.lpaid >= sizeof(us.paid))
		goto oom;
	if (usage_each(uset_take, &us) != 0 && us.oom)
		goto oom;
	if (us.n > 0)
		qsort(us.h, us.n, sizeof(*us.h), uhit_order);
	if ((recs = calloc(s->nmres + 1, sizeof(*recs))) == NULL)
		goto oom;
	if ((out->top = calloc(o->top + 1, sizeof(*out->top))) == NULL)
		goto oom;
	while ((a = snap_next(s, &pos)) != NULL) {
		struct usage_val u, w;
		long long limit = 0;
		long deep[8];
		size_t nhit = 0, ndeep = 0;
		int any = 0;

		ahead(s, pos, recs, &pl);
		/* the rows this account's memberships reach, each once */
		for (j = 0; j < a->nm; j++) {
			const struct snap_mres *m = a->m[j];
			long mi = snap_mres_idx(s, m);
			const struct crow *rows;
			size_t n;
			long long num;
			int granted;
			long last = -1;

			/* the full build's memberships by index; the overlay's by name */
			if (mi >= 0) {
				struct mrec *rec = &recs[mi];
				const struct snap_mres *now;

				/* as a wide change left it (snapderive.c) */
				if (!rec->done && ((now = snap_mres_of(s, m)) == NULL ||
				    core_rec(rec, now, o, out, &idx, &cap, &pl) != 0))
					goto oom;
				rows = pl.rows + rec->off;
				n = rec->n;
				granted = rec->granted;
				num = rec->num;
			} else {
				const struct reach *h = rows_for(m->cell, o, out, &idx, &cap, &cache);

				if (h == NULL)
					goto oom;
				rows = h->rows;
				n = h->n;
				granted = m->pv[o->priv].granted != 0;
				num = m->pv[o->priv].num;
			}
			/* as resolve_combine: a membership without a grant takes no part */
			if (granted) {
				limit = any ? resolve_combine2(def->combine, limit, num) : num;
				any = 1;
			}
			for (i = 0; i < n; i++) {
				for (k = 0; k < nhit && hit[k].row != rows[i].row; k++)
					;
				if (k == nhit) {
					if (nhit == hcap) {
						struct crow *nh = realloc(hit == first ? NULL : hit,
						    2 * hcap * sizeof(*nh));

						if (nh == NULL)
							goto oom;
						if (hit == first)
							memcpy(nh, first, sizeof(first));
						hit = nh;
						hcap *= 2;
					}
					hit[nhit].row = rows[i].row;
					hit[nhit++].own = 0;
				}
				hit[k].own |= rows[i].own;
				last = rows[i].row;
			}
			for (k = 0; last >= 0 && k < ndeep && deep[k] != last; k++)
				;
			if (last >= 0 && k == ndeep && ndeep < 8)
				deep[ndeep++] = last;
		}
		if (nhit == 0)
			continue;
		if (!numeric) {
			struct resolve_val v;

			if (resolve_account(s, o->priv, a, &v) != 0)
				goto oom;
			limit = v.num;
			resolve_val_clear(&v);
		}
		/* the paid wallet has no periods: what it holds so far */
		uset_get(&us, a, &u, &w);
		out->accounts++;
		/* memberships in rows apart (not one inside the other's) */
		out->multi += apart(out, deep, ndeep);
		out->used += u.used;
		out->limit += limit;
		out->credit += u.credit;
		out->held += u.held;
		out->paid_used += w.used;
		out->topped_up += w.credit;
		for (k = 0; k < nhit; k++) {
			struct report_row *rw = &out->rows[hit[k].row];

			rw->accounts++;
			rw->used += u.used;
			rw->limit += limit;
			rw->credit += u.credit;
			rw->held += u.held;
			rw->paid_used += w.used;
			rw->topped_up += w.credit;
			if (hit[k].own) {
				rw->own_accounts++;
				rw->own_used += u.used;
			}
		}
		keep_top(out, o->top, (struct report_top){ a->uid, u.used, limit, u.credit });
	}
	cache_free(&cache);
	free(recs);
	free(pl.rows);
	free(us.h);
	/* never qsort a NULL array, even an empty one */
	if (out->nrows > 0)
		qsort(out->rows, out->nrows, sizeof(*out->rows), by_path);
	if (out->ntop > 0)
		qsort(out->top, out->ntop, sizeof(*out->top), heaviest);
	strmap_free(&idx);
	if (hit != first)
		free(hit);
	return 0;
oom:
	if (hit != first)
		free(hit);
	cache_free(&cache);
	free(recs);
	free(pl.rows);
	free(us.h);
	strmap_free(&idx);
	report_free(out);
	return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
}
