/* tree.h - deleting and moving nodes of the reason and organisation trees in LDAP. */
#ifndef PRIVD_TREE_H
#define PRIVD_TREE_H

#include "apply.h"
#include "change.h"
#include "config.h"
#include "err.h"

enum tree_side { TREE_REASONS, TREE_ORGS };

/*
 * Deletes node path and everything below it. A node whose cells (any cell
 * whose side lies in the subtree) have grants or members is refused
 * (ERR_CONFLICT naming them) unless force: then those cells go too and the
 * accounts lose those memberships. One change (change.c): memberships,
 * then cells, then nodes leaves first; readers see all of it or none. With
 * dry_run nothing is written. As who/password (NULL: privd's bind DN).
 */
int tree_delete(const struct cfg *c, enum tree_side side, const char *path,
    int force, int dry_run, const char *who, const char *password,
    const struct chg_req *rq, struct apply_summary *sum, struct err *e);

/*
 * Moves (or renames) node from to to, with its subtree: the cells on it are
 * moved with their grants and the memberships in them follow. to's parent
 * must exist and to must not. One change (change.c).
 */
int tree_move(const struct cfg *c, enum tree_side side, const char *from,
    const char *to, int dry_run, const char *who, const char *password,
    const struct chg_req *rq, struct apply_summary *sum, struct err *e);

#endif
