/* txn.h - a list of LDAP writes run as one RFC 5805 transaction. */
#ifndef PRIVD_TXN_H
#define PRIVD_TXN_H

#include <stddef.h>

#include <ldap.h>

#include "config.h"
#include "err.h"

enum txn_kind { TXN_ADD, TXN_MODIFY, TXN_DELETE, TXN_RENAME };

#define TXN_MODS 6

struct txn_op {
	enum txn_kind kind;
	char *dn;
	LDAPMod mod[TXN_MODS];	/* pointed at only when sent: ops move on realloc */
	char **vals[TXN_MODS];
	size_t nmod;
	char *newrdn, *newsup;	/* TXN_RENAME; newsup NULL: same parent */
};

struct txn_plan {
	struct txn_op *ops;
	size_t nops, cap;
};

/* NULL-terminated arrays of malloc'd strings. */
char **txn_vals_new(size_t n);
char **txn_vals_of(const char *a, const char *b);	/* one or two values */
void txn_vals_free(char **v);

/* A new operation on dn (taken: freed with the plan); NULL when out of memory. */
struct txn_op *txn_op_new(struct txn_plan *p, enum txn_kind kind, char *dn);
/* Adds a modification owning vals (freed on failure too). */
int txn_op_mod(struct txn_op *o, int type, const char *attr, char **vals);
void txn_plan_free(struct txn_plan *p);

/*
 * Runs the plan as one transaction on ld: all of it lands or none. Holds
 * ldpool_txn_lock while it runs (slapd 2.5 crashes on a transaction
 * committing next to other writes while a sync search is open).
 */
int txn_run(LDAP *ld, const struct cfg *c, const struct txn_plan *p, struct err *e);

/*
 * Runs the plan one operation at a time, no transaction: for deletes,
 * which slapd 2.5 refuses inside one (result 80). Stops at the first
 * failure; callers order operations so that every prefix leaves a
 * consistent directory.
 */
int txn_run_each(LDAP *ld, const struct cfg *c, const struct txn_plan *p, struct err *e);

#endif
