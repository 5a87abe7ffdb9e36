/*
 * report.c - usage reports: a quota's usage summed per node of the reason or
 * organisation tree, from the snapshot and the usage table (no LDAP). The
 * rows a membership cell reaches are worked out once per cell, and only the
 * heaviest accounts asked for are kept (a heap), so the cost per account is
 * its usage lookups and a few additions. From REPORT_LANES_MIN accounts on
 * both passes (the usage table, then the accounts) are split between two
 * threads.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanes.h"
#include "path.h"
#include "report.h"
#include "resolve.h"
#include "strmap.h"
#include "usage.h"
#include "reportrows.h"

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

/*
 * One walk over accounts: what it adds up, its heaviest accounts, its
 * place in the usage. The report's own walk makes the rows of the
 * memberships it meets; a lane (two split the full build's accounts
 * between the cores) only adds, into rows made before it starts.
 */
struct walk {
	const struct snap *s;
	const struct report_opts *o;
	const struct cfg_priv *def;
	int numeric;		/* a number's limit is combined here */
	struct report *out;	/* the rows' paths; the serial walk adds here */
	struct report *sum;	/* what this walk adds to */
	struct mrec *recs;
	struct pool *pl;
	struct rrows us;		/* shared hits, this walk's own place */
	struct strmap *idx, *cache;	/* the report's walk: rows it makes */
	size_t *cap;
	size_t lo, hi;		/* a lane: its core positions */
	struct crow first[64], *hit;	/* one account's rows, each once */
	size_t hcap;
	int oom;
};

/* Counts a in its rows and the totals: 0, -1 when out of memory. */
static int
count(struct walk *w, const struct snap_account *a)
{
	const struct snap *s = w->s;
	const struct report_opts *o = w->o;
	struct usage_val u, paid;
	long long limit = 0;
	long deep[8];
	size_t nhit = 0, ndeep = 0, i, j, k;
	int any = 0;

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
			struct mrec *rec = &w->recs[mi];
			const struct snap_mres *now;

			/* as a wide change left it (snapderive.c) */
			if (!rec->done && ((now = snap_mres_of(s, m)) == NULL ||
			    core_rec(rec, now, o, w->out, w->idx, w->cap, w->pl) != 0))
				return -1;
			rows = w->pl->rows + rec->off;
			n = rec->n;
			granted = rec->granted;
			num = rec->num;
		} else {
			const struct reach *h = rows_for(m->cell, o, w->out, w->idx, w->cap, w->cache);

			if (h == NULL)
				return -1;
			rows = h->rows;
			n = h->n;
			granted = m->pv[o->priv].granted != 0;
			num = m->pv[o->priv].num;
		}
		/* as resolve_combine: a membership without a grant takes no part */
		if (granted) {
			limit = any ? resolve_combine2(w->def->combine, limit, num) : num;
			any = 1;
		}
		for (i = 0; i < n; i++) {
			for (k = 0; k < nhit && w->hit[k].row != rows[i].row; k++)
				;
			if (k == nhit) {
				if (nhit == w->hcap) {
					struct crow *nh = realloc(w->hit == w->first ? NULL : w->hit,
					    2 * w->hcap * sizeof(*nh));

					if (nh == NULL)
						return -1;
					if (w->hit == w->first)
						memcpy(nh, w->first, sizeof(w->first));
					w->hit = nh;
					w->hcap *= 2;
				}
				w->hit[nhit].row = rows[i].row;
				w->hit[nhit++].own = 0;
			}
			w->hit[k].own |= rows[i].own;
			last = rows[i].row;
		}
		for (k = 0; last >= 0 && k < ndeep && deep[k] != last; k++)
			;
		if (last >= 0 && k == ndeep && ndeep < 8)
			deep[ndeep++] = last;
	}
	if (nhit == 0)
		return 0;
	if (!w->numeric) {
		struct resolve_val v;

		if (resolve_account(s, o->priv, a, &v) != 0)
			return -1;
		limit = v.num;
		resolve_val_clear(&v);
	}
	/* the paid wallet has no periods: what it holds so far */
	rrows_get(&w->us, a, &u, &paid);
	w->sum->accounts++;
	/* memberships in rows apart (not one inside the other's) */
	w->sum->multi += apart(w->out, deep, ndeep);
	w->sum->used += u.used;
	w->sum->limit += limit;
	w->sum->credit += u.credit;
	w->sum->held += u.held;
	w->sum->paid_used += paid.used;
	w->sum->topped_up += paid.credit;
	for (k = 0; k < nhit; k++) {
		struct report_row *rw = &w->sum->rows[w->hit[k].row];

		rw->accounts++;
		rw->used += u.used;
		rw->limit += limit;
		rw->credit += u.credit;
		rw->held += u.held;
		rw->paid_used += paid.used;
		rw->topped_up += paid.credit;
		if (w->hit[k].own) {
			rw->own_accounts++;
			rw->own_used += u.used;
		}
	}
	keep_top(w->sum, o->top, (struct report_top){ a->uid, u.used, limit, u.credit });
	return 0;
}

/* A lane: the core accounts at positions lo..hi. */
static void *
lane_walk(void *arg)
{
	struct walk *w = arg;
	const struct snap_account *a;
	size_t pos = w->lo;

	while ((a = snap_next(w->s, &pos)) != NULL && snap_core_index(w->s, a) < w->hi) {
		ahead(w->s, pos, w->recs, w->pl);
		if (count(w, a) != 0) {
			w->oom = 1;
			break;
		}
	}
	return NULL;
}

/*
 * The full build's accounts split between two lanes. Every record of the
 * full build's memberships is made first, here: those accounts hold no
 * others, so the lanes only read them and add, each into rows of its own,
 * summed into out's after. A record no one visible holds any more (its
 * people changed since) leaves rows without accounts, dropped after.
 */
static int
walk_lanes(struct walk *serial)
{
	const struct snap *s = serial->s;
	struct walk w[2];
	size_t mi, i, k, nrows;
	int rc = -1;

	for (mi = 0; mi < s->nmres; mi++) {
		const struct snap_mres *now;

		if ((now = snap_mres_of(s, &s->mres[mi])) == NULL ||
		    core_rec(&serial->recs[mi], now, serial->o, serial->out, serial->idx,
		    serial->cap, serial->pl) != 0)
			return -1;
	}
	nrows = serial->out->nrows;
	for (i = 0; i < 2; i++) {
		w[i] = *serial;
		w[i].hit = w[i].first;
		w[i].hcap = sizeof(w[i].first) / sizeof(w[i].first[0]);
		w[i].sum = calloc(1, sizeof(*w[i].sum));
		w[i].lo = i == 0 ? 0 : s->ncore / 2;
		w[i].hi = i == 0 ? s->ncore / 2 : s->ncore;
		w[i].us.at = rrows_seek(&serial->us, w[i].lo);
		/* nothing to make: reaching for it would race */
		w[i].idx = w[i].cache = NULL;
		w[i].cap = NULL;
		if (w[i].sum != NULL) {
			w[i].sum->rows = calloc(nrows ? nrows : 1, sizeof(*w[i].sum->rows));
			w[i].sum->top = calloc(serial->o->top + 1, sizeof(*w[i].sum->top));
		}
		w[i].oom = w[i].sum == NULL || w[i].sum->rows == NULL || w[i].sum->top == NULL;
	}
	if (!w[0].oom && !w[1].oom)
		lanes_run(lane_walk, &w[0], &w[1], 1);
	if (w[0].oom || w[1].oom)
		goto done;
	for (i = 0; i < 2; i++) {
		struct report *from = w[i].sum, *to = serial->out;

		for (k = 0; k < nrows; k++) {
			to->rows[k].accounts += from->rows[k].accounts;
			to->rows[k].own_accounts += from->rows[k].own_accounts;
			to->rows[k].used += from->rows[k].used;
			to->rows[k].limit += from->rows[k].limit;
			to->rows[k].credit += from->rows[k].credit;
			to->rows[k].held += from->rows[k].held;
			to->rows[k].own_used += from->rows[k].own_used;
			to->rows[k].paid_used += from->rows[k].paid_used;
			to->rows[k].topped_up += from->rows[k].topped_up;
		}
		to->accounts += from->accounts;
		to->multi += from->multi;
		to->used += from->used;
		to->limit += from->limit;
		to->credit += from->credit;
		to->held += from->held;
		to->paid_used += from->paid_used;
		to->topped_up += from->topped_up;
		for (k = 0; k < from->ntop; k++)
			keep_top(to, serial->o->top, from->top[k]);
	}
	rc = 0;
done:
	for (i = 0; i < 2; i++) {
		if (w[i].sum != NULL) {
			free(w[i].sum->rows);
			free(w[i].sum->top);
			free(w[i].sum);
		}
		if (w[i].hit != w[i].first)
			free(w[i].hit);
	}
	return rc;
}

/* Rows no account reached (walk_lanes made them for no one), dropped. */
static void
drop_empty(struct report *r)
{
	size_t i, n = 0;

	for (i = 0; i < r->nrows; i++) {
		if (r->rows[i].accounts == 0) {
			free(r->rows[i].path);
			continue;
		}
		r->rows[n++] = r->rows[i];
	}
	r->nrows = n;
}

int
report_usage(const struct snap *s, const struct report_opts *o, struct report *out,
    struct err *e)
{
	struct strmap idx, cache;
	struct mrec *recs = NULL;	/* the full build's memberships, by index */
	struct pool pl = { NULL, 0, 0 };
	const struct snap_account *a;
	size_t cap = 0, pos = 0;
	const struct cfg_priv *def = &s->cfg->privs[o->priv];
	const char *quota = def->name;
	struct walk w;
	int lanes = o->lanes ? o->lanes : s->ncore >= REPORT_LANES_MIN ? 2 : 1;

	memset(out, 0, sizeof(*out));
	memset(&w, 0, sizeof(w));
	strmap_init(&idx);
	strmap_init(&cache);
	w.hit = w.first;
	w.hcap = sizeof(w.first) / sizeof(w.first[0]);
	if (rrows_fill(&w.us, s, quota, o->period, lanes) != 0)
		goto oom;
	if ((recs = calloc(s->nmres + 1, sizeof(*recs))) == NULL)
		goto oom;
	if ((out->top = calloc(o->top + 1, sizeof(*out->top))) == NULL)
		goto oom;
	w.s = s;
	w.o = o;
	w.def = def;
	w.numeric = def->type == PRIV_QUOTA || def->type == PRIV_NUMBER;
	w.out = w.sum = out;
	w.recs = recs;
	w.pl = &pl;
	w.idx = &idx;
	w.cache = &cache;
	w.cap = &cap;
	if (lanes > 1) {
		if (walk_lanes(&w) != 0)
			goto oom;
		/* then the overlay's accounts, where the usage is sought */
		pos = s->ncore;
		w.us.at = rrows_seek(&w.us, s->ncore);
	}
	while ((a = snap_next(s, &pos)) != NULL) {
		ahead(s, pos, recs, &pl);
		if (count(&w, a) != 0)
			goto oom;
	}
	drop_empty(out);
	cache_free(&cache);
	free(recs);
	free(pl.rows);
	rrows_free(&w.us);
	/* never qsort a NULL array, even an empty one */
	if (out->nrows > 0)
		qsort(out->rows, out->nrows, sizeof(*out->rows), by_path);
	if (out->ntop > 0)
		qsort(out->top, out->ntop, sizeof(*out->top), heaviest);
	strmap_free(&idx);
	if (w.hit != w.first)
		free(w.hit);
	return 0;
oom:
	if (w.hit != w.first)
		free(w.hit);
	cache_free(&cache);
	free(recs);
	free(pl.rows);
	rrows_free(&w.us);
	strmap_free(&idx);
	report_free(out);
	return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
}
