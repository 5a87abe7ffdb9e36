/*
 * wallet.h - an account's two wallets of one quota: the allowance (from
 * grants, per period, never carried over) and the paid balance (top-ups,
 * kept across periods, never expiring). A charge or hold draws on them in
 * the privilege's draw order and is split when it needs both; a refund,
 * commit or release goes back to the wallet each part came from.
 *
 * Each part is an ordinary write on one usage entry (quota.h), the paid
 * one at QUOTA@paid. What makes two writes one charge: the allowance
 * entry always takes the request id first, recording the split ("paid":
 * the other part) even when its own part is nothing, so that whoever
 * lands it decides the split once for every retry and every privd; the
 * paid part then lands under the same request id, or, when the paid
 * wallet cannot give it, a void record takes that id in the paid entry
 * (so it can never land later) and the allowance part is given back. A
 * retry of a split that stopped half way (privd or slapd killed between
 * the two) finds the record and finishes it.
 */
#ifndef PRIVD_WALLET_H
#define PRIVD_WALLET_H

#include "draw.h"

/* Both wallets after a write, for the answer. */
struct wallet_res {
	int has_paid;		/* the account has a paid wallet */
	long long allowance;	/* the write's parts */
	long long paid;
	struct usage_val pu;	/* the paid wallet's counters (limit 0) */
};

/*
 * Makes write d on q (draw.h), on both wallets of an account that has a
 * paid one; pools and accounts without one go straight to draw. 0 or -1
 * and e, as draw; out->res.amount is the whole write's, w its parts.
 */
int wallet_draw(const struct quota_req *q, const struct draw_req *d, struct draw_res *out,
    struct wallet_res *w, struct err *e);
int wallet_draw_with(const struct draw_ops *ops, const struct quota_req *q,
    const struct draw_req *d, struct draw_res *out, struct wallet_res *w, struct err *e);

/* q's paid wallet: the same account and quota, period "paid", limit 0. */
void wallet_paid_req(struct quota_req *paid, const struct quota_req *q);

#endif
