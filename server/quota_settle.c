/*
 * quota_settle.c - the end of a hold: committed (up to what it held),
 * released, or expired by the reaper (expiry.c) through the account's home
 * provider, where a commit would go, so the two cannot both land.
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


/* "YYYYMMDDHHMMSSZ" of now, to compare with a hold's expiry. */
static void
now_gt(time_t now, char out[32])
{
	lentry_time(now, out);
	memcpy(out + 14, "Z", 2);
}

/* A hold that is no longer open: a replay of its commit or release, or a refusal. */
static int
settled(const struct quota_req *q, const struct uent_state *st, const char *id,
    const char *kind, long long amount, struct quota_res *r, struct err *e)
{
	json_t *j = uent_find_entry(st, id, "commit|release|expire");
	const char *k = j ? json_string_value(json_object_get(j, "kind")) : NULL;
	int ret;

	(void)q;
	if (k && strcmp(k, kind) == 0 && (strcmp(kind, "commit") != 0 ||
	    (json_object_get(j, "requested") ? uent_jnum(j, "requested") :
	    uent_jnum(j, "amount")) == amount)) {
		r->replayed = 1;
		r->amount = uent_jnum(j, "amount");
		r->released = uent_jnum(j, "released");
		r->paid = uent_jnum(j, "paid");
		r->split = json_object_get(j, "paid") != NULL;
		r->u = st->u;
		ret = 0;
	} else if (k && strcmp(k, "expire") == 0)
		ret = uent_refuse(r, e, ERR_CONFLICT, QUOTA_HOLD_EXPIRED, "id",
		    "hold '%s' expired and was released", id);
	else
		ret = uent_refuse(r, e, ERR_CONFLICT, QUOTA_HOLD_SETTLED, "id", "hold '%s' was already %s",
		    id, k == NULL ? "settled" : strcmp(k, "commit") == 0 ? "committed" : "released");
	json_decref(j);
	return ret;
}

/*
 * Settles hold id, held h, as kind (commit of amount, release, expire):
 * removing its privHold value is what makes this happen once. The write is
 * o's, which brings the counters back (the caller frees it). The LDAP
 * result code.
 */
static int
settle(LDAP *ld, struct wop *o, const char *udn, const struct usage_val *u, const char *id,
    const char *holdval, const char *kind, long long h, long long amount,
    const char *actor, const char *account, time_t now, const char *metadata,
    long long paid)
{
	/* a split hold's: what the paid wallet settles, and what was asked */
	char *rec = paid >= 0 ? lentry_format(kind, id, amount, actor, account, now, metadata,
	    "III", "released", h - amount, "paid", paid, "requested", amount + (strcmp(kind,
	    "commit") == 0 ? paid : 0)) : lentry_format(kind, id, amount, actor, account, now,
	    metadata, "I", "released", h - amount);
	int rc = LDAP_NO_MEMORY;

	wop_free(o);
	o->dn = udn;
	uent_read_back(o);
	if (rec != NULL &&
	    wop_mod(o, LDAP_MOD_DELETE, "privHold", "%s", holdval) == 0 &&
	    wop_mod(o, LDAP_MOD_ADD, "privEntry", "%s", rec) == 0 &&
	    wop_swap(o, "privHeld", u->held, u->held - h) == 0 &&
	    wop_swap(o, "privUsed", u->used, u->used + amount - h) == 0)
		rc = wop_run(ld, o);
	free(rec);
	return rc;
}

/* The metadata of hold id as JSON text (malloc'd), for its commit or release
 * to carry: a ledger reader then sees what each settled amount was for. */
static char *
hold_metadata(const struct uent_state *st, const char *id)
{
	json_t *j = uent_find_entry(st, id, "hold"), *m = json_object_get(j, "metadata");
	char *s = m ? json_dumps(m, JSON_COMPACT | JSON_SORT_KEYS) : NULL;

	json_decref(j);
	return s;
}

int
quota_settle(LDAP *ld, const struct quota_req *q, const struct draw_req *d,
    struct quota_res *r, struct err *e)
{
	const char *id = d->rid;
	int release = d->op == DRAW_RELEASE;
	long long amount = d->amount;
	const char *kind = release ? "release" : "commit";
	struct uent_target t = { NULL, "", "" };
	struct uent_state st = { 0, { 0, 0, 0, 0, "" }, NULL, NULL, NULL };
	char exp[32], now[32], *val, *meta = NULL;
	long long h, split, here;
	struct wop_try tr;
	struct wop o;
	json_t *j;
	int rc, ret = -1, locked = 0;

	memset(r, 0, sizeof(*r));
	memset(&o, 0, sizeof(o));
	if (release)
		amount = 0;
	if ((rc = uent_find(ld, q, id, NULL, "hold", r, &t, &st, e)) != 0) {
		if (rc == 1)
			uent_refuse(r, e, ERR_NOT_FOUND, QUOTA_UNKNOWN_HOLD, "id",
			    "%s of %s has no hold '%s'", q->quota, q->uid, id);
		goto done;
	}
	now_gt(q->now, now);
	keylock_take(t.key);
	locked = 1;
	for (wop_try_init(&tr, kind); wop_try(&tr, e);) {
		if (uent_find_value(st.holds, id, &h, exp, sizeof(exp), &val) != 0) {
			ret = settled(q, &st, id, kind, amount, r, e);
			goto done;
		}
		/* a split hold's allowance part: the paid wallet holds the rest */
		j = uent_find_entry(&st, id, "hold");
		split = uent_jnum(j, "paid");
		json_decref(j);
		if (amount > h + split) {
			uent_refuse(r, e, ERR_INVALID, QUOTA_BAD_REQUEST, "amount",
			    "amount %lld is more than the %lld held by '%s'", amount, h + split, id);
			goto done;
		}
		here = amount < h ? amount : h;
		if (strcmp(exp, now) <= 0) {
			/* past its TTL: release it now rather than wait for the reaper */
			rc = settle(ld, &o, t.udn, &st.u, id, val, "expire", h, 0, "privd", NULL,
			    q->now, NULL, -1);
			if (rc == LDAP_SUCCESS) {
				uent_after(ld, q->cfg, &o, t.udn, t.key, &st, e);
				uent_refuse(r, e, ERR_CONFLICT, QUOTA_HOLD_EXPIRED, "id",
				    "hold '%s' expired and was released", id);
				goto done;
			}
			if (rc != LDAP_NO_SUCH_ATTRIBUTE) {
				ldapc_fail(e, rc, "expire hold");
				goto done;
			}
			/* expired by another, or a counter moved: look again */
			if (uent_load(ld, q->cfg, t.udn, t.key, id, NULL, &st, e) != 0)
				goto done;
			continue;
		}
		free(meta);
		meta = hold_metadata(&st, id);
		rc = settle(ld, &o, t.udn, &st.u, id, val, kind, h, here, q->actor, q->account,
		    q->now, meta, split <= 0 ? -1 : release ? split : amount - here);
		if (rc == LDAP_SUCCESS) {
			r->amount = here;
			r->released = h - here;
			r->paid = release ? split : amount - here;
			r->split = split > 0;
			ret = 0;
			uent_landed(ld, q, &t, &o, &st, r, e);
			goto done;
		}
		if (rc != LDAP_NO_SUCH_ATTRIBUTE) {
			ldapc_fail(e, rc, kind);
			goto done;
		}
		/* settled by someone else, or a counter moved: look again */
		if (uent_load(ld, q->cfg, t.udn, t.key, id, NULL, &st, e) != 0)
			goto done;
	}
done:
	/* a retried commit or release its home holds: did its peers get it? */
	if (ret == 0 && r->replayed && q->home && t.udn != NULL)
		mend_note(ld, t.udn);
	if (locked)
		keylock_give(t.key);
	wop_free(&o);
	free(meta);
	uent_free(&st);
	free(t.udn);
	return ret;
}

int
quota_expire(LDAP *ld, const struct cfg *c, time_t now, int max, struct err *e)
{
	static char *attrs[] = { "privHold", NULL };
	char uid[DN_VAL_MAX], name[DN_VAL_MAX], gt[32];
	char hid[REQID_MAX + 1], exp[32];
	LDAPMessage *res = NULL, *m;
	char *root = uent_root(c), *dn, **holds;
	long long h;
	int rc, n = 0;
	size_t i;

	if (root == NULL)
		return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
	now_gt(now, gt);
	if ((rc = ldapc_search(ld, c, root, LDAP_SCOPE_SUBTREE,
	    "(&(objectClass=privUsage)(privHold=*))", attrs, 0, &res, e)) != 0) {
		free(root);
		return rc < 0 ? -1 : 0;
	}
	for (m = ldap_first_entry(ld, res); m && n < max; m = ldap_next_entry(ld, m)) {
		if ((dn = ldap_get_dn(ld, m)) == NULL)
			continue;
		holds = dn_usage(dn, root, uid, name) == 0 ? ldapc_get_strv(ld, m, "privHold") : NULL;
		for (i = 0; holds && holds[i] && n < max; i++) {
			char key[USAGE_KEY_MAX];
			struct uent_state st = { 0, { 0, 0, 0, 0, "" }, NULL, NULL, NULL };
			struct err he;
			struct wop o;
			LDAP *w = ld;

			if (sscanf(holds[i], "%128s %lld %31s", hid, &h, exp) != 3 ||
			    strcmp(exp, gt) > 0)
				continue;
			/* with several providers, through the account's home one,
			 * where its commit would go: the two cannot then both land */
			memset(&he, 0, sizeof(he));
			if (!ldpool_is_home(ld, uid) && ldpool_get_at_home(uid, &w, &he) != 0) {
				log_warn("quota: expired hold %s of %s waits: %s", hid, dn, he.msg);
				continue;
			}
			snprintf(key, sizeof(key), "%s/%s", uid, name);
			keylock_take(key);
			memset(&o, 0, sizeof(o));
			/* the counters as they are now: the swap asserts them */
			rc = uent_read(w, c, dn, key, 0, &st, &he) != 0 ? LDAP_OTHER :
			    settle(w, &o, dn, &st.u, hid, holds[i], "expire", h, 0, "privd", NULL, now,
			    NULL, -1);
			if (rc == LDAP_SUCCESS) {
				n++;
				log_info("quota: hold %s of %s expired: released %lld", hid, key, h);
				uent_after(w, c, &o, dn, key, &st, e);
			}
			keylock_give(key);
			wop_free(&o);
			uent_free(&st);
			if (rc != LDAP_SUCCESS && rc != LDAP_NO_SUCH_ATTRIBUTE)
				log_warn("quota: cannot release expired hold %s of %s: %s", hid, dn,
				    ldap_err2string(rc));
			if (w != ld)
				ldpool_put(w, rc != LDAP_SUCCESS && rc != LDAP_NO_SUCH_ATTRIBUTE);
		}
		strv_free(holds);
		ldap_memfree(dn);
	}
	ldap_msgfree(res);
	free(root);
	return n;
}


