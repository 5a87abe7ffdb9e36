/* quota.h - charging quotas in LDAP: charges, refunds, holds, credits, the ledger. */
#ifndef PRIVD_QUOTA_H
#define PRIVD_QUOTA_H

#include <stdio.h>
#include <time.h>

#include <ldap.h>

#include "config.h"
#include "reqid.h"
#include "err.h"
#include "period.h"
#include "usage.h"

#define QUOTA_AMOUNT_MAX	1000000000LL	/* per request */
#define QUOTA_TTL_MAX		(7 * 86400)
#define QUOTA_HOLDER_MAX	520		/* "pool:" and a cell (pool.h) */
#define QUOTA_ACCOUNT_MAX	256

/* Who asks, for which account and quota, against which limit. */
struct quota_req {
	const struct cfg *cfg;
	const char *uid;	/* the account, or a pool's holder "pool:CELL" */
	const char *account;	/* drawing on a pool: the account, in the ledger */
	const char *quota;	/* a PRIV_QUOTA privilege */
	enum period_kind kind;
	long long limit;	/* from resolution, before credit */
	const char *actor;	/* API key name or administrator */
	time_t now;
	int home;		/* the connection goes to uid's home provider (draw.h) */
	/* room for uid and account when the caller builds them */
	char uid_buf[QUOTA_HOLDER_MAX];
	char account_buf[QUOTA_ACCOUNT_MAX];
};

/* Why a write was refused; quota_why_code names it for the API. */
enum quota_why {
	QUOTA_WHY_NONE = 0,	/* it landed, or failed (LDAP): see the error */
	QUOTA_EXCEEDED,
	QUOTA_NO_PERIOD,
	QUOTA_ID_REUSED,
	QUOTA_UNKNOWN_CHARGE,
	QUOTA_REFUND_EXCEEDS_CHARGE,
	QUOTA_UNKNOWN_HOLD,
	QUOTA_HOLD_EXPIRED,
	QUOTA_HOLD_SETTLED,
	QUOTA_BAD_REQUEST,
};

/* The API's error code of a refusal ("quota_exceeded", ...); NULL for none. */
const char *quota_why_code(enum quota_why why);

/* What a write did; on refusal `why` says why. */
struct quota_res {
	enum quota_why why;	/* QUOTA_WHY_NONE on success */
	int replayed;		/* a request id seen before: nothing changed */
	long long amount;	/* charged, refunded, held, committed, credited */
	long long released;	/* by a commit, release or expiry */
	long long refundable;	/* what is left to refund of a charge */
	char period[PERIOD_KEY_MAX];
	char expires[40];	/* holds: RFC 3339 UTC */
	const char *state;	/* holds: open, committed, released, expired */
	struct usage_val u;	/* the usage entry after the write */
};


/*
 * Each write is one LDAP modify of the usage entry: the counter increment
 * (RFC 4525), the request id, the ledger entry and any state swap land
 * together or not at all, under an assertion (RFC 4528) that keeps used <=
 * limit + credit. 0 when it landed or was a replay; -1 with e (ERR_CONFLICT
 * and r->why for refusals, ERR_UNAVAILABLE when LDAP is down).
 */
/* A charge, or with ttl_s > 0 a hold for that long; partial: a charge
 * takes what is left when not all of amount is. */
int quota_take(LDAP *ld, const struct quota_req *q, const char *rid,
    long long amount, int partial, long ttl_s, const char *metadata,
    struct quota_res *r, struct err *e);
int quota_refund(LDAP *ld, const struct quota_req *q, const char *rid,
    const char *charge_id, long long amount, struct quota_res *r, struct err *e);
/* Commit (amount <= held) or, with release, give back all of hold id. */
int quota_settle(LDAP *ld, const struct quota_req *q, const char *id,
    int release, long long amount, struct quota_res *r, struct err *e);
/* Adds amount to the limit for period (NULL: the current one). */
int quota_credit(LDAP *ld, const struct quota_req *q, const char *rid,
    long long amount, const char *reason, const char *period,
    struct quota_res *r, struct err *e);

/*
 * Whether request rid already took from q's quota in the current period
 * (a charge, or a hold when hold): 1 and r filled as a replay, 0 not, -1
 * and e (the id was used for something else, or LDAP failed).
 */
int quota_seen(LDAP *ld, const struct quota_req *q, const char *rid, int hold,
    long long amount, struct quota_res *r, struct err *e);

/* Releases up to max holds whose TTL has passed; the count, or -1. */
int quota_expire(LDAP *ld, const struct cfg *c, time_t now, int max, struct err *e);

/* Whether a period key can name a period of kind (for ?period=). */
int quota_period_ok(const struct cfg *c, enum period_kind kind, const char *p);

/* Creates ou=usage and uid's entry under it, if missing: the parents of
 * uid's usage and session entries. 0, or -1 and e. */
int quota_ensure_account(LDAP *ld, const struct cfg *c, const char *uid, struct err *e);

/* The DN of the usage entry of uid's quota in period; malloc'd. */
char *quota_usage_dn(const struct cfg *c, const char *uid, const char *quota,
    const char *period);

#endif
