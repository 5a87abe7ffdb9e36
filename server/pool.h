/*
 * pool.h - shared budgets: a quota limit held by a cell, drawn on by every
 * account with a membership the cell covers (ancestor-or-self on both
 * trees, as in resolution). A pool's limit travels with the cell's grants
 * as "pool QUOTA=N" (grant.h) and sits in LDAP as the cell's privPool
 * values; its usage is an ordinary usage entry under ou=usage, named by
 * cn=CELL instead of uid=UID, so charging it has every guarantee a
 * personal charge has (quota.h).
 */
#ifndef PRIVD_POOL_H
#define PRIVD_POOL_H

#include <stddef.h>

#include <ldap.h>

#include "holder.h"
#include "snapshot.h"

/* A privCell entry's values as privd carries them: its privGrant values,
 * then each privPool value as "pool VALUE". malloc'd; NULL when out of memory. */
char **pool_cell_vals(LDAP *ld, LDAPMessage *m);
/* The other way, for a write: the privGrant and the privPool values of
 * vals (the prefix taken off). Both malloc'd; -1 when out of memory. */
int pool_split_vals(char *const *vals, size_t n, char ***grants, size_t *ngrants,
    char ***pools, size_t *npools);

/* Whether a membership in cell member may draw on a pool of cell pool:
 * pool's reason and organisation are ancestors-or-self of member's. */
int pool_covers(const char *pool, const char *member);
/* pool_covers, with the reason in words into buf (n bytes; NULL: none):
 * which side is not under the pool's, or that both are. */
int pool_why(const char *pool, const char *member, char *buf, size_t n);
/* How specific a cell is: the depth of its two sides together. */
int pool_depth(const char *cell);

/* cell's pool limit of quota priv, or NULL. */
const struct grant *pool_limit(const struct snap_cell *cell, int priv);

struct pool_ref {
	const struct snap_cell *cell;	/* borrowed from the snapshot */
	const struct grant *limit;	/* of the quota asked for; NULL: any */
	const char *via;		/* the membership the cell covers */
};

/*
 * The pools account a may draw on, of quota priv (or of any quota: -1),
 * most specific first (deepest cell, then by name). *out malloc'd (free
 * it), borrowing from s; 0, or -1 when out of memory.
 */
int pool_for_account(const struct snap *s, const struct snap_account *a, int priv,
    struct pool_ref **out, size_t *n);
/* The membership of a that lets it draw on cell, or NULL. */
const char *pool_member_via(const struct snap_account *a, const char *cell);


#endif
