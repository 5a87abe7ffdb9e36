/*
 * qwrite.h - a quota write as asked and as answered: who asks for which
 * account (or pool) and quota against which limit, what the write did, and
 * why it was refused. Shared by the quota writes (quota.h), the usage
 * entry they write (uentry.h) and where they go (draw.h).
 */
#ifndef PRIVD_QWRITE_H
#define PRIVD_QWRITE_H

#include <time.h>

#include "config.h"
#include "period.h"
#include "usage.h"

#define QUOTA_AMOUNT_MAX	1000000000LL	/* per request */
#define QUOTA_TTL_MAX		(7 * 86400)
#define QUOTA_HOLDER_MAX	520		/* "pool:" and a cell (pool.h) */
#define QUOTA_ACCOUNT_MAX	256
/* The period key of an account's paid wallet (wallet.h): its usage entry
 * is QUOTA@paid, kept across periods. */
#define QUOTA_PAID_PERIOD	USAGE_PAID_PERIOD

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
	int paid;		/* the account's paid wallet, not its allowance
				 * (wallet.h): period "paid", limit 0 */
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
	int split;		/* the allowance part of a split write (wallet.h) */
	long long paid;		/* ... and what it says the paid wallet's part is */
	struct usage_val u;	/* the usage entry after the write */
};

enum draw_op {
	DRAW_CHARGE,
	DRAW_HOLD,
	DRAW_REFUND,
	DRAW_COMMIT,
	DRAW_RELEASE,
	DRAW_CREDIT,
	DRAW_VOID,		/* a split's paid part that cannot be had (wallet.h) */
	DRAW_REVERSE,		/* a top-up taken back */
};

/* One write, as the API was asked for it: the one request every quota
 * write takes, from the HTTP handler down to the LDAP modify. */
struct draw_req {
	enum draw_op op;
	const char *rid;	/* the request id; for a commit or release, the hold's */
	long long amount;
	long ttl;		/* hold */
	int partial;		/* charge: what fits, when not all does */
	int fallback;		/* charge, hold: to the account's pools when its own is full */
	const char *meta;	/* charge, hold: the ledger's metadata (JSON) */
	const char *charge_id;	/* refund */
	const char *reason;	/* credit, reverse; a top-up's reference */
	const char *ref;	/* credit: the entry it answers (a reversal's top-up) */
	const char *period;	/* credit; NULL: the current one */
	const char *kind;	/* credit: "credit" (NULL) or "topup" */
	/* a split (wallet.h), on the allowance: the paid wallet's part, and
	 * all that was asked (charge, hold); what the paid wallet can still
	 * give back of the charge (refund; -1 when not split-aware) */
	long long paid, requested, paid_left;
	int hold;		/* void: of a hold's part */
};

#endif
