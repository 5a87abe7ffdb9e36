/*
 * uentry.h - a quota's usage entry as a write sees it: where it is (its
 * target), its counters and state values as read, its ledger entries by
 * request id, and the refusals and replays the quota writes answer with
 * (quota.c, quota_refund.c, quota_settle.c).
 */
#ifndef PRIVD_UENTRY_H
#define PRIVD_UENTRY_H

#include <stddef.h>

#include <jansson.h>
#include <ldap.h>

#include "config.h"
#include "err.h"
#include "qwrite.h"
#include "usage.h"
#include "wop.h"

/* A usage entry as read: counters and, when asked, its multi-valued state. */
struct uent_state {
	int exists;
	struct usage_val u;
	char **entries;		/* privEntry: ledger entries, JSON */
	char **holds;		/* privHold: "ID AMOUNT EXPIRES" */
	char **refunds;		/* privRefund: "ID AMOUNT" */
};

/* Where a write goes: the usage entry's DN and table key. */
struct uent_target {
	char *udn;
	char key[USAGE_KEY_MAX];
	char name[PRIV_NAME_MAX + PERIOD_KEY_MAX + 2];	/* quota@period */
};

/* ou=usage,BASE; malloc'd. */
char *uent_root(const struct cfg *c);

/* The entry that holds uid's usage entries: uid=UID, or for a pool's
 * holder "pool:CELL" cn=CELL (pool.h). */
char *uent_holder_dn(const char *uid, const char *root);

/* Frees st's state values (not st). */
void uent_free(struct uent_state *st);

/*
 * Reads the usage entry at dn (full: its state values too) and records the
 * counters in the usage table under key. 0 (st->exists 0 when there is no
 * entry), or -1 and e.
 */
int uent_read(LDAP *ld, const struct cfg *c, const char *dn, const char *key,
    int full, struct uent_state *st, struct err *e);

/*
 * uent_read (full) and the entries of the segments that hold request ids
 * id and id2 (id2 may be NULL): what a replay or a refund must see of the
 * ledger, wherever the entries sit.
 */
int uent_load(LDAP *ld, const struct cfg *c, const char *dn, const char *key, const char *id,
    const char *id2, struct uent_state *st, struct err *e);

/* Whether request id moved out into a committed segment of udn (of the
 * first nseg): 1 yes, 0 no, -1 and e. */
int uent_moved_out(LDAP *ld, const struct cfg *c, const char *udn, long long nseg,
    const char *id, struct err *e);

/*
 * After a write landed: every ARCH_EVERY writes, look at the window and
 * move what is settled (archive.h). A failed move is logged, not returned:
 * the write has landed, and the next look tries again.
 *
 * Only on the account's home provider: with several providers, moves
 * (which delete values and number segments) then never run on two of them
 * at once, so their replication cannot conflict. While writes fail over,
 * the window just grows.
 */
void uent_move(LDAP *ld, const struct quota_req *q, const char *dn, const char *key);

/* The ledger entry of st with this id and one of kinds ("charge|hold"); a
 * new reference the caller decrefs, or NULL. */
json_t *uent_find_entry(const struct uent_state *st, const char *id, const char *kinds);

/* Member k of a ledger entry as a number (0 when absent). */
long long uent_jnum(json_t *j, const char *k);

/* A state value "ID N[ REST]" for id: its N (and copies the value). */
int uent_find_value(char *const *v, const char *id, long long *n, char *rest, size_t nrest,
    char **whole);

/* The period of q's usage entry now: the current one, or for the paid
 * wallet "paid". 0, or -1 and e (no period now). */
int uent_period(const struct quota_req *q, char out[PERIOD_KEY_MAX], struct err *e);
/* The usage entry of q's quota in period: its DN (malloc'd) and keys. */
int uent_target_of(const struct quota_req *q, const char *period, struct uent_target *t,
    struct err *e);

/* Creates the usage entry (and its parents) with zero counters. */
int uent_ensure(LDAP *ld, const struct cfg *c, const struct uent_target *t,
    const char *uid, const char *period, struct err *e);

/* A refusal: why (the API's error code) into r, the rest into e; -1. */
int uent_refuse(struct quota_res *r, struct err *e, enum err_code code, enum quota_why why,
    const char *field, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/*
 * Whether request rid was seen before: 1 a replay (r filled), 0 not seen,
 * -1 a reused id (refused) or an error.
 */
int uent_replay(const struct quota_req *q, const struct uent_state *st, const char *rid,
    const char *kind, long long requested, const char *ref, struct quota_res *r,
    struct err *e);

/*
 * Finds the usage entry that holds request id (a charge or hold) for q's
 * account and quota: the current period first, then any period. Fills t,
 * r->period and st (full); 1 when there is none.
 */
int uent_find(LDAP *ld, const struct quota_req *q, const char *id, const char *id2,
    const char *kind, struct quota_res *r, struct uent_target *t, struct uent_state *st,
    struct err *e);

/* Writes whose counters were read back by a search after them: the
 * directory did not answer the post-read control (or not all of them). */
unsigned long long uent_read_backs(void);

/* Asks write o to bring back the counters as it leaves them (wop.h);
 * again after each wop_free. */
void uent_read_back(struct wop *o);

/* After write o landed on dn: the counters it brought back, or else read
 * back (counted in uent_read_backs), into st and the usage table. 0, or -1
 * and e. */
int uent_after(LDAP *ld, const struct cfg *c, const struct wop *o, const char *dn,
    const char *key, struct uent_state *st, struct err *e);

/*
 * After write o of q landed on t: its counters, as o brought them back or
 * else read back, into st, r->u and the usage table (a failed read is no
 * error: the write landed, and the table has them from the sync stream),
 * and the settled ledger moved out (uent_move).
 */
void uent_landed(LDAP *ld, const struct quota_req *q, const struct uent_target *t,
    const struct wop *o, struct uent_state *st, struct quota_res *r, struct err *e);

/* The DN of the usage entry of uid's quota in period; malloc'd. */
char *uent_usage_dn(const struct cfg *c, const char *uid, const char *quota,
    const char *period);
/* Creates ou=usage and ou=NAME under it, if missing (the homes of the
 * vouchers and the notices, private like the usage); its DN (malloc'd) into
 * *dn when not NULL. 0, or -1 and e. */
int uent_ensure_ou(LDAP *ld, const struct cfg *c, const char *name, char **dn,
    struct err *e);
/* Creates ou=usage and uid's entry under it, if missing: the parents of
 * uid's usage and session entries. 0, or -1 and e. */
int uent_ensure_account(LDAP *ld, const struct cfg *c, const char *uid, struct err *e);

#endif
