/* snapshot.c - building the immutable model, and swapping it under readers. */
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
#include "resolve.h"
#include "snapshot.h"

static void *
idx_val(size_t i)
{
	return (void *)(uintptr_t)(i + 1);
}

static size_t
val_idx(void *v)
{
	return (size_t)(uintptr_t)v - 1;
}

static int
put(struct strmap *m, const char *key, void *val)
{
	int failed;

	strmap_put(m, key, val, &failed);
	return failed ? -1 : 0;
}

static int
build_paths(char ***out, size_t *nout, struct strmap *idx, const char **in,
    size_t n, size_t *skipped)
{
	size_t i;

	if ((*out = calloc(n ? n : 1, sizeof(**out))) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		if (path_check(in[i], "path", NULL) != 0 || strmap_get(idx, in[i])) {
			(*skipped)++;
			continue;
		}
		if (((*out)[*nout] = strdup(in[i])) == NULL)
			return -1;
		if (put(idx, (*out)[*nout], idx_val(*nout)) != 0)
			return -1;
		(*nout)++;
	}
	return 0;
}

static int
build_cell(struct snap *s, const struct snap_in_cell *in, struct snap_cell *c)
{
	char reason[PATH_MAX_LEN + 1], org[PATH_MAX_LEN + 1];
	struct err e;
	size_t i;

	if (cell_split(in->name, reason, org, &e) != 0) {
		log_warn("snapshot: skipping cell: %s", e.msg);
		return 1;
	}
	c->name = strdup(in->name);
	c->reason = strdup(reason);
	c->org = strdup(org);
	c->grants = calloc(in->ngrants ? in->ngrants : 1, sizeof(*c->grants));
	c->pools = calloc(in->ngrants ? in->ngrants : 1, sizeof(*c->pools));
	if (!c->name || !c->reason || !c->org || !c->grants || !c->pools)
		return -1;
	for (i = 0; i < in->ngrants; i++) {
		struct grant g;

		if (grant_parse(s->cfg, in->grants[i], &g, &e) != 0) {
			if (e.code == ERR_INTERNAL)
				return -1;
			log_warn("snapshot: cell %s: skipping grant '%.80s': %s",
			    in->name, in->grants[i], e.msg);
			s->skipped++;
			continue;
		}
		/* a pool's limit is no grant: resolution never sees it */
		if (g.pool)
			c->pools[c->npools++] = g;
		else
			c->grants[c->ngrants++] = g;
	}
	return 0;
}

/* The membership cell's index in s->mres, adding it when new; -2 for a bad name. */
static long
mres_slot(struct snap *s, const char *cell, size_t cap)
{
	char reason[PATH_MAX_LEN + 1], org[PATH_MAX_LEN + 1];
	void *v = strmap_get(&s->mres_by_cell, cell);
	struct snap_mres *m;

	if (v != NULL)
		return (long)val_idx(v);
	if (cell_split(cell, reason, org, NULL) != 0)
		return -2;
	if (s->nmres >= cap)
		return -1;
	m = &s->mres[s->nmres];
	if ((m->cell = strdup(cell)) == NULL ||
	    (m->pv = calloc(s->cfg->nprivs, sizeof(*m->pv))) == NULL)
		return -1;
	if (resolve_membership(s, reason, org, m->pv) != 0)
		return -1;
	if (put(&s->mres_by_cell, m->cell, idx_val(s->nmres)) != 0)
		return -1;
	return (long)s->nmres++;
}

/*
 * uid in lower case into out (size n): uid matches without case in LDAP
 * (caseIgnoreMatch), so privd looks accounts up the same way. 0, or -1
 * when it does not fit.
 */
static int
fold(const char *uid, char *out, size_t n)
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

/* The key of a in account_by_uid. */
static const char *
account_key(const struct snap_account *a)
{
	return a->fold ? a->fold : a->uid;
}

static int
build_account(struct snap *s, const struct snap_in_account *in,
    struct snap_account *a, size_t cap)
{
	size_t i;

	if ((a->uid = strdup(in->uid)) == NULL)
		return -1;
	for (i = 0; a->uid[i] && !isupper((unsigned char)a->uid[i]); i++)
		;
	if (a->uid[i] != '\0') {
		if ((a->fold = strdup(a->uid)) == NULL)
			return -1;
		for (; a->fold[i]; i++)
			a->fold[i] = (char)tolower((unsigned char)a->fold[i]);
	}
	if ((a->m = calloc(in->ncells ? in->ncells : 1, sizeof(*a->m))) == NULL)
		return -1;
	for (i = 0; i < in->ncells; i++) {
		char cell[MEMBERSHIP_MAX];
		time_t from, until;
		long k;
		size_t j;
		int dup = 0;

		if (membership_split(in->cells[i], cell, sizeof(cell), &from, &until) != 0) {
			log_warn("snapshot: account %s: skipping membership '%.80s'", in->uid,
			    in->cells[i]);
			s->skipped++;
			continue;
		}
		if (from != 0 || until != 0) {
			char **nd = realloc(a->dated, (a->ndated + 1) * sizeof(*nd));

			if (nd == NULL)
				return -1;
			a->dated = nd;
			if ((a->dated[a->ndated] = strdup(in->cells[i])) == NULL)
				return -1;
			a->ndated++;
			/* the next moment the model changes by itself */
			if (from > s->now && (s->next_change == 0 || from < s->next_change))
				s->next_change = from;
			if (until > s->now && (s->next_change == 0 || until < s->next_change))
				s->next_change = until;
			if (!membership_in_force(from, until, s->now))
				continue;
		}
		k = mres_slot(s, cell, cap);

		if (k == -1)
			return -1;
		if (k == -2) {
			log_warn("snapshot: account %s: skipping membership '%.80s'",
			    in->uid, in->cells[i]);
			s->skipped++;
			continue;
		}
		for (j = 0; j < a->nm; j++)
			dup |= a->m[j] == &s->mres[k];
		if (!dup)
			a->m[a->nm++] = &s->mres[k];
	}
	return 0;
}

struct snap *
snap_build(const struct cfg *c, const struct snap_input *in, struct err *e)
{
	static _Atomic uint64_t generation;
	struct snap *s;
	size_t i, nm = 0;
	int rc;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		goto fail;
	s->cfg = c;
	s->built = time(NULL);
	s->now = in->now ? in->now : period_now();
	s->gen = atomic_fetch_add(&generation, 1) + 1;
	strmap_init(&s->reason_idx);
	strmap_init(&s->org_idx);
	strmap_init(&s->cell_by_name);
	strmap_init(&s->mres_by_cell);
	strmap_init(&s->account_by_uid);

	if (build_paths(&s->reasons, &s->nreasons, &s->reason_idx, in->reasons,
	    in->nreasons, &s->skipped) != 0)
		goto fail;
	if ((s->reason_kids = calloc(s->nreasons ? s->nreasons : 1, sizeof(int))) == NULL)
		goto fail;
	for (i = 0; i < s->nreasons; i++) {
		char parent[PATH_MAX_LEN + 1];
		size_t plen = path_parent_len(s->reasons[i]);
		void *v;

		if (plen == 0)
			continue;
		memcpy(parent, s->reasons[i], plen);
		parent[plen] = '\0';
		if ((v = strmap_get(&s->reason_idx, parent)) != NULL)
			s->reason_kids[val_idx(v)]++;
	}
	if (build_paths(&s->orgs, &s->norgs, &s->org_idx, in->orgs, in->norgs,
	    &s->skipped) != 0)
		goto fail;

	if ((s->cells = calloc(in->ncells ? in->ncells : 1, sizeof(*s->cells))) == NULL)
		goto fail;
	for (i = 0; i < in->ncells; i++) {
		struct snap_cell *cell = &s->cells[s->ncells];

		if (strmap_get(&s->cell_by_name, in->cells[i].name) != NULL) {
			s->skipped++;
			continue;
		}
		if ((rc = build_cell(s, &in->cells[i], cell)) < 0) {
			s->ncells++;	/* so snap_free sees it */
			goto fail;
		}
		if (rc > 0) {
			s->skipped++;
			continue;
		}
		if (put(&s->cell_by_name, cell->name, cell) != 0) {
			s->ncells++;
			goto fail;
		}
		s->ncells++;
	}
	/* the cells that hold pools, for pool.c's lookups */
	if ((s->pooled = calloc(s->ncells ? s->ncells : 1, sizeof(*s->pooled))) == NULL)
		goto fail;
	for (i = 0; i < s->ncells; i++)
		if (s->cells[i].npools > 0)
			s->pooled[s->npooled++] = &s->cells[i];

	for (i = 0; i < in->naccounts; i++)
		nm += in->accounts[i].ncells;
	if ((s->mres = calloc(nm ? nm : 1, sizeof(*s->mres))) == NULL)
		goto fail;
	if ((s->accounts = calloc(in->naccounts ? in->naccounts : 1,
	    sizeof(*s->accounts))) == NULL ||
	    (s->answers = calloc(in->naccounts ? in->naccounts : 1, sizeof(*s->answers))) == NULL)
		goto fail;
	for (i = 0; i < in->naccounts; i++) {
		struct snap_account *a = &s->accounts[s->naccounts];

		if (snap_account(s, in->accounts[i].uid) != NULL) {
			log_warn("snapshot: uid %s appears on two entries; keeping the first",
			    in->accounts[i].uid);
			s->skipped++;
			continue;
		}
		s->naccounts++;
		if (build_account(s, &in->accounts[i], a, nm) != 0)
			goto fail;
		if (put(&s->account_by_uid, account_key(a), a) != 0)
			goto fail;
	}
	return s;
fail:
	snap_free(s);
	err_set(e, ERR_INTERNAL, 0, NULL, "out of memory building the snapshot");
	return NULL;
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
		free(c->name);
		free(c->reason);
		free(c->org);
	}
	free(s->cells);
	free(s->pooled);
	for (i = 0; i < s->nmres; i++) {
		if (s->mres[i].pv != NULL)
			for (p = 0; p < s->cfg->nprivs; p++)
				resolve_pval_clear(&s->mres[i].pv[p]);
		free(s->mres[i].pv);
		free(s->mres[i].cell);
	}
	free(s->mres);
	for (i = 0; i < s->naccounts; i++) {
		free(s->accounts[i].uid);
		free(s->accounts[i].fold);
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
	strmap_free(&s->mres_by_cell);
	strmap_free(&s->account_by_uid);
	free(s);
}

const struct snap_account *
snap_account(const struct snap *s, const char *uid)
{
	char key[512];

	if (fold(uid, key, sizeof(key)) != 0)
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

	return v != NULL && s->reason_kids[val_idx(v)] == 0;
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
