/*
 * wallet.c - the allowance and the paid balance of an account's quota
 * (wallet.h): where a charge or hold goes, how it is split, and how a
 * split that stopped half way is finished by its retry.
 */
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "holder.h"
#include "notice.h"
#include "reqid.h"
#include "uentry.h"
#include "wallet.h"

/*
 * The paid wallet has one entry for every period (QUOTA_PAID_PERIOD), the
 * allowance one a period. A split's paid part is recorded there under its
 * request id and the allowance's period, RID@PERIOD ('@' is no client's,
 * reqid.h): a CUPS job id that recurs next term is a new charge on both
 * wallets, not a replay of last term's paid part (which printed it free),
 * and a part never meets a top-up's or a reversal's id of the same text.
 */
#define PAID_RID_MAX (REQID_MAX + PERIOD_KEY_MAX + 8)

static const char *
paid_rid(char out[PAID_RID_MAX], const char *rid, const struct quota_req *q,
    const char *period)
{
	char now[PERIOD_KEY_MAX];

	if (period == NULL || *period == '\0') {
		if (uent_period(q, now, NULL) != 0)
			now[0] = '\0';
		period = now;
	}
	snprintf(out, PAID_RID_MAX, "%s@%s", rid, period);
	return out;
}

/*
 * Before a split takes anything: whether its request id names another
 * operation on the paid wallet (a top-up, a reversal, a voucher). Then
 * the split is refused whole, 409 request_id_reused, nothing taken or held.
 * 0 when the id is free there, -1 with out and e.
 */
static int
paid_id_free(const struct draw_ops *ops, const struct quota_req *q, const struct quota_req *qp,
    const struct draw_req *d, struct draw_res *out, struct err *e)
{
	struct quota_res r;
	int rc;

	if (ops->seen == NULL)
		return 0;
	rc = draw_seen(ops, qp, d->rid, d->op == DRAW_HOLD, d->amount, &r, e);
	if (rc == 0)
		return 0;
	if (rc < 0 && r.why != QUOTA_ID_REUSED)
		return -1;	/* unreachable: its retry asks again */
	memset(e, 0, sizeof(*e));
	/* refused on the account's own quota, as a draw there would be */
	draw_req_copy(&out->on, q);
	out->res.why = QUOTA_ID_REUSED;
	if (uent_period(q, out->res.period, NULL) != 0)
		out->res.period[0] = '\0';
	err_set(e, ERR_CONFLICT, 0, "request_id", "request id '%s' was used before for "
	    "another operation on the paid balance of %s (a top-up or a reversal): use an id "
	    "of this %s's own", d->rid, qp->quota, draw_op_name(d->op));
	return -1;
}

void
wallet_paid_req(struct quota_req *paid, const struct quota_req *q)
{
	draw_req_copy(paid, q);
	paid->paid = 1;
	paid->limit = 0;
}

static long long
room(long long limit, const struct usage_val *u)
{
	long long r = limit + u->credit - u->used;

	return r > 0 ? r : 0;
}

static int
exceeded(int rc, const struct draw_res *o)
{
	return rc != 0 && o->res.why == QUOTA_EXCEEDED;
}

/* The draw order of q's quota: whether the paid wallet goes first. */
static int
paid_first(const struct quota_req *q)
{
	int p = cfg_priv_find(q->cfg, q->quota);

	return p >= 0 && q->cfg->privs[p].paid_first;
}

/*
 * The paid part that cannot be had: void it in the paid entry, so that it
 * can never land later, then give back the allowance's part a (for a
 * partial charge, keep it: the charge took what there was). 1 when it was
 * voided, 0 when the paid part had landed after all (o2 says how much),
 * -1 and e.
 */
static int
give_up(const struct draw_ops *ops, const struct quota_req *q, const struct quota_req *qp,
    const struct draw_req *d, const char *prid, long long a, long long p, struct draw_res *o2,
    struct err *e)
{
	struct draw_req v = { .op = DRAW_VOID, .rid = prid, .hold = d->op == DRAW_HOLD,
	    .requested = p };
	struct draw_req u = { .rid = d->rid };
	struct draw_res o3;
	char undo[REQID_MAX + 8];

	if (draw_with(ops, qp, &v, o2, e) != 0)
		return -1;
	if (o2->res.amount > 0)
		return 0;
	if (a == 0 || (d->op == DRAW_CHARGE && d->partial))
		return 1;
	if (d->op == DRAW_HOLD)
		u.op = DRAW_RELEASE;
	else {
		/* a request id of its own, which no client can send ('/') */
		snprintf(undo, sizeof(undo), "%s/void", d->rid);
		u.op = DRAW_REFUND;
		u.rid = undo;
		u.charge_id = d->rid;
		u.amount = a;
		u.paid_left = -1;
	}
	if (draw_with(ops, q, &u, &o3, e) != 0 && o3.res.why != QUOTA_HOLD_EXPIRED &&
	    o3.res.why != QUOTA_HOLD_SETTLED)
		return -1;
	memset(e, 0, sizeof(*e));
	return 1;
}

/*
 * The rest of a split whose allowance part (out) has landed or was found:
 * the paid part p under the same request id, or giving up on it.
 */
static int
finish(const struct draw_ops *ops, const struct quota_req *q, const struct draw_req *d,
    struct draw_res *out, struct wallet_res *w, struct err *e)
{
	struct draw_req dp = *d;
	struct quota_req qp;
	struct draw_res o2;
	long long a = out->res.amount, p = out->res.paid;
	char prid[PAID_RID_MAX];
	int rc;

	/* the allowance part is in, the paid one not yet (its retry finishes it) */
	fault_point("wallet-split");
	wallet_paid_req(&qp, q);
	w->allowance = a;
	dp.rid = paid_rid(prid, d->rid, q, out->res.period);
	dp.amount = p;
	dp.paid = dp.requested = 0;
	dp.fallback = 0;
	rc = draw_with(ops, &qp, &dp, &o2, e);
	if (rc != 0 && !exceeded(rc, &o2))
		return -1;	/* unreachable or failed: its retry finishes it */
	if (rc == 0 && o2.res.amount > 0)
		goto landed;
	memset(e, 0, sizeof(*e));
	if ((rc = give_up(ops, q, &qp, d, prid, a, p, &o2, e)) < 0)
		return -1;
	if (rc == 0)
		goto landed;
	w->pu = o2.res.u;
	ops->usage(q, &out->res.u);
	if (d->op == DRAW_CHARGE && d->partial && a > 0) {
		out->res.amount = a;
		return 0;
	}
	out->res.why = QUOTA_EXCEEDED;
	out->res.amount = 0;
	err_set(e, ERR_CONFLICT, 0, "amount", "%s of %s: %lld asked, more than the allowance "
	    "and the paid balance have", q->quota, q->uid, p + a);
	return -1;
landed:
	w->paid = o2.res.amount;
	w->pu = o2.res.u;
	out->res.amount = a + o2.res.amount;
	out->res.replayed = out->res.replayed && o2.res.replayed;
	return 0;
}

/* A charge or hold: whole on one wallet when it fits, else split. */
static int
take(const struct draw_ops *ops, const struct quota_req *q, const struct draw_req *d,
    struct draw_res *out, struct wallet_res *w, struct err *e)
{
	struct draw_req d1;
	struct quota_req qp;
	struct usage_val ua;
	long long n = d->amount, ra, rp, a, p;
	int i, rc, fits, checked = 0;

	if (d->fallback) {
		/* the pools a school gives before a person's own money */
		rc = draw_with(ops, q, d, out, e);
		if (rc == 0 && out->res.split)
			return finish(ops, q, d, out, w, e);
		if (rc == 0) {
			w->allowance = holder_cell(out->on.uid) ? 0 : out->res.amount;
			return 0;
		}
		if (!exceeded(rc, out) || !w->has_paid)
			return rc;
	}
	for (i = 0;; i++) {
		memset(e, 0, sizeof(*e));
		if (ops->usage(q, &ua) != 0)
			memset(&ua, 0, sizeof(ua));
		ra = room(q->limit, &ua);
		rp = w->has_paid ? room(0, &w->pu) : 0;
		if (paid_first(q)) {
			p = n < rp ? n : rp;
			a = n - p;
		} else {
			a = n < ra ? n : ra;
			p = n - a;
		}
		if (d->op == DRAW_CHARGE && d->partial) {
			if (a > ra)
				a = ra;
			if (p > rp)
				p = rp;
		}
		fits = d->op == DRAW_CHARGE && d->partial ? a + p > 0 : ra + rp >= n;
		if (!fits)
			p = 0;	/* the allowance refuses it, saying why */
		d1 = *d;
		d1.fallback = 0;
		if (p > 0 && !checked) {
			wallet_paid_req(&qp, q);
			if (paid_id_free(ops, q, &qp, d, out, e) != 0)
				return -1;
			checked = 1;
		}
		if (p > 0) {
			d1.amount = a;
			d1.paid = p;
			d1.requested = n;
			d1.partial = 0;
		}
		rc = draw_with(ops, q, &d1, out, e);
		if (rc == 0 && out->res.split)
			return finish(ops, q, d, out, w, e);
		if (rc == 0) {
			w->allowance = out->res.amount;
			return 0;
		}
		/* the counters moved since this privd saw them (the refusal
		 * read the allowance's back): plan again */
		if (!exceeded(rc, out) || !w->has_paid || !fits || i == 3)
			return rc;
		wallet_paid_req(&qp, q);
		if (ops->usage(&qp, &w->pu) != 0)
			return rc;
	}
}

/* A refund: the charge's allowance part first, then its paid part. */
static int
refund(const struct draw_ops *ops, const struct quota_req *q, const struct draw_req *d,
    struct draw_res *out, struct wallet_res *w, struct err *e)
{
	struct draw_req d1 = *d, dp = *d;
	struct quota_req qp;
	struct draw_res o2;
	long long left = 0;
	char pcid[PAID_RID_MAX], prid[PAID_RID_MAX];

	/* the charge's paid part, and this refund's, under the allowance's
	 * period now: a refund is of this period's charges */
	wallet_paid_req(&qp, q);
	paid_rid(pcid, d->charge_id, q, NULL);
	if (w->has_paid && draw_refundable(ops, &qp, pcid, &left, e) != 0)
		return -1;
	d1.paid_left = left;
	if (draw_with(ops, q, &d1, out, e) != 0)
		return -1;
	w->allowance = out->res.amount;
	if (!out->res.split || out->res.paid == 0)
		return 0;
	dp.amount = out->res.paid;
	dp.paid_left = -1;
	dp.rid = paid_rid(prid, d->rid, q, out->res.period);
	dp.charge_id = paid_rid(pcid, d->charge_id, q, out->res.period);
	if (draw_with(ops, &qp, &dp, &o2, e) != 0) {
		out->res = o2.res;
		return -1;
	}
	w->paid = o2.res.amount;
	w->pu = o2.res.u;
	out->res.amount += o2.res.amount;
	out->res.replayed = out->res.replayed && o2.res.replayed;
	return 0;
}

/* A commit or release: the allowance's part says what the paid one settles. */
static int
settle(const struct draw_ops *ops, const struct quota_req *q, const struct draw_req *d,
    struct draw_res *out, struct wallet_res *w, struct err *e)
{
	struct draw_req dp = *d;
	struct quota_req qp;
	struct draw_res o2;
	char prid[PAID_RID_MAX];

	if (draw_with(ops, q, d, out, e) != 0)
		return -1;
	w->allowance = out->res.amount;
	if (!out->res.split)
		return 0;
	wallet_paid_req(&qp, q);
	dp.rid = paid_rid(prid, d->rid, q, out->res.period);
	dp.amount = d->op == DRAW_COMMIT ? out->res.paid : 0;
	if (draw_with(ops, &qp, &dp, &o2, e) != 0) {
		out->res = o2.res;
		return -1;
	}
	w->has_paid = 1;
	w->paid = o2.res.amount;
	w->pu = o2.res.u;
	out->res.amount += o2.res.amount;
	out->res.released += o2.res.released;
	out->res.replayed = out->res.replayed && o2.res.replayed;
	return 0;
}

int
wallet_draw_with(const struct draw_ops *ops, const struct quota_req *q,
    const struct draw_req *d, struct draw_res *out, struct wallet_res *w, struct err *e)
{
	struct quota_req qp;

	memset(w, 0, sizeof(*w));
	memset(out, 0, sizeof(*out));
	memset(e, 0, sizeof(*e));
	if (holder_cell(q->uid) != NULL || q->paid || ops->usage == NULL ||
	    (d->op != DRAW_CHARGE && d->op != DRAW_HOLD && d->op != DRAW_REFUND &&
	    d->op != DRAW_COMMIT && d->op != DRAW_RELEASE))
		return draw_with(ops, q, d, out, e);
	wallet_paid_req(&qp, q);
	w->has_paid = ops->usage(&qp, &w->pu) == 0;
	switch (d->op) {
	case DRAW_CHARGE:
	case DRAW_HOLD:
		return take(ops, q, d, out, w, e);
	case DRAW_REFUND:
		return refund(ops, q, d, out, w, e);
	default:
		return settle(ops, q, d, out, w, e);
	}
}

int
wallet_draw(const struct quota_req *q, const struct draw_req *d, struct draw_res *out,
    struct wallet_res *w, struct err *e)
{
	long long allowance, left;

	if (wallet_draw_with(&draw_ldap, q, d, out, w, e) != 0)
		return -1;
	/* a balance (a person's, or a pool's) that ran low: told once (notice.h) */
	if (d->op == DRAW_CHARGE || d->op == DRAW_HOLD) {
		allowance = out->on.limit + out->res.u.credit;
		left = usage_remaining(out->on.limit, &out->res.u) +
		    (w->has_paid ? usage_remaining(0, &w->pu) : 0);
		notice_after(q->cfg, out->on.uid, out->on.quota, out->res.period, allowance, left);
	}
	return 0;
}
