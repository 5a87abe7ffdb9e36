/*
 * tokenlive.h - whether a sign-in token still stands for what it stood for.
 * A token ends when its person's password changes (pwdChangedTime, or any
 * change to their entry not made by privd's own account), when they leave
 * the directory or lose every membership, and when an administrator ends
 * every sign-in of theirs (DELETE /v1/accounts/{uid}/tokens). What the
 * directory says is looked up at most every ui.token_recheck seconds (30)
 * a person, so each privd notices within that.
 */
#ifndef PRIVD_TOKENLIVE_H
#define PRIVD_TOKENLIVE_H

#include <stddef.h>
#include <time.h>

#include "config.h"
#include "err.h"

#define TOKENLIVE_REVOKED "tokens-after="	/* a privPreference value, then the time */

/* 0 when a token of uid's issued at `issued` still stands; -1 with why (n
 * bytes) when it does not. LDAP down: what was last learned stands. */
int tokenlive_check(const struct cfg *c, const char *uid, time_t issued, char *why, size_t n);
/* Ends every sign-in uid made until now: 0, or -1 with e. */
int tokenlive_revoke(const struct cfg *c, const char *uid, struct err *e);

#endif
