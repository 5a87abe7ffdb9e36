/*
 * draw.c - where a quota write goes (draw.h). An account's (or pool's)
 * writes go to its home provider, whose assertions bound its quota; a
 * request that was in flight when that provider went away is "in doubt"
 * (indoubt.h) and waits for it; with fallback, a charge or hold lands
 * whole on the account's own quota or on the most specific pool with room.
 */
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "holder.h"
#include "indoubt.h"
#include "ldpool.h"
#include "log.h"
#include "pool.h"
#include "snapshot.h"
#include "uentry.h"
#include "usage.h"

static const char *const names[] = {
	[DRAW_CHARGE] = "charge", [DRAW_HOLD] = "hold", [DRAW_REFUND] = "refund",
	[DRAW_COMMIT] = "commit", [DRAW_RELEASE] = "release", [DRAW_CREDIT] = "credit",
	[DRAW_VOID] = "void", [DRAW_REVERSE] = "reverse",
};

const char *
draw_op_name(enum draw_op op)
{
	return names[op];
}

void
draw_req_copy(struct quota_req *dst, const struct quota_req *src)
{
	*dst = *src;
	if (src->uid == src->uid_buf)
		dst->uid = dst->uid_buf;
	if (src->account == src->account_buf)
		dst->account = dst->account_buf;
}

/*
 * A connection to q's home provider, or NULL and e. A request id in doubt
 * goes to the home provider only: anywhere else it could land a second time.
 * Only a charge or hold (and a split's void) may go elsewhere while home is
 * away (ldap.away_allowance): every other write waits for home.
 */
static LDAP *
conn(const struct draw_ops *ops, struct quota_req *q, const char *rid, enum draw_op op,
    struct err *e)
{
	int away = op == DRAW_CHARGE || op == DRAW_HOLD || op == DRAW_VOID;
	int (*get)(const char *, LDAP **, struct err *) =
	    away || ops->get_at_home == NULL ? ops->get_home : ops->get_at_home;
	LDAP *ld;

	if (get(q->uid, &ld, e) != 0)
		return NULL;
	q->home = ops->is_home(ld, q->uid);
	if (rid != NULL && !q->home && indoubt_has(q->uid, rid)) {
		ops->put(ld, 0);
		err_set(e, ERR_UNAVAILABLE, 0, NULL, "request '%s' may have landed on %s's home "
		    "provider just before it went away; it waits for that provider, so that it is "
		    "never charged twice: send it again later", rid, q->uid);
		return NULL;
	}
	return ld;
}

/*
 * After a write of rid: the request in doubt when the home provider took
 * its outcome with it, out of doubt once it has a definite answer; the
 * connection back; the audit line.
 */
static void
after(const struct draw_ops *ops, LDAP *ld, const struct quota_req *q, enum draw_op op,
    const char *rid, int rc, const struct quota_res *res, const struct err *e)
{
	if (e->code == ERR_UNAVAILABLE && q->home)
		indoubt_add(q->uid, rid);
	else if (rc == 0 || e->code != ERR_UNAVAILABLE)
		indoubt_del(q->uid, rid);
	ops->put(ld, e->code == ERR_UNAVAILABLE);
	log_info("%s %s/%s%s id=%s by %s: %s", names[op], q->uid, q->quota,
	    q->paid ? "@paid" : "", rid, q->actor,
	    rc == 0 ? (res->replayed ? "replayed" : "ok") : res->why ? quota_why_code(res->why) :
	    e->msg);
}

/* Write d on q through q's home provider: 0 or -1 as the write. */
static int
write_on(const struct draw_ops *ops, struct quota_req *q, const struct draw_req *d,
    struct quota_res *res, struct err *e)
{
	LDAP *ld;
	int rc;

	memset(res, 0, sizeof(*res));
	if ((ld = conn(ops, q, d->rid, d->op, e)) == NULL)
		return -1;
	rc = ops->write(ld, q, d, res, e);
	after(ops, ld, q, d->op, d->rid, rc, res, e);
	return rc;
}

static int
exceeded(int rc, const struct quota_res *res)
{
	return rc != 0 && res->why == QUOTA_EXCEEDED;
}

/* q's request, made on pool c for q's account. */
static void
as_pool(struct quota_req *pq, const struct quota_req *q, const struct draw_pool *c)
{
	draw_req_copy(pq, q);
	snprintf(pq->uid_buf, sizeof(pq->uid_buf), "%s", c->holder);
	pq->uid = pq->uid_buf;
	pq->limit = c->limit;
	pq->account = q->uid;
}

/*
 * A charge or hold with fallback: whole to the account's own quota when
 * it fits, else whole to the most specific pool with room. A request id
 * one of the pools already took is a replay there, so a retry after the
 * account's own quota regained room is not charged twice.
 */
static int
fallback(const struct draw_ops *ops, const struct quota_req *q, const struct draw_req *d,
    struct draw_res *out, struct err *e)
{
	struct quota_res own;
	struct err own_e;
	struct draw_pool *c = NULL;
	size_t i, n = 0;
	size_t len;
	LDAP *ld;
	int rc = -1;

	if (ops->pools(q, &c, &n) != 0) {
		err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		as_pool(&out->on, q, &c[i]);
		memset(&out->res, 0, sizeof(out->res));
		if ((ld = conn(ops, &out->on, NULL, d->op, e)) == NULL)
			goto out;
		rc = ops->seen(ld, &out->on, d->rid, d->op == DRAW_HOLD, d->amount, &out->res, e);
		ops->put(ld, e->code == ERR_UNAVAILABLE);
		if (rc != 0) {
			out->charged_to = holder_cell(out->on.uid);
			rc = rc == 1 ? 0 : -1;
			goto out;
		}
	}
	draw_req_copy(&out->on, q);
	out->charged_to = "personal";
	if ((rc = write_on(ops, &out->on, d, &out->res, e)) == 0 || !exceeded(rc, &out->res))
		goto out;
	own = out->res;
	own_e = *e;
	for (i = 0; i < n; i++) {
		as_pool(&out->on, q, &c[i]);
		out->charged_to = holder_cell(out->on.uid);
		memset(e, 0, sizeof(*e));
		if ((rc = write_on(ops, &out->on, d, &out->res, e)) == 0 ||
		    !exceeded(rc, &out->res))
			goto out;
	}
	/* no pool had room either: the account's own refusal */
	draw_req_copy(&out->on, q);
	out->res = own;
	*e = own_e;
	len = strlen(e->msg);
	snprintf(e->msg + len, sizeof(e->msg) - len,
	    "; no pool it may draw on has room (%zu tried)", n);
	rc = -1;
out:
	free(c);
	return rc;
}

int
draw_with(const struct draw_ops *ops, const struct quota_req *q, const struct draw_req *d,
    struct draw_res *out, struct err *e)
{
	memset(out, 0, sizeof(*out));
	memset(e, 0, sizeof(*e));
	if (d->fallback && (d->op == DRAW_CHARGE || d->op == DRAW_HOLD))
		return fallback(ops, q, d, out, e);
	draw_req_copy(&out->on, q);
	return write_on(ops, &out->on, d, &out->res, e);
}

int
draw(const struct quota_req *q, const struct draw_req *d, struct draw_res *out, struct err *e)
{
	return draw_with(&draw_ldap, q, d, out, e);
}

int
draw_refundable(const struct draw_ops *ops, const struct quota_req *q,
    const char *charge_id, long long *left, struct err *e)
{
	struct quota_req h;
	LDAP *ld;
	int rc;

	draw_req_copy(&h, q);
	if ((ld = conn(ops, &h, NULL, DRAW_CHARGE, e)) == NULL)	/* a read: anywhere */
		return -1;
	rc = ops->refundable(ld, &h, charge_id, left, e);
	ops->put(ld, e->code == ERR_UNAVAILABLE);
	return rc;
}

int
draw_seen(const struct draw_ops *ops, const struct quota_req *q, const char *rid, int hold,
    long long amount, struct quota_res *r, struct err *e)
{
	struct quota_req h;
	LDAP *ld;
	int rc;

	memset(r, 0, sizeof(*r));
	draw_req_copy(&h, q);
	if ((ld = conn(ops, &h, NULL, DRAW_CHARGE, e)) == NULL)	/* a read: anywhere */
		return -1;
	rc = ops->seen(ld, &h, rid, hold, amount, r, e);
	ops->put(ld, e->code == ERR_UNAVAILABLE);
	return rc;
}

static int
snap_usage(const struct quota_req *q, struct usage_val *u)
{
	char period[PERIOD_KEY_MAX];

	memset(u, 0, sizeof(*u));
	if (uent_period(q, period, NULL) != 0)
		return -1;
	return usage_get_for(q->uid, q->quota, period, u);
}

/* q's account's pools of q's quota from the snapshot, most specific first. */
static int
snap_pools(const struct quota_req *q, struct draw_pool **out, size_t *n)
{
	const struct snap_account *a;
	struct pool_ref *refs = NULL;
	const struct snap *s;
	size_t i, nr = 0;
	int t, p = cfg_priv_find(q->cfg, q->quota), rc = -1;

	*out = NULL;
	*n = 0;
	if ((s = snap_enter(&t)) == NULL || (a = snap_account(s, q->uid)) == NULL) {
		snap_leave(t);
		return 0;
	}
	if (pool_for_account(s, a, p, &refs, &nr) == 0 &&
	    (*out = calloc(nr ? nr : 1, sizeof(**out))) != NULL) {
		for (i = 0; i < nr; i++) {
			holder_pool((*out)[i].holder, refs[i].cell->name);
			(*out)[i].limit = refs[i].limit->num;
		}
		*n = nr;
		rc = 0;
	}
	free(refs);
	snap_leave(t);
	return rc;
}

/* The write itself: each verb's one LDAP modify (quota.h). */
static int
quota_write(LDAP *ld, const struct quota_req *q, const struct draw_req *d,
    struct quota_res *r, struct err *e)
{
	switch (d->op) {
	case DRAW_CHARGE:
	case DRAW_HOLD:
		return quota_take(ld, q, d, r, e);
	case DRAW_REFUND:
		return quota_refund(ld, q, d, r, e);
	case DRAW_COMMIT:
	case DRAW_RELEASE:
		return quota_settle(ld, q, d, r, e);
	case DRAW_CREDIT:
		return quota_credit(ld, q, d, r, e);
	case DRAW_VOID:
		return quota_void(ld, q, d, r, e);
	case DRAW_REVERSE:
		return quota_reverse(ld, q, d, r, e);
	}
	return err_set(e, ERR_INTERNAL, 0, NULL, "unknown quota operation %d", (int)d->op);
}

const struct draw_ops draw_ldap = {
	.get_home = ldpool_get_home, .get_at_home = ldpool_get_at_home,
	.is_home = ldpool_is_home, .put = ldpool_put, .pools = snap_pools, .seen = quota_seen,
	.write = quota_write, .usage = snap_usage, .refundable = quota_refundable,
};
