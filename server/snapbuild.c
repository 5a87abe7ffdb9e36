/*
 * snapbuild.c - building the immutable model from what the directory holds:
 * the trees' paths, the cells and their grants, and each account's
 * memberships resolved (resolve.c) once per distinct membership.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lanes.h"
#include "log.h"
#include "membership.h"
#include "path.h"
#include "period.h"
#include "resolve.h"
#include "snapshot.h"

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
		if (put(idx, (*out)[*nout], snap_idx_val(*nout)) != 0)
			return -1;
		(*nout)++;
	}
	return 0;
}

/* snap_build_cell, the grants it leaves out counted in *bad (not in s, so
 * that two threads can build cells of one snapshot) */
static int
build_cell(const struct snap *s, const struct snap_in_cell *in, struct snap_cell *c,
    size_t *bad)
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
		const char *contact = grant_contact_text(in->grants[i]);
		struct grant g;

		if (contact != NULL) {
			char **nc = realloc(c->contacts, (c->ncontacts + 2) * sizeof(*nc));

			if (nc == NULL)
				return -1;
			c->contacts = nc;
			if ((nc[c->ncontacts] = strdup(contact)) == NULL)
				return -1;
			nc[++c->ncontacts] = NULL;
			continue;
		}
		if (grant_parse(s->cfg, in->grants[i], &g, &e) != 0) {
			if (e.code == ERR_INTERNAL)
				return -1;
			log_warn("snapshot: cell %s: skipping grant '%.80s': %s",
			    in->name, in->grants[i], e.msg);
			(*bad)++;
			continue;
		}
		/* a pool's limit is no grant: resolution never sees it */
		if (g.pool)
			c->pools[c->npools++] = g;
		else
			c->grants[c->ngrants++] = g;
	}
	/* room was made for every grant in both: give back what is unused
	 * (a pool is rare; 100,000 cells held 16 MB of empty pool arrays) */
	if (c->npools < in->ngrants) {
		struct grant *p = realloc(c->pools, (c->npools ? c->npools : 1) * sizeof(*p));

		if (p != NULL)
			c->pools = p;
	}
	return 0;
}

int
snap_build_cell(struct snap *s, const struct snap_in_cell *in, struct snap_cell *c)
{
	size_t bad = 0;
	int rc = build_cell(s, in, c, &bad);

	s->skipped += bad;
	return rc;
}

/*
 * The full build's cells: built on two threads when there are many
 * (100,000 took 0.2 s on one core while the other waited), then kept in
 * their order, a name twice keeping its first as before.
 */
#define CELL_LANES_MIN 5000

struct cell_job {
	const struct snap *s;
	const struct snap_in_cell *in;
	struct snap_cell *out;
	int *rc;
	size_t *bad;
	size_t lo, hi;
};

static void *
cell_run(void *arg)
{
	struct cell_job *j = arg;
	size_t i;

	for (i = j->lo; i < j->hi; i++)
		j->rc[i] = build_cell(j->s, &j->in[i], &j->out[i], &j->bad[i]);
	return NULL;
}

static int
build_cells(struct snap *s, const struct snap_input *in)
{
	size_t n = in->ncells, i;
	struct snap_cell *built = calloc(n ? n : 1, sizeof(*built));
	size_t *bad = calloc(n ? n : 1, sizeof(*bad));
	int *rc = calloc(n ? n : 1, sizeof(*rc)), ret = 0;
	struct cell_job jobs[2];

	if (built == NULL || bad == NULL || rc == NULL) {
		ret = -1;
		goto done;
	}
	jobs[0] = (struct cell_job){ s, in->cells, built, rc, bad, 0, n / 2 };
	jobs[1] = (struct cell_job){ s, in->cells, built, rc, bad, n / 2, n };
	lanes_run(cell_run, &jobs[0], &jobs[1], n >= CELL_LANES_MIN);
	for (i = 0; i < n; i++) {
		struct snap_cell *c = &s->core_cells[s->ncore_cells];

		if (ret != 0 || rc[i] < 0) {
			ret = -1;
			snap_cell_clear(&built[i]);
			continue;
		}
		if (rc[i] > 0 || strmap_get(&s->cell_by_name, built[i].name) != NULL) {
			snap_cell_clear(&built[i]);
			s->skipped++;
			continue;
		}
		*c = built[i];
		s->ncore_cells++;	/* so snap_free sees it */
		s->skipped += bad[i];
		if (put(&s->cell_by_name, c->name, c) != 0)
			ret = -1;
	}
done:
	free(built);
	free(bad);
	free(rc);
	return ret;
}

/*
 * The membership cell's values in s->mres, resolved when new (a full
 * build: arg is its builder). Lanes call this at once: the cell takes its
 * slot under the builder's lock and is resolved outside it, since the
 * other lane only keeps the address until the build ends.
 */
static int
mres_slot(struct snap *s, const char *cell, void *arg, const struct snap_mres **out)
{
	char reason[PATH_MAX_LEN + 1], org[PATH_MAX_LEN + 1];
	struct snap_builder *b = arg;
	struct snap_mres *m;
	void *v;

	pthread_mutex_lock(&b->lock);
	if ((v = strmap_get(&s->mres_by_cell, cell)) != NULL) {
		pthread_mutex_unlock(&b->lock);
		*out = &s->mres[snap_val_idx(v)];
		return 0;
	}
	if (cell_split(cell, reason, org, NULL) != 0) {
		pthread_mutex_unlock(&b->lock);
		return -2;
	}
	if (s->nmres >= b->nmres)
		goto fail;
	m = &s->mres[s->nmres];
	v = strmap_get(&s->reason_idx, reason);
	m->reason = v ? (uint32_t)snap_val_idx(v) : SNAP_NOIDX;
	v = strmap_get(&s->org_idx, org);
	m->org = v ? (uint32_t)snap_val_idx(v) : SNAP_NOIDX;
	if ((m->cell = strdup(cell)) == NULL ||
	    (m->pv = calloc(s->cfg->nprivs, sizeof(*m->pv))) == NULL)
		goto fail_slot;
	if (put(&s->mres_by_cell, m->cell, snap_idx_val(s->nmres)) != 0)
		goto fail_slot;
	s->nmres++;
	pthread_mutex_unlock(&b->lock);
	*out = m;
	return resolve_membership(s, reason, org, m->pv);
fail_slot:
	free(m->cell);
	free(m->pv);
	memset(m, 0, sizeof(*m));
fail:
	pthread_mutex_unlock(&b->lock);
	return -1;
}

/*
 * The membership values a full build has met, by their string's address.
 * A million people share 100,000 cells, and the mirror hands every
 * membership of a cell over as the same interned string: most of them then
 * skip splitting the value and finding the cell by name (a hash over the
 * name and a compare with a cold string), which was a sixth of the load.
 * Only plain values are kept; a dated one depends on the moment.
 */
struct snap_memo {
	const char **key;
	const struct snap_mres **val;
	size_t cap, len;	/* cap a power of two, or 0 */
};

static size_t
memo_at(const struct snap_memo *mc, const char *k)
{
	uint64_t h = (uint64_t)(uintptr_t)k * 0x9e3779b97f4a7c15ULL;
	size_t i = (size_t)(h ^ (h >> 32)) & (mc->cap - 1);

	while (mc->key[i] != NULL && mc->key[i] != k)
		i = (i + 1) & (mc->cap - 1);
	return i;
}

static const struct snap_mres *
memo_get(const struct snap_memo *mc, const char *k)
{
	size_t i;

	if (mc == NULL || mc->cap == 0)
		return NULL;
	i = memo_at(mc, k);
	return mc->key[i] != NULL ? mc->val[i] : NULL;
}

/* Best effort: out of memory, the value is looked up by name next time. */
static void
memo_put(struct snap_memo *mc, const char *k, const struct snap_mres *m)
{
	size_t i;

	if (mc == NULL)
		return;
	if ((mc->len + 1) * 4 > mc->cap * 3) {
		struct snap_memo n = { NULL, NULL, mc->cap ? mc->cap * 2 : 1024, 0 };

		if ((n.key = calloc(n.cap, sizeof(*n.key))) == NULL ||
		    (n.val = malloc(n.cap * sizeof(*n.val))) == NULL) {
			free(n.key);
			return;
		}
		for (i = 0; i < mc->cap; i++)
			if (mc->key[i] != NULL) {
				size_t j = memo_at(&n, mc->key[i]);

				n.key[j] = mc->key[i];
				n.val[j] = mc->val[i];
				n.len++;
			}
		free(mc->key);
		free(mc->val);
		*mc = n;
	}
	i = memo_at(mc, k);
	if (mc->key[i] == NULL) {
		mc->key[i] = k;
		mc->val[i] = m;
		mc->len++;
	}
}

static void
memo_free(struct snap_memo *mc)
{
	if (mc == NULL)
		return;
	free(mc->key);
	free(mc->val);
	free(mc);
}

/* *next becomes t when t is sooner (0 in either: no moment). */
static void
sooner(time_t *next, time_t t)
{
	if (t != 0 && (*next == 0 || t < *next))
		*next = t;
}

void
snap_tally_add(struct snap *s, const struct snap_tally *t)
{
	s->skipped += t->skipped;
	sooner(&s->next_change, t->next_change);
}

int
snap_build_account(struct snap *s, const struct snap_in_account *in,
    struct snap_account *a, snap_mres_fn mres, void *arg, struct snap_tally *t)
{
	struct snap_memo *memo = t->memo;
	size_t i;

	if (snap_account_alloc(a, in->uid, in->ncells) != 0 ||
	    (in->dn && (a->dn = strdup(in->dn)) == NULL))
		return -1;
	for (i = 0; a->uid[i] && !isupper((unsigned char)a->uid[i]); i++)
		;
	if (a->uid[i] != '\0') {
		if ((a->fold = strdup(a->uid)) == NULL)
			return -1;
		for (; a->fold[i]; i++)
			a->fold[i] = (char)tolower((unsigned char)a->fold[i]);
	}
	for (i = 0; i < in->ncells; i++) {
		char cell[MEMBERSHIP_MAX];
		const struct snap_mres *m = memo_get(memo, in->cells[i]);
		time_t from, until;
		size_t j;
		int dup = 0, rc;

		if (m != NULL)
			goto have;
		if (membership_split(in->cells[i], cell, sizeof(cell), &from, &until) != 0) {
			log_warn("snapshot: account %s: skipping membership '%.80s'", in->uid,
			    in->cells[i]);
			t->skipped++;
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
			if (from > s->now)
				sooner(&t->next_change, from);
			if (until > s->now)
				sooner(&t->next_change, until);
			if (!membership_in_force(from, until, s->now))
				continue;
		}
		if ((rc = mres(s, cell, arg, &m)) == -1)
			return -1;
		if (rc == -2) {
			log_warn("snapshot: account %s: skipping membership '%.80s'",
			    in->uid, in->cells[i]);
			t->skipped++;
			continue;
		}
		if (from == 0 && until == 0)
			memo_put(memo, in->cells[i], m);
have:
		for (j = 0; j < a->nm; j++)
			dup |= a->m[j] == m;
		if (!dup)
			a->m[a->nm++] = m;
	}
	return 0;
}

static int
card_by_name(const void *a, const void *b)
{
	return strcmp(((const struct price_card *)a)->name, ((const struct price_card *)b)->name);
}

/* The rate cards, by name (the API and the export list them in that order);
 * one privd cannot use (a quota no longer declared) is left out and
 * logged, so its printer keeps page quotas. */
static int
build_printers(struct snap *s, const struct snap_input *in)
{
	size_t i, n = 0;
	struct err e;
	int p;

	if ((s->printers = calloc(in->nprinters + 1, sizeof(*s->printers))) == NULL)
		return -1;
	for (i = 0; i < in->nprinters; i++) {
		struct price_card *pc = &s->printers[n];

		if (price_card_parse(in->printers[i].name, (char *const *)in->printers[i].grants,
		    in->printers[i].ngrants, pc, &e) != 0) {
			log_warn("snapshot: %s; printer left out", e.msg);
			s->skipped++;
			continue;
		}
		if ((p = cfg_priv_find(s->cfg, pc->charge)) < 0 || s->cfg->privs[p].type != PRIV_QUOTA) {
			log_warn("snapshot: printer %s charges %s, which is not a declared quota; "
			    "printer left out", pc->name, pc->charge);
			s->skipped++;
			continue;
		}
		n++;
	}
	qsort(s->printers, n, sizeof(*s->printers), card_by_name);
	/* sorted before the map points into the array; a name twice keeps its first */
	for (i = 0; i < n; i++) {
		if (strmap_get(&s->printer_by_name, s->printers[i].name) != NULL) {
			s->skipped++;
			continue;
		}
		if (i != s->nprinters)
			s->printers[s->nprinters] = s->printers[i];
		if (put(&s->printer_by_name, s->printers[s->nprinters].name,
		    &s->printers[s->nprinters]) != 0)
			return -1;
		s->nprinters++;
	}
	return 0;
}

/* The reverse of each core account's memberships: who is in each
 * membership cell, so that a changed cell re-resolves just its people. */
static int
index_members(struct snap *s)
{
	size_t i, j, total = 0, *fill;

	if ((s->mres_first = calloc(s->nmres + 1, sizeof(*s->mres_first))) == NULL)
		return -1;
	for (i = 0; i < s->ncore; i++)
		for (j = 0; j < s->core[i].nm; j++) {
			s->mres_first[s->core[i].m[j] - s->mres + 1]++;
			total++;
		}
	for (i = 0; i < s->nmres; i++)
		s->mres_first[i + 1] += s->mres_first[i];
	if ((s->mres_accts = malloc((total ? total : 1) * sizeof(*s->mres_accts))) == NULL ||
	    (fill = malloc((s->nmres + 1) * sizeof(*fill))) == NULL)
		return -1;
	memcpy(fill, s->mres_first, (s->nmres + 1) * sizeof(*fill));
	for (i = 0; i < s->ncore; i++)
		for (j = 0; j < s->core[i].nm; j++)
			s->mres_accts[fill[s->core[i].m[j] - s->mres]++] = (uint32_t)i;
	free(fill);
	return 0;
}

int
snap_build_start(struct snap_builder *b, const struct cfg *c, const struct snap_input *in,
    size_t naccounts, size_t nmemberships, struct err *e)
{
	struct snap *s;
	size_t i;

	memset(b, 0, sizeof(*b));
	b->naccounts = naccounts;
	b->nmres = nmemberships;
	pthread_mutex_init(&b->lock, NULL);

	if ((s = calloc(1, sizeof(*s))) == NULL ||
	    (s->core_refs = malloc(sizeof(*s->core_refs))) == NULL)
		goto fail;
	atomic_init(s->core_refs, 1);
	s->cfg = c;
	s->built = time(NULL);
	s->now = in->now ? in->now : period_now();
	s->gen = snap_new_gen();
	strmap_init(&s->reason_idx);
	strmap_init(&s->org_idx);
	strmap_init(&s->cell_by_name);
	strmap_init(&s->mres_by_cell);
	strmap_init(&s->printer_by_name);
	strmap_init(&s->over);
	strmap_init(&s->over_mres);
	strmap_init(&s->over_cells);

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
			s->reason_kids[snap_val_idx(v)]++;
	}
	if (build_paths(&s->orgs, &s->norgs, &s->org_idx, in->orgs, in->norgs,
	    &s->skipped) != 0)
		goto fail;

	if ((s->core_cells = calloc(in->ncells ? in->ncells : 1, sizeof(*s->core_cells))) == NULL)
		goto fail;
	if (build_cells(s, in) != 0)
		goto fail;
	s->ncells = s->ncore_cells;
	/* the cells that hold pools, for pool.c's lookups */
	if ((s->pooled = calloc(s->ncells ? s->ncells : 1, sizeof(*s->pooled))) == NULL)
		goto fail;
	for (i = 0; i < s->ncells; i++)
		if (s->core_cells[i].npools > 0)
			s->pooled[s->npooled++] = &s->core_cells[i];
	s->core_pooled = s->pooled;

	if (build_printers(s, in) != 0)
		goto fail;
	if ((s->mres = calloc(b->nmres ? b->nmres : 1, sizeof(*s->mres))) == NULL)
		goto fail;
	if (uidx_init(&s->account_by_uid, naccounts) != 0 ||
	    (s->core = calloc(naccounts ? naccounts : 1, sizeof(*s->core))) == NULL ||
	    (s->answers = calloc(naccounts ? naccounts : 1, sizeof(*s->answers))) == NULL ||
	    (b->tally.memo = calloc(1, sizeof(*b->tally.memo))) == NULL)
		goto fail;
	b->s = s;
	return 0;
fail:
	snap_free(s);
	pthread_mutex_destroy(&b->lock);
	return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory building the snapshot");
}

/* The builder's own memory, the build aside. */
static void
builder_clear(struct snap_builder *b)
{
	memo_free(b->tally.memo);
	b->tally.memo = NULL;
	free(b->dropped);
	b->dropped = NULL;
	pthread_mutex_destroy(&b->lock);
}

static int
build_fail(struct snap_builder *b, struct err *e, const char *why)
{
	snap_free(b->s);
	b->s = NULL;
	builder_clear(b);
	return err_set(e, ERR_INTERNAL, 0, NULL, "%s", why);
}

int
snap_build_add(struct snap_builder *b, const struct snap_in_account *in, struct err *e)
{
	struct snap *s = b->s;
	struct snap_account *a;
	long at;

	/* the counts start was given are the room there is */
	if (s->ncore >= b->naccounts)
		return build_fail(b, e, "snapshot: more accounts than counted");
	/* built before it is known to be a second entry of its uid, as the
	 * lanes do (where what it met is counted before that is known) */
	a = &s->core[s->ncore];
	if (snap_build_account(s, in, a, mres_slot, b, &b->tally) != 0 ||
	    (at = uidx_add(&s->account_by_uid, snap_account_key(a), (uint32_t)s->ncore,
	    snap_core_key, s)) < 0) {
		s->ncore++;	/* freed with the build */
		return build_fail(b, e, "out of memory building the snapshot");
	}
	if ((size_t)at != s->ncore) {
		/* one thread adds in order: what holds the uid came first */
		log_warn("snapshot: uid %s appears on two entries; keeping the first", in->uid);
		b->tally.skipped++;
		snap_account_clear(a);
		return 0;
	}
	s->ncore++;
	return 0;
}

int
snap_build_lanes(struct snap_builder *b, struct snap_lane *lanes, size_t n,
    const size_t *counts, struct err *e)
{
	size_t at = b->s->ncore, k;

	for (k = 0; k < n; k++)
		at += counts[k];
	if (at > b->naccounts)
		return build_fail(b, e, "snapshot: more accounts than counted");
	memset(lanes, 0, n * sizeof(*lanes));
	for (k = 0, at = b->s->ncore; k < n; k++) {
		lanes[k].b = b;
		lanes[k].start = lanes[k].next = at;
		lanes[k].end = at += counts[k];
		if ((lanes[k].tally.memo = calloc(1, sizeof(*lanes[k].tally.memo))) == NULL)
			goto fail;
	}
	if ((b->dropped = calloc(b->naccounts ? b->naccounts : 1, sizeof(*b->dropped))) == NULL)
		goto fail;
	return 0;
fail:
	for (k = 0; k < n; k++)
		memo_free(lanes[k].tally.memo);
	return build_fail(b, e, "out of memory building the snapshot");
}

int
snap_lane_add(struct snap_lane *l, const struct snap_in_account *in)
{
	struct snap *s = l->b->s;
	struct snap_account *a;
	long at;

	if (l->failed || l->next >= l->end) {
		l->failed = 1;
		return -1;
	}
	a = &s->core[l->next];
	if (snap_build_account(s, in, a, mres_slot, l->b, &l->tally) != 0 ||
	    (at = uidx_add(&s->account_by_uid, snap_account_key(a), (uint32_t)l->next,
	    snap_core_key, s)) < 0) {
		l->next++;	/* join frees what a holds */
		l->failed = 1;
		return -1;
	}
	if ((size_t)at != l->next) {
		size_t out = (size_t)at > l->next ? (size_t)at : l->next;

		log_warn("snapshot: uid %s appears on two entries; keeping the first", in->uid);
		atomic_store(&l->b->dropped[out], 1);
		l->tally.skipped++;
	}
	l->next++;
	return 0;
}

int
snap_build_join(struct snap_builder *b, struct snap_lane *lanes, size_t n, struct err *e)
{
	struct snap *s = b->s;
	size_t k, i, w = s->ncore;
	int failed = 0, moved = 0;

	for (k = 0; k < n; k++) {
		snap_tally_add(s, &lanes[k].tally);
		memo_free(lanes[k].tally.memo);
		lanes[k].tally.memo = NULL;
		failed |= lanes[k].failed;
	}
	if (failed) {
		/* every account the lanes began, freed with the build */
		s->ncore = lanes[n - 1].end;
		return build_fail(b, e, "out of memory building the snapshot");
	}
	/* lanes fill their room in order: the accounts left out leave gaps */
	for (k = 0; k < n; k++)
		for (i = lanes[k].start; i < lanes[k].next; i++) {
			if (atomic_load(&b->dropped[i])) {
				snap_account_clear(&s->core[i]);
				moved = 1;
				continue;
			}
			if (w != i) {
				s->core[w] = s->core[i];
				memset(&s->core[i], 0, sizeof(s->core[i]));
				moved = 1;
			}
			w++;
		}
	s->ncore = w;
	free(b->dropped);
	b->dropped = NULL;
	if (moved) {
		uidx_clear(&s->account_by_uid);
		for (i = 0; i < s->ncore; i++)
			if (uidx_put(&s->account_by_uid, snap_account_key(&s->core[i]),
			    (uint32_t)i) != 0)
				return build_fail(b, e, "out of memory building the snapshot");
	}
	return 0;
}

struct snap *
snap_build_finish(struct snap_builder *b, struct err *e)
{
	struct snap *s = b->s;

	b->s = NULL;
	snap_tally_add(s, &b->tally);
	builder_clear(b);
	s->naccounts = s->ncore;
	if (index_members(s) != 0) {
		snap_free(s);
		err_set(e, ERR_INTERNAL, 0, NULL, "out of memory building the snapshot");
		return NULL;
	}
	return s;
}

struct snap *
snap_build(const struct cfg *c, const struct snap_input *in, struct err *e)
{
	struct snap_builder b;
	size_t i, nm = 0;

	for (i = 0; i < in->naccounts; i++)
		nm += in->accounts[i].ncells;
	if (snap_build_start(&b, c, in, in->naccounts, nm, e) != 0)
		return NULL;
	for (i = 0; i < in->naccounts; i++)
		if (snap_build_add(&b, &in->accounts[i], e) != 0)
			return NULL;
	return snap_build_finish(&b, e);
}

