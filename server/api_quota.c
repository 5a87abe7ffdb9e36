/* api_quota.c - quota reads, charges, refunds, holds, credits and the ledger over REST. */
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "body.h"
#include "draw.h"
#include "jobprice.h"
#include "lentry.h"
#include "ldpool.h"
#include "ledger.h"
#include "pool.h"
#include "log.h"
#include "quota.h"
#include "uentry.h"
#include "wallet.h"
#include "resolve.h"
#include "skew.h"
#include "snapshot.h"
#include "sync.h"

/* Whether the path is /v1/pools/{cell}/...: the same verbs on a pool (pool.h). */
static int
is_pool(const struct req *r)
{
	return strcmp(r->part[1], "pools") == 0;
}

/* The pool of the path: its limit of quota p into q (holder "pool:CELL"). */
static int
pool_of(struct req *r, const struct snap *s, int p, struct quota_req *q,
    enum MHD_Result *ret)
{
	const struct snap_cell *c = snap_cell(s, r->part[2]);
	const struct grant *g = c ? pool_limit(c, p) : NULL;

	if (g == NULL) {
		*ret = http_error(r, 404, "unknown_pool", "cell", "cell '%.200s' holds no %s pool",
		    r->part[2], s->cfg->privs[p].name);
		return -1;
	}
	holder_pool(q->uid_buf, c->name);
	q->uid = q->uid_buf;
	q->limit = g->num;
	return 0;
}

/*
 * Fills q for the account (or pool) and quota of the path from the
 * snapshot, then leaves it: LDAP writes must not keep a snapshot from
 * being replaced. Answers the error itself and returns -1.
 */
static int
quota_named(struct req *r, const char *name, struct quota_req *q, enum MHD_Result *ret)
{
	const struct snap_account *a = NULL;
	const struct snap *s;
	struct resolve_val v;
	int t, p, rc = -1;

	memset(q, 0, sizeof(*q));
	if ((s = snap_enter(&t)) == NULL) {
		snap_leave(t);
		*ret = http_error(r, 503, "not_ready", NULL, "privd has not loaded the directory yet");
		return -1;
	}
	if (!is_pool(r) && (a = snap_account(s, r->part[2])) == NULL) {
		*ret = http_error(r, 404, "unknown_account", "uid",
		    "no account '%.64s' (no entry with privAccount and that uid)", r->part[2]);
		goto done;
	}
	if (a != NULL)
		http_canon_part(r, 2, a->uid);
	if ((p = cfg_priv_find(s->cfg, name)) < 0 ||
	    s->cfg->privs[p].type != PRIV_QUOTA) {
		*ret = http_error(r, 404, "unknown_quota", "quota",
		    "no quota '%.64s' is declared%s", name, p >= 0 ? " (it is not a quota)" : "");
		goto done;
	}
	if (a == NULL) {
		if (pool_of(r, s, p, q, ret) != 0)
			goto done;
	} else if (resolve_account(s, p, a, &v) != 0) {
		*ret = http_error(r, 500, "internal", NULL, "out of memory");
		goto done;
	} else {
		q->uid = r->part[2];	/* the path outlives the request */
		q->limit = v.num;
		resolve_val_clear(&v);
	}
	q->cfg = r->cfg;
	q->quota = r->cfg->privs[p].name;
	q->kind = r->cfg->privs[p].period;
	q->actor = r->actor ? r->actor : "anonymous";
	q->now = period_now();
	/* a write that this clock alone would put in a new period waits until
	 * the clock is within the bound of the directory's (skew.h) */
	if (strcmp(r->method, "GET") != 0 && skew_period_unsure(r->cfg, q->kind, q->now)) {
		*ret = http_error(r, 503, "clock_skew", NULL, "this privd's clock is more than "
		    "%.0f s off the directory's, at a period boundary: send it to another privd, "
		    "or set its clock", SKEW_BOUND_S);
		goto done;
	}
	rc = 0;
done:
	snap_leave(t);
	return rc;
}

/* A money quota's "currency" (minor units); nothing for pages. */
static void
currency(json_t *o, const struct quota_req *q)
{
	int p = cfg_priv_find(q->cfg, q->quota);

	if (p >= 0 && q->cfg->privs[p].currency[0])
		json_object_set_new(o, "currency", json_string(q->cfg->privs[p].currency));
}

static int
quota_of(struct req *r, struct quota_req *q, enum MHD_Result *ret)
{
	return quota_named(r, r->part[4], q, ret);
}

/* Whose quota an answer is about: "account", or "pool" (and who drew). */
static void
subject(json_t *o, const struct quota_req *q)
{
	const char *cell = holder_cell(q->uid);

	currency(o, q);
	if (cell == NULL) {
		json_object_set_new(o, "account", json_string(q->uid));
		return;
	}
	json_object_set_new(o, "pool", json_string(cell));
	if (q->account != NULL)
		json_object_set_new(o, "account", json_string(q->account));
}

static void
fields(json_t *o, long long limit, const char *period, const struct usage_val *u)
{
	json_object_set_new(o, "period", json_string(period));
	json_object_set_new(o, "limit", json_integer(limit));
	json_object_set_new(o, "credit", json_integer(u->credit));
	json_object_set_new(o, "used", json_integer(u->used));
	json_object_set_new(o, "held", json_integer(u->held));
	json_object_set_new(o, "remaining", json_integer(usage_remaining(limit, u)));
}

static void
usage_fields(json_t *o, const struct quota_req *q, const char *period,
    const struct usage_val *u)
{
	fields(o, q->limit, period, u);
}

void
api_usage(json_t *o, const struct cfg *c, const char *holder, const char *quota,
    enum period_kind kind, long long limit, time_t now)
{
	char period[PERIOD_KEY_MAX];
	struct usage_val u;
	struct err e;
	int p = cfg_priv_find(c, quota);

	if (p >= 0 && c->privs[p].currency[0])
		json_object_set_new(o, "currency", json_string(c->privs[p].currency));
	if (period_key(c, kind, now, period, &e) == 0) {
		usage_get_for(holder, quota, period, &u);
		fields(o, limit, period, &u);
	} else {
		json_object_set_new(o, "period", json_null());
		json_object_set_new(o, "period_error", json_string(e.msg));
		json_object_set_new(o, "limit", json_integer(limit));
	}
}

/*
 * An account's paid wallet beside its allowance (wallet.h): "paid" with
 * what was topped up (less reversals), used, held and remaining, and
 * "total_remaining" over both. pu NULL: as this privd last saw it.
 */
static void
paid_fields(json_t *o, const struct quota_req *q, const struct usage_val *pu)
{
	struct usage_val u, a;
	char period[PERIOD_KEY_MAX];
	long long ra = 0, rp;

	if (holder_cell(q->uid) != NULL)
		return;
	if (pu == NULL) {
		memset(&u, 0, sizeof(u));
		usage_get_for(q->uid, q->quota, QUOTA_PAID_PERIOD, &u);
		pu = &u;
	}
	rp = usage_remaining(0, pu);
	json_object_set_new(o, "paid", json_pack("{s:I, s:I, s:I, s:I}", "topped_up",
	    (json_int_t)pu->credit, "used", (json_int_t)pu->used, "held", (json_int_t)pu->held,
	    "remaining", (json_int_t)rp));
	if (json_is_integer(json_object_get(o, "remaining")))
		ra = json_integer_value(json_object_get(o, "remaining"));
	else if (uent_period(q, period, NULL) == 0) {
		memset(&a, 0, sizeof(a));
		usage_get_for(q->uid, q->quota, period, &a);
		ra = usage_remaining(q->limit, &a);
	}
	json_object_set_new(o, "total_remaining", json_integer(ra + rp));
}

void
api_paid(json_t *o, const struct cfg *c, const char *uid, const char *quota)
{
	struct quota_req q;
	int p = cfg_priv_find(c, quota);

	memset(&q, 0, sizeof(q));
	q.cfg = c;
	q.uid = uid;
	q.quota = quota;
	q.kind = p >= 0 ? c->privs[p].period : PERIOD_NONE;
	q.now = period_now();
	paid_fields(o, &q, NULL);
}

/* A bad field: 400 naming it. */
static enum MHD_Result
bad(struct req *r, const struct err *e)
{
	return http_error(r, 400, "bad_request", e->key, "%s", e->msg);
}

/*
 * The body's "account": who draws on the pool of the path (required when
 * need), a member of a cell the pool's cell covers; 403 not_a_member
 * otherwise. On an account's own quota there is none to give.
 */
static int
drawer(struct req *r, json_t *o, int need, struct quota_req *q, enum MHD_Result *ret)
{
	const struct snap_account *a;
	const struct snap *s;
	const char *uid = NULL, *cell = holder_cell(q->uid);
	struct err e;
	int t, rc = -1;

	memset(&e, 0, sizeof(e));
	if (!is_pool(r)) {
		if (json_object_get(o, "account") == NULL)
			return 0;
		*ret = http_error(r, 400, "bad_request", "account", "account names who draws on "
		    "a pool (/v1/pools/CELL/...); this is %s's own quota", q->uid);
		return -1;
	}
	if (body_str(o, "account", QUOTA_ACCOUNT_MAX - 1, need, &uid, &e) != 0) {
		*ret = bad(r, &e);
		return -1;
	}
	if (uid == NULL)
		return 0;
	if ((s = snap_enter(&t)) == NULL)
		*ret = http_error(r, 503, "not_ready", NULL, "privd has not loaded the directory yet");
	else if ((a = snap_account(s, uid)) == NULL)
		*ret = http_error(r, 404, "unknown_account", "account",
		    "no account '%.64s' (no entry with privAccount and that uid)", uid);
	else if (pool_member_via(a, cell) == NULL)
		*ret = http_error(r, 403, "not_a_member", "account", "%s may not draw on the "
		    "%s pool of %s: none of its memberships in force (%u) is in a cell that %s "
		    "covers", a->uid, q->quota, cell, (unsigned)a->nm, cell);
	else {
		snprintf(q->account_buf, sizeof(q->account_buf), "%s", a->uid);
		q->account = q->account_buf;
		rc = 0;
	}
	snap_leave(t);
	return rc;
}

/* The quota of the path and the body's object; answers an error itself.
 * need_account: a pool's charge or hold must say who draws (drawer). */
static json_t *
start(struct req *r, const char *const *allowed, int need_account, struct quota_req *q,
    enum MHD_Result *ret)
{
	struct err e;
	json_t *o;

	memset(&e, 0, sizeof(e));
	if (quota_of(r, q, ret) != 0)
		return NULL;
	if ((o = body_object(r->body, r->len, allowed, &e)) == NULL)
		*ret = bad(r, &e);
	else if (drawer(r, o, need_account, q, ret) != 0) {
		json_decref(o);
		o = NULL;
	}
	return o;
}

/* Answers a refused or failed write. */
static enum MHD_Result
refused(struct req *r, const struct quota_req *q, const struct quota_res *res,
    const struct err *e, json_t *job)
{
	json_t *o;

	if (res->why == QUOTA_WHY_NONE)
		return http_err(r, e, "write_failed");
	o = json_pack("{s:s, s:s}", "error", quota_why_code(res->why), "message", e->msg);
	if (o == NULL)
		return http_json(r, 500, NULL);
	if (e->key[0])
		json_object_set_new(o, "field", json_string(e->key));
	currency(o, q);
	if (job != NULL) {
		json_object_set_new(o, "cost", json_copy(json_object_get(job, "cost")));
		json_object_set(o, "job", job);
	}
	if (res->why == QUOTA_EXCEEDED) {
		usage_fields(o, q, res->period, &res->u);
		paid_fields(o, q, NULL);
	} else if (res->why == QUOTA_REFUND_EXCEEDS_CHARGE)
		json_object_set_new(o, "refundable", json_integer(res->refundable));
	return http_json(r, e->code == ERR_NOT_FOUND ? 404 : e->code == ERR_INVALID ? 400 : 409, o);
}

/* The answer to a write that landed (201) or was replayed (200). */
static enum MHD_Result
done(struct req *r, const struct quota_req *q, const struct quota_res *res,
    const struct wallet_res *w, const char *id, const char *amount_name, int created,
    const char *charged_to, json_t *job)
{
	json_t *o = json_pack("{s:s, s:I}", "request_id", id, amount_name,
	    (json_int_t)res->amount);
	char path[1200];

	if (o == NULL)
		return http_json(r, 500, NULL);
	subject(o, q);
	usage_fields(o, q, res->period, &res->u);
	if (w != NULL && (w->has_paid || w->paid)) {
		/* which wallet each part came from (or went back to) */
		json_object_set_new(o, "wallets", json_pack("{s:I, s:I}", "allowance",
		    (json_int_t)w->allowance, "paid", (json_int_t)w->paid));
		paid_fields(o, q, &w->pu);
	}
	if (res->replayed)
		json_object_set_new(o, "replayed", json_true());
	if (res->expires[0]) {
		/* a hold: its id is the request id; say so, and where it settles */
		json_object_set_new(o, "expires", json_string(res->expires));
		json_object_set_new(o, "hold_id", json_string(id));
		const char *cell = holder_cell(q->uid);

		snprintf(path, sizeof(path), "/v1/%s/%s/quotas/%s/holds/%s/commit",
		    cell ? "pools" : "accounts", cell ? cell : q->uid, q->quota, id);
		json_object_set_new(o, "commit", json_string(path));
	}
	if (res->state != NULL)
		json_object_set_new(o, "state", json_string(res->state));
	if (charged_to != NULL)
		json_object_set_new(o, "charged_to", json_string(charged_to));
	if (job != NULL)
		json_object_set(o, "job", job);
	return http_json(r, created && !res->replayed ? 201 : 200, o);
}

enum MHD_Result
api_quota(struct req *r)
{
	struct quota_req q;
	enum MHD_Result ret;
	json_t *o;

	if (quota_of(r, &q, &ret) != 0)
		return ret;
	o = json_pack("{s:s}", "quota", q.quota);
	if (o == NULL)
		return http_json(r, 500, NULL);
	subject(o, &q);
	api_usage(o, r->cfg, q.uid, q.quota, q.kind, q.limit, q.now);
	paid_fields(o, &q, NULL);
	json_object_set_new(o, "stale", json_boolean(sync_state() == SYNC_STALE));
	return http_json(r, 200, o);
}

/*
 * Makes write d on q (draw.h) and answers it: what landed (201) or was
 * replayed (200), or the refusal. amount_name: the answer's name for the
 * amount ("charged", "amount", ...).
 */
static enum MHD_Result
run(struct req *r, const struct quota_req *q, const struct draw_req *d,
    const char *amount_name, json_t *job)
{
	struct wallet_res w;
	struct draw_res out;
	struct err e;

	memset(&e, 0, sizeof(e));
	if (wallet_draw(q, d, &out, &w, &e) != 0)
		return refused(r, &out.on, &out.res, &e, job);
	return done(r, &out.on, &out.res, &w, d->rid, amount_name, 1,
	    d->fallback ? out.charged_to : NULL, job);
}

/* An error of jobprice_of as the API's answer. */
static enum MHD_Result
job_error(struct req *r, const struct err *e)
{
	if (e->code == ERR_INVALID)
		return bad(r, e);
	if (e->code == ERR_NOT_FOUND)
		return http_error(r, 404, "unknown_printer", e->key, "%s", e->msg);
	return http_err(r, e, "price_failed");
}

/*
 * The amount of a charge or hold: "amount", or the cost of "job" by its
 * printer's card (never both), with the breakdown added to *meta for the
 * ledger. *jp->breakdown is set when a job was priced.
 */
static int
amount_or_job(struct req *r, json_t *o, const struct quota_req *q, long long *amount,
    char **meta, struct jobprice *jp, enum MHD_Result *ret)
{
	json_t *job = json_object_get(o, "job");
	struct err e;
	char *m;

	memset(&e, 0, sizeof(e));
	memset(jp, 0, sizeof(*jp));
	if (job == NULL) {
		if (body_int(o, "amount", 1, QUOTA_AMOUNT_MAX, -1, amount, &e) == 0)
			return 0;
		*ret = bad(r, &e);
		return -1;
	}
	if (json_object_get(o, "amount") != NULL) {
		*ret = http_error(r, 400, "bad_request", "amount", "give amount or job, not both: "
		    "privd prices a job from its printer's rate card");
		return -1;
	}
	if (jobprice_of(job, q->quota, jp, &e) != 0) {
		*ret = job_error(r, &e);
		return -1;
	}
	if (jp->cost.cost < 1 || jp->cost.cost > QUOTA_AMOUNT_MAX) {
		if (jp->cost.cost < 1)
			*ret = http_error(r, 400, "bad_request", "job", "job: costs nothing by %s's "
			    "card; there is nothing to charge", jp->job.printer);
		else
			*ret = http_error(r, 400, "bad_request", "job", "job: costs %lld, more than "
			    "one request may charge", jp->cost.cost);
		goto fail;
	}
	if ((m = jobprice_meta(*meta, jp)) == NULL || strlen(m) > LENTRY_META_MAX) {
		free(m);
		*ret = http_error(r, 400, "bad_request", "metadata", "metadata with the job's "
		    "breakdown must be at most %d bytes as JSON", LENTRY_META_MAX);
		goto fail;
	}
	free(*meta);
	*meta = m;
	*amount = jp->cost.cost;
	return 0;
fail:
	json_decref(jp->breakdown);
	jp->breakdown = NULL;
	return -1;
}

/* "fallback": absent, or "pools" on an account's own charge or hold. */
static int
want_fallback(struct req *r, json_t *o, int partial, int *fb, enum MHD_Result *ret)
{
	const char *f = NULL;
	struct err e;

	memset(&e, 0, sizeof(e));
	*fb = 0;
	if (body_str(o, "fallback", 16, 0, &f, &e) != 0) {
		*ret = bad(r, &e);
		return -1;
	}
	if (f == NULL)
		return 0;
	if (strcmp(f, "pools") != 0 || is_pool(r) || partial) {
		*ret = http_error(r, 400, "bad_request", "fallback", strcmp(f, "pools") != 0 ?
		    "fallback is \"pools\" or left out" : is_pool(r) ?
		    "a pool's charge has no fallback" : "fallback and partial do not go together: "
		    "a fallback charge lands whole in one place");
		return -1;
	}
	*fb = 1;
	return 0;
}

enum MHD_Result
api_charge(struct req *r)
{
	static const char *const allowed[] = { "request_id", "amount", "job", "metadata",
	    "partial", "account", "fallback", NULL };
	struct draw_req d = { .op = DRAW_CHARGE };
	struct quota_req q;
	struct jobprice jp = { .breakdown = NULL };
	enum MHD_Result ret;
	char *meta = NULL;
	json_t *o;
	struct err e;

	memset(&e, 0, sizeof(e));
	if ((o = start(r, allowed, 1, &q, &ret)) == NULL)
		return ret;
	if (body_bool(o, "partial", &d.partial, &e) != 0 ||
	    body_id(o, "request_id", 0, &d.rid, &e) != 0 ||
	    body_meta(o, &meta, &e) != 0 || ledger_titles(r->cfg, &meta) != 0)
		ret = bad(r, &e);
	else if (amount_or_job(r, o, &q, &d.amount, &meta, &jp, &ret) == 0 &&
	    want_fallback(r, o, d.partial, &d.fallback, &ret) == 0) {
		d.meta = meta;
		ret = run(r, &q, &d, "charged", jp.breakdown);
	}
	json_decref(jp.breakdown);
	free(meta);
	json_decref(o);
	return ret;
}

enum MHD_Result
api_refund(struct req *r)
{
	static const char *const allowed[] = { "request_id", "charge_id", "amount", "account",
	    NULL };
	struct draw_req d = { .op = DRAW_REFUND };
	struct quota_req q;
	enum MHD_Result ret;
	struct err e;
	json_t *o;

	memset(&e, 0, sizeof(e));
	if ((o = start(r, allowed, 0, &q, &ret)) == NULL)
		return ret;
	if (body_id(o, "request_id", 0, &d.rid, &e) != 0 ||
	    body_id(o, "charge_id", 0, &d.charge_id, &e) != 0 ||
	    body_int(o, "amount", 1, QUOTA_AMOUNT_MAX, -1, &d.amount, &e) != 0)
		ret = bad(r, &e);
	else
		ret = run(r, &q, &d, "refunded", NULL);
	json_decref(o);
	return ret;
}

enum MHD_Result
api_hold(struct req *r)
{
	static const char *const allowed[] = { "request_id", "amount", "job", "ttl_s",
	    "metadata", "account", "fallback", NULL };
	struct draw_req d = { .op = DRAW_HOLD };
	struct quota_req q;
	struct jobprice jp = { .breakdown = NULL };
	enum MHD_Result ret;
	long long ttl;
	char *meta = NULL;
	struct err e;
	json_t *o;

	memset(&e, 0, sizeof(e));
	if ((o = start(r, allowed, 1, &q, &ret)) == NULL)
		return ret;
	if (body_id(o, "request_id", 0, &d.rid, &e) != 0 ||
	    body_int(o, "ttl_s", 1, QUOTA_TTL_MAX, 600, &ttl, &e) != 0 ||
	    body_meta(o, &meta, &e) != 0 || ledger_titles(r->cfg, &meta) != 0)
		ret = bad(r, &e);
	else if (amount_or_job(r, o, &q, &d.amount, &meta, &jp, &ret) == 0 &&
	    want_fallback(r, o, 0, &d.fallback, &ret) == 0) {
		d.ttl = (long)ttl;
		d.meta = meta;
		ret = run(r, &q, &d, "amount", jp.breakdown);
	}
	json_decref(jp.breakdown);
	free(meta);
	json_decref(o);
	return ret;
}

static enum MHD_Result
settle(struct req *r, int release)
{
	static const char *const allowed[] = { "amount", "account", NULL };
	struct draw_req d = { .op = release ? DRAW_RELEASE : DRAW_COMMIT, .rid = r->part[6] };
	const char *id = r->part[6];
	struct quota_req q;
	struct wallet_res w;
	struct draw_res out;
	enum MHD_Result ret;
	struct err e;
	json_t *o = NULL;

	memset(&e, 0, sizeof(e));
	if (quota_of(r, &q, &ret) != 0)
		return ret;
	if (!reqid_ok(id))
		return http_error(r, 400, "bad_request", "id", "'%.64s' is not a hold id", id);
	if (!release && ((o = body_object(r->body, r->len, allowed, &e)) == NULL ||
	    body_int(o, "amount", 0, QUOTA_AMOUNT_MAX, -1, &d.amount, &e) != 0)) {
		json_decref(o);
		return bad(r, &e);
	}
	if (o != NULL && drawer(r, o, 0, &q, &ret) != 0) {
		json_decref(o);
		return ret;
	}
	json_decref(o);
	if (wallet_draw(&q, &d, &out, &w, &e) != 0)
		return refused(r, &out.on, &out.res, &e, NULL);
	o = json_pack("{s:s, s:I, s:I}", "request_id", id, "committed",
	    (json_int_t)out.res.amount, "released", (json_int_t)out.res.released);
	if (o == NULL)
		return http_json(r, 500, NULL);
	subject(o, &out.on);
	usage_fields(o, &out.on, out.res.period, &out.res.u);
	if (w.has_paid) {
		json_object_set_new(o, "wallets", json_pack("{s:I, s:I}", "allowance",
		    (json_int_t)w.allowance, "paid", (json_int_t)w.paid));
		paid_fields(o, &out.on, &w.pu);
	}
	if (out.res.replayed)
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
	struct draw_req d = { .op = DRAW_CREDIT };
	struct quota_req q;
	enum MHD_Result ret;
	json_t *o;
	struct err e;

	memset(&e, 0, sizeof(e));
	if ((o = start(r, allowed, 0, &q, &ret)) == NULL)
		return ret;
	if (body_id(o, "request_id", 0, &d.rid, &e) != 0 ||
	    body_int(o, "amount", 1, QUOTA_AMOUNT_MAX, -1, &d.amount, &e) != 0 ||
	    body_str(o, "reason", 512, 0, &d.reason, &e) != 0 ||
	    body_str(o, "period", PERIOD_KEY_MAX - 1, 0, &d.period, &e) != 0) {
		ret = bad(r, &e);
		goto out;
	}
	if (d.period != NULL && !quota_period_ok(r->cfg, q.kind, d.period)) {
		ret = http_error(r, 400, "bad_request", "period",
		    "period must name a %s period of %s", cfg_period_name(q.kind), q.quota);
		goto out;
	}
	ret = run(r, &q, &d, "credited", NULL);
out:
	json_decref(o);
	return ret;
}

/* A top-up or its reversal on q's paid wallet, answered with both wallets. */
static enum MHD_Result
topup_run(struct req *r, struct quota_req *q, const struct draw_req *d, const char *id)
{
	struct quota_req qp;
	struct draw_res out;
	struct err e;
	json_t *o;

	memset(&e, 0, sizeof(e));
	/* an id names one operation: not a top-up when this period's charge,
	 * hold or refund under it stands on the allowance */
	if (d->op == DRAW_CREDIT) {
		struct quota_res seen;
		int rc = draw_seen(&draw_ldap, q, d->rid, 0, d->amount, &seen, &e);

		if (rc != 0 && (rc > 0 || seen.why == QUOTA_ID_REUSED))
			return http_error(r, 409, "request_id_reused", "request_id", "request id "
			    "'%s' was used before for another operation on %s of %s in %s: use an "
			    "id of this top-up's own", d->rid, q->quota, q->uid, seen.period);
		if (rc < 0)
			return http_err(r, &e, "topup_failed");
	}
	wallet_paid_req(&qp, q);
	if (draw(&qp, d, &out, &e) != 0)
		return refused(r, q, &out.res, &e, NULL);
	/* a reversal is a credit of minus the top-up */
	o = json_pack("{s:s, s:s, s:I}", "request_id", id, "quota", q->quota,
	    d->op == DRAW_REVERSE ? "reversed" : "topped_up", (json_int_t)(d->op ==
	    DRAW_REVERSE ? -out.res.amount : out.res.amount));
	if (o == NULL)
		return http_json(r, 500, NULL);
	subject(o, q);
	api_usage(o, r->cfg, q->uid, q->quota, q->kind, q->limit, q->now);
	paid_fields(o, q, &out.res.u);
	if (out.res.replayed)
		json_object_set_new(o, "replayed", json_true());
	return http_json(r, out.res.replayed ? 200 : 201, o);
}

/*
 * POST /v1/accounts/{uid}/quotas/{name}/topups {"request_id","amount"
 * [,"reference"]}: paid credit that carries across periods (scope topup:
 * a cashier's desk, a payment gateway's callback). Idempotent.
 */
enum MHD_Result
api_topup(struct req *r)
{
	static const char *const allowed[] = { "request_id", "amount", "reference", NULL };
	struct draw_req d = { .op = DRAW_CREDIT, .kind = "topup" };
	struct quota_req q;
	enum MHD_Result ret;
	json_t *o;
	struct err e;

	memset(&e, 0, sizeof(e));
	if ((o = start(r, allowed, 0, &q, &ret)) == NULL)
		return ret;
	if (body_id(o, "request_id", 0, &d.rid, &e) != 0 ||
	    body_int(o, "amount", 1, QUOTA_AMOUNT_MAX, -1, &d.amount, &e) != 0 ||
	    body_str(o, "reference", 256, 0, &d.reason, &e) != 0)
		ret = bad(r, &e);
	else
		ret = topup_run(r, &q, &d, d.rid);
	json_decref(o);
	return ret;
}

/*
 * POST /v1/accounts/{uid}/quotas/{name}/topups/{id}/reversal [{"reason"}]:
 * takes a top-up back (admin): a ledger entry, never a deletion; once.
 */
enum MHD_Result
api_topup_reverse(struct req *r)
{
	static const char *const allowed[] = { "reason", NULL };
	struct draw_req d = { .op = DRAW_REVERSE, .rid = r->part[6] };
	struct quota_req q;
	enum MHD_Result ret;
	json_t *o = NULL;
	struct err e;

	memset(&e, 0, sizeof(e));
	if (quota_of(r, &q, &ret) != 0)
		return ret;
	if (!reqid_ok(d.rid))
		return http_error(r, 400, "bad_request", "id", "'%.64s' is not a top-up id", d.rid);
	if (r->len > 0 && ((o = body_object(r->body, r->len, allowed, &e)) == NULL ||
	    body_str(o, "reason", 512, 0, &d.reason, &e) != 0))
		ret = bad(r, &e);
	else
		ret = topup_run(r, &q, &d, d.rid);
	json_decref(o);
	return ret;
}

static json_t *
entry_json(const struct lentry *x, const char *wallet)
{
	json_t *o = json_pack("{s:s, s:s, s:I, s:s?, s:s?}", "request_id", x->id,
	    "kind", x->kind, "amount", (json_int_t)x->amount, "time", x->time,
	    "actor", x->actor);
	json_t *m;

	if (o == NULL)
		return NULL;
	if (x->ref)
		json_object_set_new(o, "charge_id", json_string(x->ref));
	if (x->account)
		json_object_set_new(o, "account", json_string(x->account));
	if (strcmp(x->kind, "charge") == 0)
		json_object_set_new(o, "refunded", json_integer(x->refunded));
	if (x->released >= 0)
		json_object_set_new(o, "released", json_integer(x->released));
	if (x->expires)
		json_object_set_new(o, "expires", json_string(x->expires));
	if (x->metadata && (m = json_loads(x->metadata, 0, NULL)) != NULL)
		json_object_set_new(o, "metadata", m);
	/* which wallet: both parts of a split, as its allowance entry says */
	if (x->paid >= 0 && strcmp(wallet, "allowance") == 0)
		json_object_set_new(o, "wallets", json_pack("{s:I, s:I}", "allowance",
		    (json_int_t)x->amount, "paid", (json_int_t)x->paid));
	else if (wallet[0])
		json_object_set_new(o, "wallet", json_string(wallet));
	if (x->voided)
		json_object_set_new(o, "void", json_true());
	return o;
}

enum MHD_Result
api_ledger(struct req *r)
{
	const char *ps = http_query(r, "period"), *ls = http_query(r, "limit"),
	    *os = http_query(r, "offset"), *ws = http_query(r, "wallet");
	char period[PERIOD_KEY_MAX], *end;
	struct lentry *v = NULL;
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
	if (ws != NULL && (strcmp(ws, "paid") != 0 && strcmp(ws, "allowance") != 0))
		return http_error(r, 400, "bad_request", "wallet", "wallet is allowance or paid");
	if (ws != NULL && strcmp(ws, "paid") == 0) {
		if (holder_cell(q.uid) != NULL || ps != NULL)
			return http_error(r, 400, "bad_request", "wallet", holder_cell(q.uid) ?
			    "a pool has no paid wallet" : "the paid wallet has no periods: leave "
			    "period out");
		snprintf(period, sizeof(period), "%s", QUOTA_PAID_PERIOD);
	} else if (ps != NULL) {
		if (!quota_period_ok(r->cfg, q.kind, ps))
			return http_error(r, 400, "bad_request", "period",
			    "period must name a %s period of %s", cfg_period_name(q.kind), q.quota);
		snprintf(period, sizeof(period), "%s", ps);
	} else if (period_key(r->cfg, q.kind, q.now, period, &e) != 0)
		return http_error(r, 409, "no_period", "period", "%s", e.msg);
	if ((udn = uent_usage_dn(r->cfg, q.uid, q.quota, period)) == NULL)
		return http_error(r, 500, "internal", NULL, "out of memory");
	if (ldpool_get_home(q.uid, &ld, &e) != 0) {
		free(udn);
		return http_err(r, &e, "ledger_failed");
	}
	rc = ledger_page(ld, r->cfg, udn, (size_t)offset, (size_t)limit, &v, &n, &total, &e);
	ldpool_put(ld, e.code == ERR_UNAVAILABLE);
	free(udn);
	if (rc != 0)
		return http_err(r, &e, "ledger_failed");
	o = json_pack("{s:s, s:s, s:I, s:I}", "quota", q.quota,
	    "period", period, "total", (json_int_t)total, "offset", (json_int_t)offset);
	if (o != NULL) {
		subject(o, &q);
		if (holder_cell(q.uid) == NULL)
			json_object_set_new(o, "wallet", json_string(strcmp(period,
			    QUOTA_PAID_PERIOD) == 0 ? "paid" : "allowance"));
	}
	arr = json_array();
	for (i = 0; o && arr && i < n; i++)
		json_array_append_new(arr, entry_json(&v[i], holder_cell(q.uid) ? "" :
		    strcmp(period, QUOTA_PAID_PERIOD) == 0 ? "paid" : "allowance"));
	if (o != NULL) {
		json_object_set_new(o, "entries", arr);
		json_object_set_new(o, "next_offset", (size_t)(offset + limit) < total ?
		    json_integer(offset + limit) : json_null());
	} else
		json_decref(arr);
	lentry_free_all(v, n);
	return http_json(r, 200, o);
}

/*
 * POST /v1/accounts/{uid}/quotes {"job"[,"fallback"]}: what the job would
 * cost, where it would be charged and whether it fits, written nowhere.
 * The charge of the same job costs the same: both price it here.
 */
enum MHD_Result
api_quote(struct req *r)
{
	static const char *const allowed[] = { "job", "fallback", NULL };
	char period[PERIOD_KEY_MAX];
	const char *charge_to = NULL;
	struct draw_pool *pools = NULL;
	struct jobprice jp = { .breakdown = NULL };
	struct quota_req q;
	struct usage_val u;
	enum MHD_Result ret;
	long long remaining;
	size_t n = 0, i;
	struct err e;
	json_t *o, *a;
	int fb;

	memset(&e, 0, sizeof(e));
	if ((o = body_object(r->body, r->len, allowed, &e)) == NULL)
		return bad(r, &e);
	if (json_object_get(o, "job") == NULL) {
		ret = http_error(r, 400, "bad_request", "job", "job is required: printer, pages"
		    "[, sides, media, copies]");
		goto out;
	}
	if (want_fallback(r, o, 0, &fb, &ret) != 0)
		goto out;
	if (jobprice_of(json_object_get(o, "job"), NULL, &jp, &e) != 0) {
		ret = job_error(r, &e);
		goto out;
	}
	if (quota_named(r, jp.quota, &q, &ret) != 0)
		goto out;
	if (period_key(r->cfg, q.kind, q.now, period, &e) != 0) {
		ret = http_error(r, 409, "no_period", "period", "%s", e.msg);
		goto out;
	}
	usage_get_for(q.uid, q.quota, period, &u);
	remaining = usage_remaining(q.limit, &u);
	if (remaining >= jp.cost.cost)
		charge_to = "personal";
	else if (fb && draw_ldap.pools(&q, &pools, &n) == 0)
		for (i = 0; i < n && charge_to == NULL; i++) {
			struct usage_val pu;

			usage_get_for(pools[i].holder, q.quota, period, &pu);
			if (usage_remaining(pools[i].limit, &pu) >= jp.cost.cost)
				charge_to = holder_cell(pools[i].holder);
		}
	a = json_pack("{s:s, s:s, s:I, s:b, s:s?, s:I, s:s, s:O}", "account", q.uid,
	    "quota", q.quota, "cost", (json_int_t)jp.cost.cost, "allowed", charge_to != NULL,
	    "charge_to", charge_to, "remaining", (json_int_t)remaining, "period", period,
	    "job", jp.breakdown);
	if (a != NULL)
		currency(a, &q);
	ret = http_json(r, 200, a);
out:
	free(pools);
	json_decref(jp.breakdown);
	json_decref(o);
	return ret;
}
