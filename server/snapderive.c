/*
 * snapderive.c - the snapshot after a few changes. It shares the full
 * build's core (trees, cells, resolved memberships, every other account and
 * its cached answer) and holds what changed in an overlay of its own: the
 * changed cells, the memberships those cells cover re-resolved, and the
 * changed accounts, with the people in a re-resolved membership among them.
 * One person's membership edit, or a grant on a cell with a few members,
 * among a million accounts is published in milliseconds, where a full build
 * takes seconds and, while readers keep the old snapshot, twice the memory.
 * The overlay is carried forward, its entries counted, until the next full
 * build (SNAP_OVER_MAX accounts, a change to the trees or printers, or a
 * dated membership's moment).
 *
 * A cell whose memberships hold more people than the overlay takes (a
 * grant on "@" reaches every account) is not copied person by person: a
 * wide table of the snapshot's own (struct snap_wide) marks the full
 * build's memberships it covers to be resolved again where a reader first
 * asks for them, and gives the full build's accounts fresh answers. A grant
 * on "@" among a million accounts costs a table of 100,000 pointers and
 * one of a million, not a full build's seconds and second model.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "path.h"
#include "resolve.h"
#include "snapshot.h"

/* The membership cell resolved in s, one hold on it: 0, -1 out of
 * memory, -2 a name privd cannot use. */
static int
resolve_new(const struct snap *s, const char *cell, struct snap_over_mres **out)
{
	char reason[PATH_MAX_LEN + 1], org[PATH_MAX_LEN + 1];
	struct snap_over_mres *o;

	if (cell_split(cell, reason, org, NULL) != 0)
		return -2;
	if ((o = calloc(1, sizeof(*o))) == NULL)
		return -1;
	atomic_init(&o->refs, 1);
	o->m.reason = o->m.org = SNAP_NOIDX;	/* the full build's only */
	if ((o->m.cell = strdup(cell)) == NULL ||
	    (o->m.pv = calloc(s->cfg->nprivs, sizeof(*o->m.pv))) == NULL ||
	    resolve_membership(s, reason, org, o->m.pv) != 0) {
		snap_over_mres_put(o, s->cfg);
		return -1;
	}
	*out = o;
	return 0;
}

/* Resolves the membership cell anew into the overlay, in place of the
 * values it had there. */
static int
resolve_into(struct snap *s, const char *cell, struct snap_over_mres **out)
{
	struct snap_over_mres *o, *prev;
	int failed, rc;

	if ((rc = resolve_new(s, cell, &o)) != 0)
		return rc;
	prev = strmap_replace(&s->over_mres, o->m.cell, o, &failed);
	if (failed) {
		snap_over_mres_put(o, s->cfg);
		return -1;
	}
	snap_over_mres_put(prev, s->cfg);
	*out = o;
	return 0;
}

/* The overlay's record holding the values m (not the full build's). */
static struct snap_over_mres *
owner(const struct snap_mres *m)
{
	return (struct snap_over_mres *)(void *)((char *)(uintptr_t)m -
	    offsetof(struct snap_over_mres, m));
}

const struct snap_mres *
snap_mres_of(const struct snap *s, const struct snap_mres *m)
{
	const struct snap_mres *v;
	struct snap_over_mres *o;
	long k;

	if (s->wide == NULL || (k = snap_mres_idx(s, m)) < 0)
		return m;
	if ((v = atomic_load(&s->wide->m[k])) != NULL)
		return v;
	/*
	 * The snapshots sharing this table differ only in changes that do
	 * not cover this membership (one that does moves its people into
	 * the overlay), so any of them resolves it alike: the first to ask
	 * keeps it, as answer.c keeps the first answer.
	 */
	if (resolve_new(s, m->cell, &o) != 0)
		return NULL;
	if (!atomic_compare_exchange_strong(&s->wide->m[k], &v, &o->m)) {
		snap_over_mres_put(o, s->cfg);
		return v;
	}
	return &o->m;
}

_Atomic(void *) *
snap_answer_slot(const struct snap *s, const struct snap_account *a)
{
	/* a changed account keeps its answer beside it */
	if (a->over != NULL)
		return &a->over->answer;
	return s->wide ? &s->wide->answers[a - s->core] : &s->answers[a - s->core];
}

void
snap_wide_put(struct snap_wide *w, const struct snap *s)
{
	size_t i;

	if (w == NULL || atomic_fetch_sub(&w->refs, 1) != 1)
		return;
	for (i = 0; w->m && i < w->nm; i++) {
		const struct snap_mres *v = atomic_load(&w->m[i]);

		if (v != NULL && snap_mres_idx(s, v) < 0)
			snap_over_mres_put(owner(v), s->cfg);
	}
	for (i = 0; w->answers && i < w->na; i++)
		free(atomic_load(&w->answers[i]));
	free(w->m);
	free(w->answers);
	free(w);
}

/* Hold on the values v when they are the overlay's. */
static const struct snap_mres *
hold_mres(const struct snap *s, const struct snap_mres *v)
{
	if (v != NULL && snap_mres_idx(s, v) < 0)
		atomic_fetch_add(&owner(v)->refs, 1);
	return v;
}

/*
 * s's own wide table in place of the one it shares (if any): the
 * memberships hit resolved again on first use, unless the overlay holds
 * them (then its values, which are current: each change covering one
 * re-resolves it there); the others as they were. Every core account
 * answers anew.
 */
static int
widen(struct snap *s, const unsigned char *hit)
{
	struct snap_wide *old = s->wide, *w;
	size_t k, i;

	if ((w = calloc(1, sizeof(*w))) == NULL)
		return -1;
	atomic_init(&w->refs, 1);
	w->nm = s->nmres;
	w->na = s->ncore;
	if ((w->m = calloc(w->nm ? w->nm : 1, sizeof(*w->m))) == NULL ||
	    (w->answers = calloc(w->na ? w->na : 1, sizeof(*w->answers))) == NULL) {
		free(w->m);
		free(w);
		return -1;
	}
	for (k = 0; k < s->nmres; k++)
		atomic_init(&w->m[k], hit[k] ? NULL :
		    hold_mres(s, old ? atomic_load(&old->m[k]) : &s->mres[k]));
	for (i = 0; i < s->over_mres.cap; i++) {
		const struct snap_over_mres *o = s->over_mres.slots[i].val;
		const struct snap_mres *was;
		void *v;

		if (s->over_mres.slots[i].key == NULL ||
		    (v = strmap_get(&s->mres_by_cell, s->over_mres.slots[i].key)) == NULL)
			continue;
		k = snap_val_idx(v);
		was = atomic_load(&w->m[k]);
		if (was != NULL && snap_mres_idx(s, was) < 0)
			snap_over_mres_put(owner(was), s->cfg);
		atomic_init(&w->m[k], hold_mres(s, &o->m));
	}
	s->wide = w;
	snap_wide_put(old, s);
	return 0;
}

/* A membership cell's values: the overlay's, else the core's, else
 * resolved now into the overlay. */
static int
over_mres(struct snap *s, const char *cell, void *arg, const struct snap_mres **out)
{
	struct snap_over_mres *o;
	void *v;
	int rc;

	(void)arg;
	if ((o = strmap_get(&s->over_mres, cell)) != NULL) {
		*out = &o->m;
		return 0;
	}
	if ((v = strmap_get(&s->mres_by_cell, cell)) != NULL) {
		*out = &s->mres[snap_val_idx(v)];
		return 0;
	}
	if ((rc = resolve_into(s, cell, &o)) != 0)
		return rc;
	*out = &o->m;
	return 0;
}

/* Takes one more hold on every value of m. */
static void
hold_all(struct strmap *m, int kind)
{
	size_t i;

	for (i = 0; i < m->cap; i++) {
		if (m->slots[i].key == NULL)
			continue;
		if (kind == 0)
			atomic_fetch_add(&((struct snap_over *)m->slots[i].val)->refs, 1);
		else if (kind == 1)
			atomic_fetch_add(&((struct snap_over_mres *)m->slots[i].val)->refs, 1);
		else
			atomic_fetch_add(&((struct snap_over_cell *)m->slots[i].val)->refs, 1);
	}
}

/* Puts o under key in s's overlay, in place of the account there was. */
static int
replace(struct snap *s, const char *key, struct snap_over *o)
{
	const struct snap_account *was = snap_account(s, key);
	const struct snap_account *in_core = snap_core_account(s, key);
	struct snap_over *prev;
	int failed;

	prev = strmap_replace(&s->over, key, o, &failed);
	if (failed)
		return -1;
	snap_over_put(prev);
	if (in_core != NULL) {
		size_t i = (size_t)(in_core - s->core);

		s->shadow[i / 64] |= (uint64_t)1 << (i % 64);
	}
	if (was != NULL)
		s->naccounts--;
	if (o->a.uid != NULL)
		s->naccounts++;
	return 0;
}

/* Puts the cell (o->c.name NULL: removed, its name in o->c.reason) in s's overlay. */
static int
replace_cell(struct snap *s, struct snap_over_cell *o)
{
	const char *name = o->c.name ? o->c.name : o->c.reason;
	int was = snap_cell(s, name) != NULL, failed;
	struct snap_over_cell *prev;

	prev = strmap_replace(&s->over_cells, name, o, &failed);
	if (failed)
		return -1;
	snap_over_cell_put(prev);
	s->ncells += (o->c.name != NULL) - was;
	return 0;
}

/* Whether path lies at or below p (every path lies below ""). */
static int
below(const char *path, size_t n, const char *p)
{
	size_t pl = strlen(p);

	return pl == 0 || (n >= pl && strncmp(path, p, pl) == 0 && (n == pl || path[pl] == '/'));
}

/* Whether one of the changed cells covers the membership cell (rule 1). */
static int
covered(const char *mcell, const char *const *reasons, const char *const *orgs, size_t n)
{
	const char *at = strchr(mcell, '@');
	size_t i;

	if (at == NULL)
		return 0;
	for (i = 0; i < n; i++)
		if (below(mcell, (size_t)(at - mcell), reasons[i]) &&
		    below(at + 1, strlen(at + 1), orgs[i]))
			return 1;
	return 0;
}

/* Per node of a tree (paths[0..np-1]), which of the n (at most 64) changed
 * cells' sides (sides[i]) lie at or above it: bit i. NULL when out of memory. */
static uint64_t *
node_masks(char *const *paths, size_t np, const char *const *sides, size_t n)
{
	uint64_t *mask = calloc(np ? np : 1, sizeof(*mask));
	size_t x, i, len;

	if (mask == NULL)
		return NULL;
	for (x = 0; x < np; x++)
		for (len = strlen(paths[x]), i = 0; i < n; i++)
			if (below(paths[x], len, sides[i]))
				mask[x] |= (uint64_t)1 << i;
	return mask;
}

/* A copy of a with each membership that the overlay re-resolved taken from it. */
static struct snap_over *
repoint(struct snap *s, const struct snap_account *a)
{
	struct snap_over *o = calloc(1, sizeof(*o));
	size_t i;

	if (o == NULL)
		return NULL;
	atomic_init(&o->refs, 1);
	o->a.over = o;
	if (snap_account_alloc(&o->a, a->uid, a->nm) != 0 ||
	    (a->fold && (o->a.fold = strdup(a->fold)) == NULL) ||
	    (a->dn && (o->a.dn = strdup(a->dn)) == NULL) ||
	    (a->ndated && (o->a.dated = calloc(a->ndated, sizeof(*o->a.dated))) == NULL))
		goto fail;
	for (i = 0; i < a->ndated; i++, o->a.ndated++)
		if ((o->a.dated[i] = strdup(a->dated[i])) == NULL)
			goto fail;
	for (i = 0; i < a->nm; i++) {
		const struct snap_over_mres *m = strmap_get(&s->over_mres, a->m[i]->cell);

		o->a.m[o->a.nm++] = m ? &m->m : a->m[i];
	}
	return o;
fail:
	snap_over_put(o);
	return NULL;
}

/*
 * The cells of ch into the overlay; the memberships they cover resolved
 * anew; the people in those memberships copied into the overlay with the
 * new values, or when that would pass SNAP_OVER_MAX accounts, the
 * memberships marked in a wide table of s's own (widen).
 */
static int
apply_cells(struct snap *s, const struct snap_change *ch)
{
	size_t n = ch->ncells + ch->ncells_gone, i, k, j;
	char (*rp)[PATH_MAX_LEN + 1] = NULL, (*op)[PATH_MAX_LEN + 1] = NULL;
	const char **reasons = NULL, **orgs = NULL;
	struct snap_over_cell *o = NULL;
	unsigned char *hit = NULL;
	uint64_t *rmask = NULL, *omask = NULL;
	size_t moved = 0;
	int rc = -1, wide;

	if (n == 0)
		return 0;
	rp = malloc(n * sizeof(*rp));
	op = malloc(n * sizeof(*op));
	reasons = calloc(n, sizeof(*reasons));
	orgs = calloc(n, sizeof(*orgs));
	if (!rp || !op || !reasons || !orgs)
		goto done;
	for (i = 0; i < n; i++) {
		const char *name = i < ch->ncells ? ch->cells[i].name : ch->cells_gone[i - ch->ncells];

		if (cell_split(name, rp[i], op[i], NULL) != 0)
			rp[i][0] = op[i][0] = '\x01';	/* covers nothing */
		reasons[i] = rp[i];
		orgs[i] = op[i];
		if ((o = calloc(1, sizeof(*o))) == NULL)
			goto done;
		atomic_init(&o->refs, 1);
		if (i < ch->ncells) {
			int b = snap_build_cell(s, &ch->cells[i], &o->c);

			if (b < 0)
				goto done;
			if (b > 0)
				snap_cell_clear(&o->c);	/* unusable: as if gone */
		}
		if (o->c.name == NULL && (o->c.reason = strdup(name)) == NULL)
			goto done;
		if (replace_cell(s, o) != 0)
			goto done;
		o = NULL;
	}
	/* the memberships the changed cells cover, and who holds them: by
	 * their nodes' indices, where each node knows which changed cells
	 * cover it (reading 50,000 cell names took 3 ms a change) */
	if ((hit = calloc(s->nmres ? s->nmres : 1, 1)) == NULL)
		goto done;
	if (n <= 64 && ((rmask = node_masks(s->reasons, s->nreasons, reasons, n)) == NULL ||
	    (omask = node_masks(s->orgs, s->norgs, orgs, n)) == NULL))
		goto done;
	for (k = 0; k < s->nmres; k++) {
		const struct snap_mres *m = &s->mres[k];

		if (rmask && m->reason != SNAP_NOIDX && m->org != SNAP_NOIDX ?
		    (rmask[m->reason] & omask[m->org]) != 0 : covered(m->cell, reasons, orgs, n)) {
			hit[k] = 1;
			moved += s->mres_first[k + 1] - s->mres_first[k];
		}
	}
	/* too many people to copy: the memberships resolved again in place */
	wide = s->over.len + moved > SNAP_OVER_MAX;
	for (k = 0; k < s->nmres; k++) {
		struct snap_over_mres *m;

		if (hit[k] && (!wide || strmap_get(&s->over_mres, s->mres[k].cell) != NULL) &&
		    resolve_into(s, s->mres[k].cell, &m) == -1)
			goto done;
	}
	{
		/* the overlay's own memberships (keys change under the loop: a list first) */
		const char **cells = calloc(s->over_mres.len + 1, sizeof(*cells));
		size_t nc = 0;

		if (cells == NULL)
			goto done;
		for (i = 0; i < s->over_mres.cap; i++)
			if (s->over_mres.slots[i].key != NULL &&
			    covered(s->over_mres.slots[i].key, reasons, orgs, n) &&
			    strmap_get(&s->mres_by_cell, s->over_mres.slots[i].key) == NULL)
				cells[nc++] = s->over_mres.slots[i].key;
		for (i = 0; i < nc; i++) {
			struct snap_over_mres *m;
			char *c = strdup(cells[i]);

			if (c == NULL || resolve_into(s, c, &m) == -1) {
				free(c);
				free(cells);
				goto done;
			}
			free(c);
		}
		free(cells);
	}
	if (wide && widen(s, hit) != 0)
		goto done;
	/* the core's people in a re-resolved membership, not yet in the overlay */
	for (k = 0; !wide && k < s->nmres; k++) {
		if (!hit[k])
			continue;
		for (j = s->mres_first[k]; j < s->mres_first[k + 1]; j++) {
			size_t ai = s->mres_accts[j];
			const struct snap_account *a = &s->core[ai];
			struct snap_over *x;

			if (s->shadow[ai / 64] >> (ai % 64) & 1)
				continue;
			if ((x = repoint(s, a)) == NULL || replace(s, snap_account_key(&x->a), x) != 0) {
				snap_over_put(x);
				goto done;
			}
		}
	}
	/* and the overlay's people holding a value it replaced, or (wide) a
	 * core value re-resolved: their answers are cached beside them */
	{
		struct snap_over **redo = calloc(s->over.len + 1, sizeof(*redo));
		size_t nr = 0;

		if (redo == NULL)
			goto done;
		for (i = 0; i < s->over.cap; i++) {
			struct snap_over *x = s->over.slots[i].val;

			if (s->over.slots[i].key == NULL || x->a.uid == NULL)
				continue;
			for (k = 0; k < x->a.nm; k++) {
				const struct snap_over_mres *m = strmap_get(&s->over_mres, x->a.m[k]->cell);
				long c = snap_mres_idx(s, x->a.m[k]);

				if ((m != NULL && &m->m != x->a.m[k]) || (wide && c >= 0 && hit[c]))
					break;
			}
			if (k < x->a.nm)
				redo[nr++] = x;
		}
		for (i = 0; i < nr; i++) {
			struct snap_over *x = repoint(s, &redo[i]->a);

			if (x == NULL || replace(s, snap_account_key(&x->a), x) != 0) {
				snap_over_put(x);
				free(redo);
				goto done;
			}
		}
		free(redo);
	}
	rc = 0;
done:
	if (o != NULL)
		snap_over_cell_put(o);
	free(rmask);
	free(omask);
	free(hit);
	free(reasons);
	free(orgs);
	free(rp);
	free(op);
	return rc;
}

/* The cells with pools, as the overlay leaves them (this snapshot's own
 * list): old's but those the overlay replaced, and the overlay's with pools. */
static int
repool(struct snap *s, const struct snap *old)
{
	size_t i;

	if ((s->pooled = calloc(old->npooled + s->over_cells.len + 1, sizeof(*s->pooled))) == NULL)
		return -1;
	s->own_pooled = 1;
	s->npooled = 0;
	for (i = 0; i < old->npooled; i++)
		if (old->pooled[i]->name != NULL &&
		    strmap_get(&s->over_cells, old->pooled[i]->name) == NULL)
			s->pooled[s->npooled++] = old->pooled[i];
	for (i = 0; i < s->over_cells.cap; i++) {
		const struct snap_over_cell *o = s->over_cells.slots[i].val;

		if (s->over_cells.slots[i].key != NULL && o->c.name != NULL && o->c.npools > 0)
			s->pooled[s->npooled++] = &o->c;
	}
	return 0;
}

struct snap *
snap_derive(const struct snap *old, const struct snap_change *ch, struct err *e)
{
	size_t words = (old->ncore + 63) / 64, i;
	struct snap_tally tally = { NULL, 0, 0 };
	struct snap_over *o = NULL;
	struct snap *s;

	if ((s = malloc(sizeof(*s))) == NULL)
		goto oom;
	*s = *old;
	atomic_fetch_add(s->core_refs, 1);
	if (s->wide != NULL)
		atomic_fetch_add(&s->wide->refs, 1);
	s->gen = snap_new_gen();
	s->built = time(NULL);
	strmap_init(&s->over);
	strmap_init(&s->over_mres);
	strmap_init(&s->over_cells);
	s->shadow = NULL;
	s->own_pooled = 0;
	if (strmap_copy(&s->over, &old->over) != 0)
		goto fail;
	hold_all(&s->over, 0);
	if (strmap_copy(&s->over_mres, &old->over_mres) != 0)
		goto fail;
	hold_all(&s->over_mres, 1);
	if (strmap_copy(&s->over_cells, &old->over_cells) != 0)
		goto fail;
	hold_all(&s->over_cells, 2);
	if ((s->shadow = calloc(words ? words : 1, sizeof(*s->shadow))) == NULL)
		goto fail;
	if (old->shadow != NULL)
		memcpy(s->shadow, old->shadow, words * sizeof(*s->shadow));
	if (ch->ncells + ch->ncells_gone > 0) {
		s->pooled = NULL;	/* made again below */
		s->npooled = 0;
	} else if (old->own_pooled) {
		/* old's own list goes with old; the cells it names stay in s */
		if ((s->pooled = malloc((old->npooled + 1) * sizeof(*s->pooled))) == NULL)
			goto fail;
		s->own_pooled = 1;
		memcpy(s->pooled, old->pooled, old->npooled * sizeof(*s->pooled));
	}

	if (apply_cells(s, ch) != 0)
		goto fail;
	if (s->pooled == NULL && repool(s, old) != 0)
		goto fail;
	for (i = 0; i < ch->ngone; i++) {
		char key[512];

		if (snap_fold_uid(ch->gone[i], key, sizeof(key)) != 0 || snap_account(s, key) == NULL)
			continue;
		/* a tombstone: no uid, its key in fold */
		if ((o = calloc(1, sizeof(*o))) == NULL || (o->a.fold = strdup(key)) == NULL)
			goto fail;
		atomic_init(&o->refs, 1);
		if (replace(s, o->a.fold, o) != 0)
			goto fail;
		o = NULL;
	}
	for (i = 0; i < ch->nset; i++) {
		if ((o = calloc(1, sizeof(*o))) == NULL)
			goto fail;
		atomic_init(&o->refs, 1);
		o->a.over = o;
		if (snap_build_account(s, &ch->set[i], &o->a, over_mres, NULL, &tally) != 0 ||
		    replace(s, snap_account_key(&o->a), o) != 0)
			goto fail;
		o = NULL;
	}
	snap_tally_add(s, &tally);
	if (s->over.len > SNAP_OVER_MAX) {
		snap_free(s);
		err_set(e, ERR_CONFLICT, 0, NULL, "more than %d accounts changed", SNAP_OVER_MAX);
		return NULL;
	}
	return s;
fail:
	snap_over_put(o);
	snap_free(s);
oom:
	err_set(e, ERR_INTERNAL, 0, NULL, "out of memory deriving the snapshot");
	return NULL;
}
