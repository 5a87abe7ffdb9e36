/*
 * quota_refund.c - refunds: give back at most what a charge took, found
 * in the ledger wherever its entry sits, once per request id.
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
#include "uentry.h"
#include "strv.h"
#include "wop.h"


int
quota_refund(LDAP *ld, const struct quota_req *q, const struct draw_req *d,
    struct quota_res *r, struct err *e)
{
	const char *rid = d->rid, *charge_id = d->charge_id;
	long long amount = d->amount, paid_left = d->paid_left;
	struct uent_target t = { NULL, "", "" };
	struct uent_state st = { 0, { 0, 0, 0, 0, "" }, NULL, NULL, NULL };
	struct berval in, esc = { 0, NULL };
	struct wop o;
	char *rec = NULL, *old = NULL, *segs = NULL;
	long long charged, refunded, split, here;
	json_t *j;
	struct wop_try tr;
	int rc, ret = -1, first, locked = 0;

	memset(r, 0, sizeof(*r));
	memset(&o, 0, sizeof(o));
	if ((rc = uent_find(ld, q, charge_id, rid, "charge", r, &t, &st, e)) != 0) {
		if (rc == 1)
			uent_refuse(r, e, ERR_NOT_FOUND, QUOTA_UNKNOWN_CHARGE, "charge_id",
			    "%s of %s has no charge '%s'", q->quota, q->uid, charge_id);
		goto done;
	}
	in.bv_val = (char *)charge_id;
	in.bv_len = strlen(charge_id);
	if (ldap_bv2escaped_filter_value(&in, &esc) != 0) {
		err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
		goto done;
	}
	keylock_take(t.key);
	locked = 1;
	for (wop_try_init(&tr, "refund"); wop_try(&tr, e);) {
		if ((rc = uent_replay(q, &st, rid, "refund", amount, charge_id, r, e)) != 0) {
			ret = rc == 1 ? 0 : -1;
			goto done;
		}
		if ((j = uent_find_entry(&st, charge_id, "charge")) == NULL) {
			err_set(e, ERR_INTERNAL, 0, NULL, "%s: charge '%s' is no longer in its ledger",
			    t.key, charge_id);
			goto done;
		}
		/* a charge has a refund state once something of it is refunded */
		first = uent_find_value(st.refunds, charge_id, &refunded, NULL, 0, &old) != 0;
		if (first)
			refunded = 0;
		charged = uent_jnum(j, "amount");
		/* a split charge's allowance part: the paid wallet took the rest */
		split = paid_left >= 0 ? uent_jnum(j, "paid") : 0;
		json_decref(j);
		r->refundable = charged - refunded + (split > 0 ? paid_left : 0);
		if (amount > r->refundable) {
			uent_refuse(r, e, ERR_CONFLICT, QUOTA_REFUND_EXCEEDS_CHARGE, "amount",
			    "charge '%s' took %lld%s and %lld of it is refunded: at most %lld "
			    "can be refunded", charge_id, charged + (split > 0 ? split : 0),
			    split > 0 ? " of both wallets" : "", refunded + (split > 0 ?
			    split - paid_left : 0), r->refundable);
			goto done;
		}
		/* of a split charge, this wallet gives back what it took first */
		here = amount < charged - refunded ? amount : charged - refunded;
		wop_free(&o);
		free(rec);
		free(segs);
		o.dn = t.udn;
		uent_read_back(&o);
		rec = split > 0 ? lentry_format("refund", rid, here, q->actor, q->account, q->now,
		    NULL, "IsI", "requested", amount, "ref", charge_id, "paid", amount - here) :
		    lentry_format("refund", rid, amount, q->actor, q->account, q->now, NULL, "Is",
		    "requested", amount, "ref", charge_id);
		if (split <= 0)
			here = amount;
		/* the first refund asserts there is no state yet: two first
		 * refunds at once cannot both start from zero */
		if (rec == NULL || (segs = arch_assert(st.u.segments)) == NULL ||
		    wop_swap(&o, "privUsed", st.u.used, st.u.used - here) != 0 ||
		    wop_mod(&o, LDAP_MOD_ADD, "privRequest", "%s", rid) != 0 ||
		    wop_mod(&o, LDAP_MOD_ADD, "privEntry", "%s", rec) != 0 ||
		    (!first && wop_mod(&o, LDAP_MOD_DELETE, "privRefund", "%s", old) != 0) ||
		    wop_mod(&o, LDAP_MOD_ADD, "privRefund", "%s %lld", charge_id,
		    refunded + here) != 0 ||
		    (first ? asprintf(&o.assert, "(&%s(!(privRefund=%s *)))", segs, esc.bv_val) :
		    asprintf(&o.assert, "%s", segs)) < 0) {
			o.assert = NULL;
			err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
			goto done;
		}
		rc = wop_run(ld, &o);
		if (rc == LDAP_SUCCESS) {
			r->amount = here;
			r->paid = amount - here;
			r->split = split > 0;
			r->refundable -= amount;
			ret = 0;
			uent_landed(ld, q, &t, &o, &st, r, e);
			goto done;
		}
		if (rc != LDAP_TYPE_OR_VALUE_EXISTS && rc != LDAP_NO_SUCH_ATTRIBUTE &&
		    rc != LDAP_ASSERTION_FAILED) {
			ldapc_fail(e, rc, "refund");
			goto done;
		}
		/* a replay, another refund of this charge came first, or entries
		 * moved: look again */
		if (uent_load(ld, q->cfg, t.udn, t.key, charge_id, rid, &st, e) != 0)
			goto done;
	}
done:
	/* a retried refund its home holds: did its peers get it? (mend.h) */
	if (ret == 0 && r->replayed && q->home && t.udn != NULL)
		mend_note(ld, t.udn);
	if (locked)
		keylock_give(t.key);
	ber_memfree(esc.bv_val);
	wop_free(&o);
	free(rec);
	free(segs);
	uent_free(&st);
	free(t.udn);
	return ret;
}


int
quota_refundable(LDAP *ld, const struct quota_req *q, const char *charge_id,
    long long *left, struct err *e)
{
	struct uent_target t = { NULL, "", "" };
	struct uent_state st = { 0, { 0, 0, 0, 0, "" }, NULL, NULL, NULL };
	struct quota_res r;
	long long refunded = 0;
	json_t *j;
	int rc;

	memset(&r, 0, sizeof(r));
	*left = 0;
	if ((rc = uent_find(ld, q, charge_id, NULL, "charge", &r, &t, &st, e)) == 0 &&
	    (j = uent_find_entry(&st, charge_id, "charge")) != NULL) {
		char *whole;	/* points into st */

		if (uent_find_value(st.refunds, charge_id, &refunded, NULL, 0, &whole) != 0)
			refunded = 0;
		*left = uent_jnum(j, "amount") - refunded;
		json_decref(j);
	}
	uent_free(&st);
	free(t.udn);
	return rc < 0 ? -1 : 0;
}
