/* api_tree.c - tree nodes over REST: add, delete and move reasons and organisations. */
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
	if ((o = edit_body(r, allowed, &ret)) == NULL)
		return ret;
	memset(&doc, 0, sizeof(doc));
	if ((path = edit_field(o, "path")) == NULL || path_check(path, "path", &e) != 0 ||
	    *path == '\0') {
		json_decref(o);
		return http_error(r, 400, "bad_request", "path",
		    "path must be a tree path like staff/academic (segments of a-z, 0-9, _ and -)");
	}
	rc = side == TREE_REASONS ? edit_add_nodes(&doc.reasons, &doc.nreasons, path) :
	    edit_add_nodes(&doc.orgs, &doc.norgs, path);
	json_decref(o);
	if (rc != 0) {
		import_free(&doc);
		return http_error(r, 500, "internal", NULL, "out of memory");
	}
	return edit_run(r, &doc, "mkdir", NULL);
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
		if (e->code == ERR_CONFLICT && e->why != ERR_WHY_IMPORT)
			return http_error(r, 409, "in_use", e->key, "%s", e->msg);
		return edit_refused(r, e, "invalid_change");
	}
	log_info("admin %s by %s from %s%s: %zu change%s", what, r->actor, r->addr,
	    dry_run ? " (dry run)" : "", sum->nchanges, sum->nchanges == 1 ? "" : "s");
	ret = http_json(r, 200, edit_summary(sum, dry_run));
	apply_summary_free(sum);
	return ret;
}

enum MHD_Result
api_node_delete(struct req *r)
{
	const char *path = http_query(r, "path"), *f = http_query(r, "force");
	int force = f != NULL && (strcmp(f, "1") == 0 || strcmp(f, "true") == 0);
	int dry_run = edit_dry_run(r), rc;
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
	int dry_run = edit_dry_run(r), rc;
	struct apply_summary sum;
	const char *from, *to;
	struct chg_req rq;
	enum tree_side side;
	enum MHD_Result ret;
	struct err e;
	json_t *o;

	if (side_of(r, &side) != 0)
		return http_error(r, 404, "not_found", NULL, "the trees are reasons and organisations");
	if ((o = edit_body(r, allowed, &ret)) == NULL)
		return ret;
	from = edit_field(o, "from");
	to = edit_field(o, "to");
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
