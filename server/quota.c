/*
 * quota.c - quota writes, each one LDAP modify of the usage entry. A modify
 * is atomic in slapd: the counter increment (RFC 4525), the request id (a
 * second add of it fails: idempotency), the ledger entry and, for refunds
 * and holds, the swap of a state value all land together or not at all,
 * under an assertion (RFC 4528) that keeps used within limit + credit.
 * slapd serialises the modifies of one entry; privd never reads, decides
 * and writes back without such a guard.
 *
 * Not an RFC 5805 transaction: slapd 2.5.13 crashes (in syncprov,
 * txn_preop or do_add) when a transaction commits while other writes run
 * and a sync search is open; privd always has sync searches open.
 */
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <lber.h>

#include "archive.h"
#include "away.h"
#include "dn.h"
#include "ldapconn.h"
#include "keylock.h"
#include "ledger.h"
#include "lentry.h"
#include "ldpool.h"
#include "log.h"
#include "mend.h"
#include "pool.h"
#include "quota.h"
#include "segids.h"
#include "uentry.h"
#include "strv.h"
#include "wop.h"

int
quota_period_ok(const struct cfg *c, enum period_kind kind, const char *p)
{
	size_t i, n = strlen(p);

	if (n == 0 || n >= PERIOD_KEY_MAX)
		return 0;
	if (kind == PERIOD_TERM) {
		for (i = 0; i < c->nterms; i++)
			if (strcmp(c->terms[i].name, p) == 0)
				return 1;
		return 0;
	}
	for (i = 0; i < n; i++)
		if (!((p[i] >= '0' && p[i] <= '9') || p[i] == 'W' || p[i] == '-' ||
		    (kind == PERIOD_NEVER && p[i] >= 'a' && p[i] <= 'z')))
			return 0;
	return 1;
}

static int
exceeded(const struct quota_req *q, struct quota_res *r, struct err *e,
    long long amount)
{
	return uent_refuse(r, e, ERR_CONFLICT, QUOTA_EXCEEDED, "amount",
	    "%s of %s: %lld asked, %lld remaining of %lld in %s", q->quota, q->uid,
	    amount, usage_remaining(q->limit, &r->u), q->limit + r->u.credit, r->period);
}

/* Charges and holds: raise privUsed (and privHeld) within the limit. */
int
quota_take(LDAP *ld, const struct quota_req *q, const struct draw_req *d,
    struct quota_res *r, struct err *e)
{
	const char *rid = d->rid, *metadata = d->meta;
	long long amount = d->amount, paid = d->paid, requested = d->requested;
	int partial = d->op == DRAW_CHARGE && d->partial;
	long ttl_s = d->op == DRAW_HOLD ? d->ttl : 0;
	const char *kind = ttl_s > 0 ? "hold" : "charge";
	struct uent_target t = { NULL, "", "" };
	struct uent_state st = { 0, { 0, 0, 0, 0, "" }, NULL, NULL, NULL };
	struct wop o;
	char *rec = NULL, *segs = NULL, exp_gt[32] = "";
	struct wop_try tr;
	char uuid[SEGIDS_UUID], same[SEGIDS_UUID + 16];
	int rc, ret = -1, asserts_uuid = 0;
	long long credit, nseg, n = amount, away = 0;

	if (requested <= 0)
		requested = amount;
	memset(r, 0, sizeof(*r));
	memset(&o, 0, sizeof(o));
	if (uent_period(q, r->period, e) != 0)
		return uent_refuse(r, e, ERR_CONFLICT, QUOTA_NO_PERIOD, "period", "%s", e->msg);
	if (uent_target_of(q, r->period, &t, e) != 0)
		return -1;
	if (ttl_s > 0) {
		lentry_time(q->now + ttl_s, exp_gt);
		memcpy(exp_gt + 14, "Z", 2);	/* whole seconds */
		lentry_rfc3339(exp_gt, r->expires);
	}
	keylock_take(t.key);
	if (q->home)
		away_forget(t.key);
	else if (away_take(t.key, amount, q->cfg->away_allowance) == 0)
		away = amount;
	else {
		uent_refuse(r, e, ERR_UNAVAILABLE, QUOTA_WHY_NONE, NULL, "the home provider of %s is unreachable "
		    "and this privd let the %lld of ldap.away_allowance through elsewhere "
		    "already", t.key, q->cfg->away_allowance);
		goto done;
	}
	usage_get(t.key, &st.u);
	credit = st.u.credit;
	nseg = st.u.segments;
	for (wop_try_init(&tr, kind); wop_try(&tr, e);) {
		wop_free(&o);
		free(rec);
		free(segs);
		rec = segs = NULL;
		/* an id that moved into a segment is a replay; the write below
		 * asserts the segments are still those looked at (and, when
		 * they were remembered, that the entry is the one they are of) */
		asserts_uuid = 0;
		same[0] = '\0';
		rc = segids_check(ld, q->cfg, t.udn, nseg, rid, uuid);
		if (rc == 0) {
			asserts_uuid = 1;
			snprintf(same, sizeof(same), "(entryUUID=%s)", uuid);
		} else if (rc == 2)
			rc = uent_moved_out(ld, q->cfg, t.udn, nseg, rid, e);
		if (rc < 0)
			goto done;
		if (rc == 1)
			goto replayed;
		if (partial) {
			if (uent_read(ld, q->cfg, t.udn, t.key, 0, &st, e) != 0)
				goto done;
			credit = st.u.credit;
			if (st.u.segments != nseg) {
				nseg = st.u.segments;
				continue;
			}
			n = q->limit + credit - st.u.used;
			if (n > amount)
				n = amount;
			if (n <= 0)
				goto refused;
		}
		o.dn = t.udn;
		uent_read_back(&o);
		rec = ttl_s > 0 ?
		    lentry_format(kind, rid, n, q->actor, q->account, q->now, metadata,
		    paid > 0 ? "IsI" : "Is", "requested", requested, "expires", r->expires,
		    "paid", paid) :
		    lentry_format(kind, rid, n, q->actor, q->account, q->now, metadata,
		    paid > 0 ? "II" : "I", "requested", requested, "paid", paid);
		if (rec == NULL || (segs = arch_assert(nseg)) == NULL ||
		    wop_swap(&o, "privUsed", st.u.used, st.u.used + n) != 0 ||
		    (ttl_s > 0 && wop_swap(&o, "privHeld", st.u.held, st.u.held + n) != 0) ||
		    wop_mod(&o, LDAP_MOD_ADD, "privRequest", "%s", rid) != 0 ||
		    wop_mod(&o, LDAP_MOD_ADD, "privEntry", "%s", rec) != 0 ||
		    (ttl_s > 0 && wop_mod(&o, LDAP_MOD_ADD, "privHold", "%s %lld %s", rid, n,
		    exp_gt) != 0) ||
		    (n > 0 ? asprintf(&o.assert, "(&(privUsed<=%lld)(privCredit=%lld)%s%s)",
		    q->limit + credit - n, credit, segs, same) :
		    /* a split's record of nothing taken here: no room needed */
		    asprintf(&o.assert, "(&(privCredit=%lld)%s%s)", credit, segs, same)) < 0) {
			o.assert = NULL;
			err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
			goto done;
		}
		rc = wop_run(ld, &o);
		switch (rc) {
		case LDAP_SUCCESS:
			r->amount = n;
			r->paid = paid;
			r->split = paid > 0;
			r->state = ttl_s > 0 ? "open" : NULL;
			ret = 0;
			uent_landed(ld, q, &t, &o, &st, r, e);
			goto done;
		case LDAP_TYPE_OR_VALUE_EXISTS:
			/* the request id is there already */
			goto replayed;
		case LDAP_NO_SUCH_ATTRIBUTE:
			/* a counter moved since it was read (another privd):
			 * read it again */
			if (uent_read(ld, q->cfg, t.udn, t.key, 0, &st, e) != 0)
				goto done;
			credit = st.u.credit;
			nseg = st.u.segments;
			continue;
		case LDAP_NO_SUCH_OBJECT:
			/* first use of this quota in this period */
			if (uent_ensure(ld, q->cfg, &t, q->uid, r->period, e) != 0)
				goto done;
			continue;
		case LDAP_ASSERTION_FAILED:
			if (uent_read(ld, q->cfg, t.udn, t.key, 0, &st, e) != 0)
				goto done;
			if ((asserts_uuid && segids_gone(ld, q->cfg, t.udn, uuid)) ||
			    st.u.credit != credit || st.u.segments != nseg) {
				/* an administrator credited, entries moved, or
				 * the entry was made again: again */
				credit = st.u.credit;
				nseg = st.u.segments;
				continue;
			}
			if (partial)
				continue;	/* someone took some: take what is left */
			goto refused;
		default:
			ldapc_fail(e, rc, kind);
			goto done;
		}
	}
	goto done;
replayed:
	if (uent_load(ld, q->cfg, t.udn, t.key, rid, NULL, &st, e) != 0)
		goto done;
	rc = uent_replay(q, &st, rid, kind, requested, NULL, r, e);
	ret = rc == 1 ? 0 : -1;
	if (rc == 0)
		err_set(e, ERR_INTERNAL, 0, NULL, "%s: request id '%s' is recorded "
		    "without its ledger entry", t.key, rid);
	goto done;
refused:
	/* the assertion is checked before the request id: a replay may land here */
	if (uent_load(ld, q->cfg, t.udn, t.key, rid, NULL, &st, e) != 0)
		goto done;
	if ((rc = uent_replay(q, &st, rid, kind, requested, NULL, r, e)) != 0) {
		ret = rc == 1 ? 0 : -1;
		goto done;
	}
	r->u = st.u;
	exceeded(q, r, e, amount);
done:
	if (ret != 0 && away > 0)
		away_take(t.key, -away, LLONG_MAX);
	/* a retried write its home holds: did its peers get it? (mend.h) */
	if (ret == 0 && r->replayed && q->home)
		mend_note(ld, t.udn);
	keylock_give(t.key);
	wop_free(&o);
	free(rec);
	free(segs);
	uent_free(&st);
	free(t.udn);
	return ret;
}

int
quota_seen(LDAP *ld, const struct quota_req *q, const char *rid, int hold,
    long long amount, struct quota_res *r, struct err *e)
{
	struct uent_target t = { NULL, "", "" };
	struct uent_state st = { 0, { 0, 0, 0, 0, "" }, NULL, NULL, NULL };
	int rc = -1;

	memset(r, 0, sizeof(*r));
	if (uent_period(q, r->period, e) != 0)
		return uent_refuse(r, e, ERR_CONFLICT, QUOTA_NO_PERIOD, "period", "%s", e->msg);
	if (uent_target_of(q, r->period, &t, e) != 0)
		return -1;
	if (uent_load(ld, q->cfg, t.udn, t.key, rid, NULL, &st, e) == 0)
		rc = st.exists ? uent_replay(q, &st, rid, hold ? "hold" : "charge", amount, NULL, r, e) : 0;
	uent_free(&st);
	free(t.udn);
	return rc;
}

int
quota_credit(LDAP *ld, const struct quota_req *q, const struct draw_req *d,
    struct quota_res *r, struct err *e)
{
	const char *kind = d->kind ? d->kind : "credit", *rid = d->rid, *reason = d->reason;
	const char *ref = d->ref, *period = d->period;
	long long amount = d->amount;
	struct uent_target t = { NULL, "", "" };
	struct uent_state st = { 0, { 0, 0, 0, 0, "" }, NULL, NULL, NULL };
	struct wop o;
	char *meta = NULL, *rec = NULL;
	struct wop_try tr;
	int rc, ret = -1, locked = 0;
	long long nseg;

	memset(r, 0, sizeof(*r));
	memset(&o, 0, sizeof(o));
	if (period != NULL)
		snprintf(r->period, sizeof(r->period), "%s", period);
	else if (uent_period(q, r->period, e) != 0)
		return uent_refuse(r, e, ERR_CONFLICT, QUOTA_NO_PERIOD, "period", "%s", e->msg);
	if (uent_target_of(q, r->period, &t, e) != 0)
		return -1;
	if (reason != NULL) {
		json_t *j = json_pack("{s:s}", strcmp(kind, "credit") == 0 ? "reason" : "reference",
		    reason);

		meta = j ? json_dumps(j, JSON_COMPACT) : NULL;
		json_decref(j);
	}
	keylock_take(t.key);
	locked = 1;
	usage_get(t.key, &st.u);
	nseg = st.u.segments;
	for (wop_try_init(&tr, kind); wop_try(&tr, e);) {
		wop_free(&o);
		free(rec);
		if ((rc = uent_moved_out(ld, q->cfg, t.udn, nseg, rid, e)) < 0)
			goto done;
		if (rc == 1)
			goto replayed;
		o.dn = t.udn;
		uent_read_back(&o);
		rec = ref != NULL ? lentry_format(kind, rid, amount, q->actor, NULL, q->now, meta,
		    "Is", "requested", amount, "ref", ref) : lentry_format(kind, rid, amount,
		    q->actor, NULL, q->now, meta, "I", "requested", amount);
		if (rec == NULL || (o.assert = arch_assert(nseg)) == NULL ||
		    wop_swap(&o, "privCredit", st.u.credit, st.u.credit + amount) != 0 ||
		    wop_mod(&o, LDAP_MOD_ADD, "privRequest", "%s", rid) != 0 ||
		    wop_mod(&o, LDAP_MOD_ADD, "privEntry", "%s", rec) != 0) {
			err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
			goto done;
		}
		rc = wop_run(ld, &o);
		if (rc == LDAP_SUCCESS) {
			r->amount = amount;
			ret = 0;
			uent_landed(ld, q, &t, &o, &st, r, e);
			goto done;
		}
		if (rc == LDAP_TYPE_OR_VALUE_EXISTS)
			goto replayed;
		if (rc == LDAP_ASSERTION_FAILED || rc == LDAP_NO_SUCH_ATTRIBUTE) {
			/* entries moved since (look in the segments again), or
			 * the credit did */
			if (uent_read(ld, q->cfg, t.udn, t.key, 0, &st, e) != 0)
				goto done;
			nseg = st.u.segments;
			continue;
		}
		if (rc != LDAP_NO_SUCH_OBJECT) {
			ldapc_fail(e, rc, kind);
			goto done;
		}
		if (uent_ensure(ld, q->cfg, &t, q->uid, r->period, e) != 0)
			goto done;
	}
	goto done;
replayed:
	if (uent_load(ld, q->cfg, t.udn, t.key, rid, NULL, &st, e) == 0 &&
	    (rc = uent_replay(q, &st, rid, kind, amount, ref, r, e)) != 0)
		ret = rc == 1 ? 0 : -1;
	else if (e->code == ERR_NONE)
		err_set(e, ERR_INTERNAL, 0, NULL, "%s: request id '%s' is recorded "
		    "without its ledger entry", t.key, rid);
done:
	/* a retried credit or top-up its home holds: did its peers get it? */
	if (ret == 0 && r->replayed && q->home && t.udn != NULL)
		mend_note(ld, t.udn);
	if (locked)
		keylock_give(t.key);
	wop_free(&o);
	free(rec);
	free(meta);
	uent_free(&st);
	free(t.udn);
	return ret;
}


int
quota_void(LDAP *ld, const struct quota_req *q, const struct draw_req *d,
    struct quota_res *r, struct err *e)
{
	const char *rid = d->rid, *kind = d->hold ? "hold" : "charge";
	long long requested = d->requested;
	struct uent_target t = { NULL, "", "" };
	struct uent_state st = { 0, { 0, 0, 0, 0, "" }, NULL, NULL, NULL };
	struct wop o;
	char *rec = NULL;
	struct wop_try tr;
	int rc, ret = -1;
	long long nseg;

	memset(r, 0, sizeof(*r));
	memset(&o, 0, sizeof(o));
	if (uent_period(q, r->period, e) != 0)
		return uent_refuse(r, e, ERR_CONFLICT, QUOTA_NO_PERIOD, "period", "%s", e->msg);
	if (uent_target_of(q, r->period, &t, e) != 0)
		return -1;
	keylock_take(t.key);
	usage_get(t.key, &st.u);
	nseg = st.u.segments;
	for (wop_try_init(&tr, "void"); wop_try(&tr, e);) {
		wop_free(&o);
		free(rec);
		if ((rc = uent_moved_out(ld, q->cfg, t.udn, nseg, rid, e)) < 0)
			goto done;
		if (rc == 1)
			goto replayed;
		o.dn = t.udn;
		uent_read_back(&o);
		rec = lentry_format(kind, rid, 0, q->actor, NULL, q->now, NULL, "II",
		    "requested", requested, "void", 1LL);
		if (rec == NULL || (o.assert = arch_assert(nseg)) == NULL ||
		    wop_mod(&o, LDAP_MOD_ADD, "privRequest", "%s", rid) != 0 ||
		    wop_mod(&o, LDAP_MOD_ADD, "privEntry", "%s", rec) != 0) {
			err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
			goto done;
		}
		rc = wop_run(ld, &o);
		if (rc == LDAP_SUCCESS) {
			ret = 0;
			uent_landed(ld, q, &t, &o, &st, r, e);
			goto done;
		}
		if (rc == LDAP_TYPE_OR_VALUE_EXISTS)
			goto replayed;
		if (rc == LDAP_ASSERTION_FAILED) {
			if (uent_read(ld, q->cfg, t.udn, t.key, 0, &st, e) != 0)
				goto done;
			nseg = st.u.segments;
			continue;
		}
		if (rc != LDAP_NO_SUCH_OBJECT) {
			ldapc_fail(e, rc, "void");
			goto done;
		}
		if (uent_ensure(ld, q->cfg, &t, q->uid, r->period, e) != 0)
			goto done;
	}
	goto done;
replayed:
	/* the part landed first, or was voided before: either is the answer */
	if (uent_load(ld, q->cfg, t.udn, t.key, rid, NULL, &st, e) == 0 &&
	    (rc = uent_replay(q, &st, rid, kind, requested, NULL, r, e)) != 0)
		ret = rc == 1 ? 0 : -1;
	else if (e->code == ERR_NONE)
		err_set(e, ERR_INTERNAL, 0, NULL, "%s: request id '%s' is recorded "
		    "without its ledger entry", t.key, rid);
done:
	keylock_give(t.key);
	wop_free(&o);
	free(rec);
	uent_free(&st);
	free(t.udn);
	return ret;
}

int
quota_reverse(LDAP *ld, const struct quota_req *q, const struct draw_req *d,
    struct quota_res *r, struct err *e)
{
	const char *topup_id = d->rid;
	struct draw_req rev = { .op = DRAW_CREDIT, .kind = "reversal", .reason = d->reason,
	    .ref = d->rid };
	struct uent_target t = { NULL, "", "" };
	struct uent_state st = { 0, { 0, 0, 0, 0, "" }, NULL, NULL, NULL };
	char rid[REQID_MAX + 16];
	long long amount;
	json_t *j;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	if (uent_period(q, r->period, e) != 0 || uent_target_of(q, r->period, &t, e) != 0)
		return -1;
	if (uent_load(ld, q->cfg, t.udn, t.key, topup_id, NULL, &st, e) != 0)
		goto done;
	if ((j = uent_find_entry(&st, topup_id, "topup")) == NULL) {
		uent_refuse(r, e, ERR_NOT_FOUND, QUOTA_UNKNOWN_CHARGE, "id",
		    "%s of %s has no top-up '%s'", q->quota, q->uid, topup_id);
		goto done;
	}
	amount = uent_jnum(j, "amount");
	json_decref(j);
	/* its own request id: a top-up is reversed once, however often asked */
	snprintf(rid, sizeof(rid), "%s/reversal", topup_id);
	rev.rid = rid;
	rev.amount = -amount;
	ret = quota_credit(ld, q, &rev, r, e);
done:
	uent_free(&st);
	free(t.udn);
	return ret;
}
