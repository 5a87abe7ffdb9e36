/*
 * tokenlive.c - the end of sign-in tokens (tokenlive.h). A token is
 * privd's signature over who and until when; what can end it sooner lives
 * in the directory: the person's entry (pwdChangedTime where ppolicy keeps
 * it; else modifyTimestamp when modifiersName is not privd, since privd
 * writes memberships there itself) and a "tokens-after=T" value among the
 * privPreference values beside their usage, written by a revoke. Each
 * privd remembers per person the time before which their tokens are void,
 * and asks the directory again after ui.token_recheck seconds.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <ldap.h>

#include "dn.h"
#include "ldapconn.h"
#include "ldpool.h"
#include "snapshot.h"
#include "strmap.h"
#include "strv.h"
#include "tokenlive.h"
#include "uentry.h"

#define SLOTS 4096

static struct {
	char uid[65];
	time_t checked;		/* when the directory was last asked */
	time_t void_before;	/* tokens issued before this are void */
} seen[SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned
slot_of(const char *uid)
{
	char fold[65];
	size_t i;

	for (i = 0; uid[i] && i < sizeof(fold) - 1; i++)
		fold[i] = (char)(uid[i] >= 'A' && uid[i] <= 'Z' ? uid[i] - 'A' + 'a' : uid[i]);
	fold[i] = '\0';
	return strmap_hash(fold) % SLOTS;
}

/* A GeneralizedTime (YYYYMMDDHHMMSS[.f]Z) as a time; 0 when it is none. */
static time_t
gentime(const char *s)
{
	struct tm tm;

	memset(&tm, 0, sizeof(tm));
	if (s == NULL || sscanf(s, "%4d%2d%2d%2d%2d%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
	    &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return timegm(&tm);
}

/* What the directory says now: the time before which uid's tokens are void
 * into *out; 0, or -1 when it could not be asked. */
static int
ask(const struct cfg *c, const char *uid, const char *person, time_t *out)
{
	static char *pattrs[] = { "pwdChangedTime", "modifyTimestamp", "modifiersName", NULL };
	static char *uattrs[] = { "privPreference", NULL };
	char *root = uent_root(c), *adn = root ? uent_holder_dn(uid, root) : NULL;
	LDAPMessage *res = NULL, *m;
	struct err e;
	LDAP *ld;
	time_t t = 0, v;
	int rc = -1;

	memset(&e, 0, sizeof(e));
	if (adn == NULL || ldpool_get_home(uid, &ld, &e) != 0)
		goto out;
	if (ldapc_search(ld, c, person, LDAP_SCOPE_BASE, "(objectClass=*)", pattrs, 0, &res,
	    &e) < 0)
		goto put;
	if (res != NULL && (m = ldap_first_entry(ld, res)) != NULL) {
		char *pw = ldapc_get_str(ld, m, "pwdChangedTime");
		char *mt = ldapc_get_str(ld, m, "modifyTimestamp");
		char *by = ldapc_get_str(ld, m, "modifiersName");

		t = gentime(pw);
		/* privd's own writes there (memberships, entitlements) end nothing */
		if ((v = gentime(mt)) > t && by != NULL &&
		    (c->bind_dn == NULL || strcasecmp(by, c->bind_dn) != 0))
			t = v;
		free(pw);
		free(mt);
		free(by);
	}
	ldap_msgfree(res);
	res = NULL;
	if (ldapc_search(ld, c, adn, LDAP_SCOPE_BASE, "(objectClass=*)", uattrs, 0, &res, &e) < 0)
		goto put;
	if (res != NULL && (m = ldap_first_entry(ld, res)) != NULL) {
		char **pv = ldapc_get_strv(ld, m, "privPreference");
		size_t i;

		for (i = 0; pv && pv[i]; i++)
			if (strncmp(pv[i], TOKENLIVE_REVOKED, strlen(TOKENLIVE_REVOKED)) == 0 &&
			    (v = (time_t)strtoll(pv[i] + strlen(TOKENLIVE_REVOKED), NULL, 10)) > t)
				t = v;
		strv_free(pv);
	}
	*out = t;
	rc = 0;
put:
	ldap_msgfree(res);
	ldpool_put(ld, e.code == ERR_UNAVAILABLE);
out:
	free(adn);
	free(root);
	return rc;
}

int
tokenlive_check(const struct cfg *c, const char *uid, time_t issued, char *why, size_t n)
{
	const struct snap_account *a;
	const struct snap *s;
	char uidv[65], dnv[1024] = "";
	unsigned k = slot_of(uid);
	time_t now = time(NULL), void_before = 0, learned;
	int tk, known = 0, nm = 0, fresh = 0;

	s = snap_enter(&tk);
	if (s != NULL && (a = snap_account(s, uid)) != NULL) {
		nm = (int)a->nm;
		snprintf(uidv, sizeof(uidv), "%s", a->uid);
		if (a->dn != NULL)
			snprintf(dnv, sizeof(dnv), "%s", a->dn);
		known = 1;
	}
	snap_leave(tk);
	if (!known) {
		snprintf(why, n, "%s is no longer in the directory: sign in again", uid);
		return -1;
	}
	if (nm == 0) {
		snprintf(why, n, "%s has no membership any more: sign in again", uid);
		return -1;
	}
	pthread_mutex_lock(&lock);
	if (strcasecmp(seen[k].uid, uid) == 0) {
		void_before = seen[k].void_before;
		fresh = now - seen[k].checked < c->ui_token_recheck_s;
	}
	pthread_mutex_unlock(&lock);
	if (!fresh) {
		/* the person's entry: where the snapshot says, else under ldap.people */
		char *d = dnv[0] ? NULL : dn_child(c->uid_attr, uidv, c->people_dn);

		/* the directory did not answer: what was learned stands */
		if ((dnv[0] || d != NULL) && ask(c, uid, dnv[0] ? dnv : d, &learned) == 0) {
			void_before = learned;
			pthread_mutex_lock(&lock);
			snprintf(seen[k].uid, sizeof(seen[k].uid), "%s", uid);
			seen[k].checked = now;
			seen[k].void_before = learned;
			pthread_mutex_unlock(&lock);
		}
		free(d);
	}
	if (issued < void_before) {
		snprintf(why, n, "%s's password or entry changed, or their sign-ins were ended, "
		    "since this sign-in: sign in again", uid);
		return -1;
	}
	return 0;
}

int
tokenlive_revoke(const struct cfg *c, const char *uid, struct err *e)
{
	static char *attrs[] = { "privPreference", NULL };
	char *root = uent_root(c), *adn = root ? uent_holder_dn(uid, root) : NULL;
	char now[64], *add[] = { now, NULL }, **old = NULL, **del = NULL;
	LDAPMod ma, md, *mods[3] = { NULL, NULL, NULL };
	LDAPMessage *res = NULL, *m;
	time_t t = time(NULL);
	size_t i, nd = 0;
	LDAP *ld = NULL;
	unsigned k = slot_of(uid);
	int rc = -1;

	if (adn == NULL) {
		err_oom(e);
		goto out;
	}
	if (ldpool_get_home(uid, &ld, e) != 0) {
		ld = NULL;
		goto out;
	}
	if (uent_ensure_account(ld, c, uid, e) != 0)
		goto out;
	if (ldapc_search(ld, c, adn, LDAP_SCOPE_BASE, "(objectClass=*)", attrs, 0, &res, e) < 0)
		goto out;
	if (res != NULL && (m = ldap_first_entry(ld, res)) != NULL)
		old = ldapc_get_strv(ld, m, "privPreference");
	if ((del = calloc(strv_len(old) + 1, sizeof(*del))) == NULL) {
		err_oom(e);
		goto out;
	}
	for (i = 0; old && old[i]; i++)
		if (strncmp(old[i], TOKENLIVE_REVOKED, strlen(TOKENLIVE_REVOKED)) == 0)
			del[nd++] = old[i];
	/* the next second: a sign-in in this one, before the revoke, is ended too */
	snprintf(now, sizeof(now), "%s%lld", TOKENLIVE_REVOKED, (long long)t + 1);
	ma = (LDAPMod){ LDAP_MOD_ADD, "privPreference", { add } };
	md = (LDAPMod){ LDAP_MOD_DELETE, "privPreference", { del } };
	mods[0] = nd ? &md : &ma;
	mods[1] = nd ? &ma : NULL;
	if ((i = (size_t)ldap_modify_ext_s(ld, adn, mods, NULL, NULL)) != LDAP_SUCCESS &&
	    i != LDAP_TYPE_OR_VALUE_EXISTS) {
		ldapc_fail(e, (int)i, "revoking sign-ins");
		goto out;
	}
	pthread_mutex_lock(&lock);
	snprintf(seen[k].uid, sizeof(seen[k].uid), "%s", uid);
	seen[k].checked = time(NULL);
	seen[k].void_before = t + 1;
	pthread_mutex_unlock(&lock);
	rc = 0;
out:
	ldap_msgfree(res);
	if (ld != NULL)
		ldpool_put(ld, e->code == ERR_UNAVAILABLE);
	free(del);
	strv_free(old);
	free(adn);
	free(root);
	return rc;
}
