/* login.h - people by HTTP Basic or sign-in: bound to LDAP as themselves, rate limited. */
#ifndef PRIVD_LOGIN_H
#define PRIVD_LOGIN_H

#include <stddef.h>

#include "config.h"
#include "err.h"

#define LOGIN_DN_MAX 512
#define LOGIN_PW_MAX 256

struct login {
	char uid[65];
	char dn[LOGIN_DN_MAX];
	char password[LOGIN_PW_MAX];
};

/*
 * Checks "Authorization: Basic ..." for client address addr: finds the
 * person by uid (an escaped filter) under ldap.people and binds as that DN.
 * 0 and l filled; else -1 with e: ERR_INVALID (malformed), ERR_FORBIDDEN
 * (wrong uid or password: 401), ERR_CONFLICT (a sign-in budget is spent,
 * loginrate.h: 429), ERR_UNAVAILABLE (LDAP down). A uid and password that
 * bound within the last 30 seconds are not bound again.
 */
int login_basic(const struct cfg *c, const char *header, const char *addr,
    struct login *l, struct err *e);
/* The same for a uid and password given apart (the web page's sign-in). */
int login_password(const struct cfg *c, const char *uid, const char *password,
    const char *addr, struct login *l, struct err *e);

#endif
