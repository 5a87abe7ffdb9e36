/* api_vouchers.c - vouchers over REST (voucher.h): made and listed by an
 * administrator, redeemed by a person (their own sign-in) or a topup key. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api.h"
#include "body.h"
#include "loginrate.h"
#include "period.h"
#include "qwrite.h"
#include "resolve.h"
#include "snapshot.h"
#include "voucher.h"

static int
batch_ok(const char *b)
{
	size_t i, n = strlen(b);

	if (n == 0 || n > VOUCHER_BATCH_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (!((b[i] >= 'a' && b[i] <= 'z') || (b[i] >= 'A' && b[i] <= 'Z') ||
		    (b[i] >= '0' && b[i] <= '9') || strchr("._:-", b[i])))
			return 0;
	return 1;
}

/*
 * Whether d is a real day (2026-02-30 is not), written YYYY-MM-DD, and not
 * before today in UTC, the day a redemption compares it with (voucher.c):
 * a voucher made expired would be money nobody can redeem.
 */
static int
date_ok(const char *d, const char **why)
{
	int y, m, dd;
	char tail, today[11];
	time_t t = period_now(), day;
	struct tm tm;

	*why = "expires is a date, YYYY-MM-DD (the last day it can be redeemed)";
	if (strlen(d) != 10 || sscanf(d, "%4d-%2d-%2d%c", &y, &m, &dd, &tail) != 3 ||
	    d[4] != '-' || d[7] != '-' || y < 2000 || m < 1 || m > 12 || dd < 1 || dd > 31)
		return 0;
	/* a real day comes back as itself from its day count */
	day = (time_t)cfg_days_from_civil(y, m, dd) * 86400;
	gmtime_r(&day, &tm);
	if (tm.tm_mon + 1 != m || tm.tm_mday != dd) {
		*why = "expires is not a day of the calendar (YYYY-MM-DD)";
		return 0;
	}
	gmtime_r(&t, &tm);
	strftime(today, sizeof(today), "%Y-%m-%d", &tm);
	if (strcmp(d, today) < 0) {
		*why = "expires is in the past: the voucher could never be redeemed";
		return 0;
	}
	return 1;
}

static void
currency(json_t *o, const struct cfg *c, const char *quota)
{
	int p = cfg_priv_find(c, quota);

	if (p >= 0 && c->privs[p].currency[0])
		json_object_set_new(o, "currency", json_string(c->privs[p].currency));
}

/* POST /v1/vouchers {"quota","value","count"[,"expires"][,"batch"]} (admin) */
enum MHD_Result
api_voucher_create(struct req *r)
{
	static const char *const allowed[] = { "quota", "value", "count", "expires", "batch",
	    NULL };
	const char *quota = NULL, *expires = NULL, *batch = NULL, *why;
	char made[VOUCHER_BATCH_MAX + 1], *codes = NULL;
	long long value, count;
	enum MHD_Result ret;
	struct err e;
	json_t *o, *arr, *a;
	int p, i;

	memset(&e, 0, sizeof(e));
	if ((o = body_object(r->body, r->len, allowed, &e)) == NULL)
		return http_error(r, 400, "bad_request", e.key, "%s", e.msg);
	if (body_str(o, "quota", PRIV_NAME_MAX, 1, &quota, &e) != 0 ||
	    body_int(o, "value", 1, QUOTA_AMOUNT_MAX, -1, &value, &e) != 0 ||
	    body_int(o, "count", 1, VOUCHER_COUNT_MAX, -1, &count, &e) != 0 ||
	    body_str(o, "expires", 10, 0, &expires, &e) != 0 ||
	    body_str(o, "batch", VOUCHER_BATCH_MAX, 0, &batch, &e) != 0) {
		ret = http_error(r, 400, "bad_request", e.key, "%s", e.msg);
		goto out;
	}
	if ((p = cfg_priv_find(r->cfg, quota)) < 0 || r->cfg->privs[p].type != PRIV_QUOTA) {
		ret = http_error(r, 400, "bad_request", "quota", "no quota '%.64s' is declared",
		    quota);
		goto out;
	}
	if (expires != NULL && !date_ok(expires, &why)) {
		ret = http_error(r, 400, "bad_request", "expires", "%s", why);
		goto out;
	}
	if (batch != NULL && !batch_ok(batch)) {
		ret = http_error(r, 400, "bad_request", "batch", "a batch is named with 1-%d of "
		    "A-Z a-z 0-9 . _ : -", VOUCHER_BATCH_MAX);
		goto out;
	}
	if (voucher_create(r->cfg, r->cfg->privs[p].name, value, (int)count, expires, batch,
	    made, &codes, &e) != 0) {
		ret = http_err(r, &e, "voucher_failed");
		goto out;
	}
	arr = json_array();
	for (i = 0; arr && i < count; i++)
		json_array_append_new(arr, json_string(codes + (size_t)i * (VOUCHER_CODE_MAX + 1)));
	explicit_bzero(codes, (size_t)count * (VOUCHER_CODE_MAX + 1));
	free(codes);
	a = json_pack("{s:s, s:s, s:I, s:I, s:s?, s:o}", "batch", made, "quota",
	    r->cfg->privs[p].name, "value", (json_int_t)value, "count", (json_int_t)count,
	    "expires", expires, "codes", arr ? arr : json_array());
	if (a != NULL)
		currency(a, r->cfg, r->cfg->privs[p].name);
	ret = http_json(r, 201, a);
out:
	json_decref(o);
	return ret;
}

/* GET /v1/vouchers[?batch=B] (admin): which are used, by whom, when. */
enum MHD_Result
api_voucher_list(struct req *r)
{
	const char *batch = http_query(r, "batch");
	struct voucher *v = NULL;
	size_t n = 0, i, used = 0;
	struct err e;
	json_t *arr, *o;

	memset(&e, 0, sizeof(e));
	if (batch != NULL && !batch_ok(batch))
		return http_error(r, 400, "bad_request", "batch", "no such batch name");
	if (voucher_list(r->cfg, batch, &v, &n, &e) != 0)
		return http_err(r, &e, "voucher_failed");
	arr = json_array();
	for (i = 0; arr && i < n; i++) {
		json_t *x = json_pack("{s:s, s:s, s:I, s:s, s:s*, s:s*, s:s*}", "id", v[i].id,
		    "quota", v[i].quota, "value", (json_int_t)v[i].value, "batch", v[i].batch,
		    "expires", v[i].expires[0] ? v[i].expires : NULL, "redeemed_by",
		    v[i].redeemed_by[0] ? v[i].redeemed_by : NULL, "redeemed_at",
		    v[i].redeemed_at[0] ? v[i].redeemed_at : NULL);

		if (x != NULL)
			currency(x, r->cfg, v[i].quota);
		json_array_append_new(arr, x);
		used += v[i].redeemed_by[0] != 0;
	}
	free(v);
	o = json_pack("{s:I, s:I, s:o}", "total", (json_int_t)n, "used", (json_int_t)used,
	    "vouchers", arr ? arr : json_array());
	return http_json(r, 200, o);
}

/*
 * POST /v1/accounts/{uid}/vouchers {"code"}: the person's own sign-in, or a
 * topup key. A wrong code counts as a failed sign-in of the address.
 */
enum MHD_Result
api_voucher_redeem(struct req *r)
{
	static const char *const allowed[] = { "code", NULL };
	const struct snap_account *a;
	const struct snap *s;
	const char *code = NULL;
	const char *addr = http_addr(r);
	char uid[65];
	struct voucher v;
	struct resolve_val rv;
	long long limit = 0;
	int t, p, again;
	struct err e;
	json_t *o, *ans;

	memset(&e, 0, sizeof(e));
	if (!loginrate_allowed(addr))
		return http_error(r, 429, "too_many_attempts", NULL, "too many wrong codes or "
		    "passwords from %s; wait a minute", addr);
	if ((o = body_object(r->body, r->len, allowed, &e)) == NULL ||
	    body_str(o, "code", 64, 1, &code, &e) != 0) {
		json_decref(o);
		return http_error(r, 400, "bad_request", e.key, "%s", e.msg);
	}
	if ((s = snap_enter(&t)) == NULL || (a = snap_account(s, r->part[2])) == NULL) {
		snap_leave(t);
		json_decref(o);
		return s == NULL ? http_error(r, 503, "not_ready", NULL, "privd has not loaded "
		    "the directory yet") : http_error(r, 404, "unknown_account", "uid",
		    "no account '%.64s' (no entry with privAccount and that uid)", r->part[2]);
	}
	snprintf(uid, sizeof(uid), "%s", a->uid);
	snap_leave(t);
	if (voucher_redeem(r->cfg, code, uid, r->actor ? r->actor : uid, &v, &again, &e) != 0) {
		json_decref(o);
		if (e.code == ERR_NOT_FOUND) {
			loginrate_failed(addr);
			return http_error(r, 404, "unknown_voucher", "code", "%s", e.msg);
		}
		if (e.code == ERR_CONFLICT)
			return http_error(r, 409, strstr(e.msg, "expired") ? "voucher_expired" :
			    "voucher_used", "code", "%s", e.msg);
		return http_err(r, &e, "voucher_failed");
	}
	json_decref(o);
	ans = json_pack("{s:s, s:s, s:I, s:s}", "account", uid, "quota", v.quota,
	    "value", (json_int_t)v.value, "batch", v.batch);
	if (ans == NULL)
		return http_json(r, 500, NULL);
	currency(ans, r->cfg, v.quota);
	/* both wallets now, as this privd saw its own write */
	if ((s = snap_enter(&t)) != NULL && (a = snap_account(s, uid)) != NULL &&
	    (p = cfg_priv_find(s->cfg, v.quota)) >= 0 &&
	    resolve_account(s, p, a, &rv) == 0) {
		limit = rv.num;
		resolve_val_clear(&rv);
		api_usage(ans, r->cfg, uid, v.quota, s->cfg->privs[p].period, limit, period_now());
		api_paid(ans, r->cfg, uid, v.quota);
	}
	snap_leave(t);
	if (again)
		json_object_set_new(ans, "replayed", json_true());
	return http_json(r, again ? 200 : 201, ans);
}
