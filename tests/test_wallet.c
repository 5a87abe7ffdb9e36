/*
 * test_wallet.c - the two wallets' draw policy (wallet.h) over a fake
 * directory: the allowance first (or the paid wallet first), a split
 * recorded on the allowance before the paid part, a retry that finishes a
 * split stopped half way and never charges twice, a paid part that cannot
 * be had voided and the allowance part given back, partial charges, and
 * refunds going back to the wallet each part came from.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "wallet.h"

static int home;
#define HOME	((LDAP *)&home)

/* One request id's record in one wallet. */
struct rec {
	char rid[40];
	char kind[12];
	long long amount, requested, paid, refunded;
	int voided, split;
};

/* One wallet as the fake directory keeps it. */
struct fw {
	long long used, credit;
	struct rec recs[16];
	int nrec;
};

static struct {
	struct fw allowance, paid;
	int has_paid;
	int fail_paid_writes;	/* the paid wallet's next writes fail (LDAP gone) */
	int drain_after_allowance;	/* the paid wallet is emptied between the parts */
	int writes;
} f;

static struct fw *
of(const struct quota_req *q)
{
	return q->paid ? &f.paid : &f.allowance;
}

static struct rec *
find(struct fw *w, const char *rid, const char *kind)
{
	int i;

	for (i = 0; i < w->nrec; i++)
		if (strcmp(w->recs[i].rid, rid) == 0 && (kind == NULL ||
		    strcmp(w->recs[i].kind, kind) == 0))
			return &w->recs[i];
	return NULL;
}

static struct rec *
add(struct fw *w, const char *rid, const char *kind)
{
	struct rec *r = &w->recs[w->nrec++];

	assert_true(w->nrec <= 16);
	memset(r, 0, sizeof(*r));
	snprintf(r->rid, sizeof(r->rid), "%s", rid);
	snprintf(r->kind, sizeof(r->kind), "%s", kind);
	return r;
}

static int
g_home(const char *holder, LDAP **ld, struct err *e)
{
	(void)holder;
	(void)e;
	*ld = HOME;
	return 0;
}

static int
g_is_home(LDAP *ld, const char *holder)
{
	(void)holder;
	return ld == HOME;
}

static void
g_put(LDAP *ld, int broken)
{
	(void)ld;
	(void)broken;
}

static int
g_pools(const struct quota_req *q, struct draw_pool **out, size_t *n)
{
	(void)q;
	*out = NULL;
	*n = 0;
	return 0;
}

static int
g_seen(LDAP *ld, const struct quota_req *q, const char *rid, int hold, long long amount,
    struct quota_res *r, struct err *e)
{
	(void)ld, (void)q, (void)rid, (void)hold, (void)amount, (void)r, (void)e;
	return 0;
}

static int
refuse(struct quota_res *r, struct err *e, enum quota_why why)
{
	r->why = why;
	return err_set(e, ERR_CONFLICT, 0, "amount", "refused");
}

/* As quota.h: one atomic write on one wallet, idempotent by request id. */
static int
g_write(LDAP *ld, const struct quota_req *q, const struct draw_req *d, struct quota_res *r,
    struct err *e)
{
	struct fw *w = of(q);
	long long room = q->limit + w->credit - w->used, req, n;
	struct rec *x;

	(void)ld;
	memset(r, 0, sizeof(*r));
	if (q->paid && f.fail_paid_writes > 0) {
		f.fail_paid_writes--;
		return err_set(e, ERR_UNAVAILABLE, 0, NULL, "LDAP gone");
	}
	f.writes++;
	switch (d->op) {
	case DRAW_CHARGE:
		req = d->requested > 0 ? d->requested : d->amount;
		if ((x = find(w, d->rid, NULL)) != NULL) {
			if (x->requested != req)
				return refuse(r, e, QUOTA_ID_REUSED);
			r->replayed = 1;
			r->amount = x->amount;
			r->paid = x->paid;
			r->split = x->split;
			return 0;
		}
		n = d->partial && d->amount > room ? room : d->amount;
		if (n > 0 ? n > room : 0)
			return refuse(r, e, QUOTA_EXCEEDED);
		if (n <= 0 && d->paid <= 0)
			return refuse(r, e, QUOTA_EXCEEDED);
		x = add(w, d->rid, "charge");
		x->amount = n;
		x->requested = req;
		x->paid = d->paid;
		x->split = d->paid > 0;
		w->used += n;
		r->amount = n;
		r->paid = d->paid;
		r->split = x->split;
		if (!q->paid && x->split && f.drain_after_allowance) {
			f.drain_after_allowance = 0;
			f.paid.credit = f.paid.used;
		}
		return 0;
	case DRAW_VOID:
		if ((x = find(w, d->rid, NULL)) != NULL) {
			r->replayed = 1;
			r->amount = x->amount;
			return 0;
		}
		x = add(w, d->rid, "charge");
		x->requested = d->requested;
		x->voided = 1;
		return 0;
	case DRAW_REFUND:
		if ((x = find(w, d->rid, "refund")) != NULL) {
			r->replayed = 1;
			r->amount = x->amount;
			r->paid = x->paid;
			r->split = x->split;
			return 0;
		}
		{
			struct rec *c = find(w, d->charge_id, "charge");
			long long left, here;

			if (c == NULL)
				return refuse(r, e, QUOTA_UNKNOWN_CHARGE);
			left = c->amount - c->refunded;
			if (d->amount > left + (c->split && d->paid_left >= 0 ? d->paid_left : 0))
				return refuse(r, e, QUOTA_REFUND_EXCEEDS_CHARGE);
			here = d->amount < left ? d->amount : left;
			x = add(w, d->rid, "refund");
			x->amount = here;
			x->split = c->split && d->paid_left >= 0;
			x->paid = x->split ? d->amount - here : 0;
			c->refunded += here;
			w->used -= here;
			r->amount = here;
			r->paid = x->paid;
			r->split = x->split;
		}
		return 0;
	default:
		fail_msg("unexpected write %d", (int)d->op);
	}
	return -1;
}

static int
g_usage(const struct quota_req *q, struct usage_val *u)
{
	struct fw *w = of(q);

	memset(u, 0, sizeof(*u));
	if (q->paid && !f.has_paid)
		return -1;
	u->used = w->used;
	u->credit = w->credit;
	return 0;
}

static int
g_refundable(LDAP *ld, const struct quota_req *q, const char *charge_id, long long *left,
    struct err *e)
{
	struct rec *c = find(of(q), charge_id, "charge");

	(void)ld;
	(void)e;
	*left = c ? c->amount - c->refunded : 0;
	return 0;
}

static const struct draw_ops ops = {
	.get_home = g_home, .is_home = g_is_home, .put = g_put, .pools = g_pools,
	.seen = g_seen, .write = g_write, .usage = g_usage, .refundable = g_refundable,
};

static struct quota_req q;

static int
reset(void **state)
{
	(void)state;
	memset(&f, 0, sizeof(f));
	memset(&q, 0, sizeof(q));
	q.cfg = fx_config;
	q.uid = "jdoe";
	q.quota = "q";
	q.kind = PERIOD_NEVER;
	q.limit = 10;
	q.actor = "test";
	return 0;
}

/* A paid wallet holding paid. */
static void
topped_up(long long paid)
{
	f.has_paid = 1;
	f.paid.credit = paid;
}

static int
charge(const char *rid, long long amount, int partial, struct draw_res *out,
    struct wallet_res *w, struct err *e)
{
	struct draw_req d = { .op = DRAW_CHARGE, .rid = rid, .amount = amount,
	    .partial = partial };

	return wallet_draw_with(&ops, &q, &d, out, w, e);
}

static void
without_a_paid_wallet_a_charge_is_one_write(void **state)
{
	struct draw_res out;
	struct wallet_res w;
	struct err e;

	(void)state;
	assert_int_equal(charge("c1", 4, 0, &out, &w, &e), 0);
	assert_int_equal(f.writes, 1);
	assert_int_equal(w.allowance, 4);
	assert_false(w.has_paid);
	/* and a charge beyond the allowance is refused by it, as ever */
	assert_int_equal(charge("c2", 7, 0, &out, &w, &e), -1);
	assert_int_equal(out.res.why, QUOTA_EXCEEDED);
	assert_int_equal(f.allowance.used, 4);
	assert_int_equal(f.paid.nrec, 0);
}

static void
allowance_first_then_split_then_paid_alone(void **state)
{
	struct draw_res out;
	struct wallet_res w;
	struct err e;

	(void)state;
	topped_up(20);
	assert_int_equal(charge("c1", 6, 0, &out, &w, &e), 0);
	assert_int_equal(w.allowance, 6);
	assert_int_equal(w.paid, 0);
	assert_int_equal(f.paid.nrec, 0);	/* it fitted: the paid wallet untouched */
	assert_int_equal(charge("c2", 8, 0, &out, &w, &e), 0);
	assert_int_equal(w.allowance, 4);
	assert_int_equal(w.paid, 4);
	assert_int_equal(out.res.amount, 8);
	/* the split is recorded on the allowance, with the paid part */
	assert_int_equal(find(&f.allowance, "c2", NULL)->paid, 4);
	assert_int_equal(charge("c3", 5, 0, &out, &w, &e), 0);
	assert_int_equal(w.allowance, 0);
	assert_int_equal(w.paid, 5);
	/* even a paid-only charge takes its request id on the allowance first */
	assert_non_null(find(&f.allowance, "c3", NULL));
	assert_int_equal(f.allowance.used, 10);
	assert_int_equal(f.paid.used, 9);
}

static void
paid_first_draws_the_paid_wallet_first(void **state)
{
	struct cfg_priv *pv = &fx_config->privs[cfg_priv_find(fx_config, "q")];
	struct draw_res out;
	struct wallet_res w;
	struct err e;

	(void)state;
	pv->paid_first = 1;
	topped_up(5);
	assert_int_equal(charge("c1", 8, 0, &out, &w, &e), 0);
	pv->paid_first = 0;
	assert_int_equal(w.paid, 5);
	assert_int_equal(w.allowance, 3);
	assert_int_equal(f.allowance.used, 3);
	assert_int_equal(f.paid.used, 5);
}

static void
more_than_both_is_refused_writing_nothing(void **state)
{
	struct draw_res out;
	struct wallet_res w;
	struct err e;

	(void)state;
	topped_up(3);
	assert_int_equal(charge("c1", 14, 0, &out, &w, &e), -1);
	assert_int_equal(out.res.why, QUOTA_EXCEEDED);
	assert_int_equal(f.allowance.nrec + f.paid.nrec, 0);
	/* partial takes what both have */
	assert_int_equal(charge("c2", 14, 1, &out, &w, &e), 0);
	assert_int_equal(out.res.amount, 13);
	assert_int_equal(w.allowance, 10);
	assert_int_equal(w.paid, 3);
}

static void
a_retry_finishes_a_split_stopped_half_way(void **state)
{
	struct draw_res out;
	struct wallet_res w;
	struct err e;

	(void)state;
	topped_up(20);
	f.fail_paid_writes = 1;
	/* the allowance part lands, the paid part does not: no success */
	assert_int_equal(charge("c1", 15, 0, &out, &w, &e), -1);
	assert_int_equal(e.code, ERR_UNAVAILABLE);
	assert_int_equal(f.allowance.used, 10);
	assert_int_equal(f.paid.used, 0);
	/* the retry finds the split and lands the paid part only */
	assert_int_equal(charge("c1", 15, 0, &out, &w, &e), 0);
	assert_int_equal(w.allowance, 10);
	assert_int_equal(w.paid, 5);
	assert_int_equal(f.allowance.used, 10);
	assert_int_equal(f.paid.used, 5);
	/* and again: a replay, charging nothing */
	assert_int_equal(charge("c1", 15, 0, &out, &w, &e), 0);
	assert_true(out.res.replayed);
	assert_int_equal(f.allowance.used + f.paid.used, 15);
	/* the same id with another amount is refused */
	assert_int_equal(charge("c1", 16, 0, &out, &w, &e), -1);
	assert_int_equal(out.res.why, QUOTA_ID_REUSED);
}

static void
a_paid_part_not_had_is_voided_and_the_allowance_given_back(void **state)
{
	struct draw_res out;
	struct wallet_res w;
	struct err e;

	(void)state;
	topped_up(8);
	f.drain_after_allowance = 1;
	assert_int_equal(charge("c1", 15, 0, &out, &w, &e), -1);
	assert_int_equal(out.res.why, QUOTA_EXCEEDED);
	assert_int_equal(f.allowance.used, 0);	/* given back */
	/* the paid part's id is the charge's and the allowance's period */
	assert_null(find(&f.paid, "c1", NULL));
	assert_true(find(&f.paid, "c1@all", NULL)->voided);
	/* the retry cannot land the paid part later */
	f.paid.credit = 100;
	assert_int_equal(charge("c1", 15, 0, &out, &w, &e), -1);
	assert_int_equal(out.res.why, QUOTA_EXCEEDED);
	assert_int_equal(f.allowance.used, 0);
	assert_int_equal(f.paid.used, 0);
}

static void
a_refund_gives_back_the_allowance_part_then_the_paid(void **state)
{
	struct draw_req d = { .op = DRAW_REFUND, .rid = "r1", .charge_id = "c1", .amount = 12 };
	struct draw_res out;
	struct wallet_res w;
	struct err e;

	(void)state;
	topped_up(10);
	assert_int_equal(charge("c1", 15, 0, &out, &w, &e), 0);
	assert_int_equal(wallet_draw_with(&ops, &q, &d, &out, &w, &e), 0);
	assert_int_equal(w.allowance, 10);
	assert_int_equal(w.paid, 2);
	assert_int_equal(f.allowance.used, 0);
	assert_int_equal(f.paid.used, 3);
	/* more than is left of both is refused before anything is written */
	d.rid = "r2";
	d.amount = 4;
	assert_int_equal(wallet_draw_with(&ops, &q, &d, &out, &w, &e), -1);
	assert_int_equal(out.res.why, QUOTA_REFUND_EXCEEDS_CHARGE);
	assert_null(find(&f.allowance, "r2", NULL));
	/* a refund stopped between its parts is finished by its retry */
	d.rid = "r3";
	d.amount = 3;
	f.fail_paid_writes = 1;
	assert_int_equal(wallet_draw_with(&ops, &q, &d, &out, &w, &e), -1);
	assert_int_equal(wallet_draw_with(&ops, &q, &d, &out, &w, &e), 0);
	assert_int_equal(f.paid.used, 0);
	assert_int_equal(f.allowance.used, 0);
}

FX_GROUP("wallet", fx_setup, fx_teardown,
	cmocka_unit_test_setup(without_a_paid_wallet_a_charge_is_one_write, reset),
	cmocka_unit_test_setup(allowance_first_then_split_then_paid_alone, reset),
	cmocka_unit_test_setup(paid_first_draws_the_paid_wallet_first, reset),
	cmocka_unit_test_setup(more_than_both_is_refused_writing_nothing, reset),
	cmocka_unit_test_setup(a_retry_finishes_a_split_stopped_half_way, reset),
	cmocka_unit_test_setup(a_paid_part_not_had_is_voided_and_the_allowance_given_back,
	    reset),
	cmocka_unit_test_setup(a_refund_gives_back_the_allowance_part_then_the_paid, reset))
