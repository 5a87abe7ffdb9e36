/* ldapconn.h - opening and binding an LDAP connection as the configuration says. */
#ifndef PRIVD_LDAPCONN_H
#define PRIVD_LDAPCONN_H

#include <ldap.h>

#include "config.h"
#include "err.h"

/* Connects and binds (as bind_dn, or as who/password when who is not
 * NULL); ERR_UNAVAILABLE when the server cannot be reached. */
int ldapc_open(const struct cfg *c, const char *who, const char *password,
    LDAP **out, struct err *e);
void ldapc_close(LDAP *ld);
/* Maps an LDAP result code to an err (503 for down, 409 for conflicts...). */
int ldapc_fail(struct err *e, int rc, const char *what);

#endif
