/*
 * uentry.c - a quota's usage entry as a write sees it (uentry.h): read
 * with its ledger segments, found by request id, created when missing.
 */
#include <stdarg.h>
#include <stdatomic.h>
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
#include "qwrite.h"
#include "skew.h"
#include "uentry.h"
#include "strv.h"
#include "wop.h"


char *
uent_root(const struct cfg *c)
{
	return dn_join("ou=usage", c->base_dn);
}

/* The entry that holds uid's usage entries: uid=UID, or for a pool's
 * holder "pool:CELL" cn=CELL (pool.h). */
char *
uent_holder_dn(const char *uid, const char *root)
{
	const char *cell = holder_cell(uid);

	return cell ? dn_child("cn", cell, root) : dn_child("uid", uid, root);
}

void
uent_free(struct uent_state *st)
{
	strv_free(st->entries);
	strv_free(st->holds);
	strv_free(st->refunds);
	memset(st, 0, sizeof(*st));
}

/* the counters: what a write's answer must say of its entry */
static char *brief[] = { "privUsed", "privCredit", "privHeld", "privSegments",
    "entryCSN", NULL };

/*
 * Reads the usage entry at dn (full: its state values too) and records the
 * counters in the usage table under key. 0 (st->exists 0 when there is no
 * entry), or -1 and e.
 */
int
uent_read(LDAP *ld, const struct cfg *c, const char *dn, const char *key,
    int full, struct uent_state *st, struct err *e)
{
	static char *all[] = { "privUsed", "privCredit", "privHeld", "privSegments",
	    "entryCSN", "privEntry", "privHold", "privRefund", NULL };
	LDAPMessage *res = NULL, *m;
	int rc;

	uent_free(st);
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
			uent_free(st);
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
int
uent_load(LDAP *ld, const struct cfg *c, const char *dn, const char *key, const char *id,
    const char *id2, struct uent_state *st, struct err *e)
{
	if (uent_read(ld, c, dn, key, 1, st, e) != 0)
		return -1;
	if (st->exists && (arch_load(ld, c, dn, st->u.segments, id, &st->entries, e) < 0 ||
	    (id2 && arch_load(ld, c, dn, st->u.segments, id2, &st->entries, e) < 0)))
		return -1;
	return 0;
}

/* Whether request id moved out into a committed segment of udn (of the
 * first nseg): 1 yes, 0 no, -1 and e. */
int
uent_moved_out(LDAP *ld, const struct cfg *c, const char *udn, long long nseg,
    const char *id, struct err *e)
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
void
uent_move(LDAP *ld, const struct quota_req *q, const char *dn, const char *key)
{
	struct uent_state st = { 0, { 0, 0, 0, 0, "" }, NULL, NULL, NULL };
	struct err e;
	int n;

	if (!arch_due(dn) || !q->home)
		return;
	memset(&e, 0, sizeof(e));
	if ((n = arch_move(ld, q->cfg, dn, ARCH_HIGH, &e)) < 0)
		log_warn("quota: moving settled ledger entries of %s: %s", key, e.msg);
	else if (n > 0)
		uent_read(ld, q->cfg, dn, key, 0, &st, &e);
	uent_free(&st);
}

/* The ledger entry of st with this id and one of kinds ("charge|hold"); a
 * new reference the caller decrefs, or NULL. */
json_t *
uent_find_entry(const struct uent_state *st, const char *id, const char *kinds)
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

long long
uent_jnum(json_t *j, const char *k)
{
	return json_integer_value(json_object_get(j, k));
}

/* A state value "ID N[ REST]" for id: its N (and copies the value). */
int
uent_find_value(char *const *v, const char *id, long long *n, char *rest, size_t nrest,
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

int
uent_period(const struct quota_req *q, char out[PERIOD_KEY_MAX], struct err *e)
{
	if (q->paid) {
		snprintf(out, PERIOD_KEY_MAX, "%s", QUOTA_PAID_PERIOD);
		return 0;
	}
	return period_key(q->cfg, q->kind, q->now, out, e);
}

int
uent_target_of(const struct quota_req *q, const char *period, struct uent_target *t,
    struct err *e)
{
	snprintf(t->name, sizeof(t->name), "%s@%s", q->quota, period);
	usage_key(t->key, q->uid, q->quota, period);
	if ((t->udn = uent_usage_dn(q->cfg, q->uid, q->quota, period)) == NULL)
		return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
	return 0;
}

/* Creates the usage entry (and its parents) with zero counters. */
int
uent_ensure(LDAP *ld, const struct cfg *c, const struct uent_target *t,
    const char *uid, const char *period, struct err *e)
{
	char *oc_u[] = { "privUsage", NULL }, *cn[] = { (char *)t->name, NULL };
	char *zero[] = { "0", NULL }, *per[] = { (char *)period, NULL };
	LDAPMod m[6], *mods[7];
	int i, r;

	if (uent_ensure_account(ld, c, uid, e) != 0)
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
	wop_doubt(ld, t->udn, r);
	if (r != LDAP_SUCCESS && r != LDAP_ALREADY_EXISTS)
		return ldapc_fail(e, r, t->udn);
	return 0;
}

int __attribute__((format(printf, 6, 7)))
uent_refuse(struct quota_res *r, struct err *e, enum err_code code, enum quota_why why,
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

/*
 * Where hold rid (its ledger entry j) stands, for a replay: a print system
 * that retries a job learns whether its hold is still there to use.
 */
static void
hold_state(const struct uent_state *st, const char *rid, json_t *j, struct quota_res *r)
{
	const char *exp = json_string_value(json_object_get(j, "expires")), *k;
	json_t *s;
	long long n;
	char *whole;

	if (exp != NULL)
		snprintf(r->expires, sizeof(r->expires), "%s", exp);
	if (uent_find_value(st->holds, rid, &n, NULL, 0, &whole) == 0) {
		r->state = "open";
		return;
	}
	s = uent_find_entry(st, rid, "commit|release|expire");
	k = s ? json_string_value(json_object_get(s, "kind")) : NULL;
	r->state = k == NULL ? "released" : strcmp(k, "commit") == 0 ? "committed" :
	    strcmp(k, "expire") == 0 ? "expired" : "released";
	json_decref(s);
}

/*
 * Whether request rid was seen before: 1 a replay (r filled), 0 not seen,
 * -1 a reused id (refused) or an error.
 */
int
uent_replay(const struct quota_req *q, const struct uent_state *st, const char *rid,
    const char *kind, long long requested, const char *ref, struct quota_res *r,
    struct err *e)
{
	json_t *j = uent_find_entry(st, rid, "charge|hold|refund|credit|topup|reversal");
	const char *k, *jref;
	int same;

	if (j == NULL)
		return 0;
	k = json_string_value(json_object_get(j, "kind"));
	jref = json_string_value(json_object_get(j, "ref"));
	same = k && strcmp(k, kind) == 0 && uent_jnum(j, "requested") == requested &&
	    (ref == NULL || (jref && strcmp(jref, ref) == 0));
	if (same) {
		r->replayed = 1;
		r->amount = uent_jnum(j, "amount");
		r->paid = uent_jnum(j, "paid");
		r->split = json_object_get(j, "paid") != NULL;
		r->u = st->u;
		if (strcmp(kind, "hold") == 0)
			hold_state(st, rid, j, r);
		json_decref(j);
		return 1;
	}
	uent_refuse(r, e, ERR_CONFLICT, QUOTA_ID_REUSED, "request_id",
	    "request id '%s' was used before for another %s%s of %s@%s", rid,
	    k ? k : "request", k && strcmp(k, kind) == 0 ? " (a different amount)" : "",
	    q->quota, r->period);
	json_decref(j);
	return -1;
}

/*
 * Finds the usage entry that holds request id (a charge or hold) for q's
 * account and quota: the current period first, then any period. Fills t,
 * r->period and st (full); 1 when there is none.
 */
int
uent_find(LDAP *ld, const struct quota_req *q, const char *id, const char *id2,
    const char *kind, struct quota_res *r, struct uent_target *t, struct uent_state *st,
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

	if (uent_period(q, r->period, NULL) == 0) {
		if (uent_target_of(q, r->period, t, e) != 0)
			return -1;
		if (uent_load(ld, q->cfg, t->udn, t->key, id, id2, st, e) != 0)
			return -1;
		if ((j = uent_find_entry(st, id, kind)) != NULL) {
			json_decref(j);
			return 0;
		}
		free(t->udn);
		t->udn = NULL;
		if (q->paid)
			return 1;	/* one paid wallet, whatever the period */
	}
	in.bv_val = (char *)id;
	in.bv_len = strlen(id);
	if (ldap_bv2escaped_filter_value(&in, &out) != 0)
		return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
	snprintf(filter, sizeof(filter), "(&(|(objectClass=privUsage)"
	    "(objectClass=privLedgerSegment))(privRequest=%s))", out.bv_val);
	ber_memfree(out.bv_val);
	if ((root = uent_root(q->cfg)) == NULL || (adn = uent_holder_dn(q->uid, root)) == NULL) {
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
		    strlen(name + ql + 1) < PERIOD_KEY_MAX &&
		    strcmp(name + ql + 1, QUOTA_PAID_PERIOD) != 0) {
			snprintf(r->period, PERIOD_KEY_MAX, "%s", name + ql + 1);
			if (uent_target_of(q, r->period, t, e) != 0 ||
			    uent_load(ld, q->cfg, t->udn, t->key, id, id2, st, e) != 0)
				rc = -1;
			else if ((j = uent_find_entry(st, id, kind)) != NULL) {
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

static atomic_ullong read_backs;

unsigned long long
uent_read_backs(void)
{
	return atomic_load(&read_backs);
}

void
uent_read_back(struct wop *o)
{
	o->read = brief;
}

/* st's counters from what write o brought back: 0, or -1 when it did not */
static int
from_write(const struct wop *o, const char *key, struct uent_state *st)
{
	const char *used, *csn, *v;

	if (o == NULL || (used = wop_got(o, "privUsed")) == NULL ||
	    (csn = wop_got(o, "entryCSN")) == NULL)
		return -1;
	uent_free(st);
	st->exists = 1;
	st->u.used = strtoll(used, NULL, 10);
	st->u.credit = (v = wop_got(o, "privCredit")) ? strtoll(v, NULL, 10) : 0;
	st->u.held = (v = wop_got(o, "privHeld")) ? strtoll(v, NULL, 10) : 0;
	st->u.segments = (v = wop_got(o, "privSegments")) ? strtoll(v, NULL, 10) : 0;
	snprintf(st->u.csn, sizeof(st->u.csn), "%s", csn);
	/* the provider's time at this commit: this clock's offset (skew.h) */
	skew_observe(csn, o->sent, o->answered);
	if (usage_put(key, &st->u) != 0)
		log_warn("quota: out of memory recording usage of %s", key);
	return 0;
}

int
uent_after(LDAP *ld, const struct cfg *c, const struct wop *o, const char *dn,
    const char *key, struct uent_state *st, struct err *e)
{
	if (from_write(o, key, st) == 0)
		return 0;
	atomic_fetch_add(&read_backs, 1);
	return uent_read(ld, c, dn, key, 0, st, e);
}

void
uent_landed(LDAP *ld, const struct quota_req *q, const struct uent_target *t,
    const struct wop *o, struct uent_state *st, struct quota_res *r, struct err *e)
{
	if (uent_after(ld, q->cfg, o, t->udn, t->key, st, e) != 0) {
		/* it landed: the sync stream brings the counters */
		log_warn("quota: %s landed, reading it back failed: %s", t->key, e->msg);
		memset(e, 0, sizeof(*e));
		usage_get(t->key, &st->u);
	}
	r->u = st->u;
	uent_move(ld, q, t->udn, t->key);
}

char *
uent_usage_dn(const struct cfg *c, const char *uid, const char *quota,
    const char *period)
{
	char name[PRIV_NAME_MAX + PERIOD_KEY_MAX + 2];
	char *root = uent_root(c), *udn = NULL, *dn = NULL;

	snprintf(name, sizeof(name), "%s@%s", quota, period);
	if (root != NULL && (udn = uent_holder_dn(uid, root)) != NULL)
		dn = dn_child("cn", name, udn);
	free(udn);
	free(root);
	return dn;
}

int
uent_ensure_account(LDAP *ld, const struct cfg *c, const char *uid, struct err *e)
{
	char *oc_ou[] = { "organizationalUnit", NULL }, *ou[] = { "usage", NULL };
	const char *cell = holder_cell(uid);
	char *oc_acc[] = { cell ? "privPoolUsage" : "privAccountUsage", NULL };
	char *uidv[] = { (char *)(cell ? cell : uid), NULL };
	LDAPMod m[4], *mods[2][3];
	char *root = uent_root(c), *adn = root ? uent_holder_dn(uid, root) : NULL;
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

int
uent_ensure_ou(LDAP *ld, const struct cfg *c, const char *name, char **dn, struct err *e)
{
	char *oc[] = { "organizationalUnit", NULL }, *ou[2] = { "usage", NULL };
	LDAPMod m[2] = { { LDAP_MOD_ADD, "objectClass", { oc } }, { LDAP_MOD_ADD, "ou", { ou } } };
	LDAPMod *mods[] = { &m[0], &m[1], NULL };
	char *root = uent_root(c), *rdn = NULL, *sub = NULL;
	const char *dns[2];
	int i, r, rc = -1;

	if (dn != NULL)
		*dn = NULL;
	if (root == NULL || asprintf(&rdn, "ou=%s", name) < 0 || (sub = dn_join(rdn, root)) == NULL) {
		err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
		goto done;
	}
	dns[0] = root;
	dns[1] = sub;
	for (i = 0; i < 2; i++) {
		ou[0] = (char *)(i == 0 ? "usage" : name);
		r = ldap_add_ext_s(ld, dns[i], mods, NULL, NULL);
		if (r != LDAP_SUCCESS && r != LDAP_ALREADY_EXISTS) {
			ldapc_fail(e, r, dns[i]);
			goto done;
		}
	}
	rc = 0;
	if (dn != NULL) {
		*dn = sub;
		sub = NULL;
	}
done:
	free(sub);
	free(rdn);
	free(root);
	return rc;
}
