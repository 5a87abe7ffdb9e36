/* ldpool.h - a small pool of bound LDAP connections for writes. */
#ifndef PRIVD_LDPOOL_H
#define PRIVD_LDPOOL_H

#include <ldap.h>

#include "config.h"
#include "err.h"

/* Sizes the pool (connections are opened on first use). */
int ldpool_init(const struct cfg *c, int size);
void ldpool_free(void);

/*
 * Takes an idle connection, opening it when needed; waits for one at most
 * the LDAP timeout. ERR_UNAVAILABLE when slapd cannot be reached.
 */
int ldpool_get(LDAP **ld, struct err *e);
/* Gives ld back; broken: it failed at the connection level, close it. */
void ldpool_put(LDAP *ld, int broken);
/* Whether an LDAP result code means the connection is no good. */
int ldpool_is_down(int rc);

#endif
