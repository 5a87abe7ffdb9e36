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
	free(pv->src);
	memset(pv, 0, sizeof(*pv));
}

void
snap_free(struct snap *s)
{
	size_t i, p;

	if (s == NULL)
		return;
	for (i = 0; i < s->nreasons; i++)
		free(s->reasons[i]);
	free(s->reasons);
	free(s->reason_kids);
	for (i = 0; i < s->norgs; i++)
		free(s->orgs[i]);
	free(s->orgs);
	for (i = 0; i < s->ncells; i++) {
		struct snap_cell *c = &s->cells[i];

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
	}
	free(s->cells);
	free(s->pooled);
	for (i = 0; i < s->nmres; i++) {
		if (s->mres[i].pv != NULL)
			for (p = 0; p < s->cfg->nprivs; p++)
				snap_pval_clear(&s->mres[i].pv[p]);
		free(s->mres[i].pv);
		free(s->mres[i].cell);
	}
	free(s->mres);
	for (i = 0; i < s->naccounts; i++) {
		free(s->accounts[i].uid);
		free(s->accounts[i].fold);
		free(s->accounts[i].dn);
		for (p = 0; p < s->accounts[i].ndated; p++)
			free(s->accounts[i].dated[p]);
		free(s->accounts[i].dated);
		free(s->accounts[i].m);
		if (s->answers)
			free(atomic_load(&s->answers[i]));
	}
	free(s->accounts);
	free(s->answers);
	strmap_free(&s->reason_idx);
	strmap_free(&s->org_idx);
	strmap_free(&s->cell_by_name);
	free(s->printers);
	strmap_free(&s->printer_by_name);
	strmap_free(&s->mres_by_cell);
	strmap_free(&s->account_by_uid);
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
	return strmap_get(&s->account_by_uid, key);
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
	return strmap_get(&s->cell_by_name, name);
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
