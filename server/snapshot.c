/* snapshot.c - the immutable model: its lookups, freeing it, and swapping it under readers. */
#include <sched.h>
#include <ctype.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "membership.h"
#include "path.h"
#include "period.h"
#include "snapshot.h"

void
snap_pval_clear(struct snap_pval *pv)
{
	free(pv->allow);
	memset(pv, 0, sizeof(*pv));
}

int
snap_account_alloc(struct snap_account *a, const char *uid, size_t nm)
{
	size_t n = nm ? nm : 1, len = strlen(uid) + 1;

	if ((a->m = calloc(1, n * sizeof(*a->m) + len)) == NULL)
		return -1;
	a->uid = (char *)(a->m + n);
	memcpy(a->uid, uid, len);
	return 0;
}

void
snap_account_clear(struct snap_account *a)
{
	size_t p;

	free(a->fold);
	free(a->dn);
	for (p = 0; p < a->ndated; p++)
		free(a->dated[p]);
	free(a->dated);
	free(a->m);
	memset(a, 0, sizeof(*a));
}

uint64_t
snap_new_gen(void)
{
	static _Atomic uint64_t generation;

	return atomic_fetch_add(&generation, 1) + 1;
}

void
snap_over_put(struct snap_over *o)
{
	if (o == NULL || atomic_fetch_sub(&o->refs, 1) != 1)
		return;
	snap_account_clear(&o->a);
	free(atomic_load(&o->answer));
	free(o);
}

/* Frees what a membership cell's values own (not m itself). */
static void
mres_clear(struct snap_mres *m, const struct cfg *c)
{
	size_t p;

	if (m->pv != NULL)
		for (p = 0; p < c->nprivs; p++)
			snap_pval_clear(&m->pv[p]);
	free(m->pv);
	free(m->cell);
}

void
snap_over_mres_put(struct snap_over_mres *o, const struct cfg *c)
{
	if (o == NULL || atomic_fetch_sub(&o->refs, 1) != 1)
		return;
	mres_clear(&o->m, c);
	free(o);
}

void
snap_cell_clear(struct snap_cell *c)
{
	size_t p;

	for (p = 0; p < c->ngrants; p++)
		grant_clear(&c->grants[p]);
	free(c->grants);
	for (p = 0; p < c->npools; p++)
		grant_clear(&c->pools[p]);
	free(c->pools);
	for (p = 0; p < c->ncontacts; p++)
		free(c->contacts[p]);
	free(c->contacts);
	free(c->name);
	free(c->reason);
	free(c->org);
	memset(c, 0, sizeof(*c));
}

void
snap_over_cell_put(struct snap_over_cell *o)
{
	if (o == NULL || atomic_fetch_sub(&o->refs, 1) != 1)
		return;
	snap_cell_clear(&o->c);
	free(o);
}

/* What a full build made, once no snapshot shares it. */
static void
core_free(struct snap *s)
{
	size_t i;

	for (i = 0; i < s->nreasons; i++)
		free(s->reasons[i]);
	free(s->reasons);
	free(s->reason_kids);
	for (i = 0; i < s->norgs; i++)
		free(s->orgs[i]);
	free(s->orgs);
	for (i = 0; i < s->ncore_cells; i++)
		snap_cell_clear(&s->core_cells[i]);
	free(s->core_cells);
	free(s->core_pooled);
	free(s->mres_first);
	free(s->mres_accts);
	for (i = 0; i < s->nmres; i++)
		mres_clear(&s->mres[i], s->cfg);
	free(s->mres);
	for (i = 0; i < s->ncore; i++) {
		snap_account_clear(&s->core[i]);
		if (s->answers)
			free(atomic_load(&s->answers[i]));
	}
	free(s->core);
	free(s->answers);
	strmap_free(&s->reason_idx);
	strmap_free(&s->org_idx);
	strmap_free(&s->cell_by_name);
	free(s->printers);
	strmap_free(&s->printer_by_name);
	strmap_free(&s->mres_by_cell);
	uidx_free(&s->account_by_uid);
	free(s->core_refs);
}

void
snap_free(struct snap *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->over.cap; i++)
		if (s->over.slots[i].key != NULL)
			snap_over_put(s->over.slots[i].val);
	strmap_free(&s->over);
	for (i = 0; i < s->over_mres.cap; i++)
		if (s->over_mres.slots[i].key != NULL)
			snap_over_mres_put(s->over_mres.slots[i].val, s->cfg);
	strmap_free(&s->over_mres);
	for (i = 0; i < s->over_cells.cap; i++)
		if (s->over_cells.slots[i].key != NULL)
			snap_over_cell_put(s->over_cells.slots[i].val);
	strmap_free(&s->over_cells);
	if (s->own_pooled)
		free(s->pooled);
	free(s->shadow);
	snap_wide_put(s->wide, s);
	if (s->core_refs == NULL || atomic_fetch_sub(s->core_refs, 1) == 1)
		core_free(s);
	free(s);
}

int
snap_fold_uid(const char *uid, char *out, size_t n)
{
	size_t i;

	for (i = 0; uid[i]; i++) {
		if (i + 1 >= n)
			return -1;
		out[i] = (char)tolower((unsigned char)uid[i]);
	}
	out[i] = '\0';
	return 0;
}

const struct snap_account *
snap_account(const struct snap *s, const char *uid)
{
	char key[512];

	if (snap_fold_uid(uid, key, sizeof(key)) != 0)
		return NULL;
	if (s->over.len > 0) {
		const struct snap_over *o = strmap_get(&s->over, key);

		if (o != NULL)
			return o->a.uid != NULL ? &o->a : NULL;
	}
	return snap_core_account(s, key);
}

const char *
snap_account_key(const struct snap_account *a)
{
	return a->fold ? a->fold : a->uid;
}

const char *
snap_core_key(const void *s, uint32_t i)
{
	return snap_account_key(&((const struct snap *)s)->core[i]);
}

const struct snap_account *
snap_core_account(const struct snap *s, const char *key)
{
	long i = uidx_get(&s->account_by_uid, key, snap_core_key, s);

	return i < 0 ? NULL : &s->core[i];
}

long
snap_mres_idx(const struct snap *s, const struct snap_mres *m)
{
	uintptr_t k0 = (uintptr_t)s->mres, km = (uintptr_t)m;

	if (km < k0 || km >= k0 + s->nmres * sizeof(*m))
		return -1;
	return (long)((km - k0) / sizeof(*m));
}

const struct snap_account *
snap_next(const struct snap *s, size_t *pos)
{
	const struct snap_over *o;

	for (; *pos < s->ncore; (*pos)++)
		if (s->shadow == NULL || !(s->shadow[*pos / 64] >> (*pos % 64) & 1))
			return &s->core[(*pos)++];
	for (; *pos - s->ncore < s->over.cap; (*pos)++) {
		if (s->over.slots[*pos - s->ncore].key == NULL)
			continue;
		o = s->over.slots[*pos - s->ncore].val;
		if (o->a.uid != NULL) {
			(*pos)++;
			return &o->a;
		}
	}
	return NULL;
}

int
snap_due(time_t now)
{
	const struct snap *s;
	int t, due;

	s = snap_enter(&t);
	due = s != NULL && s->next_change != 0 && now >= s->next_change;
	snap_leave(t);
	return due;
}

const struct price_card *
snap_printer(const struct snap *s, const char *name)
{
	return strmap_get(&s->printer_by_name, name);
}

const struct snap_cell *
snap_cell(const struct snap *s, const char *name)
{
	if (s->over_cells.len > 0) {
		const struct snap_over_cell *o = strmap_get(&s->over_cells, name);

		if (o != NULL)
			return o->c.name != NULL ? &o->c : NULL;
	}
	return strmap_get(&s->cell_by_name, name);
}

const struct snap_cell *
snap_next_cell(const struct snap *s, size_t *pos)
{
	const struct snap_over_cell *o;

	for (; *pos < s->ncore_cells; (*pos)++)
		if (s->over_cells.len == 0 ||
		    strmap_get(&s->over_cells, s->core_cells[*pos].name) == NULL)
			return &s->core_cells[(*pos)++];
	for (; *pos - s->ncore_cells < s->over_cells.cap; (*pos)++) {
		if (s->over_cells.slots[*pos - s->ncore_cells].key == NULL)
			continue;
		o = s->over_cells.slots[*pos - s->ncore_cells].val;
		if (o->c.name != NULL) {
			(*pos)++;
			return &o->c;
		}
	}
	return NULL;
}

int
snap_reason_exists(const struct snap *s, const char *path)
{
	return *path == '\0' || strmap_get(&s->reason_idx, path) != NULL;
}

int
snap_reason_is_leaf(const struct snap *s, const char *path)
{
	void *v = strmap_get(&s->reason_idx, path);

	return v != NULL && s->reason_kids[snap_val_idx(v)] == 0;
}

int
snap_org_exists(const struct snap *s, const char *path)
{
	return *path == '\0' || strmap_get(&s->org_idx, path) != NULL;
}

/*
 * Two-epoch grace period. A reader counts itself in readers[epoch & 1] and
 * re-checks the epoch, so it is counted in the epoch it read the pointer
 * under. The writer swaps the pointer, flips the epoch, and waits for the
 * old epoch's count to drain: a reader counted in the new epoch loaded the
 * pointer after the swap, so only old-epoch readers can hold the old one.
 */
static _Atomic(struct snap *) current;
static atomic_uint epoch;
static atomic_long readers[2];

const struct snap *
snap_enter(int *ticket)
{
	unsigned e;

	for (;;) {
		e = atomic_load(&epoch);
		atomic_fetch_add(&readers[e & 1], 1);
		if (atomic_load(&epoch) == e)
			break;
		atomic_fetch_sub(&readers[e & 1], 1);
	}
	*ticket = (int)(e & 1);
	return atomic_load(&current);
}

void
snap_leave(int ticket)
{
	atomic_fetch_sub(&readers[ticket], 1);
}

void
snap_publish(struct snap *s)
{
	struct snap *old = atomic_exchange(&current, s);
	unsigned e = atomic_fetch_add(&epoch, 1);

	while (atomic_load(&readers[e & 1]) != 0)
		sched_yield();
	snap_free(old);
}

void
snap_shutdown(void)
{
	snap_free(atomic_exchange(&current, NULL));
}
