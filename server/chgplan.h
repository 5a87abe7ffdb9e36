/*
 * chgplan.h - from states to writes: what the directory must be told to
 * hold a change's states, planned against a view of what it holds
 * (dirview.h), then written (chgwrite.h).
 */
#ifndef PRIVD_CHGPLAN_H
#define PRIVD_CHGPLAN_H

#include <ldap.h>

#include "chgrecord.h"
#include "chgstate.h"
#include "config.h"
#include "dirview.h"
#include "err.h"

/*
 * Makes the directory hold l's states, planned from view (what the
 * directory holds, as the caller read it; what it lacks of l is read
 * here) or, when NULL, from a view read here. basis: the states a
 * one-entry edit planned from (a conflict when the entry no longer looks
 * like them), or NULL. id, expect: the change's record and the state it
 * must stay in while this writes ("" and CHGREC_NONE: no record).
 */
int chgp_apply(LDAP *ld, const struct cfg *c, const struct chg_list *l,
    const struct chg_list *basis, const char *id, enum chgrec_state expect,
    struct dview *view, struct chg_result *res, struct err *e);

#endif
