/* api_edit.c - the helpers of the administrator's writes over REST (api_edit.h). */
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

json_t *
edit_summary(const struct apply_summary *s, int dry_run)
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

	if (o != NULL && s->printers_changed)
		json_object_set_new(o, "printers_changed", json_integer(s->printers_changed));

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

int
edit_dry_run(struct req *r)
{
	const char *dr = http_query(r, "dry_run");

	return dr != NULL && (strcmp(dr, "1") == 0 || strcmp(dr, "true") == 0);
}

/* The refusal of a change: 409 import_open while another is unfinished. */
enum MHD_Result
edit_refused(struct req *r, const struct err *e, const char *code)
{
	if (e->code == ERR_CONFLICT && e->why == ERR_WHY_IMPORT)
		return http_error(r, 409, "import_open", NULL, "%s", e->msg);
	return http_err(r, e, code);
}

/* The body as a JSON object with only the allowed fields; else answers 400. */
json_t *
edit_body(struct req *r, const char *const *allowed, enum MHD_Result *ret)
{
	struct err e;
	json_t *o;

	memset(&e, 0, sizeof(e));
	if ((o = body_object(r->body, r->len, allowed, &e)) == NULL)
		*ret = http_error(r, 400, "bad_request", e.key, "%s", e.msg);
	return o;
}

const char *
edit_field(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* What identifies an edit, for resuming it: the body, or the query. */
void
edit_req(struct req *r, const char *what, const char *query, struct chg_req *rq)
{
	rq->what = what;
	rq->actor = r->actor;
	rq->body = query ? query : r->body;
	rq->len = query ? strlen(query) : r->len;
}

/* Runs an edit document and answers: 200 with the changes, or the error. */
enum MHD_Result
edit_run(struct req *r, struct import_doc *doc, const char *what, const char *query)
{
	int dry_run = edit_dry_run(r);
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
		return edit_refused(r, &e, "invalid_change");
	}
	import_free(doc);
	if (!dry_run && sync_wait_csn(sum.csn_privileges, sum.csn_people,
	    r->cfg->ldap_timeout_s * 1000) != 0)
		log_warn("admin %s: written, but the sync stream has not shown it yet", what);
	log_info("admin %s by %s from %s%s: %zu change%s", what, r->actor, r->addr,
	    dry_run ? " (dry run)" : "", sum.nchanges, sum.nchanges == 1 ? "" : "s");
	ret = http_json(r, 200, edit_summary(&sum, dry_run));
	apply_summary_free(&sum);
	return ret;
}

/* Adds path and its ancestors to the doc's nodes (parents first). */
int
edit_add_nodes(struct import_node **nodes, size_t *n, const char *path)
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
