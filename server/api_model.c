/* api_model.c - reading the model: export, the trees with counts, and who has a privilege. */
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "export.h"
#include "path.h"
#include "resolve.h"
#include "snapshot.h"
#include "strmap.h"

static const struct snap *
enter(struct req *r, int *t, enum MHD_Result *ret)
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

	if ((s = enter(r, &t, &ret)) == NULL)
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
	size_t i, k, n;
	json_t *o;
	int t;

	if (!reasons && strcmp(r->part[2], "organisations") != 0)
		return http_error(r, 404, "not_found", NULL, "the trees are reasons and organisations");
	if ((s = enter(r, &t, &ret)) == NULL)
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
	for (i = 0; i < s->ncells; i++)
		for (k = 0; k < s->cells[i].ngrants; k++)
			bump(&c.grants, reasons ? s->cells[i].reason : s->cells[i].org);
	for (i = 0; i < s->naccounts; i++)
		for (k = 0; k < s->accounts[i].nm; k++) {
			const struct snap_cell *sc = snap_cell(s, s->accounts[i].m[k]->cell);

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
	size_t i, k;
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
	if ((s = enter(r, &t, &ret)) == NULL)
		return ret;
	cells = json_array();
	accts = json_array();
	for (i = 0; cells && i < s->ncells; i++)
		for (k = 0; k < s->cells[i].ngrants; k++) {
			const struct grant *g = &s->cells[i].grants[k];

			if (g->priv != p || (value && def->type == PRIV_SET &&
			    strcmp(g->elem, value) != 0))
				continue;
			/* a cell that denies, or grants less than asked, grants nothing */
			if ((def->type == PRIV_SET && g->op == GRANT_DEL) ||
			    (def->type == PRIV_FLAG && !g->num) ||
			    (value && (def->type == PRIV_NUMBER || def->type == PRIV_QUOTA) &&
			    g->num < want))
				continue;
			json_array_append_new(cells, json_pack("{s:s, s:s}", "cell", s->cells[i].name,
			    "grant", g->text));
		}
	for (i = 0; accts && i < s->naccounts; i++) {
		const struct snap_account *a = &s->accounts[i];
		struct resolve_val v;
		int has = 0;

		if (resolve_combine(s->cfg, p, a->m, a->nm, &v) != 0)
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
