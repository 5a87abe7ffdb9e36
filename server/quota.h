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
#include "qwrite.h"
#include "usage.h"



/*
 * Each write is one LDAP modify of the usage entry: the counter increment
 * (RFC 4525), the request id, the ledger entry and any state swap land
 * together or not at all, under an assertion (RFC 4528) that keeps used <=
 * limit + credit. 0 when it landed or was a replay; -1 with e (ERR_CONFLICT
 * and r->why for refusals, ERR_UNAVAILABLE when LDAP is down).
 */
/*
 * A charge, or with ttl_s > 0 a hold for that long; partial: a charge
 * takes what is left when not all of amount is. paid > 0: the allowance's
 * part of a split (wallet.h), recording that the paid wallet takes paid
 * more; amount may then be 0 (the record alone, needing no room).
 * requested: what the request asked for in all (0: amount), which a
 * replay must ask for again.
 */
int quota_take(LDAP *ld, const struct quota_req *q, const char *rid,
    long long amount, int partial, long ttl_s, const char *metadata, long long paid,
    long long requested, struct quota_res *r, struct err *e);
/*
 * Gives back amount of charge_id. paid_left >= 0: a refund of a charge
 * that may be split (wallet.h), where the paid wallet can still give back
 * paid_left: of a split charge this entry gives back what it can and
 * r->paid is the rest for the paid wallet (refused when more than both).
 */
int quota_refund(LDAP *ld, const struct quota_req *q, const char *rid,
    const char *charge_id, long long amount, long long paid_left, struct quota_res *r,
    struct err *e);
/* What is left to refund of charge_id in q's entry (0 when it has none). */
int quota_refundable(LDAP *ld, const struct quota_req *q, const char *charge_id,
    long long *left, struct err *e);
/*
 * Commit (amount <= held) or, with release, give back all of hold id. Of
 * a split hold (its allowance part), amount may reach what both parts
 * hold: this entry commits what it holds first, and r->paid is the rest
 * for the paid wallet to commit (for a release: its part to release).
 */
int quota_settle(LDAP *ld, const struct quota_req *q, const char *id,
    int release, long long amount, struct quota_res *r, struct err *e);
/* Adds amount to the limit for period (NULL: the current one), as a ledger
 * entry of kind ("credit", "topup", "reversal") with an optional reason and
 * the entry it refers to (ref, or NULL). */
int quota_credit(LDAP *ld, const struct quota_req *q, const char *kind, const char *rid,
    long long amount, const char *reason, const char *ref, const char *period,
    struct quota_res *r, struct err *e);
/*
 * The paid part of split rid that cannot be had (wallet.h): records rid
 * in q's entry as a charge (or hold) of nothing, so that the part can
 * never land later. A replay when the part landed first (r->amount > 0).
 */
int quota_void(LDAP *ld, const struct quota_req *q, const char *rid, int hold,
    long long requested, struct quota_res *r, struct err *e);
/* Reverses top-up topup_id of q's paid wallet: a "reversal" entry taking
 * back its amount, once (its request id is the top-up's + "/reversal"). */
int quota_reverse(LDAP *ld, const struct quota_req *q, const char *topup_id,
    const char *reason, struct quota_res *r, struct err *e);

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


#endif
