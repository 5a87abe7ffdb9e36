/* api_admin.c - administrator writes: POST /v1/import. */
#include <string.h>

#include "api.h"
#include "apply.h"
#include "import.h"
#include "log.h"
#include "sync.h"

static json_t *
summary_json(const struct apply_summary *s, int dry_run)
{
	return json_pack("{s:b, s:I, s:I, s:I, s:I, s:I, s:I}", "dry_run", dry_run,
	    "reasons_added", (json_int_t)s->reasons_added,
	    "organisations_added", (json_int_t)s->orgs_added,
	    "cells_added", (json_int_t)s->cells_added,
	    "cells_changed", (json_int_t)s->cells_changed,
	    "accounts_changed", (json_int_t)s->accounts_changed,
	    "accounts_created", (json_int_t)s->accounts_created);
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
	if (apply_import(r->cfg, &doc, dry_run, http_who(r), http_password(r), &sum, &e) != 0) {
		import_free(&doc);
		log_info("import by %s failed: %s", r->actor, e.msg);
		if (e.code == ERR_INVALID)
			return bad_import(r, &e);
		return http_err(r, &e, "import_failed");
	}
	import_free(&doc);
	/* answer once this privd's own reads show the import */
	if (!dry_run && sync_wait_csn(sum.csn_privileges, sum.csn_people,
	    r->cfg->ldap_timeout_s * 1000) != 0)
		log_warn("import: committed, but the sync stream has not shown it yet");
	log_info("import by %s%s: %zu reasons, %zu organisations, %zu cells added, "
	    "%zu cells changed, %zu accounts changed, %zu created", r->actor,
	    dry_run ? " (dry run)" : "", sum.reasons_added, sum.orgs_added,
	    sum.cells_added, sum.cells_changed, sum.accounts_changed, sum.accounts_created);
	ret = http_json(r, 200, summary_json(&sum, dry_run));
	return ret;
}
