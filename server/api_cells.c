/* api_cells.c - a cell's grants and pool limits over REST: set and revoke. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api.h"
#include "api_edit.h"
#include "apply.h"
#include "body.h"
#include "change.h"
#include "import.h"
#include "ldapconn.h"
#include "log.h"
#include "membership.h"
#include "path.h"
#include "pool.h"
#include "snapshot.h"
#include "sync.h"
#include "tree.h"

/* One cell of an edit document, its missing nodes added when create. */
static struct import_cell *
edit_cell(struct req *r, struct import_doc *doc, const char *name, int create,
    enum MHD_Result *ret)
{
	char reason[PATH_MAX_LEN + 1], org[PATH_MAX_LEN + 1];
	struct import_cell *c;
	struct err e;

	memset(&e, 0, sizeof(e));
	if (name == NULL || cell_split(name, reason, org, &e) != 0) {
		*ret = http_error(r, 400, "bad_request", "cell", "cell must be REASON@ORGANISATION%s%s",
		    e.msg[0] ? ": " : "", e.msg);
		return NULL;
	}
	if ((doc->cells = calloc(1, sizeof(*doc->cells))) == NULL)
		goto oom;
	c = &doc->cells[0];
	doc->ncells = 1;
	c->merge = 1;
	if ((c->reason = strdup(reason)) == NULL || (c->org = strdup(org)) == NULL)
		goto oom;
	c->name = malloc(CELL_MAX_LEN + 1);
	if (c->name == NULL)
		goto oom;
	cell_join(c->name, reason, org);
	if (create && ((*reason && edit_add_nodes(&doc->reasons, &doc->nreasons, reason) != 0) ||
	    (*org && edit_add_nodes(&doc->orgs, &doc->norgs, org) != 0)))
		goto oom;
	return c;
oom:
	*ret = http_error(r, 500, "internal", NULL, "out of memory");
	return NULL;
}

/*
 * {"cell", KEY: [text, ...]}: sets the cell's grants (KEY "grants") or its
 * pool limits (KEY "pools", each text prefixed as grant.h has it), making
 * the cell and its nodes when missing.
 */
static enum MHD_Result
cell_set(struct req *r, const char *key, size_t max, const char *what, const char *example)
{
	const char *allowed[] = { "cell", key, NULL };
	int pool = strcmp(key, "pools") == 0;
	struct import_doc doc;
	struct import_cell *c;
	enum MHD_Result ret;
	json_t *o, *g, *v;
	size_t i;

	if ((o = edit_body(r, allowed, &ret)) == NULL)
		return ret;
	memset(&doc, 0, sizeof(doc));
	g = json_object_get(o, key);
	if (!json_is_array(g) || json_array_size(g) == 0 || json_array_size(g) > max) {
		json_decref(o);
		return http_error(r, 400, "bad_request", key, "%s must be a list of 1 to %zu %s",
		    key, max, example);
	}
	if ((c = edit_cell(r, &doc, edit_field(o, "cell"), 1, &ret)) == NULL)
		goto fail;
	if ((c->grants = calloc(json_array_size(g), sizeof(*c->grants))) == NULL) {
		ret = http_error(r, 500, "internal", NULL, "out of memory");
		goto fail;
	}
	json_array_foreach(g, i, v) {
		char text[PRIV_NAME_MAX + GRANT_ELEM_MAX + 16];
		struct err e;

		memset(&e, 0, sizeof(e));
		if (json_is_string(v))
			snprintf(text, sizeof(text), "%s%s", pool ? GRANT_POOL : "",
			    json_string_value(v));
		if (!json_is_string(v) || grant_parse(r->cfg, text, &c->grants[c->ngrants], &e) != 0) {
			ret = http_error(r, e.code == ERR_NOT_FOUND ? 404 : 400,
			    e.code == ERR_NOT_FOUND ? "unknown_privilege" : "bad_request", key,
			    "%s[%zu]: %s", key, i, json_is_string(v) ? e.msg : "not a string");
			goto fail;
		}
		/* a pool's limit comes only as a pool, a grant only as a grant */
		if (c->grants[c->ngrants++].pool != pool) {
			ret = http_error(r, 400, "bad_request", key, "%s[%zu]: %s", key, i, pool ?
			    "give the limit as QUOTA=N" : "set pools with POST /v1/pools");
			goto fail;
		}
	}
	json_decref(o);
	return edit_run(r, &doc, what, NULL);
fail:
	import_free(&doc);
	json_decref(o);
	return ret;
}

enum MHD_Result
api_grant_set(struct req *r)
{
	return cell_set(r, "grants", 256, "grant",
	    "grants like print.pages=300 or printer.access+=eng-laser");
}

/* POST /v1/pools {"cell","pools":["print.pages=150",...]}. */
enum MHD_Result
api_pool_set(struct req *r)
{
	return cell_set(r, "pools", 64, "pool", "limits like print.pages=150");
}

/*
 * Drops what the cell's grants hold under name (a privilege, or "pool Q"
 * for a pool), once c names a cell that holds it; the edit's digest is
 * "CELL\nNAME". Frees doc.
 */
static enum MHD_Result
cell_revoke(struct req *r, struct import_doc *doc, struct import_cell *c, const char *name,
    const char *what)
{
	char q[CELL_MAX_LEN + PRIV_NAME_MAX + 16];

	if ((c->revoke = calloc(1, sizeof(char *))) == NULL ||
	    (c->revoke[0] = strdup(name)) == NULL) {
		import_free(doc);
		return http_error(r, 500, "internal", NULL, "out of memory");
	}
	c->nrevoke = 1;
	snprintf(q, sizeof(q), "%s\n%s", c->name, name);
	return edit_run(r, doc, what, q);
}

enum MHD_Result
api_grant_revoke(struct req *r)
{
	const char *cell = http_query(r, "cell"), *priv = http_query(r, "privilege");
	struct import_doc doc;
	struct import_cell *c;
	enum MHD_Result ret;
	const struct snap *s;
	int t, known;

	memset(&doc, 0, sizeof(doc));
	if (priv == NULL || cfg_priv_find(r->cfg, priv) < 0)
		return http_error(r, priv ? 404 : 400, priv ? "unknown_privilege" : "bad_request",
		    "privilege", "privilege must name a declared privilege");
	if ((c = edit_cell(r, &doc, cell, 0, &ret)) == NULL) {
		import_free(&doc);
		return ret;
	}
	s = snap_enter(&t);
	known = s && snap_cell(s, c->name) != NULL;
	snap_leave(t);
	if (!known) {
		import_free(&doc);
		return http_error(r, 404, "unknown_cell", "cell", "no cell '%.200s'", cell);
	}
	return cell_revoke(r, &doc, c, priv, "revoke");
}

/* DELETE /v1/pools?cell=C&quota=Q: the cell no longer holds that pool.
 * Its usage entries stay in LDAP, as an account's do. */
enum MHD_Result
api_pool_unset(struct req *r)
{
	const char *cell = http_query(r, "cell"), *quota = http_query(r, "quota");
	char name[PRIV_NAME_MAX + 8];
	struct import_doc doc;
	struct import_cell *c;
	const struct snap_cell *sc;
	const struct snap *s;
	enum MHD_Result ret;
	int t, known, p;

	memset(&doc, 0, sizeof(doc));
	if (quota == NULL || (p = cfg_priv_find(r->cfg, quota)) < 0 ||
	    r->cfg->privs[p].type != PRIV_QUOTA)
		return http_error(r, quota ? 404 : 400, quota ? "unknown_quota" : "bad_request",
		    "quota", "quota must name a declared quota");
	if ((c = edit_cell(r, &doc, cell, 0, &ret)) == NULL) {
		import_free(&doc);
		return ret;
	}
	s = snap_enter(&t);
	known = s && (sc = snap_cell(s, c->name)) != NULL && pool_limit(sc, p) != NULL;
	snap_leave(t);
	if (!known) {
		import_free(&doc);
		return http_error(r, 404, "unknown_pool", "cell", "cell '%.200s' holds no %s pool",
		    cell, quota);
	}
	snprintf(name, sizeof(name), GRANT_POOL "%s", quota);
	return cell_revoke(r, &doc, c, name, "pool revoke");
}
