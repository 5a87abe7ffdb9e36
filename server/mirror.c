/*
 * mirror.c - the follower's copy of the model as the directory holds it: one
 * entry per tree node, cell and person, keyed by entryUUID, and the snapshot
 * built from it with the states before any open change laid over it.
 */
#include <malloc.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lber.h>
#include <ldap.h>

#include "dirview.h"
#include "dn.h"
#include "entmap.h"
#include "hex.h"
#include "lanes.h"
#include "ldapconn.h"
#include "log.h"
#include "membership.h"
#include "cfglive.h"
#include "mirror.h"
#include "monotime.h"
#include "path.h"
#include "period.h"
#include "pending.h"
#include "pool.h"
#include "snapshot.h"
#include "strmap.h"
#include "strv.h"

enum mkind { MK_REASON, MK_ORG, MK_CELL, MK_ACCOUNT, MK_PRINTER };

/*
 * Kept packed (pack below): the strings and the vals array in the entry's
 * own allocation, a person's membership cell names in names, so a million
 * people cost a million blocks rather than six million.
 */
struct mentry {
	unsigned char uuid[ENTMAP_KEY];	/* the entryUUID's bytes */
	unsigned char packed;	/* one block: free(m) frees it all */
	unsigned char kind;	/* enum mkind */
	uint32_t nvals;
	char *key;		/* path, cell name or uid */
	char *dn;		/* a person's entry, when not UID_ATTR=uid,people_dn */
	char **vals;		/* grants, membership cell names or a rate card */
};

static const struct cfg *cfg;
static char *reasons_dn, *orgs_dn, *cells_dn, *printers_dn;
static struct entmap mirror;	/* mentry by uuid */
/* the cell names people's memberships name, each held once (owned keys,
 * the value the key): until mirror_clear, so also names of cells removed
 * since, as many as were named while one connection lasted */
static struct strmap names;
static atomic_long build_usec, derived, built;

/*
 * What changed since the last snapshot, so that a few changes derive the
 * next one (snapderive.c) instead of building it in full: each changed
 * person's folded uid, and each changed cell's name -> the uuid of the
 * entry that holds it now ("" when gone), both owned; dirty_all when the
 * trees or the printers changed.
 */
static struct strmap dirty, dirty_cells;
static int dirty_all = 1;
static struct snap *last;	/* what mirror_publish last published, built without an open change */

int
mirror_init(const struct cfg *c)
{
	cfg = c;
	reasons_dn = dn_join("ou=reasons", c->base_dn);
	orgs_dn = dn_join("ou=organisations", c->base_dn);
	cells_dn = dn_join("ou=cells", c->base_dn);
	printers_dn = dn_join("ou=printers", c->base_dn);
	entmap_init(&mirror, offsetof(struct mentry, uuid));
	strmap_init(&names);
	return reasons_dn && orgs_dn && cells_dn && printers_dn ? 0 : -1;
}

void
mirror_free(void)
{
	mirror_clear();
	free(reasons_dn);
	free(orgs_dn);
	free(cells_dn);
	free(printers_dn);
	reasons_dn = orgs_dn = cells_dn = printers_dn = NULL;
}

double
mirror_build_seconds(void)
{
	return atomic_load(&build_usec) / 1e6;
}

void
mirror_builds(long *full, long *derive)
{
	*full = atomic_load(&built);
	*derive = atomic_load(&derived);
}

static void
mentry_free(struct mentry *m)
{
	size_t i;

	if (m == NULL)
		return;
	if (m->packed) {
		free(m);
		return;
	}
	free(m->dn);
	for (i = 0; i < m->nvals; i++)
		free(m->vals[i]);
	free(m->vals);
	free(m->key);
	free(m);
}

static void
dirty_free(struct strmap *d)
{
	size_t i;

	for (i = 0; i < d->cap; i++)
		if (d->slots[i].key != NULL) {
			free((char *)d->slots[i].key);
			free(d->slots[i].val);
		}
	strmap_free(d);
}

static void
dirty_clear(void)
{
	dirty_free(&dirty);
	dirty_free(&dirty_cells);
}

/* Notes that the entry m (under uuid) changed: held now when now is set. */
static void
note(const struct mentry *m, int now)
{
	struct strmap *d = m && m->kind == MK_CELL ? &dirty_cells : &dirty;
	char key[512], hex[2 * ENTMAP_KEY + 1], *k, *v, *prev;
	int failed;

	if (m == NULL || dirty_all)
		return;
	if (m->kind == MK_CELL)
		snprintf(key, sizeof(key), "%s", m->key);
	else if (m->kind != MK_ACCOUNT || snap_fold_uid(m->key, key, sizeof(key)) != 0) {
		dirty_all = 1;
		return;
	}
	hex_encode(m->uuid, sizeof(m->uuid), hex);
	if ((v = strdup(now ? hex : "")) == NULL)
		goto oom;
	if ((prev = strmap_get(d, key)) != NULL) {
		/* the uid a person left is theirs no longer, unless taken again */
		if (!now && strcmp(prev, hex) != 0) {
			free(v);
			return;
		}
		strmap_put(d, key, v, NULL);
		free(prev);
		return;
	}
	if ((k = strdup(key)) == NULL) {
		free(v);
		goto oom;
	}
	strmap_put(d, k, v, &failed);
	if (!failed)
		return;
	free(k);
	free(v);
oom:
	dirty_all = 1;		/* the next snapshot is built in full */
}

void
mirror_clear(void)
{
	size_t i;

	for (i = 0; i < mirror.cap; i++)
		mentry_free(mirror.slots[i]);
	entmap_free(&mirror);
	for (i = 0; i < names.cap; i++)
		free((char *)names.slots[i].key);
	strmap_free(&names);
	dirty_clear();
	dirty_all = 1;
	last = NULL;
}

/* The entry under uuid (hex, as the dirty maps hold it). */
static struct mentry *
by_uuid(const char *uuid)
{
	unsigned char k[ENTMAP_KEY];

	if (*uuid == '\0' || hex_decode(uuid, k, sizeof(k)) != 0)
		return NULL;
	return entmap_get(&mirror, k);
}

static void
forget(const unsigned char *uuid)
{
	struct mentry *m = entmap_del(&mirror, uuid);

	note(m, 0);
	mentry_free(m);
}

/* The entryUUID's bytes as the mirror's key (the first 16, zero-padded). */
static void
uuid_key(const struct berval *uuid, unsigned char k[ENTMAP_KEY])
{
	memset(k, 0, ENTMAP_KEY);
	memcpy(k, uuid->bv_val, uuid->bv_len < ENTMAP_KEY ? uuid->bv_len : ENTMAP_KEY);
}

void
mirror_forget(const struct berval *uuid)
{
	unsigned char k[ENTMAP_KEY];

	uuid_key(uuid, k);
	forget(k);
}

static int
same_entry(const struct mentry *a, const struct mentry *b)
{
	size_t i;

	if (a->kind != b->kind || strcmp(a->key, b->key) != 0 || a->nvals != b->nvals ||
	    (a->dn == NULL) != (b->dn == NULL) || (a->dn && strcmp(a->dn, b->dn) != 0))
		return 0;
	for (i = 0; i < a->nvals; i++)
		if (strcmp(a->vals[i], b->vals[i]) != 0)
			return 0;
	return 1;
}

/* Keeps m under its uuid: 1 when that changes what the mirror holds, 0 when not. */
static int
mirror_keep(struct mentry *m)
{
	const struct mentry *old = entmap_get(&mirror, m->uuid);
	struct mentry *prev;
	int failed;

	if (old != NULL && same_entry(old, m)) {
		mentry_free(m);
		return 0;
	}
	prev = entmap_put(&mirror, m, &failed);
	if (failed) {
		log_warn("sync: out of memory; dropping an entry");
		mentry_free(m);
		if (old != NULL)
			forget(old->uuid);
		return 1;
	}
	note(prev, 0);
	mentry_free(prev);
	note(m, 1);
	return 1;
}

static int
add_val(struct mentry *m, const char *s, size_t len)
{
	char **nv = realloc(m->vals, (m->nvals + 1) * sizeof(*nv));

	if (nv == NULL || m->nvals == UINT32_MAX)
		return -1;
	m->vals = nv;
	if ((m->vals[m->nvals] = strndup(s, len)) == NULL)
		return -1;
	m->nvals++;
	return 0;
}

/* A person's membership value held in names: a plain cell name, not a
 * dated one; NULL when it is not one or memory ran out. */
static const char *
intern(const struct mentry *m, const char *v)
{
	char *k;
	int failed;

	if (m->kind != MK_ACCOUNT || strchr(v, '|') != NULL)
		return NULL;
	if ((k = strmap_get(&names, v)) != NULL)
		return k;
	if ((k = strdup(v)) == NULL)
		return NULL;
	strmap_put(&names, k, k, &failed);
	if (!failed)
		return k;
	free(k);
	return NULL;
}

static char *
put_str(char **p, const char *s)
{
	size_t n = strlen(s) + 1;
	char *at = *p;

	memcpy(at, s, n);
	*p += n;
	return at;
}

/* t (built value by value) in one allocation; t is freed either way. */
static struct mentry *
pack(struct mentry *t)
{
	size_t sz = sizeof(*t) + t->nvals * sizeof(char *) + strlen(t->key) + 1, i;
	const char *few[8], **in = few;	/* each value's interned name, or NULL */
	struct mentry *m = NULL;
	char *p;

	if (t->nvals > 8 && (in = malloc(t->nvals * sizeof(*in))) == NULL)
		goto done;
	if (t->dn)
		sz += strlen(t->dn) + 1;
	for (i = 0; i < t->nvals; i++)
		if ((in[i] = intern(t, t->vals[i])) == NULL)
			sz += strlen(t->vals[i]) + 1;
	if ((m = malloc(sz)) == NULL)
		goto done;
	*m = *t;
	m->packed = 1;
	m->vals = (char **)(m + 1);
	p = (char *)(m->vals + t->nvals);
	m->key = put_str(&p, t->key);
	m->dn = t->dn ? put_str(&p, t->dn) : NULL;
	for (i = 0; i < t->nvals; i++)
		m->vals[i] = in[i] ? (char *)in[i] : put_str(&p, t->vals[i]);
done:
	if (in != few)
		free(in);
	mentry_free(t);
	return m;
}

/*
 * A person's entry into a mirror entry, its attributes read in one pass
 * over the message: ldap_get_values_len scans the entry from its start for
 * each attribute asked, and the refresh of a million people spent a sixth
 * of privd's CPU there. Values point into the message (not terminated).
 */
static struct mentry *
read_person(LDAP *ld, LDAPMessage *msg, char *csn, size_t ncsn)
{
	char buf[CELL_MAX_LEN + 1], small[512], *dn = NULL, *mdn = NULL;
	struct berval dnbv, attr, *vals = NULL;
	BerElement *ber = NULL;
	struct mentry *m = NULL;
	int dates = 0;
	size_t i;

	if (ldap_get_dn_ber(ld, msg, &ber, &dnbv) != LDAP_SUCCESS || ber == NULL)
		goto fail;
	dn = dnbv.bv_len < sizeof(small) ? small : malloc(dnbv.bv_len + 1);
	if (dn == NULL || (m = calloc(1, sizeof(*m))) == NULL)
		goto fail;
	memcpy(dn, dnbv.bv_val, dnbv.bv_len);
	dn[dnbv.bv_len] = '\0';
	m->kind = MK_ACCOUNT;
	while (ldap_get_attribute_ber(ld, msg, ber, &attr, &vals) == LDAP_SUCCESS &&
	    attr.bv_val != NULL) {
		if (ldapc_is_attr(&attr, cfg->uid_attr)) {
			if (m->key == NULL && vals != NULL && vals[0].bv_val != NULL &&
			    (m->key = strndup(vals[0].bv_val, vals[0].bv_len)) == NULL)
				goto fail;
		} else if (ldapc_is_attr(&attr, "privMembership")) {
			for (i = 0; vals && vals[i].bv_val; i++) {
				int ok;

				free(mdn);
				if ((mdn = strndup(vals[i].bv_val, vals[i].bv_len)) == NULL)
					goto fail;
				if (!(ok = dn_leaf_cn(mdn, cells_dn, buf, sizeof(buf)) == 0))
					log_warn("sync: %s: membership '%s' is not a cell under %s; "
					    "ignored", dn, mdn, cells_dn);
				if (ok && add_val(m, buf, strlen(buf)) != 0)
					goto fail;
			}
		} else if (ldapc_is_attr(&attr, "privMembershipDates"))
			dates = 1;
		else if (ldapc_is_attr(&attr, "entryCSN") && vals != NULL && vals[0].bv_val != NULL)
			ldapc_bv_buf(&vals[0], csn, ncsn);
		ber_memfree(vals);
		vals = NULL;
	}
	if (m->key == NULL) {
		log_warn("sync: %s has privAccount but no %s; ignored", dn, cfg->uid_attr);
		goto fail;
	}
	/* people in sub-trees (ou=staff,ou=people): the entry's own name,
	 * for what names them (entitlement groups, publish.h) */
	switch (dn_is_child(dn, cfg->uid_attr, m->key, cfg->people_dn)) {
	case -1:
		goto fail;
	case 0:
		if ((m->dn = strdup(dn)) == NULL)
			goto fail;
	}
	/* dated memberships travel as "CELL|FROM|UNTIL" (membership.h); few
	 * people have them, so those read the entry a second time */
	if (dates && dview_read_dates(ld, msg, m->vals, m->nvals) < 0)
		goto fail;
	free(mdn);
	if (dn != small)
		free(dn);
	ber_free(ber, 0);
	return pack(m);
fail:
	ber_memfree(vals);
	free(mdn);
	if (dn != small)
		free(dn);
	if (ber != NULL)
		ber_free(ber, 0);
	mentry_free(m);
	return NULL;
}

/* Reads an entry of the privilege subtree or the people into a mirror entry. */
static struct mentry *
read_entry(LDAP *ld, LDAPMessage *msg, int people, char *csn, size_t ncsn)
{
	char buf[CELL_MAX_LEN + 1];
	struct berval **vals = NULL;
	struct mentry *m;
	char *dn;
	size_t i;

	if (people)
		return read_person(ld, msg, csn, ncsn);
	if ((dn = ldap_get_dn(ld, msg)) == NULL)
		return NULL;
	if ((m = calloc(1, sizeof(*m))) == NULL)
		goto fail;
	if (dn_leaf_cn(dn, cells_dn, buf, sizeof(buf)) == 0) {
		m->kind = MK_CELL;
		if ((m->key = strdup(buf)) == NULL)
			goto fail;
		{
			char **cv = pool_cell_vals(ld, msg);

			for (i = 0; cv && cv[i]; i++)
				if (add_val(m, cv[i], strlen(cv[i])) != 0)
					break;
			if (cv == NULL || cv[i] != NULL) {
				strv_free(cv);
				goto fail;
			}
			strv_free(cv);
		}
	} else if (dn_leaf_cn(dn, printers_dn, buf, sizeof(buf)) == 0) {
		m->kind = MK_PRINTER;
		if ((m->key = strdup(buf)) == NULL)
			goto fail;
		vals = ldap_get_values_len(ld, msg, "privRate");
		for (i = 0; vals && vals[i]; i++)
			if (add_val(m, vals[i]->bv_val, vals[i]->bv_len) != 0)
				goto fail;
	} else if (dn_path(dn, reasons_dn, buf, sizeof(buf)) == 0 && buf[0]) {
		m->kind = MK_REASON;
		if ((m->key = strdup(buf)) == NULL)
			goto fail;
	} else if (dn_path(dn, orgs_dn, buf, sizeof(buf)) == 0 && buf[0]) {
		m->kind = MK_ORG;
		if ((m->key = strdup(buf)) == NULL)
			goto fail;
	} else {
		log_debug("sync: %s is not a node or cell; ignored", dn);
		goto fail;
	}
	if (vals)
		ldap_value_free_len(vals);
	ldap_memfree(dn);
	return pack(m);
fail:
	if (vals)
		ldap_value_free_len(vals);
	ldap_memfree(dn);
	mentry_free(m);
	return NULL;
}


int
mirror_entry(LDAP *ld, LDAPMessage *msg, int people, const struct berval *uuid,
    char *csn, size_t ncsn)
{
	struct mentry *m;

	csn[0] = '\0';
	m = read_entry(ld, msg, people, csn, ncsn);

	if (m == NULL) {
		mirror_forget(uuid);
		return 1;
	}
	uuid_key(uuid, m->uuid);
	return mirror_keep(m);
}

/* The account a person's entry says (vals: its memberships, or the open
 * change's before-state), as a snapshot takes it. */
static void
in_account(const struct mentry *m, const char **vals, size_t nvals, struct snap_in_account *a)
{
	if (nvals == 0 && cfg->default_cell != NULL) {
		vals = (const char **)&cfg->default_cell;
		nvals = 1;
	}
	a->uid = m->key;
	a->dn = m->dn;
	a->cells = vals;
	a->ncells = nvals;
}

/* Whether a uid of gone[0..n-1] is still held by another entry (a uid on
 * two entries: the full build decides which counts). */
static int
held_elsewhere(const char **gone, size_t n)
{
	struct strmap lost;
	size_t i;
	int failed, found = 0;

	strmap_init(&lost);
	for (i = 0; i < n; i++) {
		strmap_put(&lost, gone[i], &lost, &failed);
		if (failed) {
			strmap_free(&lost);
			return 1;
		}
	}
	for (i = 0; !found && i < mirror.cap; i++) {
		const struct mentry *m = mirror.slots[i];
		char key[512];

		if (m != NULL && m->kind == MK_ACCOUNT &&
		    snap_fold_uid(m->key, key, sizeof(key)) == 0 && strmap_get(&lost, key) != NULL)
			found = 1;
	}
	strmap_free(&lost);
	return found;
}

/* The accounts a full build takes from mirror slots [lo, hi): each person
 * as the open change's before-state has them (none it added); fn on each,
 * stopping at its first nonzero. */
static int
each_account_in(struct pending_ov *ov, size_t lo, size_t hi,
    int (*fn)(void *, const struct snap_in_account *), void *arg)
{
	struct snap_in_account a;
	const struct chg_obj *o;
	size_t i;

	for (i = lo; i < hi; i++) {
		const struct mentry *m = mirror.slots[i];
		const char **vals;
		size_t nvals;

		if (m == NULL || m->kind != MK_ACCOUNT)
			continue;
		vals = (const char **)m->vals;
		nvals = m->nvals;
		if ((o = pending_ov_get(ov, CHG_ACCOUNT, m->key)) != NULL) {
			if (!o->present)
				continue;
			vals = (const char **)o->vals;
			nvals = o->nvals;
		}
		in_account(m, vals, nvals, &a);
		if (fn(arg, &a) != 0)
			return -1;
	}
	return 0;
}

/* The rest a full build takes: the people the open change removed, whose
 * before-states it holds and the mirror no longer does. */
static int
each_removed_account(struct pending_ov *ov, int (*fn)(void *, const struct snap_in_account *),
    void *arg)
{
	struct snap_in_account a;
	const struct chg_obj *o;
	size_t i;

	for (i = 0; i < pending_ov_len(ov); i++) {
		if ((o = pending_ov_unused(ov, i)) == NULL || !o->present || o->kind != CHG_ACCOUNT)
			continue;
		memset(&a, 0, sizeof(a));
		a.uid = o->key;
		a.cells = (const char **)o->vals;
		a.ncells = o->nvals;
		if (fn(arg, &a) != 0)
			return -1;
	}
	return 0;
}

struct counts {
	size_t accounts, memberships;
};

static int
count_account(void *arg, const struct snap_in_account *a)
{
	struct counts *c = arg;

	c->accounts++;
	c->memberships += a->ncells;
	return 0;
}

static int
add_account(void *arg, const struct snap_in_account *a)
{
	struct err e;

	return snap_build_add(arg, a, &e);
}

static int
lane_account(void *arg, const struct snap_in_account *a)
{
	return snap_lane_add(arg, a);
}

/*
 * The full build's accounts on two threads, each half of the mirror's
 * slots on one: a million people took 1.4 s on one core while the other
 * had nothing to do. Below BUILD_LANES_MIN people a thread is not worth
 * starting. The mirror is the follower's, which waits here: it does not
 * change while the lanes read it.
 */
#define BUILD_LANES_MIN 20000

struct lane_job {
	struct pending_ov *ov;
	size_t lo, hi;
	struct snap_lane *lane;
};

static void *
lane_run(void *arg)
{
	struct lane_job *j = arg;

	each_account_in(j->ov, j->lo, j->hi, lane_account, j->lane);
	return NULL;
}

static int
add_accounts(struct pending_ov *ov, struct snap_builder *b, const struct counts *half,
    struct err *e)
{
	struct snap_lane lanes[2];
	struct lane_job jobs[2];
	size_t counts[2] = { half[0].accounts, half[1].accounts }, mid = mirror.cap / 2;

	if (counts[0] + counts[1] < BUILD_LANES_MIN)
		return each_account_in(ov, 0, mirror.cap, add_account, b);
	if (snap_build_lanes(b, lanes, 2, counts, e) != 0)
		return -1;
	jobs[0] = (struct lane_job){ ov, 0, mid, &lanes[0] };
	jobs[1] = (struct lane_job){ ov, mid, mirror.cap, &lanes[1] };
	lanes_run(lane_run, &jobs[0], &jobs[1], 1);
	return snap_build_join(b, lanes, 2, e);
}

/*
 * Publishes the snapshot after the last one with the people noted in dirty
 * changed (snapderive.c): 1 when done, 0 when the next one must be built
 * in full (anything but people changed, an open change, many people, a new
 * configuration, a dated membership's moment, out of memory).
 */
static int
derive(const struct pending_ov *ov)
{
	const struct cfg *c = cfglive_get() ? cfglive_get() : cfg;
	struct snap_in_account *set = NULL;
	struct snap_in_cell *cells = NULL;
	const char **gone = NULL, **cells_gone = NULL;
	size_t nset = 0, ngone = 0, ncells = 0, ncgone = 0, i;
	struct snap_change ch;
	struct snap *s = NULL;
	struct err e;

	if (last == NULL || dirty_all || dirty.len + dirty_cells.len == 0 ||
	    pending_ov_len(ov) != 0 || last->cfg != c ||
	    last->over.len + dirty.len > SNAP_OVER_MAX || snap_due(period_now()))
		return 0;
	if ((set = calloc(dirty.len + 1, sizeof(*set))) == NULL ||
	    (gone = calloc(dirty.len + 1, sizeof(*gone))) == NULL ||
	    (cells = calloc(dirty_cells.len + 1, sizeof(*cells))) == NULL ||
	    (cells_gone = calloc(dirty_cells.len + 1, sizeof(*cells_gone))) == NULL)
		goto done;
	for (i = 0; i < dirty_cells.cap; i++) {
		const char *uuid = dirty_cells.slots[i].val;
		const struct mentry *m;

		if (dirty_cells.slots[i].key == NULL)
			continue;
		m = by_uuid(uuid);
		if (m != NULL && m->kind == MK_CELL && strcmp(m->key, dirty_cells.slots[i].key) == 0) {
			cells[ncells].name = m->key;
			cells[ncells].grants = (const char **)m->vals;
			cells[ncells++].ngrants = m->nvals;
		} else
			cells_gone[ncgone++] = dirty_cells.slots[i].key;
	}
	for (i = 0; i < dirty.cap; i++) {
		const char *uuid = dirty.slots[i].val;
		const struct mentry *m;
		char key[512];

		if (dirty.slots[i].key == NULL)
			continue;
		m = by_uuid(uuid);
		if (m != NULL && snap_fold_uid(m->key, key, sizeof(key)) == 0 &&
		    strcmp(key, dirty.slots[i].key) == 0)
			in_account(m, (const char **)m->vals, m->nvals, &set[nset++]);
		else
			gone[ngone++] = dirty.slots[i].key;
	}
	if (ngone > 0 && held_elsewhere(gone, ngone))
		goto done;
	ch = (struct snap_change){ set, nset, gone, ngone, cells, ncells, cells_gone, ncgone };
	if ((s = snap_derive(last, &ch, &e)) == NULL) {
		if (e.code == ERR_CONFLICT)
			log_debug("sync: %s; building the snapshot in full", e.msg);
		else
			log_warn("sync: %s; building the snapshot in full", e.msg);
	}
done:
	free(set);
	free(gone);
	free(cells);
	free(cells_gone);
	if (s == NULL)
		return 0;
	snap_publish(s);
	last = s;
	dirty_clear();
	atomic_fetch_add(&derived, 1);
	log_debug("sync: snapshot %llu derived: %zu accounts and %zu cells changed, %zu and %zu "
	    "gone, %zu accounts in its overlay", (unsigned long long)s->gen, nset, ncells, ngone,
	    ncgone, s->over.len);
	return 1;
}

int
mirror_publish(void)
{
	struct pending_ov ov;
	struct snap_input in;
	struct snap_in_cell *cells = NULL;
	struct snap_in_cell *printers = NULL;
	struct snap_builder b;
	struct counts half[2] = { { 0, 0 }, { 0, 0 } }, removed = { 0, 0 };
	const char **reasons = NULL, **orgs = NULL;
	struct timespec t0, t1;
	struct snap *s;
	struct err e;
	size_t i, n = mirror.len;
	int rc = -1, full = 0;

	static const char kinds[] = { CHG_REASON, CHG_ORG, CHG_CELL, CHG_ACCOUNT, CHG_PRINTER };
	const struct chg_obj *o;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	memset(&in, 0, sizeof(in));
	if (pending_overlay(&ov) != 0)
		return -1;
	if (derive(&ov))
		goto timed;
	n += pending_ov_len(&ov);
	reasons = calloc(n + 1, sizeof(*reasons));
	orgs = calloc(n + 1, sizeof(*orgs));
	cells = calloc(n + 1, sizeof(*cells));
	printers = calloc(n + 1, sizeof(*printers));
	if (!reasons || !orgs || !cells || !printers)
		goto fail;
	for (i = 0; i < mirror.cap; i++) {
		const struct mentry *m = mirror.slots[i];
		const char **vals;
		size_t nvals;

		if (m == NULL || m->kind == MK_ACCOUNT)
			continue;	/* each_account_in */
		vals = (const char **)m->vals;
		nvals = m->nvals;
		if ((o = pending_ov_get(&ov, kinds[m->kind], m->key)) != NULL) {
			if (!o->present)
				continue;	/* the open change added it */
			vals = (const char **)o->vals;
			nvals = o->nvals;
		}
		switch (m->kind) {
		case MK_REASON:
			reasons[in.nreasons++] = m->key;
			break;
		case MK_ORG:
			orgs[in.norgs++] = m->key;
			break;
		case MK_CELL:
			cells[in.ncells].name = m->key;
			cells[in.ncells].grants = vals;
			cells[in.ncells++].ngrants = nvals;
			break;
		case MK_PRINTER:
			printers[in.nprinters].name = m->key;
			printers[in.nprinters].grants = vals;
			printers[in.nprinters++].ngrants = nvals;
			break;
		}
	}
	/* what the open change has removed so far */
	for (i = 0; i < pending_ov_len(&ov); i++) {
		if ((o = pending_ov_unused(&ov, i)) == NULL || !o->present)
			continue;
		switch (o->kind) {
		case CHG_REASON:
			reasons[in.nreasons++] = o->key;
			break;
		case CHG_ORG:
			orgs[in.norgs++] = o->key;
			break;
		case CHG_CELL:
			cells[in.ncells].name = o->key;
			cells[in.ncells].grants = (const char **)o->vals;
			cells[in.ncells++].ngrants = o->nvals;
			break;
		case CHG_ACCOUNT:
			break;	/* each_removed_account */
		case CHG_PRINTER:
			printers[in.nprinters].name = o->key;
			printers[in.nprinters].grants = (const char **)o->vals;
			printers[in.nprinters++].ngrants = o->nvals;
			break;
		}
	}
	in.reasons = reasons;
	in.orgs = orgs;
	in.cells = cells;
	in.printers = printers;
	/* the accounts straight from the mirror, not through an array; the
	 * terms in force (a reload changes them) date the memberships */
	each_account_in(&ov, 0, mirror.cap / 2, count_account, &half[0]);
	each_account_in(&ov, mirror.cap / 2, mirror.cap, count_account, &half[1]);
	each_removed_account(&ov, count_account, &removed);
	if (snap_build_start(&b, cfglive_get() ? cfglive_get() : cfg, &in,
	    half[0].accounts + half[1].accounts + removed.accounts,
	    half[0].memberships + half[1].memberships + removed.memberships, &e) != 0)
		goto fail;
	if (add_accounts(&ov, &b, half, &e) != 0 ||
	    each_removed_account(&ov, add_account, &b) != 0)
		goto fail;	/* add and join free the build */
	if ((s = snap_build_finish(&b, &e)) == NULL)
		goto fail;
	snap_publish(s);
	/* the next few people's changes derive from this one */
	last = pending_ov_len(&ov) == 0 ? s : NULL;
	dirty_clear();
	dirty_all = 0;
	atomic_fetch_add(&built, 1);
	full = 1;
	log_debug("sync: snapshot %llu: %zu reasons, %zu organisations, %zu cells, "
	    "%zu accounts in %lld ms", (unsigned long long)s->gen, in.nreasons, in.norgs,
	    in.ncells, s->ncore, monotime_ms() - ((long long)t0.tv_sec * 1000 + t0.tv_nsec / 1000000));
timed:
	clock_gettime(CLOCK_MONOTONIC, &t1);
	atomic_store(&build_usec, (t1.tv_sec - t0.tv_sec) * 1000000L +
	    (t1.tv_nsec - t0.tv_nsec) / 1000);
	rc = 0;
fail:
	if (rc != 0)
		log_warn("sync: cannot build a snapshot: out of memory");
	pending_ov_free(&ov);
	free(reasons);
	free(orgs);
	free(cells);
	free(printers);
	/* a full build frees the refresh's and the last model's memory in the
	 * middle of the heap: give it back (9 MB of 460 at a million people) */
	if (full)
		malloc_trim(0);
	return rc;
}

