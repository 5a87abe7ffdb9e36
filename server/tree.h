/* tree.h - deleting and moving nodes of the reason and organisation trees in LDAP. */
#ifndef PRIVD_TREE_H
#define PRIVD_TREE_H

#include "apply.h"
#include "config.h"
#include "err.h"

enum tree_side { TREE_REASONS, TREE_ORGS };

/*
 * Deletes node path and everything below it. A node whose cells (any cell
 * whose side lies in the subtree) have grants or members is refused
 * (ERR_CONFLICT naming them) unless force: then those cells go too and the
 * accounts lose those memberships. The memberships go in one transaction,
 * then the cells and nodes one by one, leaves first (slapd 2.5 refuses
 * deletes in a transaction): each step leaves a consistent directory. With
 * dry_run nothing is written. As who/password (NULL: privd's bind DN).
 */
int tree_delete(const struct cfg *c, enum tree_side side, const char *path,
    int force, int dry_run, const char *who, const char *password,
    struct apply_summary *sum, struct err *e);

/*
 * Moves (or renames) node from to to, with its subtree: the cells on it are
 * renamed and the memberships in them follow. to's parent must exist and
 * to must not. One transaction.
 */
int tree_move(const struct cfg *c, enum tree_side side, const char *from,
    const char *to, int dry_run, const char *who, const char *password,
    struct apply_summary *sum, struct err *e);

#endif
