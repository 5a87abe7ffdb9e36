/*
 * api_admin.c - administrator writes: imports and the edits privctl makes
 * (tree nodes, grants, memberships). Each edit is validated whole, then
 * written as one change (change.c: entry by entry, readers seeing all of it
 * or none); with an admin key as privd, with HTTP Basic as the
 * administrator (the directory's ACLs decide).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api.h"
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

static json_t *
summary_json(const struct apply_summary *s, int dry_run)
{
	json_t *o = json_pack("{s:b, s:I, s:I, s:I, s:I, s:I, s:I}", "dry_run", dry_run,
	    "reasons_added", (json_int_t)s->reasons_added,
	    "organisations_added", (json_int_t)s->orgs_added,
	    "cells_added", (json_int_t)s->cells_added,
	    "cells_changed", (json_int_t)s->cells_changed,
	    "accounts_changed", (json_int_t)s->accounts_changed,
	    "accounts_created", (json_int_t)s->accounts_created);
	json_t *ch = json_array();
	size_t i;

	for (i = 0; ch && i < s->nchanges; i++)
		json_array_append_new(ch, json_string(s->changes[i]));
	if (o != NULL && s->import_id[0]) {
		json_object_set_new(o, "import_id", json_string(s->import_id));
		json_object_set_new(o, "resumed", json_boolean(s->resumed));
	}
	if (o != NULL)
		json_object_set_new(o, "changes", ch);
	else
		json_decref(ch);
	return o;
}

static int
want_dry_run(struct req *r)
{
	const char *dr = http_query(r, "dry_run");

	return dr != NULL && (strcmp(dr, "1") == 0 || strcmp(dr, "true") == 0);
}

/* The refusal of a change: 409 import_open while another is unfinished. */
static enum MHD_Result
change_err(struct req *r, const struct err *e, const char *code)
{
	if (e->code == ERR_CONFLICT && strcmp(e->key, "import") == 0)
		return http_error(r, 409, "import_open", NULL, "%s", e->msg);
	return http_err(r, e, code);
}

/* 400 naming the line and key of the fault. */
static enum MHD_Result
bad_import(struct req *r, const struct err *e)
{
	char msg[ERR_MSG_MAX + 32];
	json_t *o;

	snprintf(msg, sizeof(msg), "line %d: %s", e->line, e->msg);
	o = json_pack("{s:s, s:s, s:i}", "error", "invalid_import", "message", msg,
	    "line", e->line);
	if (o != NULL && e->key[0])
		json_object_set_new(o, "field", json_string(e->key));
	return http_json(r, 400, o);
}

enum MHD_Result
api_import(struct req *r)
{
	const char *dr = http_query(r, "dry_run");
	int dry_run = dr != NULL && (strcmp(dr, "1") == 0 || strcmp(dr, "true") == 0);
	struct apply_summary sum;
	struct import_doc doc;
	struct chg_req rq;
	enum MHD_Result ret;
	struct err e;

	memset(&e, 0, sizeof(e));
	if (r->len == 0)
		return http_error(r, 400, "invalid_import", "body",
		    "the body must be an import file (YAML)");
	if (import_parse(r->cfg, r->body, r->len, &doc, &e) != 0) {
		if (e.code == ERR_INTERNAL)
			return http_err(r, &e, "internal");
		log_info("import by %s refused: line %d: %s", r->actor, e.line, e.msg);
		return bad_import(r, &e);
	}
	rq.what = "import";
	rq.actor = r->actor;
	rq.body = r->body;
	rq.len = r->len;
	if (apply_import(r->cfg, &doc, dry_run, http_who(r), http_password(r), &rq, &sum,
	    &e) != 0) {
		import_free(&doc);
		log_info("import by %s failed: %s", r->actor, e.msg);
		if (e.code == ERR_INVALID)
			return bad_import(r, &e);
		return change_err(r, &e, "import_failed");
	}
	import_free(&doc);
	/* answer once this privd's own reads show the import */
	if (!dry_run && sync_wait_csn(sum.csn_privileges, sum.csn_people,
	    r->cfg->ldap_timeout_s * 1000) != 0)
		log_warn("import: written, but the sync stream has not shown it yet");
	log_info("import by %s%s: %zu reasons, %zu organisations, %zu cells added, "
	    "%zu cells changed, %zu accounts changed, %zu created", r->actor,
	    dry_run ? " (dry run)" : "", sum.reasons_added, sum.orgs_added,
	    sum.cells_added, sum.cells_changed, sum.accounts_changed, sum.accounts_created);
	ret = http_json(r, 200, summary_json(&sum, dry_run));
	apply_summary_free(&sum);
	return ret;
}

/* The body as a JSON object with only the allowed fields; else answers 400. */
static json_t *
body(struct req *r, const char *const *allowed, enum MHD_Result *ret)
{
	struct err e;
	json_t *o;

	memset(&e, 0, sizeof(e));
	if ((o = body_object(r->body, r->len, allowed, &e)) == NULL)
		*ret = http_error(r, 400, "bad_request", e.key, "%s", e.msg);
	return o;
}

static const char *
field_str(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* Adds path and its ancestors to the doc's nodes (parents first). */
static int
add_nodes(struct import_node **nodes, size_t *n, const char *path)
{
	char buf[PATH_MAX_LEN + 1];
	size_t i, len = strlen(path);

	for (i = 1; i <= len; i++) {
		struct import_node *nn;

		if (i < len && path[i] != '/')
			continue;
		snprintf(buf, sizeof(buf), "%.*s", (int)i, path);
		if ((nn = realloc(*nodes, (*n + 1) * sizeof(*nn))) == NULL)
			return -1;
		*nodes = nn;
		nn[*n].line = 0;
		if ((nn[*n].path = strdup(buf)) == NULL)
			return -1;
		(*n)++;
	}
	return 0;
}

/* What identifies an edit, for resuming it: the body, or the query. */
static void
edit_req(struct req *r, const char *what, const char *query, struct chg_req *rq)
{
	rq->what = what;
	rq->actor = r->actor;
	rq->body = query ? query : r->body;
	rq->len = query ? strlen(query) : r->len;
}

/* Runs an edit document and answers: 200 with the changes, or the error. */
static enum MHD_Result
run_edit(struct req *r, struct import_doc *doc, const char *what, const char *query)
{
	int dry_run = want_dry_run(r);
	struct apply_summary sum;
	struct chg_req rq;
	enum MHD_Result ret;
	struct err e;

	memset(&e, 0, sizeof(e));
	edit_req(r, what, query, &rq);
	if (apply_import(r->cfg, doc, dry_run, http_who(r), http_password(r), &rq, &sum,
	    &e) != 0) {
		import_free(doc);
		log_info("admin %s by %s from %s: refused: %s", what, r->actor, r->addr, e.msg);
		return change_err(r, &e, "invalid_change");
	}
	import_free(doc);
	if (!dry_run && sync_wait_csn(sum.csn_privileges, sum.csn_people,
	    r->cfg->ldap_timeout_s * 1000) != 0)
		log_warn("admin %s: written, but the sync stream has not shown it yet", what);
	log_info("admin %s by %s from %s%s: %zu change%s", what, r->actor, r->addr,
	    dry_run ? " (dry run)" : "", sum.nchanges, sum.nchanges == 1 ? "" : "s");
	ret = http_json(r, 200, summary_json(&sum, dry_run));
	apply_summary_free(&sum);
	return ret;
}

static int
side_of(struct req *r, enum tree_side *side)
{
	if (strcmp(r->part[2], "reasons") == 0)
		*side = TREE_REASONS;
	else if (strcmp(r->part[2], "organisations") == 0)
		*side = TREE_ORGS;
	else
		return -1;
	return 0;
}

enum MHD_Result
api_node_add(struct req *r)
{
	static const char *const allowed[] = { "path", NULL };
	struct import_doc doc;
	enum tree_side side;
	enum MHD_Result ret;
	const char *path;
	struct err e;
	json_t *o;
	int rc;

	if (side_of(r, &side) != 0)
		return http_error(r, 404, "not_found", NULL, "the trees are reasons and organisations");
	if ((o = body(r, allowed, &ret)) == NULL)
		return ret;
	memset(&doc, 0, sizeof(doc));
	if ((path = field_str(o, "path")) == NULL || path_check(path, "path", &e) != 0 ||
	    *path == '\0') {
		json_decref(o);
		return http_error(r, 400, "bad_request", "path",
		    "path must be a tree path like staff/academic (segments of a-z, 0-9, _ and -)");
	}
	rc = side == TREE_REASONS ? add_nodes(&doc.reasons, &doc.nreasons, path) :
	    add_nodes(&doc.orgs, &doc.norgs, path);
	json_decref(o);
	if (rc != 0) {
		import_free(&doc);
		return http_error(r, 500, "internal", NULL, "out of memory");
	}
	return run_edit(r, &doc, "mkdir", NULL);
}

struct node_wait {
	enum tree_side side;
	const char *path;
	int present;
};

static int
node_shown(void *arg)
{
	const struct node_wait *w = arg;
	int t, has;
	const struct snap *s = snap_enter(&t);

	has = s && (w->side == TREE_REASONS ? snap_reason_exists(s, w->path) :
	    snap_org_exists(s, w->path));
	snap_leave(t);
	return has == w->present;
}

/* Waits until the published snapshot shows path present (or absent). */
static void
wait_node(const struct cfg *c, enum tree_side side, const char *path, int present)
{
	struct node_wait w = { side, path, present };

	sync_wait(node_shown, &w, c->ldap_timeout_s * 1000);
}

static enum MHD_Result
tree_answer(struct req *r, int rc, struct apply_summary *sum, const struct err *e,
    const char *what, int dry_run)
{
	enum MHD_Result ret;

	if (rc != 0) {
		log_info("admin %s by %s from %s: refused: %s", what, r->actor, r->addr, e->msg);
		if (e->code == ERR_CONFLICT && strcmp(e->key, "import") != 0)
			return http_error(r, 409, "in_use", e->key, "%s", e->msg);
		return change_err(r, e, "invalid_change");
	}
	log_info("admin %s by %s from %s%s: %zu change%s", what, r->actor, r->addr,
	    dry_run ? " (dry run)" : "", sum->nchanges, sum->nchanges == 1 ? "" : "s");
	ret = http_json(r, 200, summary_json(sum, dry_run));
	apply_summary_free(sum);
	return ret;
}

enum MHD_Result
api_node_delete(struct req *r)
{
	const char *path = http_query(r, "path"), *f = http_query(r, "force");
	int force = f != NULL && (strcmp(f, "1") == 0 || strcmp(f, "true") == 0);
	int dry_run = want_dry_run(r), rc;
	char q[PATH_MAX_LEN + 32];
	struct apply_summary sum;
	struct chg_req rq;
	enum tree_side side;
	struct err e;

	if (side_of(r, &side) != 0)
		return http_error(r, 404, "not_found", NULL, "the trees are reasons and organisations");
	if (path == NULL)
		return http_error(r, 400, "bad_request", "path", "the query parameter path is required");
	memset(&e, 0, sizeof(e));
	snprintf(q, sizeof(q), "%s\n%s\n%d", r->part[2], path, force);
	edit_req(r, "rmdir", q, &rq);
	rc = tree_delete(r->cfg, side, path, force, dry_run, http_who(r), http_password(r),
	    &rq, &sum, &e);
	if (rc == 0 && !dry_run)
		wait_node(r->cfg, side, path, 0);
	return tree_answer(r, rc, &sum, &e, "rmdir", dry_run);
}

enum MHD_Result
api_node_move(struct req *r)
{
	static const char *const allowed[] = { "from", "to", NULL };
	int dry_run = want_dry_run(r), rc;
	struct apply_summary sum;
	const char *from, *to;
	struct chg_req rq;
	enum tree_side side;
	enum MHD_Result ret;
	struct err e;
	json_t *o;

	if (side_of(r, &side) != 0)
		return http_error(r, 404, "not_found", NULL, "the trees are reasons and organisations");
	if ((o = body(r, allowed, &ret)) == NULL)
		return ret;
	from = field_str(o, "from");
	to = field_str(o, "to");
	if (from == NULL || to == NULL) {
		json_decref(o);
		return http_error(r, 400, "bad_request", from ? "to" : "from",
		    "from and to must be tree paths");
	}
	memset(&e, 0, sizeof(e));
	edit_req(r, "mv", NULL, &rq);
	rc = tree_move(r->cfg, side, from, to, dry_run, http_who(r), http_password(r), &rq,
	    &sum, &e);
	if (rc == 0 && !dry_run)
		wait_node(r->cfg, side, to, 1);
	ret = tree_answer(r, rc, &sum, &e, "mv", dry_run);
	json_decref(o);
	return ret;
}

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
	if (create && ((*reason && add_nodes(&doc->reasons, &doc->nreasons, reason) != 0) ||
	    (*org && add_nodes(&doc->orgs, &doc->norgs, org) != 0)))
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

	if ((o = body(r, allowed, &ret)) == NULL)
		return ret;
	memset(&doc, 0, sizeof(doc));
	g = json_object_get(o, key);
	if (!json_is_array(g) || json_array_size(g) == 0 || json_array_size(g) > max) {
		json_decref(o);
		return http_error(r, 400, "bad_request", key, "%s must be a list of 1 to %zu %s",
		    key, max, example);
	}
	if ((c = edit_cell(r, &doc, field_str(o, "cell"), 1, &ret)) == NULL)
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
	return run_edit(r, &doc, what, NULL);
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
	return run_edit(r, doc, what, q);
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

/* An edit document for one account's memberships. */
static struct import_account *
edit_account(struct req *r, struct import_doc *doc, const char *uid, const char *cell,
    int add, enum MHD_Result *ret)
{
	char reason[PATH_MAX_LEN + 1], org[PATH_MAX_LEN + 1], name[CELL_MAX_LEN + 1];
	struct import_account *a;
	struct err e;

	memset(&e, 0, sizeof(e));
	if (uid == NULL || uid_check(uid, &e) != 0) {
		*ret = http_error(r, 400, "bad_request", "account", "account must be a uid%s%s",
		    e.msg[0] ? ": " : "", e.msg);
		return NULL;
	}
	if (cell == NULL || cell_split(cell, reason, org, &e) != 0) {
		*ret = http_error(r, 400, "bad_request", "cell", "cell must be REASON@ORGANISATION%s%s",
		    e.msg[0] ? ": " : "", e.msg);
		return NULL;
	}
	cell_join(name, reason, org);
	if ((doc->accounts = calloc(1, sizeof(*doc->accounts))) == NULL)
		goto oom;
	a = &doc->accounts[0];
	doc->naccounts = 1;
	a->merge = 1;
	if ((a->uid = strdup(uid)) == NULL)
		goto oom;
	if (add) {
		if ((a->cells = calloc(1, sizeof(char *))) == NULL || (a->cells[0] = strdup(name)) == NULL)
			goto oom;
		a->ncells = 1;
		if ((*reason && add_nodes(&doc->reasons, &doc->nreasons, reason) != 0) ||
		    (*org && add_nodes(&doc->orgs, &doc->norgs, org) != 0))
			goto oom;
	} else {
		if ((a->remove = calloc(1, sizeof(char *))) == NULL ||
		    (a->remove[0] = strdup(name)) == NULL)
			goto oom;
		a->nremove = 1;
	}
	return a;
oom:
	*ret = http_error(r, 500, "internal", NULL, "out of memory");
	return NULL;
}

/* The date in field k of o (absent: 0); 400 naming the field when bad. */
static int
date_field(struct req *r, json_t *o, const char *k, time_t *out, enum MHD_Result *ret)
{
	json_t *v = json_object_get(o, k);
	struct err e;

	*out = 0;
	memset(&e, 0, sizeof(e));
	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_string(v) || membership_date(r->cfg, json_string_value(v), k[0] == 'u', out,
	    &e) != 0) {
		*ret = http_error(r, 400, "bad_request", k, "%s", e.msg[0] ? e.msg :
		    "a date is 2026-09-01, 2026-09-01T08:30 or a term of the calendar");
		return -1;
	}
	return 0;
}

enum MHD_Result
api_member_add(struct req *r)
{
	static const char *const allowed[] = { "account", "cell", "from", "until", NULL };
	struct import_doc doc;
	struct import_account *a;
	enum MHD_Result ret;
	time_t from, until;
	char *enc;
	json_t *o;

	if ((o = body(r, allowed, &ret)) == NULL)
		return ret;
	memset(&doc, 0, sizeof(doc));
	if (date_field(r, o, "from", &from, &ret) != 0 || date_field(r, o, "until", &until, &ret) != 0 ||
	    (a = edit_account(r, &doc, field_str(o, "account"), field_str(o, "cell"), 1, &ret)) == NULL) {
		import_free(&doc);
		json_decref(o);
		return ret;
	}
	json_decref(o);
	if (from != 0 && until != 0 && until <= from) {
		import_free(&doc);
		return http_error(r, 400, "bad_request", "until", "until must come after from");
	}
	/* a dated membership travels as "CELL|FROM|UNTIL" (membership.h) */
	if ((from != 0 || until != 0) && (enc = membership_encode(a->cells[0], from, until)) != NULL) {
		free(a->cells[0]);
		a->cells[0] = enc;
	}
	return run_edit(r, &doc, "add", NULL);
}

/* "14d", "36h", "90m" or seconds; -1 when it is none of them. */
static long
duration(const char *s)
{
	char *end;
	long n = strtol(s, &end, 10);

	if (end == s || n < 0 || n > 3650L * 86400)
		return -1;
	if (*end == '\0' || strcmp(end, "s") == 0)
		return n;
	if (strcmp(end, "m") == 0)
		return n * 60;
	if (strcmp(end, "h") == 0)
		return n * 3600;
	if (strcmp(end, "d") == 0)
		return n * 86400;
	return -1;
}

static int
by_until(const void *a, const void *b)
{
	json_int_t x = json_integer_value(json_object_get(*(json_t *const *)a, "until_s"));
	json_int_t y = json_integer_value(json_object_get(*(json_t *const *)b, "until_s"));

	return x < y ? -1 : x > y;
}

enum MHD_Result
api_members_expiring(struct req *r)
{
	const char *ws = http_query(r, "within");
	long within = ws ? duration(ws) : 14 * 86400;
	const struct snap *s;
	json_t **v = NULL, *arr;
	size_t i, k, n = 0, cap = 0;
	time_t now;
	int t;

	if (within < 0)
		return http_error(r, 400, "bad_request", "within",
		    "within is a duration: 14d, 36h, 90m or seconds");
	if ((s = snap_enter(&t)) == NULL) {
		snap_leave(t);
		return http_error(r, 503, "not_ready", NULL, "privd has not loaded the directory yet");
	}
	now = s->now;
	for (i = 0; i < s->naccounts; i++)
		for (k = 0; k < s->accounts[i].ndated; k++) {
			char cell[MEMBERSHIP_MAX], ts[24];
			time_t from, until;
			json_t **nv;

			if (membership_split(s->accounts[i].dated[k], cell, sizeof(cell), &from,
			    &until) != 0 || until == 0 || until <= now || until > now + within)
				continue;
			if (n == cap) {
				if ((nv = realloc(v, (cap ? cap * 2 : 16) * sizeof(*v))) == NULL)
					continue;	/* out of memory: the list is short */
				v = nv;
				cap = cap ? cap * 2 : 16;
			}
			membership_rfc3339(until, ts);
			v[n++] = json_pack("{s:s, s:s, s:s, s:I}", "account", s->accounts[i].uid,
			    "cell", cell, "until", ts, "until_s", (json_int_t)until);
		}
	snap_leave(t);
	if (n)
		qsort(v, n, sizeof(*v), by_until);
	arr = json_array();
	for (i = 0; i < n; i++) {
		json_object_del(v[i], "until_s");
		json_array_append_new(arr, v[i]);
	}
	free(v);
	return http_json(r, 200, json_pack("{s:I, s:o}", "within_s", (json_int_t)within,
	    "memberships", arr));
}

/* Removes every dated membership that has ended (dry_run=1: says which). */
enum MHD_Result
api_members_purge(struct req *r)
{
	struct import_doc doc;
	const struct snap *s;
	size_t i, k;
	time_t now;
	int t;

	memset(&doc, 0, sizeof(doc));
	if ((s = snap_enter(&t)) == NULL) {
		snap_leave(t);
		return http_error(r, 503, "not_ready", NULL, "privd has not loaded the directory yet");
	}
	now = s->now;
	if ((doc.accounts = calloc(s->naccounts + 1, sizeof(*doc.accounts))) == NULL)
		goto oom;
	for (i = 0; i < s->naccounts; i++) {
		const struct snap_account *sa = &s->accounts[i];
		struct import_account *a = &doc.accounts[doc.naccounts];

		for (k = 0; k < sa->ndated; k++) {
			char cell[MEMBERSHIP_MAX];
			time_t from, until;

			if (membership_split(sa->dated[k], cell, sizeof(cell), &from, &until) != 0 ||
			    until == 0 || until > now)
				continue;
			if (a->remove == NULL && ((a->remove = calloc(sa->ndated + 1,
			    sizeof(char *))) == NULL || (a->uid = strdup(sa->uid)) == NULL))
				goto oom;
			if ((a->remove[a->nremove++] = strdup(cell)) == NULL)
				goto oom;
		}
		if (a->remove != NULL) {
			a->merge = 1;
			doc.naccounts++;
		}
	}
	snap_leave(t);
	return run_edit(r, &doc, "purge-expired", NULL);
oom:
	snap_leave(t);
	import_free(&doc);
	return http_error(r, 500, "internal", NULL, "out of memory");
}

enum MHD_Result
api_member_remove(struct req *r)
{
	const char *uid = http_query(r, "account");
	char q[UID_MAX + CELL_MAX_LEN + 4];
	struct import_doc doc;
	enum MHD_Result ret;
	const struct snap *s;
	int t, known;

	memset(&doc, 0, sizeof(doc));
	if (edit_account(r, &doc, uid, http_query(r, "cell"), 0, &ret) == NULL) {
		import_free(&doc);
		return ret;
	}
	s = snap_enter(&t);
	known = s && snap_account(s, uid) != NULL;
	snap_leave(t);
	if (!known) {
		import_free(&doc);
		return http_error(r, 404, "unknown_account", "account", "no account '%.64s'", uid);
	}
	snprintf(q, sizeof(q), "%s\n%s", uid, http_query(r, "cell"));
	return run_edit(r, &doc, "remove", q);
}

enum MHD_Result
api_imports(struct req *r)
{
	struct chg_record *recs = NULL;
	json_t *arr = json_array();
	size_t i, n = 0;
	struct err e;
	LDAP *ld = NULL;

	memset(&e, 0, sizeof(e));
	if (ldapc_open_write(r->cfg, http_who(r), http_password(r), &ld, &e) != 0 ||
	    chgrec_list(ld, r->cfg, &recs, &n, &e) != 0) {
		ldapc_close(ld);
		json_decref(arr);
		return http_err(r, &e, "internal");
	}
	ldapc_close(ld);
	for (i = 0; arr && i < n; i++)
		json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:s, s:I}", "id", recs[i].id,
		    "state", recs[i].state, "what", recs[i].what, "actor", recs[i].actor,
		    "started", (json_int_t)recs[i].started));
	free(recs);
	return http_json(r, 200, json_pack("{s:o}", "imports", arr));
}

/* POST /v1/imports/{id}/abort: writes back what an open import changed. */
enum MHD_Result
api_import_abort(struct req *r)
{
	const char *id = r->part[2];
	struct chg_result res;
	struct err e;
	LDAP *ld = NULL;
	int rc;

	memset(&e, 0, sizeof(e));
	if (strlen(id) >= CHG_ID_MAX)
		return http_error(r, 404, "not_found", "id", "no import %.64s", id);
	if (ldapc_open_write(r->cfg, http_who(r), http_password(r), &ld, &e) != 0) {
		ldapc_close(ld);
		return http_err(r, &e, "internal");
	}
	rc = chg_abort(ld, r->cfg, id, &res, &e);
	ldapc_close(ld);
	if (rc != 0) {
		log_info("admin abort of %s by %s from %s: refused: %s", id, r->actor, r->addr, e.msg);
		return http_err(r, &e, "abort_failed");
	}
	if (sync_wait_csn(res.csn_privileges, res.csn_people, r->cfg->ldap_timeout_s * 1000) != 0)
		log_warn("abort of %s: written, but the sync stream has not shown it yet", id);
	log_info("admin abort of import %s by %s from %s: %zu writes", id, r->actor, r->addr,
	    res.writes);
	return http_json(r, 200, json_pack("{s:s, s:s, s:I}", "import_id", id, "state", "aborted",
	    "writes", (json_int_t)res.writes));
}
