/* api_pool.c - reading pools: all of them, one, who may draw, an account's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "period.h"
#include "pool.h"
#include "snapshot.h"
#include "sync.h"

/* {QUOTA: {limit, credit, used, held, remaining, period}} of cell's pools
 * (only quota priv when priv >= 0), from the usage privd has seen. */
static json_t *
quotas(const struct snap *s, const struct snap_cell *c, int priv, time_t now)
{
	char holder[HOLDER_MAX];
	json_t *o = json_object();
	size_t i;

	holder_pool(holder, c->name);
	for (i = 0; o && i < c->npools; i++) {
		const struct grant *g = &c->pools[i];
		const struct cfg_priv *def = &s->cfg->privs[g->priv];
		json_t *q;

		if ((priv >= 0 && g->priv != priv) || (q = json_object()) == NULL)
			continue;
		api_usage(q, s->cfg, holder, def->name, def->period, g->num, now);
		json_object_set_new(o, def->name, q);
	}
	return o;
}

/* A member of a pool: the account and the membership the cell covers. */
struct drawer {
	const char *uid, *via;
};

static int
by_uid(const void *a, const void *b)
{
	return strcmp(((const struct drawer *)a)->uid, ((const struct drawer *)b)->uid);
}

/* The accounts that may draw on cell's pools; the count, and with list
 * the first max of them by uid. */
static size_t
members(const struct snap *s, const char *cell, json_t *list, size_t max)
{
	struct drawer *v = list ? malloc((s->naccounts + 1) * sizeof(*v)) : NULL;
	const struct snap_account *a;
	size_t i, n = 0, pos = 0;

	while ((a = snap_next(s, &pos)) != NULL) {
		const char *via = pool_member_via(a, cell);

		if (via == NULL)
			continue;
		if (v != NULL)
			v[n] = (struct drawer){ a->uid, via };
		n++;
	}
	if (v != NULL) {
		qsort(v, n, sizeof(*v), by_uid);
		for (i = 0; i < n && i < max; i++)
			json_array_append_new(list, json_pack("{s:s, s:s}", "account", v[i].uid,
			    "via", v[i].via));
	}
	free(v);
	return n;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp((*(const struct snap_cell *const *)a)->name,
	    (*(const struct snap_cell *const *)b)->name);
}

/* Who is told when the cell's pools run low (notice.h). */
static json_t *
contacts(const struct snap_cell *c)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < c->ncontacts; i++)
		json_array_append_new(a, json_string(c->contacts[i]));
	return a ? a : json_array();
}

/* GET /v1/pools: every pool, by cell name. */
enum MHD_Result
api_pools(struct req *r)
{
	const struct snap_cell **v;
	const struct snap *s;
	enum MHD_Result ret;
	json_t *o, *arr;
	time_t now = period_now();
	size_t i;
	int t;

	if ((s = api_enter(r, &t, &ret)) == NULL)
		return ret;
	if ((v = malloc((s->npooled + 1) * sizeof(*v))) == NULL) {
		snap_leave(t);
		return http_error(r, 500, "internal", NULL, "out of memory");
	}
	memcpy(v, s->pooled, s->npooled * sizeof(*v));
	qsort(v, s->npooled, sizeof(*v), by_name);
	arr = json_array();
	for (i = 0; arr && i < s->npooled; i++)
		json_array_append_new(arr, json_pack("{s:s, s:o, s:o}", "cell", v[i]->name,
		    "quotas", quotas(s, v[i], -1, now), "contacts", contacts(v[i])));
	free(v);
	snap_leave(t);
	o = json_pack("{s:o, s:b}", "pools", arr ? arr : json_array(),
	    "stale", sync_state() == SYNC_STALE);
	return http_json(r, 200, o);
}

/* The cell named that holds pools; else NULL, having answered 404. */
static const struct snap_cell *
pool_cell(struct req *r, const struct snap *s, const char *name, enum MHD_Result *ret)
{
	const struct snap_cell *c = snap_cell(s, name);

	if (c == NULL || c->npools == 0) {
		*ret = http_error(r, 404, "unknown_pool", "cell", "cell '%.200s' holds no pool", name);
		return NULL;
	}
	return c;
}

/* GET /v1/pools/{cell}: its quotas and how many may draw on it. */
enum MHD_Result
api_pool(struct req *r)
{
	const struct snap_cell *c;
	const struct snap *s;
	enum MHD_Result ret;
	json_t *o;
	int t;

	if ((s = api_enter(r, &t, &ret)) == NULL)
		return ret;
	if ((c = pool_cell(r, s, r->part[2], &ret)) == NULL) {
		snap_leave(t);
		return ret;
	}
	o = json_pack("{s:s, s:o, s:o, s:I, s:b}", "cell", c->name,
	    "quotas", quotas(s, c, -1, period_now()), "contacts", contacts(c),
	    "members", (json_int_t)members(s, c->name, NULL, 0),
	    "stale", sync_state() == SYNC_STALE);
	snap_leave(t);
	return http_json(r, 200, o);
}

/* GET /v1/pools/{cell}/members[?limit=N]: who may draw, and by which membership. */
enum MHD_Result
api_pool_members(struct req *r)
{
	const char *ls = http_query(r, "limit");
	const struct snap_cell *c;
	const struct snap *s;
	enum MHD_Result ret;
	json_t *o, *arr;
	long limit = 1000;
	char *end;
	size_t n;
	int t;

	if (ls != NULL && ((limit = strtol(ls, &end, 10)) < 1 || limit > 100000 || *end || !*ls))
		return http_error(r, 400, "bad_request", "limit", "limit must be from 1 to 100000");
	if ((s = api_enter(r, &t, &ret)) == NULL)
		return ret;
	if ((c = pool_cell(r, s, r->part[2], &ret)) == NULL) {
		snap_leave(t);
		return ret;
	}
	arr = json_array();
	n = members(s, c->name, arr, (size_t)limit);
	o = json_pack("{s:s, s:I, s:o}", "cell", c->name, "total", (json_int_t)n,
	    "accounts", arr ? arr : json_array());
	snap_leave(t);
	return http_json(r, 200, o);
}

/* ?cell=C: whether a may draw on C's pools, and why, membership by membership. */
static enum MHD_Result
explain(struct req *r, const struct snap *s, const struct snap_account *a, const char *cell,
    int t)
{
	const struct snap_cell *c;
	char why[1024];
	json_t *o, *arr;
	const char *via = NULL;
	enum MHD_Result ret;
	size_t i;

	if ((c = pool_cell(r, s, cell, &ret)) == NULL) {
		snap_leave(t);
		return ret;
	}
	arr = json_array();
	for (i = 0; arr && i < a->nm; i++) {
		int ok = pool_why(c->name, a->m[i]->cell, why, sizeof(why));

		if (ok && via == NULL)
			via = a->m[i]->cell;
		json_array_append_new(arr, json_pack("{s:s, s:b, s:s}", "membership",
		    a->m[i]->cell, "covered", ok, "why", why));
	}
	o = json_pack("{s:s, s:s, s:b, s:o, s:o}", "account", a->uid, "cell", c->name,
	    "may_draw", via != NULL, "memberships", arr ? arr : json_array(),
	    "quotas", quotas(s, c, -1, period_now()));
	if (o != NULL && via != NULL)
		json_object_set_new(o, "via", json_string(via));
	if (o != NULL && a->nm == 0)
		json_object_set_new(o, "why", json_string("no membership in force"));
	snap_leave(t);
	return http_json(r, 200, o);
}

/* GET /v1/accounts/{uid}/pools[?quota=Q]: the pools it may draw on, most
 * specific first; with ?cell=C, why it may or may not draw on C's. */
enum MHD_Result
api_account_pools(struct req *r)
{
	const char *qs = http_query(r, "quota"), *cell = http_query(r, "cell");
	const struct snap_account *a;
	struct pool_ref *v = NULL;
	const struct snap *s;
	enum MHD_Result ret;
	time_t now = period_now();
	json_t *o, *arr;
	size_t i, n = 0;
	int t, p = -1;

	if (qs != NULL && ((p = cfg_priv_find(r->cfg, qs)) < 0 ||
	    r->cfg->privs[p].type != PRIV_QUOTA))
		return http_error(r, 404, "unknown_quota", "quota", "no quota '%.64s' is declared", qs);
	if ((s = api_enter(r, &t, &ret)) == NULL)
		return ret;
	if ((a = snap_account(s, r->part[2])) == NULL) {
		snap_leave(t);
		return http_error(r, 404, "unknown_account", "uid",
		    "no account '%.64s' (no entry with privAccount and that uid)", r->part[2]);
	}
	if (cell != NULL)
		return explain(r, s, a, cell, t);
	if (pool_for_account(s, a, p, &v, &n) != 0) {
		snap_leave(t);
		return http_error(r, 500, "internal", NULL, "out of memory");
	}
	arr = json_array();
	for (i = 0; arr && i < n; i++)
		json_array_append_new(arr, json_pack("{s:s, s:s, s:o}", "cell", v[i].cell->name,
		    "via", v[i].via, "quotas", quotas(s, v[i].cell, p, now)));
	o = json_pack("{s:s, s:o, s:b}", "account", a->uid, "pools", arr ? arr : json_array(),
	    "stale", sync_state() == SYNC_STALE);
	free(v);
	snap_leave(t);
	return http_json(r, 200, o);
}
