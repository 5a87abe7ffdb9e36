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
/*
 * slapd 2.5 (2.5.13 tested) crashes, in syncprov, txn_preop or do_add, when
 * an RFC 5805 transaction commits while other writes run and a sync search
 * is open, which privd always has. privd's transactions (imports and admin
 * writes) take this lock alone; its other writes (quota modifies, which
 * are not transactions) share it.
 */
void ldpool_txn_lock(void);
void ldpool_txn_unlock(void);
void ldpool_write_begin(void);
void ldpool_write_end(void);

/* Whether an LDAP result code means the connection is no good. */
int ldpool_is_down(int rc);

#endif
