/* api_model.c - reading the model: export, the trees with counts, who has a privilege, usage reports. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "money.h"
#include "export.h"
#include "grant.h"
#include "path.h"
#include "period.h"
#include "quota.h"
#include "report.h"
#include "resolve.h"
#include "snapshot.h"
#include "strmap.h"
#include "textbuf.h"

const struct snap *
api_enter(struct req *r, int *t, enum MHD_Result *ret)
{
	const struct snap *s = snap_enter(t);

	if (s == NULL) {
		snap_leave(*t);
		*ret = http_error(r, 503, "not_ready", NULL, "privd has not loaded the directory yet");
	}
	return s;
}

enum MHD_Result
api_export(struct req *r)
{
	const struct snap *s;
	enum MHD_Result ret;
	char *text;
	int t;

	if ((s = api_enter(r, &t, &ret)) == NULL)
		return ret;
	text = export_yaml(s);
	snap_leave(t);
	return http_text(r, 200, "application/yaml", text);
}

/* Counts per node path: members (accounts with a membership there) and grants. */
struct counts {
	struct strmap members, grants;
};

static void
bump(struct strmap *m, const char *key)
{
	int failed;

	strmap_put(m, key, (void *)((char *)strmap_get(m, key) + 1), &failed);
}

static json_t *
node(const struct snap *s, char **paths, size_t n, const char *path, struct counts *c)
{
	json_t *o = json_pack("{s:s, s:s, s:I, s:I}", "name", *path ? path_leaf(path) : "",
	    "path", path, "members", (json_int_t)(size_t)(char *)strmap_get(&c->members, path),
	    "grants", (json_int_t)(size_t)(char *)strmap_get(&c->grants, path));
	json_t *kids = json_array();
	size_t i, pl = strlen(path);
	int d = path_depth(path);

	(void)s;
	for (i = 0; o && kids && i < n; i++)
		if (path_depth(paths[i]) == d + 1 && (pl == 0 ||
		    (strncmp(paths[i], path, pl) == 0 && paths[i][pl] == '/')))
			json_array_append_new(kids, node(s, paths, n, paths[i], c));
	if (o != NULL)
		json_object_set_new(o, "children", kids);
	else
		json_decref(kids);
	return o;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

enum MHD_Result
api_tree(struct req *r)
{
	int reasons = strcmp(r->part[2], "reasons") == 0;
	const struct snap *s;
	enum MHD_Result ret;
	struct counts c;
	char **paths;
	const struct snap_account *a;
	const struct snap_cell *sc;
	size_t k, n, pos = 0, cpos = 0;
	json_t *o;
	int t;

	if (!reasons && strcmp(r->part[2], "organisations") != 0)
		return http_error(r, 404, "not_found", NULL, "the trees are reasons and organisations");
	if ((s = api_enter(r, &t, &ret)) == NULL)
		return ret;
	strmap_init(&c.members);
	strmap_init(&c.grants);
	n = reasons ? s->nreasons : s->norgs;
	if ((paths = malloc((n + 1) * sizeof(*paths))) == NULL) {
		snap_leave(t);
		return http_json(r, 500, NULL);
	}
	if (n > 0)
		memcpy(paths, reasons ? s->reasons : s->orgs, n * sizeof(*paths));
	qsort(paths, n, sizeof(*paths), by_name);
	/* keys borrowed from the snapshot: it stays entered until the answer is built */
	while ((sc = snap_next_cell(s, &cpos)) != NULL)
		for (k = 0; k < sc->ngrants; k++)
			bump(&c.grants, reasons ? sc->reason : sc->org);
	while ((a = snap_next(s, &pos)) != NULL)
		for (k = 0; k < a->nm; k++) {
			const struct snap_cell *sc = snap_cell(s, a->m[k]->cell);

			if (sc != NULL)
				bump(&c.members, reasons ? sc->reason : sc->org);
		}
	o = node(s, paths, n, "", &c);
	if (o != NULL)
		json_object_set_new(o, "tree", json_string(reasons ? "reasons" : "organisations"));
	free(paths);
	strmap_free(&c.members);
	strmap_free(&c.grants);
	snap_leave(t);
	return http_json(r, 200, o);
}

enum MHD_Result
api_who(struct req *r)
{
	const char *name = http_query(r, "privilege"), *value = http_query(r, "value");
	const struct snap *s;
	const struct cfg_priv *def;
	enum MHD_Result ret;
	json_t *o, *cells, *accts;
	long long want = 1;
	const struct snap_account *a;
	const struct snap_cell *c;
	size_t k, pos = 0, cpos = 0;
	int t, p;

	if (name == NULL || *name == '\0')
		return http_error(r, 400, "bad_request", "privilege", "the query parameter privilege is required");
	if ((p = cfg_priv_find(r->cfg, name)) < 0)
		return http_error(r, 404, "unknown_privilege", "privilege", "no privilege '%.64s' is declared", name);
	def = &r->cfg->privs[p];
	if (value != NULL && (def->type == PRIV_NUMBER || def->type == PRIV_QUOTA)) {
		char *end;

		want = strtoll(value, &end, 10);
		if (*value == '\0' || *end != '\0')
			return http_error(r, 400, "bad_request", "value", "value must be a whole number");
	}
	if ((s = api_enter(r, &t, &ret)) == NULL)
		return ret;
	cells = json_array();
	accts = json_array();
	while (cells && (c = snap_next_cell(s, &cpos)) != NULL)
		for (k = 0; k < c->ngrants; k++) {
			const struct grant *g = &c->grants[k];

			if (g->priv != p || (value && def->type == PRIV_SET &&
			    strcmp(g->elem, value) != 0))
				continue;
			/* a cell that denies, or grants less than asked, grants nothing */
			if ((def->type == PRIV_SET && g->op == GRANT_DEL) ||
			    (def->type == PRIV_FLAG && !g->num) ||
			    (value && (def->type == PRIV_NUMBER || def->type == PRIV_QUOTA) &&
			    g->num < want))
				continue;
			json_array_append_new(cells, json_pack("{s:s, s:s}", "cell", c->name,
			    "grant", g->text));
		}
	while (accts && (a = snap_next(s, &pos)) != NULL) {
		struct resolve_val v;
		int has = 0;

		if (resolve_account(s, p, a, &v) != 0)
			break;
		switch (def->type) {
		case PRIV_FLAG:
			has = v.num != 0;
			break;
		case PRIV_SET:
			has = value ? resolve_has(&v, value) : v.nelems > 0;
			break;
		case PRIV_NUMBER:
		case PRIV_QUOTA:
			has = value ? v.num >= want : v.num > 0;
			break;
		}
		resolve_val_clear(&v);
		if (has)
			json_array_append_new(accts, json_string(a->uid));
	}
	snap_leave(t);
	o = json_pack("{s:s, s:o, s:o}", "privilege", name, "cells", cells, "accounts", accts);
	if (o != NULL && value)
		json_object_set_new(o, "value", json_string(value));
	return http_json(r, 200, o);
}

/* One CSV field: quoted when it holds a comma, a quote or a line break. */
static void
csv_field(struct textbuf *b, const char *s)
{
	const char *q;

	if (strpbrk(s, ",\"\r\n") == NULL) {
		textbuf_add(b, "%s", s);
		return;
	}
	textbuf_add(b, "\"");
	for (q = s; *q; q++)
		textbuf_add(b, *q == '"' ? "\"\"" : "%c", *q);
	textbuf_add(b, "\"");
}

static double
share_of(long long part, long long whole)
{
	return whole > 0 ? (double)part / (double)whole : 0.0;
}

/* Amounts as CSV fields: money as money ("$12.40"), quoted (a symbol may hold a comma). */
static void
csv_amounts(struct textbuf *b, const char *cur, const long long *v, size_t n)
{
	char m[MONEY_TEXT_MAX];
	size_t k;

	for (k = 0; k < n; k++)
		if (*cur)
			textbuf_add(b, ",\"%s\"", money_format(v[k], cur, m, sizeof(m)));
		else
			textbuf_add(b, ",%lld", v[k]);
}

enum MHD_Result
api_report_usage(struct req *r)
{
	const char *name = http_query(r, "privilege"), *by = http_query(r, "by");
	const char *ds = http_query(r, "depth"), *under = http_query(r, "under");
	const char *ps = http_query(r, "period"), *ts = http_query(r, "top");
	const char *fmt = http_query(r, "format");
	const char *accept = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Accept");
	struct report_opts o;
	struct report rep;
	char period[PERIOD_KEY_MAX], *end;
	const struct snap *s;
	enum MHD_Result ret;
	struct err e;
	size_t i;
	int t, csv;
	const char *cur;
	json_t *out, *rows, *top;

	memset(&o, 0, sizeof(o));
	memset(&e, 0, sizeof(e));
	o.depth = 1;
	if (name == NULL || *name == '\0')
		return http_error(r, 400, "bad_request", "privilege",
		    "the query parameter privilege is required");
	if ((o.priv = cfg_priv_find(r->cfg, name)) < 0 || r->cfg->privs[o.priv].type != PRIV_QUOTA)
		return http_error(r, 404, "unknown_quota", "privilege", "no quota '%.64s' is declared",
		    name);
	if (by != NULL && strcmp(by, "organisation") != 0 && strcmp(by, "reason") != 0)
		return http_error(r, 400, "bad_request", "by", "by must be organisation or reason");
	o.by_reason = by != NULL && strcmp(by, "reason") == 0;
	if (ds != NULL && ((o.depth = (int)strtol(ds, &end, 10)) < 0 || o.depth > PATH_DEPTH_MAX ||
	    *end || !*ds))
		return http_error(r, 400, "bad_request", "depth",
		    "depth must be from 0 (whole paths) to %d", PATH_DEPTH_MAX);
	if (under != NULL && *under && path_check(under, "under", &e) != 0)
		return http_error(r, 400, "bad_request", "under", "%s", e.msg);
	o.under = under;
	if (ts != NULL && ((o.top = (size_t)strtoul(ts, &end, 10)) > 1000 || *end || !*ts ||
	    *ts == '-'))
		return http_error(r, 400, "bad_request", "top", "top must be from 0 to 1000");
	if (fmt != NULL && strcmp(fmt, "csv") != 0 && strcmp(fmt, "json") != 0)
		return http_error(r, 400, "bad_request", "format", "format must be csv or json");
	csv = fmt ? strcmp(fmt, "csv") == 0 : accept != NULL && strstr(accept, "text/csv") != NULL;
	if (ps != NULL) {
		if (!quota_period_ok(r->cfg, r->cfg->privs[o.priv].period, ps))
			return http_error(r, 400, "bad_request", "period", "period must name a %s period",
			    cfg_period_name(r->cfg->privs[o.priv].period));
		snprintf(period, sizeof(period), "%s", ps);
	} else if (period_key(r->cfg, r->cfg->privs[o.priv].period, period_now(), period, &e) != 0)
		return http_error(r, 409, "no_period", "period", "%s", e.msg);
	o.period = period;
	cur = r->cfg->privs[o.priv].currency;
	if ((s = api_enter(r, &t, &ret)) == NULL)
		return ret;
	if (report_usage(s, &o, &rep, &e) != 0) {
		snap_leave(t);
		return http_err(r, &e, "internal");
	}
	if (csv) {
		struct textbuf b = { NULL, 0, 0, 0 };
		char *text;

		textbuf_add(&b, "path,accounts,used,limit,credit,held,share,own_accounts,own_used,"
		    "paid_used,topped_up\r\n");
		for (i = 0; i < rep.nrows; i++) {
			const struct report_row *w = &rep.rows[i];
			const long long v[] = { w->used, w->limit, w->credit, w->held };
			const long long v2[] = { w->own_used, w->paid_used, w->topped_up };

			csv_field(&b, *w->path ? w->path : "/");
			textbuf_add(&b, ",%zu", w->accounts);
			csv_amounts(&b, cur, v, 4);
			textbuf_add(&b, ",%.4f,%zu", share_of(w->used, rep.used), w->own_accounts);
			csv_amounts(&b, cur, v2, 3);
			textbuf_add(&b, "\r\n");
		}
		report_free(&rep);
		snap_leave(t);
		if ((text = textbuf_take(&b)) == NULL)
			return http_error(r, 500, "internal", NULL, "out of memory");
		return http_text(r, 200, "text/csv; charset=utf-8", text);
	}
	rows = json_array();
	top = json_array();
	for (i = 0; rows && i < rep.nrows; i++) {
		const struct report_row *w = &rep.rows[i];

		json_array_append_new(rows, json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:f, s:I, s:I, "
		    "s:I, s:I}", "path", w->path, "accounts", (json_int_t)w->accounts,
		    "used", (json_int_t)w->used, "limit", (json_int_t)w->limit,
		    "credit", (json_int_t)w->credit, "held", (json_int_t)w->held,
		    "share", share_of(w->used, rep.used), "own_accounts", (json_int_t)w->own_accounts,
		    "own_used", (json_int_t)w->own_used, "paid_used", (json_int_t)w->paid_used,
		    "topped_up", (json_int_t)w->topped_up));
	}
	for (i = 0; top && i < rep.ntop; i++)
		json_array_append_new(top, json_pack("{s:s, s:I, s:I, s:I}", "account",
		    rep.top[i].uid, "used", (json_int_t)rep.top[i].used,
		    "limit", (json_int_t)rep.top[i].limit, "credit", (json_int_t)rep.top[i].credit));
	out = json_pack("{s:s, s:s, s:s, s:i, s:s?, s:I, s:I, s:I, s:I, s:I, s:I, s:s, s:o, s:o}",
	    "privilege", name, "period", period, "by", o.by_reason ? "reason" : "organisation",
	    "depth", o.depth, "under", under, "accounts", (json_int_t)rep.accounts,
	    "used", (json_int_t)rep.used, "limit", (json_int_t)rep.limit,
	    "credit", (json_int_t)rep.credit, "held", (json_int_t)rep.held,
	    "multi_node_accounts", (json_int_t)rep.multi,
	    "note", "a row counts its whole subtree (own_ its members at the node itself); an "
	    "account with memberships in rows apart counts in each; the totals count it once",
	    "rows", rows, "top", top);
	if (out != NULL) {
		json_object_set_new(out, "paid_used", json_integer(rep.paid_used));
		json_object_set_new(out, "topped_up", json_integer(rep.topped_up));
	}
	if (out != NULL && *cur)
		json_object_set_new(out, "currency", json_string(cur));
	report_free(&rep);
	snap_leave(t);
	return http_json(r, 200, out);
}

/*
 * GET /v1/cells[?members=N]: every cell with its grants, pools and how many
 * members it has in force (and the uids of up to N of them), and the two
 * trees' paths (the web page's cross-product grid).
 */
enum MHD_Result
api_cells(struct req *r)
{
	const char *ms = http_query(r, "members");
	const struct snap *s;
	enum MHD_Result ret;
	struct strmap members, uids;
	json_t *o, *cells, *rs, *os;
	long want = 0;
	char *end;
	const struct snap_account *a;
	const struct snap_cell *c;
	size_t i, k, pos = 0, cpos = 0;
	int t, failed;

	if (ms != NULL && ((want = strtol(ms, &end, 10)) < 0 || want > 100 || *end || !*ms))
		return http_error(r, 400, "bad_request", "members", "members must be from 0 to 100");
	if ((s = api_enter(r, &t, &ret)) == NULL)
		return ret;
	strmap_init(&members);
	strmap_init(&uids);
	while ((a = snap_next(s, &pos)) != NULL)
		for (k = 0; k < a->nm; k++) {
			const char *cell = a->m[k]->cell;
			json_t *l = strmap_get(&uids, cell);

			bump(&members, cell);
			if (want == 0)
				continue;
			if (l == NULL) {
				strmap_put(&uids, cell, (l = json_array()), &failed);
				if (failed) {
					json_decref(l);
					continue;
				}
			}
			if (json_array_size(l) < (size_t)want)
				json_array_append_new(l, json_string(a->uid));
		}
	cells = json_array();
	rs = json_array();
	os = json_array();
	while (cells && (c = snap_next_cell(s, &cpos)) != NULL) {
		json_t *g = json_array(), *p = json_array();

		for (k = 0; g && k < c->ngrants; k++)
			json_array_append_new(g, json_string(c->grants[k].text));
		for (k = 0; p && k < c->npools; k++)
			json_array_append_new(p, json_string(grant_pool_text(c->pools[k].text)));
		json_t *l = strmap_get(&uids, c->name);

		json_array_append_new(cells, json_pack("{s:s, s:s, s:s, s:o, s:o, s:I}", "cell",
		    c->name, "reason", c->reason, "organisation", c->org, "grants",
		    g ? g : json_array(), "pools", p ? p : json_array(), "members",
		    (json_int_t)(size_t)(char *)strmap_get(&members, c->name)));
		/* the cell's list is the map's until the map is freed: a reference */
		if (want > 0)
			json_object_set_new(json_array_get(cells, json_array_size(cells) - 1),
			    "member_uids", l ? json_incref(l) : json_array());
	}
	for (i = 0; rs && i < s->nreasons; i++)
		json_array_append_new(rs, json_string(s->reasons[i]));
	for (i = 0; os && i < s->norgs; i++)
		json_array_append_new(os, json_string(s->orgs[i]));
	strmap_free(&members);
	for (i = 0; i < uids.cap; i++)
		if (uids.slots[i].key != NULL)
			json_decref(uids.slots[i].val);
	strmap_free(&uids);
	snap_leave(t);
	o = json_pack("{s:o, s:o, s:o}", "reasons", rs ? rs : json_array(), "organisations",
	    os ? os : json_array(), "cells", cells ? cells : json_array());
	return http_json(r, 200, o);
}
