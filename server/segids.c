/*
 * segids.c - the request ids of usage entries' committed ledger segments,
 * remembered per usage entry (segids.h).
 *
 * A charge on an account whose ledger has segments asked slapd first
 * whether its request id had moved into one (archive.h): a second round
 * trip, a fifth of privd's CPU per charge on a busy account and a sixth of
 * slapd's. A committed segment never changes, so its ids are read once.
 * What is remembered belongs to one entry, named by its entryUUID, which
 * every write relying on it asserts: an entry deleted and made again
 * under the same name has other segments. The ids are kept as
 * fingerprints (idset.h): a new id is told apart from all of them at once,
 * and one that matches, a replay or once in a while another id with the
 * same fingerprint, is asked about as before.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <lber.h>

#include "archive.h"
#include "idset.h"
#include "ldapconn.h"
#include "log.h"
#include "segids.h"
#include "strmap.h"

/* segments asked for by name at most; past that the whole entry is read */
#define SEGIDS_BY_NAME 16

struct known {
	char *udn;
	char uuid[SEGIDS_UUID];
	long long k;			/* segments 1..k are in ids */
	struct idset ids;		/* their request ids */
	/* more ids than the budget, or a committed segment missing: this
	 * entry is asked about as before, never read whole again */
	int ask;
	unsigned long long used;	/* for eviction: the least recently used goes */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct strmap by_udn;	/* udn -> struct known */
static size_t total;		/* ids held, all entries */
static unsigned long long ticks;

static void
known_free(struct known *kn)
{
	if (kn == NULL)
		return;
	total -= kn->ids.len;
	idset_free(&kn->ids);
	free(kn->udn);
	free(kn);
}

/* with lock held */
static void
drop(const char *udn)
{
	known_free(strmap_del(&by_udn, udn));
}

/* With lock held: the least recently used entries go until the ids fit. */
static void
evict(const struct known *keep)
{
	while (total > SEGIDS_BUDGET) {
		struct known *old = NULL;
		size_t i;

		for (i = 0; i < by_udn.cap; i++) {
			struct known *kn = by_udn.slots[i].val;

			if (kn != NULL && kn != keep && kn->ids.len > 0 &&
			    (old == NULL || kn->used < old->used))
				old = kn;
		}
		if (old == NULL)
			return;
		drop(old->udn);
	}
}

/* What one search brought: the entry's UUID and privSegments (m), and the
 * fingerprints of the ids of its segments numbered above from, each with
 * its segment's number: those above m have not committed, and the caller
 * leaves them out. */
struct loaded {
	char uuid[SEGIDS_UUID];
	long long m;
	uint32_t *fp;
	long long *idk;		/* each id's segment */
	size_t nids, cap;
	unsigned char *seen;	/* per segment from+1 .. from+nseen */
	long long nseen;
};

static int
add_id(struct loaded *l, const struct berval *v, long long k)
{
	if (l->nids == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256;
		uint32_t *n = realloc(l->fp, cap * sizeof(*n));
		long long *nk;

		if (n == NULL)
			return -1;
		l->fp = n;
		if ((nk = realloc(l->idk, cap * sizeof(*nk))) == NULL)
			return -1;
		l->idk = nk;
		l->cap = cap;
	}
	l->fp[l->nids] = idset_fingerprint(v->bv_val, v->bv_len);
	l->idk[l->nids++] = k;
	return 0;
}

static void
loaded_free(struct loaded *l)
{
	free(l->fp);
	free(l->idk);
	free(l->seen);
}

/* id's answer from kn, which holds every committed segment: 2 when it may
 * sit in one (the directory is asked), 0 when it cannot; kn's UUID, which
 * the write then asserts. With lock held. */
static int
answer(const struct known *kn, const char *id, char uuid[SEGIDS_UUID])
{
	memcpy(uuid, kn->uuid, SEGIDS_UUID);
	return idset_maybe(&kn->ids, id, strlen(id)) ? 2 : 0;
}

/*
 * Reads udn with its segments above from (those up to to by name when few,
 * else all): 0, or -1 when the directory could not say (then the caller
 * asks about the id as before). One search, so the entry and its segments
 * are read as of one moment.
 */
static int
load(LDAP *ld, const struct cfg *c, const char *udn, long long from, long long to,
    struct loaded *l)
{
	static char *attrs[] = { "entryUUID", "privSegments", "privRequest", NULL };
	char filter[64 + 24 * SEGIDS_BY_NAME], *dn;
	LDAPMessage *res = NULL, *m;
	struct err e;
	long long k;
	size_t n;

	memset(l, 0, sizeof(*l));
	l->m = -1;
	if (from > 0 && to - from <= SEGIDS_BY_NAME) {
		n = (size_t)snprintf(filter, sizeof(filter),
		    "(|(objectClass=privUsage)(&(objectClass=privLedgerSegment)(|");
		for (k = from + 1; k <= to; k++)
			n += (size_t)snprintf(filter + n, sizeof(filter) - n, "(cn=%lld)", k);
		snprintf(filter + n, sizeof(filter) - n, ")))");
	} else
		snprintf(filter, sizeof(filter),
		    "(|(objectClass=privUsage)(objectClass=privLedgerSegment))");
	memset(&e, 0, sizeof(e));
	if (ldapc_search(ld, c, udn, LDAP_SCOPE_SUBTREE, filter, attrs, 0, &res, &e) != 0)
		return -1;
	for (m = ldap_first_entry(ld, res); m != NULL; m = ldap_next_entry(ld, m)) {
		struct berval **v;
		size_t i;

		if ((dn = ldap_get_dn(ld, m)) == NULL)
			goto fail;
		k = arch_number(dn);
		ldap_memfree(dn);
		if (k < 0) {
			/* the usage entry itself */
			if (ldapc_get_buf(ld, m, "entryUUID", l->uuid, sizeof(l->uuid)) != 0 ||
			    ldapc_get_ll(ld, m, "privSegments", &l->m) != 0)
				l->m = 0;	/* no segments yet, or no UUID: nothing to trust */
			continue;
		}
		if (k <= from)
			continue;
		if (k - from > l->nseen) {
			unsigned char *s = realloc(l->seen, (size_t)(k - from));

			if (s == NULL)
				goto fail;
			memset(s + l->nseen, 0, (size_t)(k - from - l->nseen));
			l->seen = s;
			l->nseen = k - from;
		}
		if (l->seen[k - from - 1])
			continue;
		l->seen[k - from - 1] = 1;
		if ((v = ldap_get_values_len(ld, m, "privRequest")) == NULL)
			continue;
		for (i = 0; v[i] != NULL; i++)
			if (add_id(l, v[i], k) != 0) {
				ldap_value_free_len(v);
				goto fail;
			}
		ldap_value_free_len(v);
	}
	ldap_msgfree(res);
	return l->uuid[0] != '\0' && l->m >= 0 ? 0 : -1;
fail:
	ldap_msgfree(res);
	return -1;
}

/* Whether every segment from+1 .. upto came in l. */
static int
complete(const struct loaded *l, long long from, long long upto)
{
	long long k;

	for (k = from + 1; k <= upto; k++)
		if (k - from > l->nseen || !l->seen[k - from - 1])
			return 0;
	return 1;
}

int
segids_check(LDAP *ld, const struct cfg *c, const char *udn, long long nseg,
    const char *id, char uuid[SEGIDS_UUID])
{
	struct known *kn;
	struct loaded l;
	long long from = 0, upto;
	char had[SEGIDS_UUID] = "";
	size_t i;
	int rc = 2, failed, added;

	if (nseg <= 0)
		return 2;
	pthread_mutex_lock(&lock);
	if ((kn = strmap_get(&by_udn, udn)) != NULL) {
		kn->used = ++ticks;
		if (kn->ask) {
			pthread_mutex_unlock(&lock);
			return 2;
		}
		if (kn->k >= nseg) {
			rc = answer(kn, id, uuid);
			pthread_mutex_unlock(&lock);
			return rc;
		}
		from = kn->k;
		memcpy(had, kn->uuid, SEGIDS_UUID);
	}
	pthread_mutex_unlock(&lock);

	/* slapd, without the lock: each usage entry's charges come one at a
	 * time (keylock.h), so no other thread loads this one meanwhile */
	if (load(ld, c, udn, from, nseg, &l) != 0) {
		loaded_free(&l);
		return 2;
	}
	upto = l.m < nseg ? l.m : nseg;
	if (from == 0 || (from > 0 && nseg - from > SEGIDS_BY_NAME))
		upto = l.m;	/* all of them were read */
	pthread_mutex_lock(&lock);
	kn = strmap_get(&by_udn, udn);
	if (from > 0 && (kn == NULL || strcmp(had, l.uuid) != 0 || kn->k != from)) {
		/* made again, or forgotten meanwhile: read it whole next time */
		drop(udn);
		goto out;
	}
	if (kn == NULL) {
		if ((kn = calloc(1, sizeof(*kn))) == NULL || (kn->udn = strdup(udn)) == NULL) {
			if (kn != NULL)
				free(kn);
			goto out;
		}
		strmap_put(&by_udn, kn->udn, kn, &failed);
		if (failed) {
			free(kn->udn);
			free(kn);
			goto out;
		}
	}
	kn->used = ++ticks;
	if (kn->ids.len + l.nids > SEGIDS_BUDGET || !complete(&l, from, upto)) {
		log_debug("segids: %s: %s; its segments are asked about as before", udn,
		    kn->ids.len + l.nids > SEGIDS_BUDGET ? "too many request ids" :
		    "a committed segment is missing");
		total -= kn->ids.len;
		idset_free(&kn->ids);
		kn->ask = 1;
		goto out;
	}
	snprintf(kn->uuid, sizeof(kn->uuid), "%s", l.uuid);
	for (i = 0; i < l.nids; i++) {
		/* a segment above privSegments has not committed: its entries
		 * are still in the window, where the write itself finds them */
		if (l.idk[i] > upto)
			continue;
		if ((added = idset_add_fp(&kn->ids, l.fp[i])) < 0) {
			drop(udn);
			goto out;
		}
		total += added == 0;	/* 1: a fingerprint held already */
	}
	if (from == 0)
		log_debug("segids: %s: %zu request ids of %lld segments", udn, kn->ids.len, upto);
	kn->k = upto;
	evict(kn);
	if (kn->k >= nseg)
		rc = answer(kn, id, uuid);
out:
	pthread_mutex_unlock(&lock);
	loaded_free(&l);
	return rc;
}

int
segids_gone(LDAP *ld, const struct cfg *c, const char *udn, const char *uuid)
{
	static char *attrs[] = { "entryUUID", NULL };
	char now[SEGIDS_UUID] = "";
	LDAPMessage *res = NULL, *m;
	struct err e;
	int gone = 1;

	memset(&e, 0, sizeof(e));
	if (ldapc_search(ld, c, udn, LDAP_SCOPE_BASE, "(objectClass=*)", attrs, 0, &res, &e) == 0 &&
	    (m = ldap_first_entry(ld, res)) != NULL &&
	    ldapc_get_buf(ld, m, "entryUUID", now, sizeof(now)) == 0)
		gone = strcasecmp(now, uuid) != 0;
	ldap_msgfree(res);
	if (gone)
		segids_forget(udn);
	return gone;
}

void
segids_forget(const char *udn)
{
	pthread_mutex_lock(&lock);
	drop(udn);
	pthread_mutex_unlock(&lock);
}

void
segids_clear(void)
{
	size_t i;

	pthread_mutex_lock(&lock);
	for (i = 0; i < by_udn.cap; i++)
		known_free(by_udn.slots[i].val);
	strmap_free(&by_udn);
	total = 0;
	pthread_mutex_unlock(&lock);
}

void
segids_size(size_t *entries, size_t *ids)
{
	pthread_mutex_lock(&lock);
	*entries = by_udn.len;
	*ids = total;
	pthread_mutex_unlock(&lock);
}
