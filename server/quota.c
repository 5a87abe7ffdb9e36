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
#include "strv.h"
#include "wop.h"

#define TRIES 16

/* A usage entry as read: counters and, when asked, its multi-valued state. */
struct ustate {
	int exists;
	struct usage_val u;
	char **entries;		/* privEntry: ledger entries, JSON */
	char **holds;		/* privHold: "ID AMOUNT EXPIRES" */
	char **refunds;		/* privRefund: "ID AMOUNT" */
};

/* Where a write goes: the usage entry's DN and table key. */
struct target {
	char *udn;
	char key[USAGE_KEY_MAX];
	char name[PRIV_NAME_MAX + PERIOD_KEY_MAX + 2];	/* quota@period */
};

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

static char *
usage_root(const struct cfg *c)
{
	return dn_join("ou=usage", c->base_dn);
}

/* The entry that holds uid's usage entries: uid=UID, or for a pool's
 * holder "pool:CELL" cn=CELL (pool.h). */
static char *
holder_dn(const char *uid, const char *root)
{
	const char *cell = holder_cell(uid);

	return cell ? dn_child("cn", cell, root) : dn_child("uid", uid, root);
}

char *
quota_usage_dn(const struct cfg *c, const char *uid, const char *quota,
    const char *period)
{
	char name[PRIV_NAME_MAX + PERIOD_KEY_MAX + 2];
	char *root = usage_root(c), *udn = NULL, *dn = NULL;

	snprintf(name, sizeof(name), "%s@%s", quota, period);
	if (root != NULL && (udn = holder_dn(uid, root)) != NULL)
		dn = dn_child("cn", name, udn);
	free(udn);
	free(root);
	return dn;
}

static void
ustate_free(struct ustate *st)
{
	strv_free(st->entries);
	strv_free(st->holds);
	strv_free(st->refunds);
	memset(st, 0, sizeof(*st));
}

/*
 * Reads the usage entry at dn (full: its state values too) and records the
 * counters in the usage table under key. 0 (st->exists 0 when there is no
 * entry), or -1 and e.
 */
static int
read_state(LDAP *ld, const struct cfg *c, const char *dn, const char *key,
    int full, struct ustate *st, struct err *e)
{
	static char *brief[] = { "privUsed", "privCredit", "privHeld", "privSegments",
	    "entryCSN", NULL };
	static char *all[] = { "privUsed", "privCredit", "privHeld", "privSegments",
	    "entryCSN", "privEntry", "privHold", "privRefund", NULL };
	LDAPMessage *res = NULL, *m;
	int rc;

	ustate_free(st);
	rc = ldapc_search(ld, c, dn, LDAP_SCOPE_BASE, "(objectClass=privUsage)",
	    full ? all : brief, 1, &res, e);
	if (rc < 0)
		return -1;
	if (rc == 0 && (m = ldap_first_entry(ld, res)) != NULL) {
		st->exists = 1;
		ldapc_get_ll(ld, m, "privUsed", &st->u.used);
		ldapc_get_ll(ld, m, "privCredit", &st->u.credit);
		ldapc_get_ll(ld, m, "privHeld", &st->u.held);
		ldapc_get_ll(ld, m, "privSegments", &st->u.segments);
		ldapc_get_buf(ld, m, "entryCSN", st->u.csn, sizeof(st->u.csn));
		if (usage_put(key, &st->u) != 0)
			log_warn("quota: out of memory recording usage of %s", key);
		if (full && ((st->entries = ldapc_get_strv(ld, m, "privEntry")) == NULL ||
		    (st->holds = ldapc_get_strv(ld, m, "privHold")) == NULL ||
		    (st->refunds = ldapc_get_strv(ld, m, "privRefund")) == NULL)) {
			ldap_msgfree(res);
			ustate_free(st);
			return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
		}
	}
	ldap_msgfree(res);
	return 0;
}

/*
 * read_state (full) and the entries of the segments that hold request ids
 * id and id2 (id2 may be NULL): what a replay or a refund must see of the
 * ledger, wherever the entries sit.
 */
static int
load(LDAP *ld, const struct cfg *c, const char *dn, const char *key, const char *id,
    const char *id2, struct ustate *st, struct err *e)
{
	if (read_state(ld, c, dn, key, 1, st, e) != 0)
		return -1;
	if (st->exists && (arch_load(ld, c, dn, st->u.segments, id, &st->entries, e) < 0 ||
	    (id2 && arch_load(ld, c, dn, st->u.segments, id2, &st->entries, e) < 0)))
		return -1;
	return 0;
}

/* Whether request id moved out into a committed segment of udn (of the
 * first nseg): 1 yes, 0 no, -1 and e. */
static int
moved_out(LDAP *ld, const struct cfg *c, const char *udn, long long nseg, const char *id,
    struct err *e)
{
	char **seen = NULL;
	int rc = arch_load(ld, c, udn, nseg, id, &seen, e);

	strv_free(seen);
	return rc;
}

/*
 * After a write landed: every ARCH_EVERY writes, look at the window and
 * move what is settled (archive.h). A failed move is logged, not returned:
 * the write has landed, and the next look tries again.
 *
 * Only on the account's home provider: with several providers, moves
 * (which delete values and number segments) then never run on two of them
 * at once, so their replication cannot conflict. While writes fail over,
 * the window just grows.
 */
static void
maybe_move(LDAP *ld, const struct quota_req *q, const char *dn, const char *key)
{
	struct ustate st = { 0, { 0, 0, 0, 0, "" }, NULL, NULL, NULL };
	struct err e;
	int n;

	if (!arch_due(dn) || !q->home)
		return;
	memset(&e, 0, sizeof(e));
	if ((n = arch_move(ld, q->cfg, dn, ARCH_HIGH, &e)) < 0)
		log_warn("quota: moving settled ledger entries of %s: %s", key, e.msg);
	else if (n > 0)
		read_state(ld, q->cfg, dn, key, 0, &st, &e);
	ustate_free(&st);
}

/* The ledger entry of st with this id and one of kinds ("charge|hold"); a
 * new reference the caller decrefs, or NULL. */
static json_t *
find_entry(const struct ustate *st, const char *id, const char *kinds)
{
	size_t i;

	for (i = 0; st->entries && st->entries[i]; i++) {
		json_t *j = json_loads(st->entries[i], 0, NULL);
		const char *jid = json_string_value(json_object_get(j, "id"));
		const char *k = json_string_value(json_object_get(j, "kind"));
		size_t kl = k ? strlen(k) : 0;
		const char *hit = k ? strstr(kinds, k) : NULL;

		if (jid && strcmp(jid, id) == 0 && hit != NULL &&
		    (hit == kinds || hit[-1] == '|') && (hit[kl] == '\0' || hit[kl] == '|'))
			return j;
		json_decref(j);
	}
	return NULL;
}

static long long
jnum(json_t *j, const char *k)
{
	return json_integer_value(json_object_get(j, k));
}

/* A state value "ID N[ REST]" for id: its N (and copies the value). */
static int
find_value(char *const *v, const char *id, long long *n, char *rest, size_t nrest,
    char **whole)
{
	char *s = strv_keyed(v, id), *end;

	if (s == NULL)
		return -1;
	*n = strtoll(s + strlen(id) + 1, &end, 10);
	if (rest != NULL)
		snprintf(rest, nrest, "%s", *end == ' ' ? end + 1 : "");
	*whole = s;
	return 0;
}

static int
target_for(const struct quota_req *q, const char *period, struct target *t,
    struct err *e)
{
	snprintf(t->name, sizeof(t->name), "%s@%s", q->quota, period);
	usage_key(t->key, q->uid, q->quota, period);
	if ((t->udn = quota_usage_dn(q->cfg, q->uid, q->quota, period)) == NULL)
		return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
	return 0;
}

int
quota_ensure_account(LDAP *ld, const struct cfg *c, const char *uid, struct err *e)
{
	char *oc_ou[] = { "organizationalUnit", NULL }, *ou[] = { "usage", NULL };
	const char *cell = holder_cell(uid);
	char *oc_acc[] = { cell ? "privPoolUsage" : "privAccountUsage", NULL };
	char *uidv[] = { (char *)(cell ? cell : uid), NULL };
	LDAPMod m[4], *mods[2][3];
	char *root = usage_root(c), *adn = root ? holder_dn(uid, root) : NULL;
	const char *dns[2] = { root, adn };
	int i, rc = 0, r;

	if (root == NULL || adn == NULL) {
		rc = err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
		goto done;
	}
	m[0] = (LDAPMod){ LDAP_MOD_ADD, "objectClass", { oc_ou } };
	m[1] = (LDAPMod){ LDAP_MOD_ADD, "ou", { ou } };
	m[2] = (LDAPMod){ LDAP_MOD_ADD, "objectClass", { oc_acc } };
	m[3] = (LDAPMod){ LDAP_MOD_ADD, cell ? "cn" : "uid", { uidv } };
	mods[0][0] = &m[0], mods[0][1] = &m[1], mods[0][2] = NULL;
	mods[1][0] = &m[2], mods[1][1] = &m[3], mods[1][2] = NULL;
	/* each on its own: a parent that exists already is fine */
	for (i = 0; i < 2; i++) {
		r = ldap_add_ext_s(ld, dns[i], mods[i], NULL, NULL);
		if (r != LDAP_SUCCESS && r != LDAP_ALREADY_EXISTS) {
			rc = ldapc_fail(e, r, dns[i]);
			break;
		}
	}
done:
	free(adn);
	free(root);
	return rc;
}

/* Creates the usage entry (and its parents) with zero counters. */
static int
ensure_usage(LDAP *ld, const struct cfg *c, const struct target *t,
    const char *uid, const char *period, struct err *e)
{
	char *oc_u[] = { "privUsage", NULL }, *cn[] = { (char *)t->name, NULL };
	char *zero[] = { "0", NULL }, *per[] = { (char *)period, NULL };
	LDAPMod m[6], *mods[7];
	int i, r;

	if (quota_ensure_account(ld, c, uid, e) != 0)
		return -1;
	m[0] = (LDAPMod){ LDAP_MOD_ADD, "objectClass", { oc_u } };
	m[1] = (LDAPMod){ LDAP_MOD_ADD, "cn", { cn } };
	m[2] = (LDAPMod){ LDAP_MOD_ADD, "privUsed", { zero } };
	m[3] = (LDAPMod){ LDAP_MOD_ADD, "privCredit", { zero } };
	m[4] = (LDAPMod){ LDAP_MOD_ADD, "privHeld", { zero } };
	m[5] = (LDAPMod){ LDAP_MOD_ADD, "privPeriod", { per } };
	for (i = 0; i < 6; i++)
		mods[i] = &m[i];
	mods[6] = NULL;
	r = ldap_add_ext_s(ld, t->udn, mods, NULL, NULL);
	if (r != LDAP_SUCCESS && r != LDAP_ALREADY_EXISTS)
		return ldapc_fail(e, r, t->udn);
	return 0;
}

static int __attribute__((format(printf, 6, 7)))
refuse(struct quota_res *r, struct err *e, enum err_code code, const char *why,
    const char *field, const char *fmt, ...)
{
	va_list ap;

	r->why = why;
	e->code = code;
	e->line = 0;
	snprintf(e->key, sizeof(e->key), "%s", field ? field : "");
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -1;
}

static int
exceeded(const struct quota_req *q, struct quota_res *r, struct err *e,
    long long amount)
{
	return refuse(r, e, ERR_CONFLICT, "quota_exceeded", "amount",
	    "%s of %s: %lld asked, %lld remaining of %lld in %s", q->quota, q->uid,
	    amount, usage_remaining(q->limit, &r->u), q->limit + r->u.credit, r->period);
}

/*
 * Where hold rid (its ledger entry j) stands, for a replay: a print system
 * that retries a job learns whether its hold is still there to use.
 */
static void
hold_state(const struct ustate *st, const char *rid, json_t *j, struct quota_res *r)
{
	const char *exp = json_string_value(json_object_get(j, "expires")), *k;
	json_t *s;
	long long n;
	char *whole;

	if (exp != NULL)
		snprintf(r->expires, sizeof(r->expires), "%s", exp);
	if (find_value(st->holds, rid, &n, NULL, 0, &whole) == 0) {
		r->state = "open";
		return;
	}
	s = find_entry(st, rid, "commit|release|expire");
	k = s ? json_string_value(json_object_get(s, "kind")) : NULL;
	r->state = k == NULL ? "released" : strcmp(k, "commit") == 0 ? "committed" :
	    strcmp(k, "expire") == 0 ? "expired" : "released";
	json_decref(s);
}

/*
 * Whether request rid was seen before: 1 a replay (r filled), 0 not seen,
 * -1 a reused id (refused) or an error.
 */
static int
replay(const struct quota_req *q, const struct ustate *st, const char *rid,
    const char *kind, long long requested, const char *ref, struct quota_res *r,
    struct err *e)
{
	json_t *j = find_entry(st, rid, "charge|hold|refund|credit");
	const char *k, *jref;
	int same;

	if (j == NULL)
		return 0;
	k = json_string_value(json_object_get(j, "kind"));
	jref = json_string_value(json_object_get(j, "ref"));
	same = k && strcmp(k, kind) == 0 && jnum(j, "requested") == requested &&
	    (ref == NULL || (jref && strcmp(jref, ref) == 0));
	if (same) {
		r->replayed = 1;
		r->amount = jnum(j, "amount");
		r->u = st->u;
		if (strcmp(kind, "hold") == 0)
			hold_state(st, rid, j, r);
		json_decref(j);
		return 1;
	}
	refuse(r, e, ERR_CONFLICT, "request_id_reused", "request_id",
	    "request id '%s' was used before for another %s%s of %s@%s", rid,
	    k ? k : "request", k && strcmp(k, kind) == 0 ? " (a different amount)" : "",
	    q->quota, r->period);
	json_decref(j);
	return -1;
}

/* Charges and holds: raise privUsed (and privHeld) within the limit. */
static int
take(LDAP *ld, const struct quota_req *q, const char *rid, long long amount,
    int partial, long ttl_s, const char *metadata, struct quota_res *r,
    struct err *e)
{
	const char *kind = ttl_s > 0 ? "hold" : "charge";
	struct target t = { NULL, "", "" };
	struct ustate st = { 0, { 0, 0, 0, 0, "" }, NULL, NULL, NULL };
	struct wop o;
	char *rec = NULL, *segs = NULL, exp_gt[32] = "";
	int attempt, rc, ret = -1;
	long long credit, nseg, n = amount, away = 0;

	memset(&o, 0, sizeof(o));
	if (period_key(q->cfg, q->kind, q->now, r->period, e) != 0)
		return refuse(r, e, ERR_CONFLICT, "no_period", "period", "%s", e->msg);
	if (target_for(q, r->period, &t, e) != 0)
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
		refuse(r, e, ERR_UNAVAILABLE, NULL, NULL, "the home provider of %s is unreachable "
		    "and this privd let the %lld of ldap.away_allowance through elsewhere "
		    "already", t.key, q->cfg->away_allowance);
		goto done;
	}
	usage_get(t.key, &st.u);
	credit = st.u.credit;
	nseg = st.u.segments;
	for (attempt = 0; attempt < TRIES; attempt++) {
		wop_free(&o);
		free(rec);
		free(segs);
		rec = segs = NULL;
		/* an id that moved into a segment is a replay; the write below
		 * asserts the segments are still those looked at */
		if ((rc = moved_out(ld, q->cfg, t.udn, nseg, rid, e)) < 0)
			goto done;
		if (rc == 1)
			goto replayed;
		if (partial) {
			if (read_state(ld, q->cfg, t.udn, t.key, 0, &st, e) != 0)
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
		rec = ttl_s > 0 ?
		    lentry_format(kind, rid, n, q->actor, q->account, q->now, metadata,
		    "Is", "requested", amount, "expires", r->expires) :
		    lentry_format(kind, rid, n, q->actor, q->account, q->now, metadata,
		    "I", "requested", amount);
		if (rec == NULL || (segs = arch_assert(nseg)) == NULL ||
		    wop_swap(&o, "privUsed", st.u.used, st.u.used + n) != 0 ||
		    (ttl_s > 0 && wop_swap(&o, "privHeld", st.u.held, st.u.held + n) != 0) ||
		    wop_mod(&o, LDAP_MOD_ADD, "privRequest", "%s", rid) != 0 ||
		    wop_mod(&o, LDAP_MOD_ADD, "privEntry", "%s", rec) != 0 ||
		    (ttl_s > 0 && wop_mod(&o, LDAP_MOD_ADD, "privHold", "%s %lld %s", rid, n,
		    exp_gt) != 0) ||
		    asprintf(&o.assert, "(&(privUsed<=%lld)(privCredit=%lld)%s)",
		    q->limit + credit - n, credit, segs) < 0) {
			o.assert = NULL;
			err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
			goto done;
		}
		rc = wop_run(ld, &o);
		switch (rc) {
		case LDAP_SUCCESS:
			r->amount = n;
			r->state = ttl_s > 0 ? "open" : NULL;
			ret = 0;
			if (read_state(ld, q->cfg, t.udn, t.key, 0, &st, e) != 0) {
				/* it landed: the sync stream brings the counters */
				log_warn("quota: %s landed, reading it back failed: %s", t.key, e->msg);
				memset(e, 0, sizeof(*e));
				usage_get(t.key, &st.u);
			}
			r->u = st.u;
			maybe_move(ld, q, t.udn, t.key);
			goto done;
		case LDAP_TYPE_OR_VALUE_EXISTS:
			/* the request id is there already */
			goto replayed;
		case LDAP_NO_SUCH_ATTRIBUTE:
			/* a counter moved since it was read (another privd):
			 * read it again */
			if (read_state(ld, q->cfg, t.udn, t.key, 0, &st, e) != 0)
				goto done;
			credit = st.u.credit;
			nseg = st.u.segments;
			continue;
		case LDAP_NO_SUCH_OBJECT:
			/* first use of this quota in this period */
			if (ensure_usage(ld, q->cfg, &t, q->uid, r->period, e) != 0)
				goto done;
			continue;
		case LDAP_ASSERTION_FAILED:
			if (read_state(ld, q->cfg, t.udn, t.key, 0, &st, e) != 0)
				goto done;
			if (st.u.credit != credit || st.u.segments != nseg) {
				/* an administrator credited, or entries moved: again */
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
	err_set(e, ERR_UNAVAILABLE, 0, NULL, "%s: gave up after %d attempts under contention",
	    kind, TRIES);
	goto done;
replayed:
	if (load(ld, q->cfg, t.udn, t.key, rid, NULL, &st, e) != 0)
		goto done;
	rc = replay(q, &st, rid, kind, amount, NULL, r, e);
	ret = rc == 1 ? 0 : -1;
	if (rc == 0)
		err_set(e, ERR_INTERNAL, 0, NULL, "%s: request id '%s' is recorded "
		    "without its ledger entry", t.key, rid);
	goto done;
refused:
	/* the assertion is checked before the request id: a replay may land here */
	if (load(ld, q->cfg, t.udn, t.key, rid, NULL, &st, e) != 0)
		goto done;
	if ((rc = replay(q, &st, rid, kind, amount, NULL, r, e)) != 0) {
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
		mend_note(q->uid, t.udn);
	keylock_give(t.key);
	wop_free(&o);
	free(rec);
	free(segs);
	ustate_free(&st);
	free(t.udn);
	return ret;
}

int
quota_charge(LDAP *ld, const struct quota_req *q, const char *rid,
    long long amount, int partial, const char *metadata, struct quota_res *r,
    struct err *e)
{
	memset(r, 0, sizeof(*r));
	return take(ld, q, rid, amount, partial, 0, metadata, r, e);
}

int
quota_seen(LDAP *ld, const struct quota_req *q, const char *rid, int hold,
    long long amount, struct quota_res *r, struct err *e)
{
	struct target t = { NULL, "", "" };
	struct ustate st = { 0, { 0, 0, 0, 0, "" }, NULL, NULL, NULL };
	int rc = -1;

	memset(r, 0, sizeof(*r));
	if (period_key(q->cfg, q->kind, q->now, r->period, e) != 0)
		return refuse(r, e, ERR_CONFLICT, "no_period", "period", "%s", e->msg);
	if (target_for(q, r->period, &t, e) != 0)
		return -1;
	if (load(ld, q->cfg, t.udn, t.key, rid, NULL, &st, e) == 0)
		rc = st.exists ? replay(q, &st, rid, hold ? "hold" : "charge", amount, NULL, r, e) : 0;
	ustate_free(&st);
	free(t.udn);
	return rc;
}

int
quota_hold(LDAP *ld, const struct quota_req *q, const char *rid,
    long long amount, long ttl_s, const char *metadata, struct quota_res *r,
    struct err *e)
{
	memset(r, 0, sizeof(*r));
	return take(ld, q, rid, amount, 0, ttl_s, metadata, r, e);
}

/*
 * Finds the usage entry that holds request id (a charge or hold) for q's
 * account and quota: the current period first, then any period. Fills t,
 * r->period and st (full); 1 when there is none.
 */
static int
find(LDAP *ld, const struct quota_req *q, const char *id, const char *id2,
    const char *kind, struct quota_res *r, struct target *t, struct ustate *st,
    struct err *e)
{
	static char *attrs[] = { "1.1", NULL };
	char uid[DN_VAL_MAX], name[DN_VAL_MAX], filter[512];
	struct berval in, out = { 0, NULL };
	LDAPMessage *res = NULL, *m;
	char *root = NULL, *adn = NULL, *dn;
	size_t ql = strlen(q->quota);
	json_t *j;
	int rc;

	if (period_key(q->cfg, q->kind, q->now, r->period, NULL) == 0) {
		if (target_for(q, r->period, t, e) != 0)
			return -1;
		if (load(ld, q->cfg, t->udn, t->key, id, id2, st, e) != 0)
			return -1;
		if ((j = find_entry(st, id, kind)) != NULL) {
			json_decref(j);
			return 0;
		}
		free(t->udn);
		t->udn = NULL;
	}
	in.bv_val = (char *)id;
	in.bv_len = strlen(id);
	if (ldap_bv2escaped_filter_value(&in, &out) != 0)
		return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
	snprintf(filter, sizeof(filter), "(&(|(objectClass=privUsage)"
	    "(objectClass=privLedgerSegment))(privRequest=%s))", out.bv_val);
	ber_memfree(out.bv_val);
	if ((root = usage_root(q->cfg)) == NULL || (adn = holder_dn(q->uid, root)) == NULL) {
		rc = err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
		goto done;
	}
	/* the usage entries, and the segments below them */
	if ((rc = ldapc_search(ld, q->cfg, adn, LDAP_SCOPE_SUBTREE, filter, attrs, 0,
	    &res, e)) != 0)
		goto done;
	rc = 1;
	for (m = ldap_first_entry(ld, res); m && rc == 1; m = ldap_next_entry(ld, m)) {
		char *seg;

		if ((dn = ldap_get_dn(ld, m)) == NULL)
			continue;
		if (arch_parent(dn, &seg) == 0) {
			ldap_memfree(dn);
			dn = seg;	/* from here on: free(), not ldap_memfree() */
		} else {
			seg = strdup(dn);
			ldap_memfree(dn);
			if ((dn = seg) == NULL)
				continue;
		}
		if (dn_usage(dn, root, uid, name) == 0 &&
		    strncmp(name, q->quota, ql) == 0 && name[ql] == '@' &&
		    strlen(name + ql + 1) < PERIOD_KEY_MAX) {
			snprintf(r->period, PERIOD_KEY_MAX, "%s", name + ql + 1);
			if (target_for(q, r->period, t, e) != 0 ||
			    load(ld, q->cfg, t->udn, t->key, id, id2, st, e) != 0)
				rc = -1;
			else if ((j = find_entry(st, id, kind)) != NULL) {
				json_decref(j);
				rc = 0;
			} else {
				free(t->udn);
				t->udn = NULL;
			}
		}
		free(dn);
	}
done:
	ldap_msgfree(res);
	free(adn);
	free(root);
	return rc;
}

int
quota_refund(LDAP *ld, const struct quota_req *q, const char *rid,
    const char *charge_id, long long amount, struct quota_res *r, struct err *e)
{
	struct target t = { NULL, "", "" };
	struct ustate st = { 0, { 0, 0, 0, 0, "" }, NULL, NULL, NULL };
	struct berval in, esc = { 0, NULL };
	struct wop o;
	char *rec = NULL, *old = NULL, *segs = NULL;
	long long charged, refunded;
	json_t *j;
	int attempt, rc, ret = -1, first, locked = 0;

	memset(r, 0, sizeof(*r));
	memset(&o, 0, sizeof(o));
	if ((rc = find(ld, q, charge_id, rid, "charge", r, &t, &st, e)) != 0) {
		if (rc == 1)
			refuse(r, e, ERR_NOT_FOUND, "unknown_charge", "charge_id",
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
	for (attempt = 0; attempt < TRIES; attempt++) {
		if ((rc = replay(q, &st, rid, "refund", amount, charge_id, r, e)) != 0) {
			ret = rc == 1 ? 0 : -1;
			goto done;
		}
		if ((j = find_entry(&st, charge_id, "charge")) == NULL) {
			err_set(e, ERR_INTERNAL, 0, NULL, "%s: charge '%s' is no longer in its ledger",
			    t.key, charge_id);
			goto done;
		}
		/* a charge has a refund state once something of it is refunded */
		first = find_value(st.refunds, charge_id, &refunded, NULL, 0, &old) != 0;
		if (first)
			refunded = 0;
		charged = jnum(j, "amount");
		json_decref(j);
		r->refundable = charged - refunded;
		if (amount > r->refundable) {
			refuse(r, e, ERR_CONFLICT, "refund_exceeds_charge", "amount",
			    "charge '%s' took %lld and %lld of it is refunded: at most %lld "
			    "can be refunded", charge_id, charged, refunded, r->refundable);
			goto done;
		}
		wop_free(&o);
		free(rec);
		free(segs);
		o.dn = t.udn;
		rec = lentry_format("refund", rid, amount, q->actor, q->account, q->now, NULL, "Is",
		    "requested", amount, "ref", charge_id);
		/* the first refund asserts there is no state yet: two first
		 * refunds at once cannot both start from zero */
		if (rec == NULL || (segs = arch_assert(st.u.segments)) == NULL ||
		    wop_swap(&o, "privUsed", st.u.used, st.u.used - amount) != 0 ||
		    wop_mod(&o, LDAP_MOD_ADD, "privRequest", "%s", rid) != 0 ||
		    wop_mod(&o, LDAP_MOD_ADD, "privEntry", "%s", rec) != 0 ||
		    (!first && wop_mod(&o, LDAP_MOD_DELETE, "privRefund", "%s", old) != 0) ||
		    wop_mod(&o, LDAP_MOD_ADD, "privRefund", "%s %lld", charge_id,
		    refunded + amount) != 0 ||
		    (first ? asprintf(&o.assert, "(&%s(!(privRefund=%s *)))", segs, esc.bv_val) :
		    asprintf(&o.assert, "%s", segs)) < 0) {
			o.assert = NULL;
			err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
			goto done;
		}
		rc = wop_run(ld, &o);
		if (rc == LDAP_SUCCESS) {
			r->amount = amount;
			r->refundable -= amount;
			read_state(ld, q->cfg, t.udn, t.key, 0, &st, e);
			memset(e, 0, sizeof(*e));	/* it landed; a failed read-back is no error */
			ret = 0;
			r->u = st.u;
			maybe_move(ld, q, t.udn, t.key);
			goto done;
		}
		if (rc != LDAP_TYPE_OR_VALUE_EXISTS && rc != LDAP_NO_SUCH_ATTRIBUTE &&
		    rc != LDAP_ASSERTION_FAILED) {
			ldapc_fail(e, rc, "refund");
			goto done;
		}
		/* a replay, another refund of this charge came first, or entries
		 * moved: look again */
		if (load(ld, q->cfg, t.udn, t.key, charge_id, rid, &st, e) != 0)
			goto done;
	}
	err_set(e, ERR_UNAVAILABLE, 0, NULL, "refund: gave up after %d attempts under contention",
	    TRIES);
done:
	if (locked)
		keylock_give(t.key);
	ber_memfree(esc.bv_val);
	wop_free(&o);
	free(rec);
	free(segs);
	ustate_free(&st);
	free(t.udn);
	return ret;
}

/* "YYYYMMDDHHMMSSZ" of now, to compare with a hold's expiry. */
static void
now_gt(time_t now, char out[32])
{
	lentry_time(now, out);
	memcpy(out + 14, "Z", 2);
}

/* A hold that is no longer open: a replay of its commit or release, or a refusal. */
static int
settled(const struct quota_req *q, const struct ustate *st, const char *id,
    const char *kind, long long amount, struct quota_res *r, struct err *e)
{
	json_t *j = find_entry(st, id, "commit|release|expire");
	const char *k = j ? json_string_value(json_object_get(j, "kind")) : NULL;
	int ret;

	(void)q;
	if (k && strcmp(k, kind) == 0 && (strcmp(kind, "commit") != 0 ||
	    jnum(j, "amount") == amount)) {
		r->replayed = 1;
		r->amount = jnum(j, "amount");
		r->released = jnum(j, "released");
		r->u = st->u;
		ret = 0;
	} else if (k && strcmp(k, "expire") == 0)
		ret = refuse(r, e, ERR_CONFLICT, "hold_expired", "id",
		    "hold '%s' expired and was released", id);
	else
		ret = refuse(r, e, ERR_CONFLICT, "hold_settled", "id", "hold '%s' was already %s",
		    id, k == NULL ? "settled" : strcmp(k, "commit") == 0 ? "committed" : "released");
	json_decref(j);
	return ret;
}

/*
 * Settles hold id, held h, as kind (commit of amount, release, expire):
 * removing its privHold value is what makes this happen once. The LDAP
 * result code.
 */
static int
settle(LDAP *ld, const char *udn, const struct usage_val *u, const char *id,
    const char *holdval, const char *kind, long long h, long long amount,
    const char *actor, const char *account, time_t now, const char *metadata)
{
	struct wop o;
	char *rec = lentry_format(kind, id, amount, actor, account, now, metadata, "I", "released",
	    h - amount);
	int rc = LDAP_NO_MEMORY;

	memset(&o, 0, sizeof(o));
	o.dn = udn;
	if (rec != NULL &&
	    wop_mod(&o, LDAP_MOD_DELETE, "privHold", "%s", holdval) == 0 &&
	    wop_mod(&o, LDAP_MOD_ADD, "privEntry", "%s", rec) == 0 &&
	    wop_swap(&o, "privHeld", u->held, u->held - h) == 0 &&
	    wop_swap(&o, "privUsed", u->used, u->used + amount - h) == 0)
		rc = wop_run(ld, &o);
	wop_free(&o);
	free(rec);
	return rc;
}

/* The metadata of hold id as JSON text (malloc'd), for its commit or release
 * to carry: a ledger reader then sees what each settled amount was for. */
static char *
hold_metadata(const struct ustate *st, const char *id)
{
	json_t *j = find_entry(st, id, "hold"), *m = json_object_get(j, "metadata");
	char *s = m ? json_dumps(m, JSON_COMPACT | JSON_SORT_KEYS) : NULL;

	json_decref(j);
	return s;
}

int
quota_settle(LDAP *ld, const struct quota_req *q, const char *id, int release,
    long long amount, struct quota_res *r, struct err *e)
{
	const char *kind = release ? "release" : "commit";
	struct target t = { NULL, "", "" };
	struct ustate st = { 0, { 0, 0, 0, 0, "" }, NULL, NULL, NULL };
	char exp[32], now[32], *val, *meta = NULL;
	long long h;
	int attempt, rc, ret = -1, locked = 0;

	memset(r, 0, sizeof(*r));
	if (release)
		amount = 0;
	if ((rc = find(ld, q, id, NULL, "hold", r, &t, &st, e)) != 0) {
		if (rc == 1)
			refuse(r, e, ERR_NOT_FOUND, "unknown_hold", "id",
			    "%s of %s has no hold '%s'", q->quota, q->uid, id);
		goto done;
	}
	now_gt(q->now, now);
	keylock_take(t.key);
	locked = 1;
	for (attempt = 0; attempt < TRIES; attempt++) {
		if (find_value(st.holds, id, &h, exp, sizeof(exp), &val) != 0) {
			ret = settled(q, &st, id, kind, amount, r, e);
			goto done;
		}
		if (amount > h) {
			refuse(r, e, ERR_INVALID, "bad_request", "amount",
			    "amount %lld is more than the %lld held by '%s'", amount, h, id);
			goto done;
		}
		if (strcmp(exp, now) <= 0) {
			/* past its TTL: release it now rather than wait for the reaper */
			rc = settle(ld, t.udn, &st.u, id, val, "expire", h, 0, "privd", NULL,
			    q->now, NULL);
			if (rc == LDAP_SUCCESS) {
				read_state(ld, q->cfg, t.udn, t.key, 0, &st, e);
				refuse(r, e, ERR_CONFLICT, "hold_expired", "id",
				    "hold '%s' expired and was released", id);
				goto done;
			}
			if (rc != LDAP_NO_SUCH_ATTRIBUTE) {
				ldapc_fail(e, rc, "expire hold");
				goto done;
			}
			/* expired by another, or a counter moved: look again */
			if (load(ld, q->cfg, t.udn, t.key, id, NULL, &st, e) != 0)
				goto done;
			continue;
		}
		free(meta);
		meta = hold_metadata(&st, id);
		rc = settle(ld, t.udn, &st.u, id, val, kind, h, amount, q->actor, q->account,
		    q->now, meta);
		if (rc == LDAP_SUCCESS) {
			r->amount = amount;
			r->released = h - amount;
			read_state(ld, q->cfg, t.udn, t.key, 0, &st, e);
			memset(e, 0, sizeof(*e));
			r->u = st.u;
			ret = 0;
			maybe_move(ld, q, t.udn, t.key);
			goto done;
		}
		if (rc != LDAP_NO_SUCH_ATTRIBUTE) {
			ldapc_fail(e, rc, kind);
			goto done;
		}
		/* settled by someone else, or a counter moved: look again */
		if (load(ld, q->cfg, t.udn, t.key, id, NULL, &st, e) != 0)
			goto done;
	}
	err_set(e, ERR_UNAVAILABLE, 0, NULL, "%s: gave up after %d attempts", kind, TRIES);
done:
	if (locked)
		keylock_give(t.key);
	free(meta);
	ustate_free(&st);
	free(t.udn);
	return ret;
}

int
quota_credit(LDAP *ld, const struct quota_req *q, const char *rid,
    long long amount, const char *reason, const char *period,
    struct quota_res *r, struct err *e)
{
	struct target t = { NULL, "", "" };
	struct ustate st = { 0, { 0, 0, 0, 0, "" }, NULL, NULL, NULL };
	struct wop o;
	char *meta = NULL, *rec = NULL;
	int attempt, rc, ret = -1, locked = 0;
	long long nseg;

	memset(r, 0, sizeof(*r));
	memset(&o, 0, sizeof(o));
	if (period != NULL)
		snprintf(r->period, sizeof(r->period), "%s", period);
	else if (period_key(q->cfg, q->kind, q->now, r->period, e) != 0)
		return refuse(r, e, ERR_CONFLICT, "no_period", "period", "%s", e->msg);
	if (target_for(q, r->period, &t, e) != 0)
		return -1;
	if (reason != NULL) {
		json_t *j = json_pack("{s:s}", "reason", reason);

		meta = j ? json_dumps(j, JSON_COMPACT) : NULL;
		json_decref(j);
	}
	keylock_take(t.key);
	locked = 1;
	usage_get(t.key, &st.u);
	nseg = st.u.segments;
	for (attempt = 0; attempt < TRIES; attempt++) {
		wop_free(&o);
		free(rec);
		if ((rc = moved_out(ld, q->cfg, t.udn, nseg, rid, e)) < 0)
			goto done;
		if (rc == 1)
			goto replayed;
		o.dn = t.udn;
		rec = lentry_format("credit", rid, amount, q->actor, NULL, q->now, meta, "I",
		    "requested", amount);
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
			read_state(ld, q->cfg, t.udn, t.key, 0, &st, e);
			memset(e, 0, sizeof(*e));
			r->u = st.u;
			ret = 0;
			maybe_move(ld, q, t.udn, t.key);
			goto done;
		}
		if (rc == LDAP_TYPE_OR_VALUE_EXISTS)
			goto replayed;
		if (rc == LDAP_ASSERTION_FAILED || rc == LDAP_NO_SUCH_ATTRIBUTE) {
			/* entries moved since (look in the segments again), or
			 * the credit did */
			if (read_state(ld, q->cfg, t.udn, t.key, 0, &st, e) != 0)
				goto done;
			nseg = st.u.segments;
			continue;
		}
		if (rc != LDAP_NO_SUCH_OBJECT) {
			ldapc_fail(e, rc, "credit");
			goto done;
		}
		if (ensure_usage(ld, q->cfg, &t, q->uid, r->period, e) != 0)
			goto done;
	}
	err_set(e, ERR_UNAVAILABLE, 0, NULL, "credit: gave up after %d attempts", TRIES);
	goto done;
replayed:
	if (load(ld, q->cfg, t.udn, t.key, rid, NULL, &st, e) == 0 &&
	    (rc = replay(q, &st, rid, "credit", amount, NULL, r, e)) != 0)
		ret = rc == 1 ? 0 : -1;
	else if (e->code == ERR_NONE)
		err_set(e, ERR_INTERNAL, 0, NULL, "%s: request id '%s' is recorded "
		    "without its ledger entry", t.key, rid);
done:
	if (locked)
		keylock_give(t.key);
	wop_free(&o);
	free(rec);
	free(meta);
	ustate_free(&st);
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
	char *root = usage_root(c), *dn, **holds;
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
			struct ustate st = { 0, { 0, 0, 0, 0, "" }, NULL, NULL, NULL };
			struct err he;
			LDAP *w = ld;

			if (sscanf(holds[i], "%128s %lld %31s", hid, &h, exp) != 3 ||
			    strcmp(exp, gt) > 0)
				continue;
			/* with several providers, through the account's home one,
			 * where its commit would go: the two cannot then both land */
			memset(&he, 0, sizeof(he));
			if (!ldpool_is_home(ld, uid) && ldpool_get_home(uid, &w, &he) != 0) {
				log_warn("quota: expired hold %s of %s waits: %s", hid, dn, he.msg);
				continue;
			}
			snprintf(key, sizeof(key), "%s/%s", uid, name);
			keylock_take(key);
			/* the counters as they are now: the swap asserts them */
			rc = read_state(w, c, dn, key, 0, &st, &he) != 0 ? LDAP_OTHER :
			    settle(w, dn, &st.u, hid, holds[i], "expire", h, 0, "privd", NULL, now,
			    NULL);
			if (rc == LDAP_SUCCESS) {
				n++;
				log_info("quota: hold %s of %s expired: released %lld", hid, key, h);
				read_state(w, c, dn, key, 0, &st, e);
			}
			keylock_give(key);
			ustate_free(&st);
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

