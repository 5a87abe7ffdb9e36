/* api_import.c - imports over REST: POST /v1/import (dry runs too), the records, an abort. */
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
		return edit_refused(r, &e, "import_failed");
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
	ret = http_json(r, 200, edit_summary(&sum, dry_run));
	apply_summary_free(&sum);
	return ret;
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
