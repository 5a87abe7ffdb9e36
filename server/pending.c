/* pending.c - recorded changes as the follower sees them, and the model before them. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "dn.h"
#include "ldapconn.h"
#include "log.h"
#include "path.h"
#include "pending.h"

struct imp {
	char uuid[33];
	char *dn;
	int record;		/* else a part of the record at parent */
	char *parent;
	char id[CHG_ID_MAX];
	char state[16];
	char what[64];
	char actor[128];
	char csn[CHG_CSN_MAX];
	long started;
	int warned;
	struct chg_obj *before;
	size_t nbefore;
};

static const struct cfg *cfg;
static char *imports_dn;
static struct strmap imps;	/* entryUUID -> struct imp */
static pthread_mutex_t statlock = PTHREAD_MUTEX_INITIALIZER;
static struct pending_status status;

static void
imp_free(struct imp *m)
{
	size_t i;

	if (m == NULL)
		return;
	for (i = 0; i < m->nbefore; i++)
		chg_obj_free(&m->before[i]);
	free(m->before);
	free(m->dn);
	free(m->parent);
	free(m);
}

int
pending_init(const struct cfg *c)
{
	cfg = c;
	strmap_init(&imps);
	return (imports_dn = dn_join("ou=imports", c->base_dn)) ? 0 : -1;
}

void
pending_clear(void)
{
	size_t i;

	for (i = 0; i < imps.cap; i++)
		if (imps.slots[i].key)
			imp_free(imps.slots[i].val);
	strmap_free(&imps);
	pthread_mutex_lock(&statlock);
	memset(&status, 0, sizeof(status));
	pthread_mutex_unlock(&statlock);
}

void
pending_free(void)
{
	pending_clear();
	free(imports_dn);
	imports_dn = NULL;
}

int
pending_is(const char *dn)
{
	return imports_dn && dn_within(dn, imports_dn);
}

void
pending_forget(const char *uuid)
{
	imp_free(strmap_del(&imps, uuid));
}

static void
read_before(LDAP *ld, LDAPMessage *msg, struct imp *m)
{
	struct berval **v = ldap_get_values_len(ld, msg, "privBefore");
	size_t i, n = v ? ldap_count_values_len(v) : 0;

	if (n == 0 || (m->before = calloc(n, sizeof(*m->before))) == NULL) {
		ldap_value_free_len(v);
		return;
	}
	for (i = 0; i < n; i++)
		if (chg_decode(v[i]->bv_val, v[i]->bv_len, &m->before[m->nbefore]) == 0)
			m->nbefore++;
	ldap_value_free_len(v);
}

void
pending_put(LDAP *ld, LDAPMessage *msg, const char *uuid, const char *dn)
{
	struct imp *m = calloc(1, sizeof(*m));
	char cn[CHG_ID_MAX];
	const char *comma;
	long long t = 0;
	int failed;

	if (m == NULL || (m->dn = strdup(dn)) == NULL)
		goto fail;
	memcpy(m->uuid, uuid, sizeof(m->uuid));
	m->record = dn_leaf_cn(dn, imports_dn, cn, sizeof(cn)) == 0;
	if (m->record) {
		memcpy(m->id, cn, sizeof(cn));
		ldapc_get_buf(ld, msg, "privImportState", m->state, sizeof(m->state));
		ldapc_get_buf(ld, msg, "privImportWhat", m->what, sizeof(m->what));
		ldapc_get_buf(ld, msg, "privImportActor", m->actor, sizeof(m->actor));
		ldapc_get_buf(ld, msg, "privImportCSN", m->csn, sizeof(m->csn));
		ldapc_get_ll(ld, msg, "privImportTime", &t);
		m->started = (long)t;
	} else {
		if ((comma = strchr(dn, ',')) == NULL || (m->parent = strdup(comma + 1)) == NULL)
			goto fail;
		read_before(ld, msg, m);
	}
	{
		struct imp *old = strmap_get(&imps, m->uuid);

		if (old != NULL && old->record && strcmp(old->id, m->id) == 0)
			m->warned = old->warned;
	}
	pending_forget(m->uuid);
	strmap_put(&imps, m->uuid, m, &failed);
	if (failed)
		goto fail;
	if (m->record)
		log_info("sync: import %s (%s by %s) is %s", m->id, m->what, m->actor, m->state);
	return;
fail:
	log_warn("sync: out of memory reading %s", dn);
	imp_free(m);
}

static int
is_open(const struct imp *m)
{
	return m->record && (strcasecmp(m->state, "open") == 0 ||
	    strcasecmp(m->state, "aborting") == 0);
}

/* Refreshes what pending_status reports. */
static void
report(int holding)
{
	struct pending_status st;
	size_t i;

	memset(&st, 0, sizeof(st));
	for (i = 0; i < imps.cap; i++) {
		const struct imp *m = imps.slots[i].val;

		if (imps.slots[i].key && is_open(m)) {
			st.open = 1;
			memcpy(st.id, m->id, sizeof(st.id));
			memcpy(st.what, m->what, sizeof(st.what));
			memcpy(st.actor, m->actor, sizeof(st.actor));
			st.started = m->started;
			st.stale = time(NULL) - m->started > cfg->import_stale_after_s;
		}
	}
	st.open |= holding;
	pthread_mutex_lock(&statlock);
	status = st;
	pthread_mutex_unlock(&statlock);
}

int
pending_holding(const char *people_csn)
{
	int hold = 0;
	size_t i;

	for (i = 0; i < imps.cap && !hold; i++) {
		const struct imp *m = imps.slots[i].val;

		if (imps.slots[i].key == NULL || !m->record)
			continue;
		if (is_open(m))
			hold = 1;
		else if (m->csn[0] && strcmp(people_csn, m->csn) < 0 &&
		    (strcasecmp(m->state, "closed") == 0 || strcasecmp(m->state, "aborted") == 0))
			hold = 1;
	}
	report(hold);
	return hold;
}

void
pending_audit(void)
{
	size_t i;

	for (i = 0; i < imps.cap; i++) {
		struct imp *m = imps.slots[i].val;

		if (imps.slots[i].key == NULL || !is_open(m) || m->warned ||
		    time(NULL) - m->started <= cfg->import_stale_after_s)
			continue;
		log_warn("audit: import %s (%s by %s) has been open for %ld s (more than "
		    "imports.stale_after): privd answers from the model before it until it "
		    "closes; run the same import again to finish it, or undo it with "
		    "privctl import --abort %s", m->id, m->what, m->actor,
		    (long)(time(NULL) - m->started), m->id);
		m->warned = 1;
	}
}

void
pending_status(struct pending_status *out)
{
	pthread_mutex_lock(&statlock);
	*out = status;
	pthread_mutex_unlock(&statlock);
}

/* ---- the overlay ---- */

/* Whether m is a part with states whose record is open. */
static int
part_counts(const struct imp *m)
{
	size_t j;

	if (m->record || m->nbefore == 0)
		return 0;
	for (j = 0; j < imps.cap; j++) {
		const struct imp *r = imps.slots[j].val;

		if (imps.slots[j].key && is_open(r) && strcasecmp(r->dn, m->parent) == 0)
			return 1;
	}
	return 0;
}

int
pending_overlay(struct pending_ov *ov)
{
	size_t i, j, n = 0;
	int failed;

	memset(ov, 0, sizeof(*ov));
	strmap_init(&ov->map);
	for (i = 0; i < imps.cap; i++) {
		const struct imp *m = imps.slots[i].val;

		if (imps.slots[i].key != NULL && part_counts(m))
			n += m->nbefore;
	}
	if (n == 0)
		return 0;
	ov->keys = calloc(n, sizeof(*ov->keys));
	ov->objs = calloc(n, sizeof(*ov->objs));
	ov->used = calloc(n, 1);
	if (!ov->keys || !ov->objs || !ov->used)
		goto fail;
	for (i = 0; i < imps.cap; i++) {
		const struct imp *m = imps.slots[i].val;

		if (imps.slots[i].key == NULL || !part_counts(m))
			continue;
		for (j = 0; j < m->nbefore && ov->nkeys < n; j++) {
			const struct chg_obj *o = &m->before[j];
			char kind = o->kind == CHG_PERSON ? CHG_ACCOUNT : o->kind;
			char *k;

			if (asprintf(&k, "%c\x1f%s", kind, o->key) < 0)
				goto fail;
			if (strmap_get(&ov->map, k) != NULL) {
				free(k);	/* an object's first state wins */
				continue;
			}
			ov->keys[ov->nkeys] = k;
			ov->objs[ov->nkeys] = o;
			strmap_put(&ov->map, k, (void *)(ov->nkeys + 1), &failed);
			ov->nkeys++;
			if (failed)
				goto fail;
		}
	}
	return 0;
fail:
	log_warn("sync: out of memory laying an open import over the snapshot");
	pending_ov_free(ov);
	return -1;
}

const struct chg_obj *
pending_ov_get(struct pending_ov *ov, char kind, const char *key)
{
	char k[CELL_MAX_LEN + 4];
	size_t i;

	if (ov->nkeys == 0)
		return NULL;
	snprintf(k, sizeof(k), "%c\x1f%s", kind, key);
	if ((i = (size_t)strmap_get(&ov->map, k)) == 0)
		return NULL;
	ov->used[i - 1] = 1;
	return ov->objs[i - 1];
}

size_t
pending_ov_len(const struct pending_ov *ov)
{
	return ov->nkeys;
}

const struct chg_obj *
pending_ov_unused(const struct pending_ov *ov, size_t i)
{
	return i < ov->nkeys && !ov->used[i] ? ov->objs[i] : NULL;
}

void
pending_ov_free(struct pending_ov *ov)
{
	size_t i;

	for (i = 0; i < ov->nkeys; i++)
		free(ov->keys[i]);
	free(ov->keys);
	free(ov->objs);
	free(ov->used);
	strmap_free(&ov->map);
	memset(ov, 0, sizeof(*ov));
}
