/*
 * session.c - open, renew, close and expire sessions, each one LDAP modify
 * of the account's session entry. Opening raises privUsed under an
 * assertion (privUsed <= max - 1) and adds the request id and the
 * session's value in the same modify: slapd applies it whole or not at
 * all, so two logins racing for the last slot cannot both win, and a
 * replayed request id meets its own privRequest value. Closing deletes
 * the exact value, so a close, an expiry and a second privd can race
 * freely: one of them removes it, the others see it gone.
 *
 * A value is "ID EXPIRES STARTED HOST SERVICE" (GeneralizedTime seconds).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dn.h"
#include "ldapconn.h"
#include "ldpool.h"
#include "log.h"
#include "session.h"
#include "strv.h"
#include "uentry.h"
#include "usage.h"
#include "wop.h"


/* The entry as read. */
struct sstate {
	int exists;
	struct usage_val u;	/* used: the open count */
	char **vals;		/* privSession */
};

int
session_field_ok(const char *s)
{
	size_t n;

	for (n = 0; s[n]; n++)
		if (!((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') ||
		    (s[n] >= '0' && s[n] <= '9') || s[n] == '.' || s[n] == '_' || s[n] == ':' ||
		    s[n] == '@' || s[n] == '-'))
			return 0;
	return n >= 1 && n <= SESSION_FIELD_MAX;
}

static void
gt(time_t t, char out[16])
{
	struct tm tm;

	gmtime_r(&t, &tm);
	if (strftime(out, 16, "%Y%m%d%H%M%SZ", &tm) != 15)
		snprintf(out, 16, "99991231235959Z");
}

static time_t
ungt(const char *s)
{
	struct tm tm;
	const char *end;

	memset(&tm, 0, sizeof(tm));
	if ((end = strptime(s, "%Y%m%d%H%M%S", &tm)) == NULL || strcmp(end, "Z") != 0)
		return 0;
	return timegm(&tm);
}

static int
parse(const char *v, struct session *s)
{
	char exp[16], start[16];

	memset(s, 0, sizeof(*s));
	if (sscanf(v, "%128s %15s %15s %64s %64s", s->id, exp, start, s->host, s->service) != 5)
		return -1;
	s->expires = ungt(exp);
	s->started = ungt(start);
	return s->expires > 0 && s->started > 0 ? 0 : -1;
}

static char *
value(const struct session *s)
{
	char exp[16], start[16], *v;

	gt(s->expires, exp);
	gt(s->started, start);
	if (asprintf(&v, "%s %s %s %s %s", s->id, exp, start, s->host, s->service) < 0)
		return NULL;
	return v;
}

static void
sstate_free(struct sstate *st)
{
	strv_free(st->vals);
	memset(st, 0, sizeof(*st));
}

static int
read_state(LDAP *ld, const struct session_req *q, const char *dn, struct sstate *st,
    struct err *e)
{
	static char *attrs[] = { "privUsed", "privSession", "entryCSN", NULL };
	LDAPMessage *res = NULL, *m;
	struct berval **v;
	char key[USAGE_KEY_MAX];
	size_t i, n;
	int rc;

	sstate_free(st);
	rc = ldapc_search(ld, q->cfg, dn, LDAP_SCOPE_BASE, "(objectClass=privSessions)", attrs,
	    1, &res, e);
	if (rc < 0)
		return -1;
	if (rc == 0 && (m = ldap_first_entry(ld, res)) != NULL) {
		st->exists = 1;
		ldapc_get_ll(ld, m, "privUsed", &st->u.used);
		ldapc_get_buf(ld, m, "entryCSN", st->u.csn, sizeof(st->u.csn));
		v = ldap_get_values_len(ld, m, "privSession");
		n = v ? (size_t)ldap_count_values_len(v) : 0;
		if ((st->vals = calloc(n + 1, sizeof(char *))) != NULL)
			for (i = 0; i < n; i++)
				st->vals[i] = strndup(v[i]->bv_val, v[i]->bv_len);
		ldap_value_free_len(v);
		/* every privd's answers show the count: the sync stream brings it too */
		usage_key(key, q->uid, q->priv, SESSION_PERIOD);
		usage_put(key, &st->u);
	}
	ldap_msgfree(res);
	if (st->exists && st->vals == NULL)
		return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
	return 0;
}

/* The value of session id in st (and the session), or NULL. */
static const char *
find(const struct sstate *st, const char *id, struct session *s)
{
	size_t i;

	for (i = 0; st->vals && st->vals[i]; i++)
		if (parse(st->vals[i], s) == 0 && strcmp(s->id, id) == 0)
			return st->vals[i];
	return NULL;
}

/* Removes one session's value: the LDAP result code. */
static int
drop(LDAP *ld, const char *dn, long long used, const char *val, const char *id)
{
	struct wop o;
	int rc = LDAP_NO_MEMORY;

	memset(&o, 0, sizeof(o));
	o.dn = dn;
	if (wop_mod(&o, LDAP_MOD_DELETE, "privSession", "%s", val) == 0 &&
	    wop_mod(&o, LDAP_MOD_DELETE, "privRequest", "%s", id) == 0 &&
	    wop_swap(&o, "privUsed", used, used - 1) == 0)
		rc = wop_run(ld, &o);
	wop_free(&o);
	return rc;
}

/* Closes the expired sessions of st; how many went. */
static int
reap(LDAP *ld, const char *dn, const struct sstate *st, time_t now, const char *what)
{
	struct session s;
	long long used = st->u.used;
	size_t i;
	int n = 0, rc;

	for (i = 0; st->vals && st->vals[i]; i++) {
		if (parse(st->vals[i], &s) != 0 || s.expires > now)
			continue;
		rc = drop(ld, dn, used, st->vals[i], s.id);
		if (rc == LDAP_SUCCESS) {
			n++;
			used--;
			log_info("session: %s of %s on %s expired%s", s.id, dn, s.host, what);
		} else if (rc != LDAP_NO_SUCH_ATTRIBUTE)
			log_warn("session: cannot end expired %s of %s: %s", s.id, dn,
			    ldap_err2string(rc));
	}
	return n;
}

static int
by_start(const void *a, const void *b)
{
	const struct session *x = a, *y = b;

	return x->started < y->started ? -1 : x->started > y->started ? 1 :
	    strcmp(x->id, y->id);
}

/* r->list: the sessions of st still within their TTL, oldest first. */
static int
listing(const struct sstate *st, time_t now, struct session_res *r, struct err *e)
{
	size_t i, n = strv_len(st->vals);

	free(r->list);
	r->n = 0;
	if ((r->list = calloc(n + 1, sizeof(*r->list))) == NULL)
		return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
	for (i = 0; i < n; i++)
		if (parse(st->vals[i], &r->list[r->n]) == 0 && r->list[r->n].expires > now)
			r->n++;
	qsort(r->list, r->n, sizeof(*r->list), by_start);
	return 0;
}

static const char *const why_codes[] = {
	[SESSION_WHY_NONE] = NULL, [SESSION_ID_REUSED] = "request_id_reused",
	[SESSION_TOO_MANY] = "too_many_sessions", [SESSION_UNKNOWN] = "unknown_session",
};

const char *
session_why_code(enum session_why why)
{
	return why_codes[why];
}

static int
refuse(struct session_res *r, struct err *e, enum err_code code, enum session_why why,
    const char *field, const char *msg)
{
	r->why = why;
	return err_set(e, code, 0, field, "%s", msg);
}

/* Creates the session entry (and its parents) with no session open. */
static int
ensure(LDAP *ld, const struct session_req *q, const char *dn, struct err *e)
{
	char name[PRIV_NAME_MAX + sizeof(SESSION_PERIOD) + 2];
	char *oc[] = { "privSessions", NULL }, *cn[] = { name, NULL }, *zero[] = { "0", NULL };
	LDAPMod m[3], *mods[4];
	int rc;

	snprintf(name, sizeof(name), "%s@%s", q->priv, SESSION_PERIOD);
	if (uent_ensure_account(ld, q->cfg, q->uid, e) != 0)
		return -1;
	m[0] = (LDAPMod){ LDAP_MOD_ADD, "objectClass", { oc } };
	m[1] = (LDAPMod){ LDAP_MOD_ADD, "cn", { cn } };
	m[2] = (LDAPMod){ LDAP_MOD_ADD, "privUsed", { zero } };
	mods[0] = &m[0], mods[1] = &m[1], mods[2] = &m[2], mods[3] = NULL;
	rc = ldap_add_ext_s(ld, dn, mods, NULL, NULL);
	wop_doubt(ld, dn, rc);
	if (rc != LDAP_SUCCESS && rc != LDAP_ALREADY_EXISTS)
		return ldapc_fail(e, rc, dn);
	return 0;
}

static char *
entry_dn(const struct session_req *q, struct err *e)
{
	char *dn = uent_usage_dn(q->cfg, q->uid, q->priv, SESSION_PERIOD);

	if (dn == NULL)
		err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
	return dn;
}

int
session_open(LDAP *ld, const struct session_req *q, const char *id, const char *host,
    const char *service, long ttl_s, struct session_res *r, struct err *e)
{
	struct sstate st = { 0, { 0, 0, 0, 0, "" }, NULL };
	struct session s;
	char *dn, *val = NULL, key[USAGE_KEY_MAX];
	struct wop o;
	struct wop_try tr;
	int rc, ret = -1;

	memset(r, 0, sizeof(*r));
	memset(&o, 0, sizeof(o));
	if ((dn = entry_dn(q, e)) == NULL)
		return -1;
	memset(&s, 0, sizeof(s));
	snprintf(s.id, sizeof(s.id), "%s", id);
	snprintf(s.host, sizeof(s.host), "%s", host);
	snprintf(s.service, sizeof(s.service), "%s", service);
	s.started = q->now;
	s.expires = q->now + ttl_s;
	if ((val = value(&s)) == NULL) {
		err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
		goto done;
	}
	usage_key(key, q->uid, q->priv, SESSION_PERIOD);
	usage_get(key, &st.u);
	for (wop_try_init(&tr, "open session"); wop_try(&tr, e);) {
		wop_free(&o);
		o.dn = dn;
		if (q->max <= 0)
			rc = LDAP_ASSERTION_FAILED;	/* no slot at all: no write */
		else if (wop_swap(&o, "privUsed", st.u.used, st.u.used + 1) != 0 ||
		    wop_mod(&o, LDAP_MOD_ADD, "privRequest", "%s", id) != 0 ||
		    wop_mod(&o, LDAP_MOD_ADD, "privSession", "%s", val) != 0 ||
		    asprintf(&o.assert, "(privUsed<=%lld)", q->max - 1) < 0) {
			o.assert = NULL;
			err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
			goto done;
		} else
			rc = wop_run(ld, &o);
		switch (rc) {
		case LDAP_SUCCESS:
			if (read_state(ld, q, dn, &st, e) != 0) {
				log_warn("session: %s opened, reading it back failed: %s", id, e->msg);
				memset(e, 0, sizeof(*e));
			}
			r->s = s;
			r->open = st.exists ? st.u.used : 1;
			ret = 0;
			goto done;
		case LDAP_TYPE_OR_VALUE_EXISTS:
		case LDAP_ASSERTION_FAILED:
			if (read_state(ld, q, dn, &st, e) != 0)
				goto done;
			if (find(&st, id, &r->s) != NULL) {
				/* the assertion is checked first: a replay may land here */
				r->replayed = 1;
				r->open = st.u.used;
				ret = 0;
				goto done;
			}
			if (rc == LDAP_TYPE_OR_VALUE_EXISTS) {
				err_set(e, ERR_CONFLICT, 0, "request_id", "request id '%s' is taken "
				    "by a session being closed: use another", id);
				r->why = SESSION_ID_REUSED;
				goto done;
			}
			if (reap(ld, dn, &st, q->now, " (in the way of a new one)") > 0)
				continue;
			r->open = st.u.used;
			if (listing(&st, q->now, r, e) != 0)
				goto done;
			refuse(r, e, ERR_CONFLICT, SESSION_TOO_MANY, "privilege", "");
			snprintf(e->msg, sizeof(e->msg), "%s has %lld of %lld %s open", q->uid,
			    r->open, q->max, q->priv);
			goto done;
		case LDAP_NO_SUCH_ATTRIBUTE:
			/* the count moved since it was read: read it again */
			if (read_state(ld, q, dn, &st, e) != 0)
				goto done;
			continue;
		case LDAP_NO_SUCH_OBJECT:
			if (ensure(ld, q, dn, e) != 0)
				goto done;
			continue;
		default:
			ldapc_fail(e, rc, "open session");
			goto done;
		}
	}
done:
	wop_free(&o);
	free(val);
	sstate_free(&st);
	free(dn);
	return ret;
}

/* Session id of st, or a refusal when it is not open (expired: ended now). */
static const char *
open_one(LDAP *ld, const struct session_req *q, const char *dn, const struct sstate *st,
    const char *id, struct session_res *r, struct err *e)
{
	const char *v = find(st, id, &r->s);

	if (v == NULL) {
		refuse(r, e, ERR_NOT_FOUND, SESSION_UNKNOWN, "id", "");
		snprintf(e->msg, sizeof(e->msg), "%s has no open session '%s' of %s", q->uid, id,
		    q->priv);
		return NULL;
	}
	if (r->s.expires <= q->now) {
		reap(ld, dn, st, q->now, "");
		refuse(r, e, ERR_NOT_FOUND, SESSION_UNKNOWN, "id", "");
		snprintf(e->msg, sizeof(e->msg), "session '%s' of %s expired at its TTL", id,
		    q->uid);
		return NULL;
	}
	return v;
}

int
session_renew(LDAP *ld, const struct session_req *q, const char *id, long ttl_s,
    struct session_res *r, struct err *e)
{
	struct sstate st = { 0, { 0, 0, 0, 0, "" }, NULL };
	struct session s;
	const char *old;
	char *dn, *val = NULL;
	struct wop o;
	struct wop_try tr;
	int rc, ret = -1;

	memset(r, 0, sizeof(*r));
	memset(&o, 0, sizeof(o));
	if ((dn = entry_dn(q, e)) == NULL)
		return -1;
	for (wop_try_init(&tr, "renew session"); wop_try(&tr, e);) {
		if (read_state(ld, q, dn, &st, e) != 0 ||
		    (old = open_one(ld, q, dn, &st, id, r, e)) == NULL)
			goto done;
		s = r->s;
		s.expires = q->now + ttl_s;
		free(val);
		wop_free(&o);
		o.dn = dn;
		if ((val = value(&s)) == NULL ||
		    wop_mod(&o, LDAP_MOD_DELETE, "privSession", "%s", old) != 0 ||
		    wop_mod(&o, LDAP_MOD_ADD, "privSession", "%s", val) != 0) {
			err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
			goto done;
		}
		rc = wop_run(ld, &o);
		if (rc == LDAP_SUCCESS) {
			r->s = s;
			r->open = st.u.used;
			ret = 0;
			goto done;
		}
		if (rc != LDAP_NO_SUCH_ATTRIBUTE && rc != LDAP_TYPE_OR_VALUE_EXISTS) {
			ldapc_fail(e, rc, "renew session");
			goto done;
		}
		/* renewed or closed meanwhile: look again */
	}
done:
	wop_free(&o);
	free(val);
	sstate_free(&st);
	free(dn);
	return ret;
}

int
session_close(LDAP *ld, const struct session_req *q, const char *id,
    struct session_res *r, struct err *e)
{
	struct sstate st = { 0, { 0, 0, 0, 0, "" }, NULL };
	const char *v;
	char *dn;
	struct wop_try tr;
	int rc, ret = -1;

	memset(r, 0, sizeof(*r));
	if ((dn = entry_dn(q, e)) == NULL)
		return -1;
	for (wop_try_init(&tr, "close session"); wop_try(&tr, e);) {
		if (read_state(ld, q, dn, &st, e) != 0)
			goto done;
		if ((v = find(&st, id, &r->s)) == NULL) {
			refuse(r, e, ERR_NOT_FOUND, SESSION_UNKNOWN, "id", "");
			snprintf(e->msg, sizeof(e->msg), "%s has no open session '%s' of %s", q->uid,
			    id, q->priv);
			goto done;
		}
		rc = drop(ld, dn, st.u.used, v, id);
		if (rc == LDAP_SUCCESS) {
			if (read_state(ld, q, dn, &st, e) != 0)
				memset(e, 0, sizeof(*e));
			r->open = st.u.used;
			ret = 0;
			goto done;
		}
		if (rc != LDAP_NO_SUCH_ATTRIBUTE) {
			ldapc_fail(e, rc, "close session");
			goto done;
		}
	}
done:
	sstate_free(&st);
	free(dn);
	return ret;
}

int
session_list(LDAP *ld, const struct session_req *q, struct session_res *r, struct err *e)
{
	struct sstate st = { 0, { 0, 0, 0, 0, "" }, NULL };
	char *dn;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	if ((dn = entry_dn(q, e)) == NULL)
		return -1;
	if (read_state(ld, q, dn, &st, e) == 0 && listing(&st, q->now, r, e) == 0) {
		r->open = (long long)r->n;
		ret = 0;
	}
	sstate_free(&st);
	free(dn);
	return ret;
}

void
session_res_free(struct session_res *r)
{
	free(r->list);
	r->list = NULL;
	r->n = 0;
}

int
session_expire(LDAP *ld, const struct cfg *c, time_t now, int max, struct err *e)
{
	static char *attrs[] = { "privSession", NULL };
	LDAPMessage *res = NULL, *m;
	char *root = dn_join("ou=usage", c->base_dn), *dn;
	int rc, n = 0;

	if (root == NULL)
		return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
	/* only entries with a session open: a presence index finds them */
	if ((rc = ldapc_search(ld, c, root, LDAP_SCOPE_SUBTREE,
	    "(&(objectClass=privSessions)(privSession=*))", attrs, 0, &res, e)) != 0) {
		free(root);
		return rc < 0 ? -1 : 0;
	}
	for (m = ldap_first_entry(ld, res); m && n < max; m = ldap_next_entry(ld, m)) {
		struct berval **v = ldap_get_values_len(ld, m, "privSession");
		struct sstate st = { 1, { 0, 0, 0, 0, "" }, NULL };
		size_t i, k = v ? (size_t)ldap_count_values_len(v) : 0;

		char uid[DN_VAL_MAX], name[DN_VAL_MAX];
		struct err he;
		LDAP *w = ld;

		memset(&he, 0, sizeof(he));
		if ((dn = ldap_get_dn(ld, m)) != NULL && (st.vals = calloc(k + 1, sizeof(char *))) != NULL) {
			for (i = 0; i < k; i++)
				st.vals[i] = strndup(v[i]->bv_val, v[i]->bv_len);
			/* with several providers, through the account's home one */
			if (dn_usage(dn, root, uid, name) == 0 && !ldpool_is_home(ld, uid) &&
			    ldpool_get_at_home(uid, &w, &he) != 0)
				log_warn("session: expired sessions of %s wait: %s", uid, he.msg);
			else {
				n += reap(w, dn, &st, now, "");
				if (w != ld)
					ldpool_put(w, 0);
			}
		}
		strv_free(st.vals);
		ldap_value_free_len(v);
		ldap_memfree(dn);
	}
	ldap_msgfree(res);
	free(root);
	return n;
}
