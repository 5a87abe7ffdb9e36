/* mend.c - copying writes a provider committed but never logged to its peers (mend.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ldapconn.h"
#include "ldpool.h"
#include "log.h"
#include "mend.h"
#include "monotime.h"
#include "probe.h"
#include "strv.h"
#include "worker.h"
#include "wop.h"

#define QUEUE		1024
#define CATCHUP_MS	30000
#define TOUCHES		5	/* times an absent entry is made to be sent again */
#define KEEP_MS		600000	/* how long a note waits for its providers */
#define AGAIN_MS	500
#define DOUBT_FIRST_MS	1000	/* a write with no answer: first look */
#define DOUBT_LATER_MS	15000	/* and once more: it may have landed after the first */

struct note {
	int prov;		/* the provider that took the write: the truth */
	char *dn;
	int touched;		/* times its absence at a peer was acted on */
	int looks;		/* looks still to make after this one */
	long long due, until;	/* monotime_ms */
};

static const struct cfg *cfg;
static struct worker w = WORKER_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct note queue[QUEUE];
static int nqueue;

/* What is compared: the sets of values, and the counters, by name. */
enum { S_ENTRY, S_REQUEST, S_REFUND, S_HOLD, S_SESSION, S_REDEEMED, NSETS };
enum { C_USED, C_HELD, C_CREDIT, C_SEGMENTS, NCOUNTERS };

static const struct {
	const char *attr;
	int grows;		/* values only ever come: one a peer has alone is news */
} sets[NSETS] = {
	[S_ENTRY] = { "privEntry", 1 },		/* the ledger */
	[S_REQUEST] = { "privRequest", 0 },	/* request ids (sessions drop theirs) */
	[S_REFUND] = { "privRefund", 0 },	/* "ID N": what is refunded of a charge */
	[S_HOLD] = { "privHold", 0 },		/* "ID N": what a hold holds */
	[S_SESSION] = { "privSession", 0 },	/* open sessions */
	[S_REDEEMED] = { "privRedeemed", 1 },	/* a voucher's claim */
};

static const char *const counters[NCOUNTERS] = {
	[C_USED] = "privUsed", [C_HELD] = "privHeld", [C_CREDIT] = "privCredit",
	[C_SEGMENTS] = "privSegments",
};

struct state {
	long long c[NCOUNTERS];
	int has[NCOUNTERS];
	char **v[NSETS];
};

/* Queues a look at dn as provider prov holds it, due in delay_ms. */
static void
note(int prov, const char *dn, int touched, int looks, long long delay_ms)
{
	long long now = monotime_ms();
	char *copy;
	int i;

	if (cfg == NULL || ldpool_providers() < 2 || prov < 0)
		return;
	pthread_mutex_lock(&lock);
	for (i = 0; i < nqueue; i++)
		if (queue[i].prov == prov && strcmp(queue[i].dn, dn) == 0)
			break;
	if (i < nqueue) {
		/* noted already: the sooner look, and the more of them */
		if (queue[i].due > now + delay_ms)
			queue[i].due = now + delay_ms;
		if (queue[i].looks < looks)
			queue[i].looks = looks;
	} else if (nqueue < QUEUE && (copy = strdup(dn)) != NULL)
		queue[nqueue++] = (struct note){ .prov = prov, .dn = copy, .touched = touched,
		    .looks = looks, .due = now + delay_ms, .until = now + KEEP_MS };
	else
		log_warn("mend: no room to note %s (privd --check-ledger compares the providers)",
		    dn);
	pthread_mutex_unlock(&lock);
}

void
mend_note(LDAP *ld, const char *dn)
{
	note(ldpool_provider_of(ld), dn, 0, 0, 0);
}

/* wop.h's: a write of dn over ld got no answer */
static void
doubt(LDAP *ld, const char *dn)
{
	note(ldpool_provider_of(ld), dn, 0, 1, DOUBT_FIRST_MS);
}

static void
state_free(struct state *s)
{
	int i;

	for (i = 0; i < NSETS; i++)
		strv_free(s->v[i]);
	memset(s, 0, sizeof(*s));
}

/* dn as ld's provider holds it: 1, 0 when absent, -1. */
static int
read_entry(LDAP *ld, const char *dn, struct state *s)
{
	char *attrs[NSETS + NCOUNTERS + 1];
	LDAPMessage *res = NULL, *m;
	struct err e;
	int rc, i;

	for (i = 0; i < NSETS; i++)
		attrs[i] = (char *)sets[i].attr;
	for (i = 0; i < NCOUNTERS; i++)
		attrs[NSETS + i] = (char *)counters[i];
	attrs[NSETS + NCOUNTERS] = NULL;
	memset(&e, 0, sizeof(e));
	memset(s, 0, sizeof(*s));
	rc = ldapc_search(ld, cfg, dn, LDAP_SCOPE_BASE, "(objectClass=*)", attrs, 1, &res, &e);
	if (rc != 0 || (m = ldap_first_entry(ld, res)) == NULL) {
		ldap_msgfree(res);
		return rc == 1 ? 0 : -1;
	}
	for (i = 0; i < NCOUNTERS; i++)
		s->has[i] = ldapc_get_ll(ld, m, counters[i], &s->c[i]) == 0;
	for (i = 0; i < NSETS; i++)
		s->v[i] = ldapc_get_strv(ld, m, sets[i].attr);
	ldap_msgfree(res);
	for (i = 0; i < NSETS; i++)
		if (s->v[i] == NULL) {
			state_free(s);
			return -1;
		}
	return 1;
}

/* Whether a and b hold the same values. */
static int
same_values(char **a, char **b)
{
	return strv_same(a, strv_len(a), b, strv_len(b));
}

/* Whether two reads of one entry found it the same: 1, 0 (or out of memory). */
static int
same_state(const struct state *a, const struct state *b)
{
	int i;

	for (i = 0; i < NCOUNTERS; i++)
		if (a->has[i] != b->has[i] || a->c[i] != b->c[i])
			return 0;
	for (i = 0; i < NSETS; i++)
		if (same_values(a->v[i], b->v[i]) != 1)
			return 0;
	return 1;
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

enum mended { MEND_DONE, MEND_LATER, MEND_ABSENT, MEND_CONFLICT };

/*
 * Makes peer hold h: dn as its home holds it, read twice around probes
 * that went from home to peer and back, and unchanged between them. So
 * nothing home logged is still on its way to peer, nor the other way, and
 * whatever differs is a write one of them never logged: home, which took
 * every write of dn, is the truth. Values a peer holds alone of a set that
 * only grows (a ledger, a voucher's claim) are a move this cannot judge:
 * MEND_CONFLICT, said once; privd --check-ledger names them (and with
 * --repair over every provider, merges them: merge.h).
 */
static enum mended
mend_one(const struct state *h, LDAP *peer, const char *peer_uri, const char *dn)
{
	char **add[NSETS], **drop[NSETS], v[NCOUNTERS][2][24];
	char *vals[NCOUNTERS][2][2];
	LDAPMod m[2 * NSETS + 2 * NCOUNTERS], *mods[2 * NSETS + 2 * NCOUNTERS + 1];
	enum mended out = MEND_DONE;
	struct state p;
	size_t copied = 0, dropped = 0;
	int n = 0, rc, i;

	memset(add, 0, sizeof(add));
	memset(drop, 0, sizeof(drop));
	if ((rc = read_entry(peer, dn, &p)) == 0)
		return MEND_ABSENT;
	if (rc != 1)
		return MEND_LATER;
	if (h->c[C_SEGMENTS] != p.c[C_SEGMENTS]) {
		log_warn("mend: %s has %lld ledger segments at %s and %lld at its home provider: "
		    "not copied; privd --check-ledger names what differs", dn, p.c[C_SEGMENTS],
		    peer_uri, h->c[C_SEGMENTS]);
		goto done;
	}
	for (i = 0; i < NSETS; i++) {
		if ((add[i] = strv_lacking(h->v[i], p.v[i])) == NULL ||
		    (drop[i] = strv_lacking(p.v[i], h->v[i])) == NULL) {
			out = MEND_LATER;
			goto done;
		}
		if (sets[i].grows && drop[i][0] != NULL) {
			log_warn("mend: %s at %s holds %zu %s values its home provider does not: "
			    "not changed; privd --check-ledger names what differs", dn, peer_uri,
			    strv_len(drop[i]), sets[i].attr);
			out = MEND_CONFLICT;
			goto done;
		}
		if (add[i][0] != NULL) {
			m[n] = (LDAPMod){ LDAP_MOD_ADD, (char *)sets[i].attr, { add[i] } };
			mods[n] = &m[n];
			n++;
			copied += strv_len(add[i]);
		}
		if (drop[i][0] != NULL) {
			m[n] = (LDAPMod){ LDAP_MOD_DELETE, (char *)sets[i].attr, { drop[i] } };
			mods[n] = &m[n];
			n++;
			dropped += strv_len(drop[i]);
		}
	}
	/* counters as swaps, like every counter write (wop.h): they move
	 * only from what was just read */
	for (i = 0; i < NCOUNTERS; i++) {
		if (!h->has[i] || !p.has[i] || h->c[i] == p.c[i])
			continue;
		snprintf(v[i][0], sizeof(v[i][0]), "%lld", p.c[i]);
		snprintf(v[i][1], sizeof(v[i][1]), "%lld", h->c[i]);
		vals[i][0][0] = v[i][0], vals[i][0][1] = NULL;
		vals[i][1][0] = v[i][1], vals[i][1][1] = NULL;
		m[n] = (LDAPMod){ LDAP_MOD_DELETE, (char *)counters[i], { vals[i][0] } };
		mods[n] = &m[n];
		n++;
		m[n] = (LDAPMod){ LDAP_MOD_ADD, (char *)counters[i], { vals[i][1] } };
		mods[n] = &m[n];
		n++;
	}
	if (n == 0)
		goto done;
	mods[n] = NULL;
	rc = ldap_modify_ext_s(peer, dn, mods, NULL, NULL);
	if (rc == LDAP_SUCCESS)
		log_warn("mend: %s at %s lacked %zu values and held %zu its home provider does not "
		    "(written there, never logged for replication): made as home, privUsed %lld -> "
		    "%lld", dn, peer_uri, copied, dropped, p.c[C_USED], h->c[C_USED]);
	else {
		log_warn("mend: %s at %s: %s; looked at again", dn, peer_uri, ldap_err2string(rc));
		out = MEND_LATER;
	}
done:
	for (i = 0; i < NSETS; i++) {
		free(add[i]);
		free(drop[i]);
	}
	state_free(&p);
	return out;
}

/* Whether to shows a probe added at from now, within CATCHUP_MS. */
static int
caught_up(LDAP *from, LDAP *to)
{
	char nonce[PROBE_NONCE];
	struct err e;
	int sid, seen = 0, i;

	memset(&e, 0, sizeof(e));
	if (probe_add(from, cfg, nonce, &sid, &e) != 0)
		return 0;
	for (i = 0; i < CATCHUP_MS / 100 && !seen; i++)
		if (!(seen = probe_seen(to, cfg, nonce, &e) == 1) && worker_sleep(&w, 100))
			break;
	probe_drop(from, cfg, nonce);
	return seen;
}

/* One look at n against every peer: 0 done, 1 to look again. */
static int
look(struct note *n)
{
	const char *home_uri, *uri;
	unsigned long long taken;
	struct state h1, h2;
	struct err e;
	LDAP *home, *peer;
	size_t i;
	int down, again = 0, rc;

	memset(&e, 0, sizeof(e));
	ldpool_provider((size_t)n->prov, &home_uri, &taken, &down);
	if (ldapc_open_uri(cfg, home_uri, &home, &e) != 0)
		return 1;
	for (i = 0; i < ldpool_providers(); i++) {
		if (i == (size_t)n->prov)
			continue;
		ldpool_provider(i, &uri, &taken, &down);
		if (ldapc_open_uri(cfg, uri, &peer, &e) != 0) {
			again = 1;
			continue;
		}
		memset(&h2, 0, sizeof(h2));
		if ((rc = read_entry(home, n->dn, &h1)) == 0)
			;	/* home has no such entry: nothing of it to copy */
		else if (rc < 0)
			again = 1;
		else if (!caught_up(home, peer) || !caught_up(peer, home)) {
			log_warn("mend: %s and the home provider of %s have not caught up with each "
			    "other within %d s: not compared yet", uri, n->dn, CATCHUP_MS / 1000);
			again = 1;
		} else if (read_entry(home, n->dn, &h2) != 1 || !same_state(&h1, &h2))
			again = 1;	/* written meanwhile: in flight, look again */
		else
			switch (mend_one(&h2, peer, uri, n->dn)) {
			case MEND_ABSENT:
				if (n->touched >= TOUCHES) {
					log_warn("mend: %s is still absent at %s; privd --check-ledger "
					    "names what differs", n->dn, uri);
					break;
				}
				n->touched++;
				if (touch(home, n->dn) == 0)
					log_warn("mend: %s is absent at %s (added at its home provider, "
					    "never logged for replication): written again at home to "
					    "be sent whole", n->dn, uri);
				/* FALLTHROUGH */
			case MEND_LATER:
				again = 1;
				break;
			case MEND_DONE:
			case MEND_CONFLICT:
				break;
			}
		state_free(&h1);
		state_free(&h2);
		ldapc_close(peer);
	}
	ldapc_close(home);
	return again;
}

static void
run(struct worker *self)
{
	(void)self;
	for (;;) {
		struct note n = { .prov = -1 };
		long long now = monotime_ms(), wait = 1000;
		int i, k = -1;

		pthread_mutex_lock(&lock);
		for (i = 0; i < nqueue; i++)
			if (k < 0 || queue[i].due < queue[k].due)
				k = i;
		if (k >= 0 && queue[k].due <= now) {
			n = queue[k];
			queue[k] = queue[--nqueue];
		} else if (k >= 0 && queue[k].due - now < wait)
			wait = queue[k].due - now;
		pthread_mutex_unlock(&lock);
		if (n.dn == NULL) {
			if (worker_sleep(&w, wait))
				return;
			continue;
		}
		if (look(&n)) {
			if (monotime_ms() < n.until)
				note(n.prov, n.dn, n.touched, n.looks, AGAIN_MS);
			else
				log_warn("mend: %s could not be compared with its home provider's "
				    "for %d s; privd --check-ledger names what differs", n.dn,
				    KEEP_MS / 1000);
		} else if (n.looks > 0)
			note(n.prov, n.dn, n.touched, n.looks - 1, DOUBT_LATER_MS);
		free(n.dn);
	}
}

int
mend_start(const struct cfg *c)
{
	cfg = c;
	wop_on_doubt(doubt);
	return worker_start(&w, run);
}

void
mend_stop(void)
{
	int i;

	wop_on_doubt(NULL);
	worker_stop(&w);
	for (i = 0; i < nqueue; i++)
		free(queue[i].dn);
	nqueue = 0;
	cfg = NULL;
}
