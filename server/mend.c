/* mend.c - copying writes a provider committed but never logged to its peers (mend.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldapconn.h"
#include "ldpool.h"
#include "log.h"
#include "mend.h"
#include "probe.h"
#include "strv.h"
#include "worker.h"

#define QUEUE		256
#define CATCHUP_MS	30000
#define TOUCHES		5	/* times an absent entry is made to be sent again */

struct note {
	char *uid, *dn;
	int touched;		/* times its absence at a peer was acted on */
};

static const struct cfg *cfg;
static struct worker w = WORKER_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct note queue[QUEUE];
static int nqueue;

static void
note(const char *uid, const char *dn, int touched)
{
	int i;

	if (cfg == NULL || ldpool_providers() < 2)
		return;
	pthread_mutex_lock(&lock);
	for (i = 0; i < nqueue; i++)
		if (strcmp(queue[i].dn, dn) == 0)
			break;
	if (i == nqueue && nqueue < QUEUE &&
	    (queue[nqueue].uid = strdup(uid)) != NULL) {
		queue[nqueue].touched = touched;
		if ((queue[nqueue].dn = strdup(dn)) != NULL)
			nqueue++;
		else
			free(queue[nqueue].uid);
	}
	pthread_mutex_unlock(&lock);
}

void
mend_note(const char *uid, const char *dn)
{
	note(uid, dn, 0);
}

struct state {
	long long used, held, credit, segments;
	char **entries, **requests;
	char **refunds, **holds;	/* "ID N" states: what is refunded, what is held */
};

static void
state_free(struct state *s)
{
	strv_free(s->entries);
	strv_free(s->requests);
	strv_free(s->refunds);
	strv_free(s->holds);
	memset(s, 0, sizeof(*s));
}

/* dn as ld's provider holds it: 1, 0 when absent, -1. */
static int
read_entry(LDAP *ld, const char *dn, struct state *s)
{
	static char *attrs[] = { "privUsed", "privHeld", "privCredit", "privSegments",
	    "privEntry", "privRequest", "privRefund", "privHold", NULL };
	LDAPMessage *res = NULL, *m;
	struct err e;
	int rc;

	memset(&e, 0, sizeof(e));
	memset(s, 0, sizeof(*s));
	rc = ldapc_search(ld, cfg, dn, LDAP_SCOPE_BASE, "(objectClass=privUsage)", attrs, 1, &res, &e);
	if (rc != 0 || (m = ldap_first_entry(ld, res)) == NULL) {
		ldap_msgfree(res);
		return rc == 1 ? 0 : -1;
	}
	ldapc_get_ll(ld, m, "privUsed", &s->used);
	ldapc_get_ll(ld, m, "privHeld", &s->held);
	ldapc_get_ll(ld, m, "privCredit", &s->credit);
	ldapc_get_ll(ld, m, "privSegments", &s->segments);
	s->entries = ldapc_get_strv(ld, m, "privEntry");
	s->requests = ldapc_get_strv(ld, m, "privRequest");
	s->refunds = ldapc_get_strv(ld, m, "privRefund");
	s->holds = ldapc_get_strv(ld, m, "privHold");
	ldap_msgfree(res);
	if (s->entries == NULL || s->requests == NULL || s->refunds == NULL || s->holds == NULL) {
		state_free(s);
		return -1;
	}
	return 1;
}

/* The values of a that b lacks (borrowed), NULL-terminated; NULL when out of memory. */
static char **
lacking(char **a, char **b)
{
	size_t n = 0, i, k;
	char **out = calloc(strv_len(a) + 1, sizeof(char *));

	for (i = 0; out && a[i]; i++) {
		for (k = 0; b[k] && strcmp(a[i], b[k]) != 0; k++)
			;
		if (b[k] == NULL)
			out[n++] = a[i];
	}
	return out;
}

/* Adds a swap of attr from old to new to mods (two LDAPMod in m). */
static int
swap(LDAPMod **mods, int n, LDAPMod *m, char (*v)[2][24], char *(*vals)[2][2],
    const char *attr, long long old, long long new)
{
	if (old == new)
		return n;
	snprintf(v[0][0], 24, "%lld", old);
	snprintf(v[0][1], 24, "%lld", new);
	(*vals)[0][0] = v[0][0], (*vals)[0][1] = NULL;
	(*vals)[1][0] = v[0][1], (*vals)[1][1] = NULL;
	m[0] = (LDAPMod){ LDAP_MOD_DELETE, (char *)attr, { (*vals)[0] } };
	m[1] = (LDAPMod){ LDAP_MOD_ADD, (char *)attr, { (*vals)[1] } };
	mods[n++] = &m[0];
	mods[n++] = &m[1];
	return n;
}

/*
 * A peer that lacks the entry altogether (its add, and perhaps its
 * parent's, committed at home and never logged) is never sent it: delta-
 * syncrepl sends the modifies that follow, which fail there. So the entry
 * and its parent are written again at home, each its naming value
 * replaced by itself: logged this time, their modifies fail at the peer
 * as well, which then falls back to a full refresh from home and takes
 * both entries whole (slapd's syncrepl; doc/replication.md). 0, or -1.
 */
static int
touch(LDAP *home, const char *dn)
{
	LDAPDN ldn = NULL;
	char *parent = NULL;
	const char *at[2];
	int i, rc = -1;

	/* the parent as libldap writes it: a value may hold an escaped ',' */
	if (ldap_str2dn(dn, &ldn, LDAP_DN_FORMAT_LDAPV3) != LDAP_SUCCESS || ldn == NULL ||
	    ldn[0] == NULL || ldn[1] == NULL ||
	    ldap_dn2str(&ldn[1], &parent, LDAP_DN_FORMAT_LDAPV3) != LDAP_SUCCESS)
		goto done;
	at[0] = parent;		/* the parent first: the entry needs it there */
	at[1] = dn;
	for (i = 0; i < 2; i++) {
		LDAPAVA *ava = ldn[1 - i][0];
		struct berval *vals[] = { &ava->la_value, NULL };
		char attr[64];
		LDAPMod m, *mods[] = { &m, NULL };

		if (ava->la_attr.bv_len >= sizeof(attr))
			goto done;
		memcpy(attr, ava->la_attr.bv_val, ava->la_attr.bv_len);
		attr[ava->la_attr.bv_len] = '\0';
		m = (LDAPMod){ LDAP_MOD_REPLACE | LDAP_MOD_BVALUES, attr, { NULL } };
		m.mod_bvalues = vals;
		if (ldap_modify_ext_s(home, at[i], mods, NULL, NULL) != LDAP_SUCCESS)
			goto done;
	}
	rc = 0;
done:
	ldap_memfree(parent);
	ldap_dnfree(ldn);
	return rc;
}

/*
 * Makes peer hold h (dn at home, read before a probe that peer has shown
 * since), when it lacks values of h and holds nothing newer: peer is then
 * h without what home never logged. 1 when peer holds newer writes (look
 * again later: they were in flight, and h is no longer what home holds);
 * 2 when peer has no such entry (touch).
 */
static int
mend_one(struct state *h_, LDAP *peer, const char *peer_uri, const char *dn)
{
	struct state h = *h_, p;
	char **ents = NULL, **reqs = NULL, **extra = NULL, v[3][2][24], *vals[3][2][2];
	char **st[4] = { NULL, NULL, NULL, NULL };	/* refunds to add, drop; holds to add, drop */
	LDAPMod m[12], *mods[13];
	int n = 0, rc, i;

	int later = 0;

	memset(&p, 0, sizeof(p));
	if ((rc = read_entry(peer, dn, &p)) == 0)
		return 2;
	if (rc != 1)
		goto done;
	if (h.segments != p.segments || (ents = lacking(h.entries, p.entries)) == NULL ||
	    (reqs = lacking(h.requests, p.requests)) == NULL)
		goto done;	/* moves differ: left to --check-ledger */
	if ((extra = lacking(p.entries, h.entries)) == NULL)
		goto done;
	if (extra[0] != NULL) {
		later = 1;
		goto done;
	}
	/*
	 * The peer holds no entry home lacks: home is the whole truth of this
	 * usage entry. What a refund, a commit or a release left (refund and
	 * hold states, the counters) is copied with the entries, and copied
	 * alone when the entries are all there but a counter or state is not
	 * (a swap the peer applied while the write before it never came).
	 */
	if ((st[0] = lacking(h.refunds, p.refunds)) == NULL ||
	    (st[1] = lacking(p.refunds, h.refunds)) == NULL ||
	    (st[2] = lacking(h.holds, p.holds)) == NULL ||
	    (st[3] = lacking(p.holds, h.holds)) == NULL)
		goto done;
	if (ents[0] == NULL && reqs[0] == NULL && st[0][0] == NULL && st[1][0] == NULL &&
	    st[2][0] == NULL && st[3][0] == NULL && h.used == p.used && h.held == p.held &&
	    h.credit == p.credit)
		goto done;
	if (ents[0] != NULL) {
		m[0] = (LDAPMod){ LDAP_MOD_ADD, "privEntry", { ents } };
		mods[n++] = &m[0];
	}
	if (reqs[0] != NULL) {
		m[1] = (LDAPMod){ LDAP_MOD_ADD, "privRequest", { reqs } };
		mods[n++] = &m[1];
	}
	for (i = 0; i < 4; i++)
		if (st[i][0] != NULL) {
			m[8 + i] = (LDAPMod){ i % 2 ? LDAP_MOD_DELETE : LDAP_MOD_ADD,
			    i < 2 ? "privRefund" : "privHold", { st[i] } };
			mods[n++] = &m[8 + i];
		}
	/* counters as swaps, like every counter write (wop.h): they move
	 * only from what was just read */
	n = swap(mods, n, &m[2], &v[0], &vals[0], "privUsed", p.used, h.used);
	n = swap(mods, n, &m[4], &v[1], &vals[1], "privHeld", p.held, h.held);
	n = swap(mods, n, &m[6], &v[2], &vals[2], "privCredit", p.credit, h.credit);
	mods[n] = NULL;
	rc = ldap_modify_ext_s(peer, dn, mods, NULL, NULL);
	if (rc == LDAP_SUCCESS)
		log_warn("mend: %s at %s lacked %zu ledger entries and %zu states its home "
		    "provider holds (written there, never logged for replication): copied, "
		    "privUsed %lld -> %lld", dn, peer_uri, strv_len(ents),
		    strv_len(st[0]) + strv_len(st[1]) + strv_len(st[2]) + strv_len(st[3]), p.used,
		    h.used);
	else
		log_warn("mend: %s at %s: %s; privd --check-ledger names what differs", dn,
		    peer_uri, ldap_err2string(rc));
done:
	for (i = 0; i < 4; i++)
		free(st[i]);
	free(extra);
	free(ents);
	free(reqs);
	state_free(&p);
	return later;
}

/* Whether peer shows a probe added at home now, within CATCHUP_MS. */
static int
caught_up(LDAP *home, LDAP *peer)
{
	char nonce[PROBE_NONCE];
	struct err e;
	int sid, seen = 0, i;

	memset(&e, 0, sizeof(e));
	if (probe_add(home, cfg, nonce, &sid, &e) != 0)
		return 0;
	for (i = 0; i < CATCHUP_MS / 100 && !seen; i++)
		if (!(seen = probe_seen(peer, cfg, nonce, &e) == 1) && worker_sleep(&w, 100))
			break;
	probe_drop(home, cfg, nonce);
	return seen;
}

static void
run(struct worker *self)
{
	(void)self;
	for (;;) {
		struct note n = { NULL, NULL, 0 };
		struct state h;
		struct err e;
		int again = 0;
		LDAP *home;
		size_t i;

		pthread_mutex_lock(&lock);
		if (nqueue > 0) {
			n = queue[0];
			memmove(queue, queue + 1, (size_t)--nqueue * sizeof(*queue));
		}
		pthread_mutex_unlock(&lock);
		if (n.dn == NULL) {
			if (worker_sleep(&w, 1000))
				return;
			continue;
		}
		memset(&e, 0, sizeof(e));
		if (ldpool_get_home(n.uid, &home, &e) == 0) {
			for (i = 0; i < ldpool_providers(); i++) {
				const char *uri;
				unsigned long long taken;
				int down;
				LDAP *peer;

				ldpool_provider(i, &uri, &taken, &down);
				if (ldpool_is_provider(home, i) || ldapc_open_uri(cfg, uri, &peer, &e) != 0)
					continue;
				/* home first: what the peer must show once it
				 * has the probe added after it */
				if (read_entry(home, n.dn, &h) != 1)
					;
				else if (caught_up(home, peer)) {
					switch (mend_one(&h, peer, uri, n.dn)) {
					case 2:
						if (n.touched >= TOUCHES) {
							log_warn("mend: %s is still absent at %s; "
							    "privd --check-ledger names what differs",
							    n.dn, uri);
							break;
						}
						n.touched++;
						if (touch(home, n.dn) == 0)
							log_warn("mend: %s is absent at %s (added at its "
							    "home provider, never logged for "
							    "replication): written again at home to be "
							    "sent whole", n.dn, uri);
						/* FALLTHROUGH */
					case 1:
						again = 1;
					}
				} else
					log_warn("mend: %s has not caught up with the home provider of %s "
					    "within %d s: not compared", uri, n.dn, CATCHUP_MS / 1000);
				state_free(&h);
				ldapc_close(peer);
			}
			ldpool_put(home, 0);
		}
		if (again)
			note(n.uid, n.dn, n.touched);
		free(n.uid);
		free(n.dn);
		if (again && worker_sleep(&w, 500))
			return;
	}
}

int
mend_start(const struct cfg *c)
{
	cfg = c;
	return worker_start(&w, run);
}

void
mend_stop(void)
{
	int i;

	worker_stop(&w);
	for (i = 0; i < nqueue; i++) {
		free(queue[i].uid);
		free(queue[i].dn);
	}
	nqueue = 0;
	cfg = NULL;
}
