/*
 * change.h - a change to the model (an import, an edit, a node delete or
 * move) as the states the objects it touches are to reach, written to LDAP
 * one entry at a time, never in an RFC 5805 transaction (slapd 2.5.13
 * crashes on those under privd's load).
 *
 * A change of more than one object is recorded first, under
 * ou=imports,BASE: who, what, a digest, and each object's state before and
 * after. While the record is open every privd answers from the model as it
 * was before (the follower lays the "before" states over what it reads),
 * so readers see all of a change or none of it. Running the same change
 * again finishes an interrupted one; aborting it writes the "before"
 * states back.
 */
#ifndef PRIVD_CHANGE_H
#define PRIVD_CHANGE_H

#include <stddef.h>

#include <ldap.h>

#include "config.h"
#include "dirview.h"
#include "err.h"

#include "chgrecord.h"
#include "chgstate.h"

/*
 * Makes the directory hold after's states. before holds the same objects'
 * states now (what an abort writes back). Refuses (ERR_CONFLICT) while
 * another change is open, unless it is this very change (same digest):
 * then it finishes that one from its record. On ld, bound as the caller.
 * view: what the caller read of the directory to make after (dirview.h),
 * planned from as it is, so an import reads each subtree once; NULL: read
 * here.
 */
int chg_run(LDAP *ld, const struct cfg *c, const struct chg_req *rq,
    const struct chg_list *before, const struct chg_list *after, struct dview *view,
    struct chg_result *res, struct err *e);
/* Writes an open record's "before" states back and closes it as aborted. */
int chg_abort(LDAP *ld, const struct cfg *c, const char *id,
    struct chg_result *res, struct err *e);

#endif
