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
 * Each takes the write as asked (struct draw_req, qwrite.h), d->rid its
 * request id. quota_take: a charge (DRAW_CHARGE), or a hold (DRAW_HOLD)
 * for d->ttl seconds; d->partial: a charge takes what is left when not
 * all of d->amount is. d->paid > 0: the allowance's part of a split
 * (wallet.h), recording that the paid wallet takes d->paid more; d->amount
 * may then be 0 (the record alone, needing no room). d->requested: what
 * the request asked for in all (0: d->amount), which a replay must ask
 * for again.
 */
int quota_take(LDAP *ld, const struct quota_req *q, const struct draw_req *d,
    struct quota_res *r, struct err *e);
/*
 * Gives back d->amount of d->charge_id. d->paid_left >= 0: a refund of a
 * charge that may be split (wallet.h), where the paid wallet can still
 * give back d->paid_left: of a split charge this entry gives back what it
 * can and r->paid is the rest for the paid wallet (refused when more than
 * both).
 */
int quota_refund(LDAP *ld, const struct quota_req *q, const struct draw_req *d,
    struct quota_res *r, struct err *e);
/* What is left to refund of charge_id in q's entry (0 when it has none). */
int quota_refundable(LDAP *ld, const struct quota_req *q, const char *charge_id,
    long long *left, struct err *e);
/*
 * Commit (DRAW_COMMIT, d->amount <= held) or release (DRAW_RELEASE, all of
 * it) hold d->rid. Of a split hold (its allowance part), d->amount may
 * reach what both parts hold: this entry commits what it holds first, and
 * r->paid is the rest for the paid wallet to commit (for a release: its
 * part to release).
 */
int quota_settle(LDAP *ld, const struct quota_req *q, const struct draw_req *d,
    struct quota_res *r, struct err *e);
/* Adds d->amount to the limit for d->period (NULL: the current one), as a
 * ledger entry of d->kind ("credit" when NULL, "topup", "reversal") with an
 * optional d->reason and the entry it answers (d->ref, or NULL). */
int quota_credit(LDAP *ld, const struct quota_req *q, const struct draw_req *d,
    struct quota_res *r, struct err *e);
/*
 * The paid part of split d->rid that cannot be had (wallet.h): records it
 * in q's entry as a charge (or, d->hold, a hold) of nothing asked as
 * d->requested, so that the part can never land later. A replay when the
 * part landed first (r->amount > 0).
 */
int quota_void(LDAP *ld, const struct quota_req *q, const struct draw_req *d,
    struct quota_res *r, struct err *e);
/* Reverses top-up d->rid of q's paid wallet: a "reversal" entry taking
 * back its amount, with d->reason, once (its request id is the top-up's +
 * "/reversal"). */
int quota_reverse(LDAP *ld, const struct quota_req *q, const struct draw_req *d,
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


#endif
