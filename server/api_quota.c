/* api_quota.c - quota reads, charges, refunds, holds, credits and the ledger over REST. */
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "body.h"
#include "indoubt.h"
#include "ldpool.h"
#include "ledger.h"
#include "log.h"
#include "quota.h"
#include "resolve.h"
#include "snapshot.h"
#include "sync.h"

/*
 * Fills q for the account and quota of the path from the snapshot, then
 * leaves it: LDAP writes must not keep a snapshot from being replaced.
 * Answers the error itself and returns -1.
 */
static int
quota_of(struct req *r, struct quota_req *q, enum MHD_Result *ret)
{
	const struct snap_account *a;
	const struct snap *s;
	struct resolve_val v;
	int t, p;

	memset(q, 0, sizeof(*q));
	if ((s = snap_enter(&t)) == NULL) {
		snap_leave(t);
		*ret = http_error(r, 503, "not_ready", NULL, "privd has not loaded the directory yet");
		return -1;
	}
	if ((a = snap_account(s, r->part[2])) == NULL) {
		snap_leave(t);
		*ret = http_error(r, 404, "unknown_account", "uid",
		    "no account '%.64s' (no entry with privAccount and that uid)", r->part[2]);
		return -1;
	}
	http_canon_part(r, 2, a->uid);
	if ((p = cfg_priv_find(s->cfg, r->part[4])) < 0 ||
	    s->cfg->privs[p].type != PRIV_QUOTA) {
		snap_leave(t);
		*ret = http_error(r, 404, "unknown_quota", "quota",
		    "no quota '%.64s' is declared%s", r->part[4], p >= 0 ? " (it is not a quota)" : "");
		return -1;
	}
	if (resolve_combine(s->cfg, p, a->m, a->nm, &v) != 0) {
		snap_leave(t);
		*ret = http_error(r, 500, "internal", NULL, "out of memory");
		return -1;
	}
	q->cfg = r->cfg;
	q->uid = r->part[2];	/* the path outlives the request */
	q->quota = r->cfg->privs[p].name;
	q->kind = r->cfg->privs[p].period;
	q->limit = v.num;
	q->actor = r->actor ? r->actor : "anonymous";
	q->now = period_now();
	resolve_val_clear(&v);
	snap_leave(t);
	return 0;
}

static void
usage_fields(json_t *o, const struct quota_req *q, const char *period,
    const struct usage_val *u)
{
	json_object_set_new(o, "period", json_string(period));
	json_object_set_new(o, "limit", json_integer(q->limit));
	json_object_set_new(o, "credit", json_integer(u->credit));
	json_object_set_new(o, "used", json_integer(u->used));
	json_object_set_new(o, "held", json_integer(u->held));
	json_object_set_new(o, "remaining", json_integer(usage_remaining(q->limit, u)));
}

/* A bad field: 400 naming it. */
static enum MHD_Result
bad(struct req *r, const struct err *e)
{
	return http_error(r, 400, "bad_request", e->key, "%s", e->msg);
}

/* The quota of the path and the body's object; answers an error itself. */
static json_t *
start(struct req *r, const char *const *allowed, struct quota_req *q,
    enum MHD_Result *ret)
{
	struct err e;
	json_t *o;

	memset(&e, 0, sizeof(e));
	if (quota_of(r, q, ret) != 0)
		return NULL;
	if ((o = body_object(r->body, r->len, allowed, &e)) == NULL)
		*ret = bad(r, &e);
	return o;
}

static enum MHD_Result refused(struct req *, const struct quota_req *,
    const struct quota_res *, const struct err *);
static enum MHD_Result done(struct req *, const struct quota_req *,
    const struct quota_res *, const char *, const char *, int);
static void audit(const struct req *, const struct quota_req *, const char *,
    const char *, const struct quota_res *, int, const struct err *);

/*
 * After a write of request rid: the connection back to the pool, and the
 * request in doubt when the home provider took its outcome with it
 * (indoubt.h), out of doubt once it has a definite answer.
 */
static void
give_back(LDAP *ld, const char *uid, const char *rid, int rc, const struct err *e)
{
	if (e->code == ERR_UNAVAILABLE && ldpool_is_home(ld, uid))
		indoubt_add(uid, rid);
	else if (rc == 0 || e->code != ERR_UNAVAILABLE)
		indoubt_del(uid, rid);
	ldpool_put(ld, e->code == ERR_UNAVAILABLE);
}

/* After a write: the connection back, the audit line, the answer. */
static enum MHD_Result
finish(struct req *r, LDAP *ld, const struct quota_req *q, const char *what,
    const char *rid, const char *amount_name, int rc, const struct quota_res *res,
    const struct err *e)
{
	give_back(ld, q->uid, rid, rc, e);
	audit(r, q, what, rid, res, rc, e);
	return rc == 0 ? done(r, q, res, rid, amount_name, 1) : refused(r, q, res, e);
}

/* Answers a refused or failed write. */
static enum MHD_Result
refused(struct req *r, const struct quota_req *q, const struct quota_res *res,
    const struct err *e)
{
	json_t *o;

	if (res->why == NULL)
		return http_err(r, e, "write_failed");
	o = json_pack("{s:s, s:s}", "error", res->why, "message", e->msg);
	if (o == NULL)
		return http_json(r, 500, NULL);
	if (e->key[0])
		json_object_set_new(o, "field", json_string(e->key));
	if (strcmp(res->why, "quota_exceeded") == 0)
		usage_fields(o, q, res->period, &res->u);
	else if (strcmp(res->why, "refund_exceeds_charge") == 0)
		json_object_set_new(o, "refundable", json_integer(res->refundable));
	return http_json(r, e->code == ERR_NOT_FOUND ? 404 : e->code == ERR_INVALID ? 400 : 409, o);
}

/* The answer to a write that landed (201) or was replayed (200). */
static enum MHD_Result
done(struct req *r, const struct quota_req *q, const struct quota_res *res,
    const char *id, const char *amount_name, int created)
{
	json_t *o = json_pack("{s:s, s:I}", "request_id", id, amount_name,
	    (json_int_t)res->amount);

	if (o == NULL)
		return http_json(r, 500, NULL);
	usage_fields(o, q, res->period, &res->u);
	if (res->replayed)
		json_object_set_new(o, "replayed", json_true());
	if (res->expires[0]) {
		char path[512];

		/* a hold: its id is the request id; say so, and where it settles */
		json_object_set_new(o, "expires", json_string(res->expires));
		json_object_set_new(o, "hold_id", json_string(id));
		snprintf(path, sizeof(path), "/v1/accounts/%s/quotas/%s/holds/%s/commit", q->uid,
		    q->quota, id);
		json_object_set_new(o, "commit", json_string(path));
	}
	if (res->state != NULL)
		json_object_set_new(o, "state", json_string(res->state));
	return http_json(r, created && !res->replayed ? 201 : 200, o);
}

static void
audit(const struct req *r, const struct quota_req *q, const char *what,
    const char *id, const struct quota_res *res, int rc, const struct err *e)
{
	log_info("%s %s/%s id=%s by %s: %s", what, q->uid, q->quota, id, q->actor,
	    rc == 0 ? (res->replayed ? "replayed" : "ok") :
	    res->why ? res->why : e->msg);
	(void)r;
}

/*
 * Takes a write connection to the account's home provider; answers 503
 * itself when there is none. A request id rid in doubt (indoubt.h) goes to
 * the home provider only: anywhere else it could land a second time.
 */
static LDAP *
conn(struct req *r, const char *rid, enum MHD_Result *ret)
{
	struct err e;
	LDAP *ld;

	memset(&e, 0, sizeof(e));
	if (ldpool_get_home(r->part[2], &ld, &e) != 0) {
		*ret = http_error(r, 503, "ldap_unavailable", NULL, "%s", e.msg);
		return NULL;
	}
	if (rid != NULL && indoubt_has(r->part[2], rid) && !ldpool_is_home(ld, r->part[2])) {
		ldpool_put(ld, 0);
		*ret = http_error(r, 503, "ldap_unavailable", NULL, "request '%s' may have landed "
		    "on %s's home provider just before it went away; it waits for that provider, "
		    "so that it is never charged twice: send it again later", rid, r->part[2]);
		return NULL;
	}
	return ld;
}

enum MHD_Result
api_quota(struct req *r)
{
	struct quota_req q;
	struct usage_val u;
	char period[PERIOD_KEY_MAX], key[USAGE_KEY_MAX];
	enum MHD_Result ret;
	struct err e;
	json_t *o;

	if (quota_of(r, &q, &ret) != 0)
		return ret;
	o = json_pack("{s:s, s:s}", "account", q.uid, "quota", q.quota);
	if (o == NULL)
		return http_json(r, 500, NULL);
	if (period_key(r->cfg, q.kind, q.now, period, &e) == 0) {
		usage_key(key, q.uid, q.quota, period);
		usage_get(key, &u);
		usage_fields(o, &q, period, &u);
	} else {
		json_object_set_new(o, "period", json_null());
		json_object_set_new(o, "period_error", json_string(e.msg));
		json_object_set_new(o, "limit", json_integer(q.limit));
	}
	json_object_set_new(o, "stale", json_boolean(sync_state() == SYNC_STALE));
	return http_json(r, 200, o);
}

enum MHD_Result
api_charge(struct req *r)
{
	static const char *const allowed[] = { "request_id", "amount", "metadata", "partial", NULL };
	struct quota_req q;
	struct quota_res res;
	enum MHD_Result ret;
	const char *rid;
	char *meta = NULL;
	long long amount;
	json_t *o;
	struct err e;
	LDAP *ld;
	int rc, partial = 0;

	memset(&e, 0, sizeof(e));
	if ((o = start(r, allowed, &q, &ret)) == NULL)
		return ret;
	if (body_bool(o, "partial", &partial, &e) != 0 ||
	    body_id(o, "request_id", 0, &rid, &e) != 0 ||
	    body_int(o, "amount", 1, QUOTA_AMOUNT_MAX, -1, &amount, &e) != 0 ||
	    body_meta(o, &meta, &e) != 0) {
		json_decref(o);
		return bad(r, &e);
	}
	if ((ld = conn(r, rid, &ret)) == NULL) {
		free(meta);
		json_decref(o);
		return ret;
	}
	rc = quota_charge(ld, &q, rid, amount, partial, meta, &res, &e);
	ret = finish(r, ld, &q, "charge", rid, "charged", rc, &res, &e);
	free(meta);
	json_decref(o);
	return ret;
}

enum MHD_Result
api_refund(struct req *r)
{
	static const char *const allowed[] = { "request_id", "charge_id", "amount", NULL };
	struct quota_req q;
	struct quota_res res;
	enum MHD_Result ret;
	const char *rid, *cid;
	long long amount;
	struct err e;
	json_t *o;
	LDAP *ld;
	int rc;

	memset(&e, 0, sizeof(e));
	if ((o = start(r, allowed, &q, &ret)) == NULL)
		return ret;
	if (body_id(o, "request_id", 0, &rid, &e) != 0 ||
	    body_id(o, "charge_id", 0, &cid, &e) != 0 ||
	    body_int(o, "amount", 1, QUOTA_AMOUNT_MAX, -1, &amount, &e) != 0) {
		json_decref(o);
		return bad(r, &e);
	}
	if ((ld = conn(r, rid, &ret)) == NULL) {
		json_decref(o);
		return ret;
	}
	rc = quota_refund(ld, &q, rid, cid, amount, &res, &e);
	ret = finish(r, ld, &q, "refund", rid, "refunded", rc, &res, &e);
	json_decref(o);
	return ret;
}

enum MHD_Result
api_hold(struct req *r)
{
	static const char *const allowed[] = { "request_id", "amount", "ttl_s", "metadata", NULL };
	struct quota_req q;
	struct quota_res res;
	enum MHD_Result ret;
	const char *rid;
	long long amount, ttl;
	char *meta = NULL;
	struct err e;
	json_t *o;
	LDAP *ld;
	int rc;

	memset(&e, 0, sizeof(e));
	if ((o = start(r, allowed, &q, &ret)) == NULL)
		return ret;
	if (body_id(o, "request_id", 0, &rid, &e) != 0 ||
	    body_int(o, "amount", 1, QUOTA_AMOUNT_MAX, -1, &amount, &e) != 0 ||
	    body_int(o, "ttl_s", 1, QUOTA_TTL_MAX, 600, &ttl, &e) != 0 ||
	    body_meta(o, &meta, &e) != 0) {
		json_decref(o);
		return bad(r, &e);
	}
	if ((ld = conn(r, rid, &ret)) == NULL) {
		free(meta);
		json_decref(o);
		return ret;
	}
	rc = quota_hold(ld, &q, rid, amount, (long)ttl, meta, &res, &e);
	ret = finish(r, ld, &q, "hold", rid, "amount", rc, &res, &e);
	free(meta);
	json_decref(o);
	return ret;
}

static enum MHD_Result
settle(struct req *r, int release)
{
	static const char *const allowed[] = { "amount", NULL };
	const char *id = r->part[6];
	struct quota_req q;
	struct quota_res res;
	enum MHD_Result ret;
	long long amount = 0;
	struct err e;
	json_t *o = NULL;
	LDAP *ld;
	int rc;

	memset(&e, 0, sizeof(e));
	if (quota_of(r, &q, &ret) != 0)
		return ret;
	if (!quota_id_ok(id))
		return http_error(r, 400, "bad_request", "id", "'%.64s' is not a hold id", id);
	if (!release && ((o = body_object(r->body, r->len, allowed, &e)) == NULL ||
	    body_int(o, "amount", 0, QUOTA_AMOUNT_MAX, -1, &amount, &e) != 0)) {
		json_decref(o);
		return bad(r, &e);
	}
	json_decref(o);
	if ((ld = conn(r, id, &ret)) == NULL)
		return ret;
	rc = quota_settle(ld, &q, id, release, amount, &res, &e);
	give_back(ld, q.uid, id, rc, &e);
	audit(r, &q, release ? "release" : "commit", id, &res, rc, &e);
	if (rc != 0)
		return refused(r, &q, &res, &e);
	o = json_pack("{s:s, s:I, s:I}", "request_id", id, "committed",
	    (json_int_t)res.amount, "released", (json_int_t)res.released);
	if (o == NULL)
		return http_json(r, 500, NULL);
	usage_fields(o, &q, res.period, &res.u);
	if (res.replayed)
		json_object_set_new(o, "replayed", json_true());
	return http_json(r, 200, o);
}

enum MHD_Result
api_hold_commit(struct req *r)
{
	return settle(r, 0);
}

enum MHD_Result
api_hold_release(struct req *r)
{
	return settle(r, 1);
}

enum MHD_Result
api_credit(struct req *r)
{
	static const char *const allowed[] = { "request_id", "amount", "reason", "period", NULL };
	struct quota_req q;
	struct quota_res res;
	enum MHD_Result ret;
	const char *rid, *reason = NULL, *period = NULL;
	long long amount;
	json_t *o;
	struct err e;
	LDAP *ld;
	int rc;

	memset(&e, 0, sizeof(e));
	if ((o = start(r, allowed, &q, &ret)) == NULL)
		return ret;
	if (body_id(o, "request_id", 0, &rid, &e) != 0 ||
	    body_int(o, "amount", 1, QUOTA_AMOUNT_MAX, -1, &amount, &e) != 0 ||
	    body_str(o, "reason", 512, 0, &reason, &e) != 0 ||
	    body_str(o, "period", PERIOD_KEY_MAX - 1, 0, &period, &e) != 0) {
		ret = bad(r, &e);
		goto out;
	}
	if (period != NULL && !quota_period_ok(r->cfg, q.kind, period)) {
		ret = http_error(r, 400, "bad_request", "period",
		    "period must name a %s period of %s", cfg_period_name(q.kind), q.quota);
		goto out;
	}
	if ((ld = conn(r, rid, &ret)) == NULL)
		goto out;
	rc = quota_credit(ld, &q, rid, amount, reason, period, &res, &e);
	ret = finish(r, ld, &q, "credit", rid, "credited", rc, &res, &e);
out:
	json_decref(o);
	return ret;
}

static json_t *
entry_json(const struct ledger_entry *x)
{
	json_t *o = json_pack("{s:s, s:s, s:I, s:s?, s:s?}", "request_id", x->id,
	    "kind", x->kind, "amount", (json_int_t)x->amount, "time", x->time,
	    "actor", x->actor);
	json_t *m;

	if (o == NULL)
		return NULL;
	if (x->ref)
		json_object_set_new(o, "charge_id", json_string(x->ref));
	if (strcmp(x->kind, "charge") == 0)
		json_object_set_new(o, "refunded", json_integer(x->refunded));
	if (x->released >= 0)
		json_object_set_new(o, "released", json_integer(x->released));
	if (x->expires)
		json_object_set_new(o, "expires", json_string(x->expires));
	if (x->metadata && (m = json_loads(x->metadata, 0, NULL)) != NULL)
		json_object_set_new(o, "metadata", m);
	return o;
}

enum MHD_Result
api_ledger(struct req *r)
{
	const char *ps = http_query(r, "period"), *ls = http_query(r, "limit"),
	    *os = http_query(r, "offset");
	char period[PERIOD_KEY_MAX], *end;
	struct ledger_entry *v = NULL;
	struct quota_req q;
	enum MHD_Result ret;
	long limit = 100, offset = 0;
	size_t n = 0, i, total = 0;
	char *udn;
	json_t *o, *arr;
	struct err e;
	LDAP *ld;
	int rc;

	if (quota_of(r, &q, &ret) != 0)
		return ret;
	memset(&e, 0, sizeof(e));
	if (ls != NULL && ((limit = strtol(ls, &end, 10)) < 1 || limit > 1000 || *end || !*ls))
		return http_error(r, 400, "bad_request", "limit", "limit must be from 1 to 1000");
	if (os != NULL && ((offset = strtol(os, &end, 10)) < 0 || *end || !*os))
		return http_error(r, 400, "bad_request", "offset", "offset must be 0 or more");
	if (ps != NULL) {
		if (!quota_period_ok(r->cfg, q.kind, ps))
			return http_error(r, 400, "bad_request", "period",
			    "period must name a %s period of %s", cfg_period_name(q.kind), q.quota);
		snprintf(period, sizeof(period), "%s", ps);
	} else if (period_key(r->cfg, q.kind, q.now, period, &e) != 0)
		return http_error(r, 409, "no_period", "period", "%s", e.msg);
	if ((udn = quota_usage_dn(r->cfg, q.uid, q.quota, period)) == NULL)
		return http_error(r, 500, "internal", NULL, "out of memory");
	if ((ld = conn(r, NULL, &ret)) == NULL) {
		free(udn);
		return ret;
	}
	rc = ledger_page(ld, r->cfg, udn, (size_t)offset, (size_t)limit, &v, &n, &total, &e);
	ldpool_put(ld, e.code == ERR_UNAVAILABLE);
	free(udn);
	if (rc != 0)
		return http_err(r, &e, "ledger_failed");
	o = json_pack("{s:s, s:s, s:s, s:I, s:I}", "account", q.uid, "quota", q.quota,
	    "period", period, "total", (json_int_t)total, "offset", (json_int_t)offset);
	arr = json_array();
	for (i = 0; o && arr && i < n; i++)
		json_array_append_new(arr, entry_json(&v[i]));
	if (o != NULL) {
		json_object_set_new(o, "entries", arr);
		json_object_set_new(o, "next_offset", (size_t)(offset + limit) < total ?
		    json_integer(offset + limit) : json_null());
	} else
		json_decref(arr);
	ledger_entries_free(v, n);
	return http_json(r, 200, o);
}
