/*
 * change.c - running a change (change.h): recorded first when it touches
 * more than one entry, planned and written (chgplan.h), closed; finished
 * when run again after an interruption, or undone by an abort.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lber.h>
#include <ldap.h>

#include "change.h"
#include "chgplan.h"
#include "chgrecord.h"
#include "dn.h"
#include "log.h"

int
chg_run(LDAP *ld, const struct cfg *c, const struct chg_req *rq,
    const struct chg_list *before, const struct chg_list *after, struct dview *view,
    struct chg_result *res, struct err *e)
{
	struct chg_record *open = NULL;
	struct chg_list redo = { NULL, 0, 0, };
	char digest[65];
	size_t nopen = 0;
	int rc = -1;

	memset(res, 0, sizeof(*res));
	chgrec_digest(rq, digest);
	if (chgrec_find(ld, c, chgrec_in_progress, &open, &nopen, e) != 0)
		return -1;
	if (nopen > 0 && open[0].st == CHGREC_PLANNING &&
	    strcmp(open[0].digest, digest) == 0) {
		/* this change, stopped before its first write: its record may be
		 * half written, so it goes and the change starts over */
		char *rdn = chgrec_dn(c, open[0].id);

		if (rdn != NULL) {
			chgrec_drop(ld, c, rdn);
			log_info("change %s: dropped (it had written nothing); starting over", open[0].id);
		}
		free(rdn);
		nopen = 0;
	}
	if (nopen > 0) {
		char *rdn;

		if (open[0].st == CHGREC_ABORTING) {
			err_set(e, ERR_CONFLICT, 0, "import", "import %s (%s by %s) is being aborted: "
			    "run privctl import --abort %s again if that stopped", open[0].id,
			    open[0].what, open[0].actor, open[0].id);
			err_why(e, ERR_WHY_IMPORT);
			goto done;
		}
		if (strcmp(open[0].digest, digest) != 0 || open[0].st != CHGREC_OPEN) {
			err_set(e, ERR_CONFLICT, 0, "import", "import %s (%s by %s, started %lds ago) is "
			    "not finished: run that same import again to finish it, or undo it with "
			    "privctl import --abort %s", open[0].id, open[0].what, open[0].actor,
			    (long)(time(NULL) - open[0].started), open[0].id);
			err_why(e, ERR_WHY_IMPORT);
			goto done;
		}
		/* the same change again: finish it from its record */
		snprintf(res->id, sizeof(res->id), "%s", open[0].id);
		res->resumed = 1;
		if ((rdn = chgrec_dn(c, res->id)) == NULL) {
			err_oom(e);
			goto done;
		}
		rc = chgrec_read_parts(ld, c, rdn, "privAfter", &redo, e);
		free(rdn);
		if (rc != 0)
			goto done;
		log_info("change %s: resuming %s by %s", res->id, open[0].what, open[0].actor);
		if ((rc = chgp_apply(ld, c, &redo, NULL, res->id, CHGREC_OPEN, view, res, e)) == 0)
			rc = chgrec_finish(ld, c, res->id, CHGREC_CLOSED, res, e);
		goto done;
	}
	if (after->n == 0) {
		rc = 0;
		goto done;
	}
	/* one object is one entry: slapd writes it whole or not at all */
	if (after->n > 1 && chgrec_begin(ld, c, rq, digest, before, after, res, e) != 0)
		goto done;
	/* a one-entry edit asserts the entry is as it planned from; a recorded
	 * change is guarded by its record (other edits wait for it) */
	if ((rc = chgp_apply(ld, c, after, res->id[0] ? NULL : before, res->id,
	    res->id[0] ? CHGREC_OPEN : CHGREC_NONE, view, res, e)) != 0)
		goto done;
	if (res->id[0])
		rc = chgrec_finish(ld, c, res->id, CHGREC_CLOSED, res, e);
done:
	chg_list_free(&redo);
	free(open);
	return rc;
}

int
chg_abort(LDAP *ld, const struct cfg *c, const char *id, struct chg_result *res,
    struct err *e)
{
	char *rdn = NULL, *filter = NULL;
	struct chg_list undo = { NULL, 0, 0 };
	struct chg_record *rec = NULL;
	struct berval in = { 0, NULL }, esc = { 0, NULL };
	size_t n = 0;
	int rc = -1, pass;

	memset(res, 0, sizeof(*res));
	snprintf(res->id, sizeof(res->id), "%s", id);
	in.bv_val = (char *)id;
	in.bv_len = strlen(id);
	if ((rdn = chgrec_dn(c, id)) == NULL ||
	    ldap_bv2escaped_filter_value(&in, &esc) != 0 ||
	    asprintf(&filter, "(&(objectClass=privImport)(privImportState=*)(cn=%s))",
	    esc.bv_val) < 0) {
		filter = NULL;
		err_oom(e);
		goto done;
	}
	if (chgrec_find(ld, c, filter, &rec, &n, e) != 0)
		goto done;
	if (n == 0) {
		err_set(e, ERR_NOT_FOUND, 0, "id", "no import %s", id);
		goto done;
	}
	if (rec[0].st == CHGREC_ABORTED) {
		rc = 0;
		goto done;
	}
	if (rec[0].st == CHGREC_CLOSED) {
		err_set(e, ERR_CONFLICT, 0, "id", "import %s has finished; there is nothing to "
		    "abort (make the opposite change instead)", id);
		goto done;
	}
	/* the change stops at its next check; readers keep the model before it */
	if (chgrec_set_state(ld, rdn, CHGREC_ABORTING, NULL, e) != 0)
		goto done;
	if (rec[0].st != CHGREC_PLANNING &&
	    chgrec_read_parts(ld, c, rdn, "privBefore", &undo, e) != 0)
		goto done;
	log_info("change %s: aborting: writing back %zu objects", id, undo.n);
	/* a privd still writing the change stops within CHGW_CHECK_EVERY writes:
	 * write back again until a pass finds nothing left to undo */
	for (pass = 0; pass < 10; pass++) {
		size_t before = res->writes;
		struct timespec pause = { 1, 0 };

		if (chgp_apply(ld, c, &undo, NULL, id, CHGREC_ABORTING, NULL, res, e) != 0)
			goto done;
		if (pass > 0 && res->writes == before)
			break;
		nanosleep(&pause, NULL);
	}
	rc = chgrec_finish(ld, c, id, CHGREC_ABORTED, res, e);
done:
	chg_list_free(&undo);
	ber_memfree(esc.bv_val);
	free(filter);
	free(rec);
	free(rdn);
	return rc;
}
