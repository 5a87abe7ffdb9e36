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


#endif
