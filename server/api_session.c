/* api_session.c - sessions over REST: open, renew, close and list an account's sessions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api.h"
#include "body.h"
#include "ldapconn.h"
#include "ldpool.h"
#include "log.h"
#include "period.h"
#include "resolve.h"
#include "session.h"
#include "snapshot.h"

#define DEFAULT_PRIV "login.max_sessions"

/* The account and number privilege asked for, and its limit; answers itself on failure. */
static int
session_of(struct req *r, const char *priv, struct session_req *q, enum MHD_Result *ret)
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
	if ((p = cfg_priv_find(s->cfg, priv)) < 0 || s->cfg->privs[p].type != PRIV_NUMBER) {
		snap_leave(t);
		*ret = http_error(r, 400, "bad_request", "privilege",
		    "'%.64s' is not a declared number privilege%s", priv,
		    p >= 0 ? " (sessions count against a number)" : "");
		return -1;
	}
	if (resolve_account(s, p, a, &v) != 0) {
		snap_leave(t);
		*ret = http_error(r, 500, "internal", NULL, "out of memory");
		return -1;
	}
	q->cfg = r->cfg;
	q->uid = r->part[2];	/* the path outlives the request */
	q->priv = r->cfg->privs[p].name;
	q->max = v.num;
	q->now = period_now();
	resolve_val_clear(&v);
	snap_leave(t);
	return 0;
}

static json_t *
time_json(time_t t)
{
	char buf[32];
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return json_string(buf);
}

static json_t *
one(const struct session *s)
{
	return json_pack("{s:s, s:s, s:s, s:o, s:o}", "session_id", s->id, "host", s->host,
	    "service", s->service, "started", time_json(s->started), "expires",
	    time_json(s->expires));
}

static json_t *
all(const struct session_res *res)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < res->n; i++)
		json_array_append_new(a, one(&res->list[i]));
	return a;
}

/* A write connection to the account's home provider (ldpool.h). */
static LDAP *
conn(struct req *r, enum MHD_Result *ret)
{
	struct err e;
	LDAP *ld;

	memset(&e, 0, sizeof(e));
	if (ldpool_get_at_home(r->part[2], &ld, &e) != 0) {
		*ret = http_error(r, 503, "ldap_unavailable", NULL, "%s", e.msg);
		return NULL;
	}
	return ld;
}

/* The answer to a call that landed (status) or was refused. */
static enum MHD_Result
answer(struct req *r, LDAP *ld, const struct session_req *q, const char *what, int rc,
    struct session_res *res, const struct err *e, int status)
{
	json_t *o;

	ldpool_put(ld, e->code == ERR_UNAVAILABLE);
	log_info("session %s %s/%s id=%s by %s: %s", what, q->uid, q->priv, res->s.id,
	    r->actor ? r->actor : "-", rc == 0 ? (res->replayed ? "replayed" : "ok") :
	    res->why ? session_why_code(res->why) : e->msg);
	if (rc != 0 && res->why == SESSION_WHY_NONE) {
		session_res_free(res);
		return http_err(r, e, "write_failed");
	}
	if (rc != 0) {
		o = json_pack("{s:s, s:s}", "error", session_why_code(res->why), "message", e->msg);
		if (o != NULL && e->key[0])
			json_object_set_new(o, "field", json_string(e->key));
		if (o != NULL && res->why == SESSION_TOO_MANY) {
			json_object_set_new(o, "open", json_integer(res->open));
			json_object_set_new(o, "max", json_integer(q->max));
			json_object_set_new(o, "sessions", all(res));
		}
		status = e->code == ERR_NOT_FOUND ? 404 : e->code == ERR_INVALID ? 400 : 409;
	} else {
		o = one(&res->s);
		if (o != NULL) {
			json_object_set_new(o, "privilege", json_string(q->priv));
			json_object_set_new(o, "open", json_integer(res->open));
			json_object_set_new(o, "max", json_integer(q->max));
			if (res->replayed) {
				json_object_set_new(o, "replayed", json_true());
				status = 200;
			}
		}
	}
	session_res_free(res);
	return http_json(r, o ? status : 500, o);
}

enum MHD_Result
api_session_open(struct req *r)
{
	static const char *const allowed[] = { "request_id", "privilege", "host", "service",
	    "ttl_s", NULL };
	struct session_req q;
	struct session_res res;
	const char *rid, *priv = NULL, *host, *service = NULL;
	enum MHD_Result ret;
	long long ttl;
	struct err e;
	json_t *o;
	LDAP *ld;
	int rc;

	memset(&e, 0, sizeof(e));
	if ((o = body_object(r->body, r->len, allowed, &e)) == NULL)
		return http_error(r, 400, "bad_request", e.key, "%s", e.msg);
	if (body_id(o, "request_id", 0, &rid, &e) != 0 ||
	    body_str(o, "privilege", PRIV_NAME_MAX, 0, &priv, &e) != 0 ||
	    body_str(o, "host", SESSION_FIELD_MAX, 1, &host, &e) != 0 ||
	    body_str(o, "service", SESSION_FIELD_MAX, 0, &service, &e) != 0 ||
	    body_int(o, "ttl_s", 1, SESSION_TTL_MAX, r->cfg->session_ttl_s, &ttl, &e) != 0) {
		json_decref(o);
		return http_error(r, 400, "bad_request", e.key, "%s", e.msg);
	}
	if (!session_field_ok(host) || (service != NULL && !session_field_ok(service))) {
		const char *f = !session_field_ok(host) ? "host" : "service";

		json_decref(o);
		return http_error(r, 400, "bad_request", f, "%s: 1 to %d of A-Z a-z 0-9 . _ : @ -",
		    f, SESSION_FIELD_MAX);
	}
	if (session_of(r, priv ? priv : DEFAULT_PRIV, &q, &ret) != 0 ||
	    (ld = conn(r, &ret)) == NULL) {
		json_decref(o);
		return ret;
	}
	rc = session_open(ld, &q, rid, host, service ? service : "-", (long)ttl, &res, &e);
	if (rc != 0)
		snprintf(res.s.id, sizeof(res.s.id), "%s", rid);
	ret = answer(r, ld, &q, "open", rc, &res, &e, 201);
	json_decref(o);
	return ret;
}

enum MHD_Result
api_session_renew(struct req *r)
{
	static const char *const allowed[] = { "privilege", "ttl_s", NULL };
	struct session_req q;
	struct session_res res;
	const char *priv = NULL;
	enum MHD_Result ret;
	long long ttl;
	struct err e;
	json_t *o;
	LDAP *ld;
	int rc;

	memset(&e, 0, sizeof(e));
	if ((o = body_object(r->len ? r->body : "{}", r->len ? r->len : 2, allowed, &e)) == NULL)
		return http_error(r, 400, "bad_request", e.key, "%s", e.msg);
	if (body_str(o, "privilege", PRIV_NAME_MAX, 0, &priv, &e) != 0 ||
	    body_int(o, "ttl_s", 1, SESSION_TTL_MAX, r->cfg->session_ttl_s, &ttl, &e) != 0) {
		json_decref(o);
		return http_error(r, 400, "bad_request", e.key, "%s", e.msg);
	}
	if (!reqid_ok(r->part[4])) {
		json_decref(o);
		return http_error(r, 400, "bad_request", "id", "'%.64s' is not a session id", r->part[4]);
	}
	if (session_of(r, priv ? priv : DEFAULT_PRIV, &q, &ret) != 0 ||
	    (ld = conn(r, &ret)) == NULL) {
		json_decref(o);
		return ret;
	}
	rc = session_renew(ld, &q, r->part[4], (long)ttl, &res, &e);
	snprintf(res.s.id, sizeof(res.s.id), "%s", r->part[4]);
	ret = answer(r, ld, &q, "renew", rc, &res, &e, 200);
	json_decref(o);
	return ret;
}

enum MHD_Result
api_session_close(struct req *r)
{
	const char *priv = http_query(r, "privilege");
	struct session_req q;
	struct session_res res;
	enum MHD_Result ret;
	struct err e;
	LDAP *ld;
	int rc;

	memset(&e, 0, sizeof(e));
	if (!reqid_ok(r->part[4]))
		return http_error(r, 400, "bad_request", "id", "'%.64s' is not a session id", r->part[4]);
	if (session_of(r, priv ? priv : DEFAULT_PRIV, &q, &ret) != 0 ||
	    (ld = conn(r, &ret)) == NULL)
		return ret;
	rc = session_close(ld, &q, r->part[4], &res, &e);
	snprintf(res.s.id, sizeof(res.s.id), "%s", r->part[4]);
	return answer(r, ld, &q, "close", rc, &res, &e, 200);
}

enum MHD_Result
api_sessions(struct req *r)
{
	const char *priv = http_query(r, "privilege");
	struct session_req q;
	struct session_res res;
	enum MHD_Result ret;
	struct err e;
	json_t *o;
	LDAP *ld;
	int rc;

	memset(&e, 0, sizeof(e));
	if (session_of(r, priv ? priv : DEFAULT_PRIV, &q, &ret) != 0 ||
	    (ld = conn(r, &ret)) == NULL)
		return ret;
	rc = session_list(ld, &q, &res, &e);
	ldpool_put(ld, e.code == ERR_UNAVAILABLE);
	if (rc != 0)
		return http_err(r, &e, "read_failed");
	o = json_pack("{s:s, s:s, s:I, s:I, s:o}", "account", q.uid, "privilege", q.priv,
	    "open", (json_int_t)res.open, "max", (json_int_t)q.max, "sessions", all(&res));
	session_res_free(&res);
	return http_json(r, o ? 200 : 500, o);
}
