/*
 * chgwrite.h - the LDAP writes a change makes: planned as operations in
 * stages (nodes before cells before memberships, removals the reverse),
 * sent stage by stage with a window of them in flight on one connection.
 */
#ifndef PRIVD_CHGWRITE_H
#define PRIVD_CHGWRITE_H

#include <stddef.h>

#include <ldap.h>

#include "chgstate.h"
#include "config.h"
#include "err.h"

#define CHGW_WINDOW	32	/* writes in flight on one connection */
#define CHGW_MODS	8
#define CHGW_CHECK_EVERY 256	/* writes between looks at the record's state */

/* Stages, in the order they run. */
enum {
	CHGW_NODE_ADD = 1,		/* + depth */
	CHGW_PRINTERS_OU = 28,		/* ou=printers, in a directory from before them */
	CHGW_PRINTER_PUT = 29,
	CHGW_CELL_PUT = 30,
	CHGW_PERSON_DEL = 40,
	CHGW_PEOPLE = 41,
	CHGW_CELL_DEL = 50,
	CHGW_PRINTER_DEL = 51,
	CHGW_NODE_DEL = 60		/* + PATH_DEPTH_MAX - depth */
};

enum chgw_kind { CHGW_ADD, CHGW_MODIFY, CHGW_DELETE };

struct chgw_op {
	int stage;
	size_t seq;
	enum chgw_kind kind;
	char *dn;
	LDAPMod mod[CHGW_MODS];	/* pointed at only when sent: ops move on realloc */
	char **vals[CHGW_MODS];
	size_t nmod;
	char *assert;		/* a filter the entry must still match, or NULL */
};

struct chgw_plan {
	struct chgw_op *ops;
	size_t n, cap;
};

void chgw_plan_free(struct chgw_plan *p);
/* A new write on dn (taken); NULL when out of memory. */
struct chgw_op *chgw_op_new(struct chgw_plan *p, int stage, enum chgw_kind kind, char *dn);
/* Adds a modification owning vals (freed on failure too); -1 when o is NULL or full. */
int chgw_op_mod(struct chgw_op *o, int type, const char *attr, char **vals);

/* 0 while record id is still in state (chgrecord.h); else -1 and e: the
 * change stops. */
typedef int chgw_check(LDAP *ld, const struct cfg *c, const char *id, int state,
    struct err *e);

/*
 * Runs ops[from, to) with up to window in flight: slapd applies each one
 * atomically, and the stages order them. Stops issuing at the first
 * refusal, at a SIGTERM (chgw_stop) or when check finds the record of
 * change id no longer in state expect, and waits for what is in flight.
 * Counts the writes that landed in *writes.
 */
int chgw_window(LDAP *ld, const struct cfg *c, struct chgw_op *ops, size_t from, size_t to,
    size_t window, const char *id, int expect, chgw_check *check, size_t *writes,
    struct err *e);
/*
 * Runs the plan stage by stage. The people stage ends with one write on
 * its own, so that its entryCSN is the stage's newest: the follower waits
 * for it before it shows the change (res->csn_people, csn_privileges).
 */
int chgw_run(LDAP *ld, const struct cfg *c, struct chgw_plan *p, const char *id, int expect,
    chgw_check *check, struct chg_result *res, struct err *e);
/* The entryCSN of dn into out; "" when it cannot be read. */
void chgw_read_csn(LDAP *ld, const struct cfg *c, const char *dn, char out[CHG_CSN_MAX]);
/* The error for a write whose answer never came: it may have landed. -1. */
int chgw_unknown(struct err *e, int rc, size_t inflight, const char *dn, const char *id);

/* Makes every running change stop before its next write (SIGTERM). */
void chgw_stop(void);

#endif
