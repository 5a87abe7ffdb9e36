/* api_privileges.c - effective privileges, one privilege, and checks; from memory only. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "answer.h"
#include "membership.h"
#include "api.h"
#include "period.h"
#include "resolve.h"
#include "session.h"
#include "snapshot.h"
#include "sync.h"
#include "usage.h"

static json_t *
sources(const struct snap *s, const struct snap_account *a, int p,
    const struct resolve_val *v)
{
	json_t *arr = json_array();
	size_t k, i;

	for (k = 0; arr && k < a->nm; k++) {
		const struct snap_mres *m = snap_mres_of(s, a->m[k]);
		struct snap_src *srcs;
		size_t nsrc;

		if (m == NULL || resolve_sources(s, m, p, &srcs, &nsrc) != 0) {
			json_decref(arr);
			return NULL;
		}
		for (i = 0; i < nsrc; i++) {
			const struct snap_src *src = &srcs[i];
			enum resolve_why why = resolve_why(s->cfg, p, m, src, v);
			json_t *o = json_pack("{s:s, s:s, s:s, s:s}",
			    "membership", a->m[k]->cell, "cell", src->cell->name,
			    "grant", src->grant->text, "result", resolve_why_name(why));

			time_t from, until;
			char t[24];

			if (o != NULL && src->by != NULL)
				json_object_set_new(o, "overridden_by", json_string(src->by->name));
			/* a dated membership: when it started and when it ends */
			answer_bounds(a, a->m[k]->cell, &from, &until);
			if (o != NULL && from != 0) {
				membership_rfc3339(from, t);
				json_object_set_new(o, "membership_from", json_string(t));
			}
			if (o != NULL && until != 0) {
				membership_rfc3339(until, t);
				json_object_set_new(o, "membership_until", json_string(t));
			}
			json_array_append_new(arr, o);
		}
		free(srcs);
	}
	return arr;
}

/* The JSON of one privilege for account a; NULL when out of memory. */
static json_t *
priv_json(const struct snap *s, const struct snap_account *a, int p, int explain,
    struct resolve_val *v)
{
	const struct cfg_priv *def = &s->cfg->privs[p];
	json_t *o = answer_value(s, a, p, v);

	if (o != NULL && def->type == PRIV_QUOTA)
		api_usage(o, s->cfg, a->uid, def->name, def->period, v->num, period_now());
	if (o != NULL && def->type == PRIV_NUMBER) {
		struct usage_val u;

		if (usage_get_for(a->uid, def->name, SESSION_PERIOD, &u) == 0)
			json_object_set_new(o, "open", json_integer(u.used));
	}
	if (o != NULL && explain)
		json_object_set_new(o, "sources", sources(s, a, p, v));
	return o;
}

static int
want_explain(struct req *r)
{
	const char *x = http_query(r, "explain");

	return x != NULL && (strcmp(x, "1") == 0 || strcmp(x, "true") == 0);
}

static json_t *
head(const struct snap *s, const struct snap_account *a, int with_memberships)
{
	json_t *o = json_pack("{s:s}", "account", a->uid), *m;
	size_t k;

	if (o == NULL)
		return NULL;
	if (with_memberships) {
		m = json_array();
		for (k = 0; m && k < a->nm; k++)
			json_array_append_new(m, json_string(a->m[k]->cell));
		json_object_set_new(o, "memberships", m);
		if (a->ndated > 0)
			json_object_set_new(o, "dated_memberships", answer_dated(s, a));
	}
	json_object_set_new(o, "stale", json_boolean(sync_state() == SYNC_STALE));
	return o;
}

/* Enters the snapshot and finds the account; answers the error itself. */
static const struct snap *
enter(struct req *r, int *ticket, const struct snap_account **a, enum MHD_Result *ret)
{
	const struct snap *s = snap_enter(ticket);

	if (s == NULL) {
		snap_leave(*ticket);
		*ret = http_error(r, 503, "not_ready", NULL,
		    "privd has not loaded the directory yet");
		return NULL;
	}
	if ((*a = snap_account(s, r->part[2])) == NULL) {
		snap_leave(*ticket);
		*ret = http_error(r, 404, "unknown_account", "uid",
		    "no account '%.64s' (no entry with privAccount and that uid)", r->part[2]);
		return NULL;
	}
	http_canon_part(r, 2, (*a)->uid);
	return s;
}

enum MHD_Result
api_privileges(struct req *r)
{
	const struct snap_account *a;
	const struct snap *s;
	enum MHD_Result ret;
	json_t *o, *privs;
	size_t p;
	int t, explain = want_explain(r);

	if ((s = enter(r, &t, &a, &ret)) == NULL)
		return ret;
	if (!explain) {
		/* the hot path: serialised once per snapshot, usage spliced in */
		char *text = answer_privileges(s, a, sync_state() == SYNC_STALE);

		snap_leave(t);
		return http_text(r, 200, "application/json", text);
	}
	o = head(s, a, 1);
	privs = json_object();
	for (p = 0; o && privs && p < s->cfg->nprivs; p++) {
		struct resolve_val v;
		json_t *pj = priv_json(s, a, (int)p, explain, &v);

		resolve_val_clear(&v);
		if (pj == NULL) {
			json_decref(o);
			o = NULL;
			break;
		}
		json_object_set_new(privs, s->cfg->privs[p].name, pj);
	}
	if (o != NULL)
		json_object_set_new(o, "privileges", privs);
	else
		json_decref(privs);
	snap_leave(t);
	return http_json(r, 200, o);
}

enum MHD_Result
api_privilege(struct req *r)
{
	const struct snap_account *a;
	const struct snap *s;
	struct resolve_val v;
	enum MHD_Result ret;
	json_t *o, *pj;
	int t, p;

	if ((s = enter(r, &t, &a, &ret)) == NULL)
		return ret;
	if ((p = cfg_priv_find(s->cfg, r->part[4])) < 0) {
		snap_leave(t);
		return http_error(r, 404, "unknown_privilege", "privilege",
		    "no privilege '%.64s' is declared", r->part[4]);
	}
	o = head(s, a, 1);
	pj = priv_json(s, a, p, want_explain(r), &v);
	resolve_val_clear(&v);
	if (o != NULL && pj != NULL) {
		json_object_set_new(o, "privilege", json_string(s->cfg->privs[p].name));
		json_object_update(o, pj);
	} else {
		json_decref(o);
		o = NULL;
	}
	json_decref(pj);
	snap_leave(t);
	return http_json(r, 200, o);
}

static int
parse_amount(const char *s, long long *out)
{
	char *end;

	if (s == NULL || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	*out = strtoll(s, &end, 10);
	return errno == 0 && *end == '\0' ? 0 : -1;
}

enum MHD_Result
api_check(struct req *r)
{
	const char *name = http_query(r, "privilege"), *value = http_query(r, "value");
	const struct snap_account *a;
	const struct snap *s;
	struct resolve_val v;
	enum MHD_Result ret;
	long long n = 1;
	int t, p, allowed = 0;
	json_t *o;

	if (name == NULL || *name == '\0')
		return http_error(r, 400, "bad_request", "privilege",
		    "the query parameter privilege is required");
	if ((s = enter(r, &t, &a, &ret)) == NULL)
		return ret;
	if ((p = cfg_priv_find(s->cfg, name)) < 0) {
		snap_leave(t);
		return http_error(r, 404, "unknown_privilege", "privilege",
		    "no privilege '%.64s' is declared", name);
	}
	switch (s->cfg->privs[p].type) {
	case PRIV_SET:
		if (value == NULL || *value == '\0') {
			snap_leave(t);
			return http_error(r, 400, "bad_request", "value",
			    "%s is a set: give value=ELEMENT to check", name);
		}
		break;
	case PRIV_NUMBER:
	case PRIV_QUOTA:
		if ((value != NULL || s->cfg->privs[p].type == PRIV_NUMBER) &&
		    parse_amount(value, &n) != 0) {
			snap_leave(t);
			return http_error(r, 400, "bad_request", "value",
			    "%s is a %s: value must be a whole number", name,
			    cfg_type_name(s->cfg->privs[p].type));
		}
		break;
	case PRIV_FLAG:
		break;
	}
	if (resolve_account(s, p, a, &v) != 0) {
		snap_leave(t);
		return http_error(r, 500, "internal", NULL, "out of memory");
	}
	switch (s->cfg->privs[p].type) {
	case PRIV_FLAG:
		allowed = v.num != 0;
		break;
	case PRIV_SET:
		allowed = resolve_has(&v, value);
		break;
	case PRIV_NUMBER:
		allowed = n <= v.num;	/* "may jdoe have n sessions?" */
		break;
	case PRIV_QUOTA: {
		/* "may jdoe print n pages now?": against what remains */
		char period[PERIOD_KEY_MAX];
		struct usage_val u;
		struct err e;

		allowed = 0;
		if (period_key(s->cfg, s->cfg->privs[p].period, period_now(), period, &e) == 0) {
			usage_get_for(a->uid, name, period, &u);
			allowed = n <= v.num + u.credit - u.used;
		}
		break;
	}
	}
	resolve_val_clear(&v);
	o = head(s, a, 0);
	if (o != NULL) {
		json_object_set_new(o, "privilege", json_string(name));
		if (value != NULL)
			json_object_set_new(o, "value", json_string(value));
		json_object_set_new(o, "allowed", json_boolean(allowed));
	}
	snap_leave(t);
	return http_json(r, 200, o);
}
