/* resolve.c - most specific wins, deny wins ties, combine across memberships. */
#include <stdlib.h>
#include <string.h>

#include "path.h"
#include "resolve.h"

/* A grant on a cell covering the membership, at depth (i, j) on the two axes. */
struct cand {
	const struct snap_cell *cell;
	const struct grant *g;
	int i, j;
	const struct snap_cell *by;
};

/* Every covering cell is an ancestor-or-self of the membership on both
 * axes, so comparing depths is comparing cells. */
static int
strictly_covers(const struct cand *a, const struct cand *b)
{
	return a->i <= b->i && a->j <= b->j && (a->i != b->i || a->j != b->j);
}

static int
same_subject(const struct grant *a, const struct grant *b)
{
	if (a->elem == NULL || b->elem == NULL)
		return 1;
	return strcmp(a->elem, b->elem) == 0;
}

long long
resolve_combine2(enum priv_combine how, long long a, long long b)
{
	switch (how) {
	case COMBINE_MIN:
		return a < b ? a : b;
	case COMBINE_SUM:
		return a + b;
	case COMBINE_MAX:
		break;
	}
	return a > b ? a : b;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorts and removes duplicates; returns the new length. */
static size_t
sort_unique(const char **v, size_t n)
{
	size_t i, k = 0;

	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_str);
	for (i = 1; i < n; i++)
		if (strcmp(v[i], v[k]) != 0)
			v[++k] = v[i];
	return k + 1;
}

/* The prefixes of path: out[0] = "", out[k] = the first k segments. */
static int
prefixes(const char *path, char out[][PATH_MAX_LEN + 1])
{
	int n = 0;
	const char *p;

	out[n++][0] = '\0';
	if (*path == '\0')
		return n;
	for (p = path;; p++) {
		if (*p == '/' || *p == '\0') {
			size_t len = p - path;

			memcpy(out[n], path, len);
			out[n++][len] = '\0';
			if (*p == '\0' || n > PATH_DEPTH_MAX)
				break;
		}
	}
	return n;
}

/* Rule 2: marks each candidate that a grant on a strictly more specific
 * cell, for the same subject, overrides (by the deepest such cell). */
static void
overridden(struct cand *cand, size_t ncand)
{
	size_t a, b;

	for (a = 0; a < ncand; a++) {
		const struct cand *best = NULL;

		cand[a].by = NULL;
		for (b = 0; b < ncand; b++) {
			if (!strictly_covers(&cand[a], &cand[b]) ||
			    !same_subject(cand[a].g, cand[b].g))
				continue;
			/* the deepest covered grant is itself a winner */
			if (best == NULL || cand[b].i + cand[b].j > best->i + best->j)
				best = &cand[b];
		}
		if (best != NULL)
			cand[a].by = best->cell;
	}
}

static int
resolve_priv(const struct cfg *c, int priv, struct cand *cand, size_t ncand,
    struct snap_pval *pv)
{
	const struct cfg_priv *def = &c->privs[priv];
	size_t a, b, nwin = 0;

	memset(pv, 0, sizeof(*pv));
	overridden(cand, ncand);
	for (a = 0; a < ncand; a++) {
		const struct grant *g = cand[a].g;

		if (cand[a].by != NULL)
			continue;
		switch (def->type) {
		case PRIV_FLAG:
			/* deny wins: one false winner makes it false */
			pv->num = nwin == 0 ? g->num : (pv->num && g->num);
			break;
		case PRIV_NUMBER:
		case PRIV_QUOTA:
			pv->num = nwin == 0 ? g->num : resolve_combine2(def->combine, pv->num, g->num);
			break;
		case PRIV_SET:
			break;
		}
		nwin++;
	}
	pv->granted = nwin > 0;
	if (def->type != PRIV_SET || nwin == 0)
		return 0;

	pv->allow = malloc(nwin * sizeof(*pv->allow));
	if (pv->allow == NULL)
		return -1;
	for (a = 0; a < ncand; a++) {
		int denied = 0;

		if (cand[a].by != NULL || cand[a].g->op != GRANT_ADD)
			continue;
		/* deny wins: an element with any winning -x is not allowed */
		for (b = 0; b < ncand; b++)
			if (cand[b].by == NULL && cand[b].g->op == GRANT_DEL &&
			    strcmp(cand[b].g->elem, cand[a].g->elem) == 0)
				denied = 1;
		if (!denied)
			pv->allow[pv->nallow++] = cand[a].g->elem;
	}
	pv->nallow = sort_unique(pv->allow, pv->nallow);
	return 0;
}

/* Rule 1: the cells of s with grants covering membership (reason, org),
 * each with its depth on the two axes; cover_free frees it. */
struct cover {
	const struct snap_cell **cells;
	int *ci, *cj;
	size_t ncells, ngrants;
	struct cand *cand;	/* room for every grant of every cell */
};

static void
cover_free(struct cover *cv)
{
	free(cv->cand);
	free(cv->cj);
	free(cv->ci);
	free(cv->cells);
	memset(cv, 0, sizeof(*cv));
}

static int
cover(const struct snap *s, const char *reason, const char *org, struct cover *cv)
{
	static const size_t maxcells = (PATH_DEPTH_MAX + 1) * (PATH_DEPTH_MAX + 1);
	char (*rp)[PATH_MAX_LEN + 1] = NULL, (*op)[PATH_MAX_LEN + 1] = NULL;
	char name[CELL_MAX_LEN + 1];
	int nr, no, i, j, rc = -1;

	memset(cv, 0, sizeof(*cv));
	rp = malloc((PATH_DEPTH_MAX + 1) * sizeof(*rp));
	op = malloc((PATH_DEPTH_MAX + 1) * sizeof(*op));
	cv->cells = malloc(maxcells * sizeof(*cv->cells));
	cv->ci = malloc(maxcells * sizeof(*cv->ci));
	cv->cj = malloc(maxcells * sizeof(*cv->cj));
	if (rp == NULL || op == NULL || cv->cells == NULL || cv->ci == NULL || cv->cj == NULL)
		goto fail;
	nr = prefixes(reason, rp);
	no = prefixes(org, op);
	for (i = 0; i < nr; i++)
		for (j = 0; j < no; j++) {
			const struct snap_cell *cell;

			cell_join(name, rp[i], op[j]);
			if ((cell = snap_cell(s, name)) == NULL || cell->ngrants == 0)
				continue;
			cv->cells[cv->ncells] = cell;
			cv->ci[cv->ncells] = i;
			cv->cj[cv->ncells] = j;
			cv->ncells++;
			cv->ngrants += cell->ngrants;
		}
	if (cv->ngrants > 0 && (cv->cand = malloc(cv->ngrants * sizeof(*cv->cand))) == NULL)
		goto fail;
	rc = 0;
fail:
	if (rc != 0)
		cover_free(cv);
	free(op);
	free(rp);
	return rc;
}

/* The grants of privilege p among the covering cells, into cv->cand. */
static size_t
candidates(struct cover *cv, int p)
{
	size_t k, g, n = 0;

	for (k = 0; k < cv->ncells; k++)
		for (g = 0; g < cv->cells[k]->ngrants; g++) {
			if (cv->cells[k]->grants[g].priv != p)
				continue;
			cv->cand[n].cell = cv->cells[k];
			cv->cand[n].g = &cv->cells[k]->grants[g];
			cv->cand[n].i = cv->ci[k];
			cv->cand[n].j = cv->cj[k];
			n++;
		}
	return n;
}

int
resolve_membership(const struct snap *s, const char *reason, const char *org,
    struct snap_pval *pv)
{
	struct cover cv;
	size_t p;
	int rc = -1;

	memset(pv, 0, s->cfg->nprivs * sizeof(*pv));
	if (cover(s, reason, org, &cv) != 0)
		return -1;
	for (p = 0; p < s->cfg->nprivs; p++)
		if (resolve_priv(s->cfg, (int)p, cv.cand, candidates(&cv, (int)p), &pv[p]) != 0)
			goto fail;
	rc = 0;
fail:
	if (rc != 0)
		for (p = 0; p < s->cfg->nprivs; p++)
			snap_pval_clear(&pv[p]);
	cover_free(&cv);
	return rc;
}

int
resolve_sources(const struct snap *s, const struct snap_mres *m, int priv,
    struct snap_src **out, size_t *nout)
{
	char reason[PATH_MAX_LEN + 1], org[PATH_MAX_LEN + 1];
	struct cover cv;
	size_t a, n;

	*out = NULL;
	*nout = 0;
	if (cell_split(m->cell, reason, org, NULL) != 0)
		return 0;	/* a cell name no membership can hold: no grant reaches it */
	if (cover(s, reason, org, &cv) != 0)
		return -1;
	n = candidates(&cv, priv);
	overridden(cv.cand, n);
	if (n > 0 && (*out = malloc(n * sizeof(**out))) == NULL) {
		cover_free(&cv);
		return -1;
	}
	for (a = 0; a < n; a++) {
		(*out)[a].cell = cv.cand[a].cell;
		(*out)[a].grant = cv.cand[a].g;
		(*out)[a].by = cv.cand[a].by;
	}
	*nout = n;
	cover_free(&cv);
	return 0;
}

int
resolve_combine(const struct cfg *c, int priv, const struct snap_mres *const *m,
    size_t nm, struct resolve_val *out)
{
	const struct cfg_priv *def = &c->privs[priv];
	size_t k, total = 0;
	int any = 0;

	memset(out, 0, sizeof(*out));
	for (k = 0; k < nm; k++) {
		const struct snap_pval *pv = &m[k]->pv[priv];

		if (!pv->granted)
			continue;
		switch (def->type) {
		case PRIV_FLAG:
			out->num = out->num || pv->num;	/* OR */
			break;
		case PRIV_NUMBER:
		case PRIV_QUOTA:
			/* a membership without a grant takes no part */
			out->num = any ? resolve_combine2(def->combine, out->num, pv->num) : pv->num;
			break;
		case PRIV_SET:
			total += pv->nallow;
			break;
		}
		any = 1;
	}
	if (def->type != PRIV_SET || total == 0)
		return 0;
	if ((out->elems = malloc(total * sizeof(*out->elems))) == NULL)
		return -1;
	for (k = 0; k < nm; k++) {
		const struct snap_pval *pv = &m[k]->pv[priv];

		if (pv->nallow == 0)
			continue;	/* allow may be NULL then */
		memcpy(out->elems + out->nelems, pv->allow, pv->nallow * sizeof(*pv->allow));
		out->nelems += pv->nallow;
	}
	out->nelems = sort_unique(out->elems, out->nelems);
	return 0;
}

int
resolve_account(const struct snap *s, int priv, const struct snap_account *a,
    struct resolve_val *out)
{
	const struct snap_mres *buf[16], **m = buf;
	size_t k;
	int rc = -1;

	if (s->wide == NULL)
		return resolve_combine(s->cfg, priv, a->m, a->nm, out);
	memset(out, 0, sizeof(*out));
	if (a->nm > 16 && (m = malloc(a->nm * sizeof(*m))) == NULL)
		return -1;
	for (k = 0; k < a->nm; k++)
		if ((m[k] = snap_mres_of(s, a->m[k])) == NULL)
			goto done;
	rc = resolve_combine(s->cfg, priv, m, a->nm, out);
done:
	if (m != buf)
		free(m);
	return rc;
}

void
resolve_val_clear(struct resolve_val *v)
{
	free(v->elems);
	memset(v, 0, sizeof(*v));
}

int
resolve_has(const struct resolve_val *v, const char *elem)
{
	return v->nelems > 0 &&
	    bsearch(&elem, v->elems, v->nelems, sizeof(*v->elems), cmp_str) != NULL;
}

static int
pval_allows(const struct snap_pval *pv, const char *elem)
{
	return pv->nallow > 0 &&
	    bsearch(&elem, pv->allow, pv->nallow, sizeof(*pv->allow), cmp_str) != NULL;
}

enum resolve_why
resolve_why(const struct cfg *c, int priv, const struct snap_mres *m,
    const struct snap_src *src, const struct resolve_val *final)
{
	const struct cfg_priv *def = &c->privs[priv];
	const struct snap_pval *pv = &m->pv[priv];
	const struct grant *g = src->grant;

	if (src->by != NULL)
		return WHY_OVERRIDDEN;
	switch (def->type) {
	case PRIV_FLAG:
		return g->num == pv->num && pv->num == final->num ?
		    WHY_APPLIED : WHY_OUTWEIGHED;
	case PRIV_NUMBER:
	case PRIV_QUOTA:
		if (def->combine == COMBINE_SUM)
			return WHY_APPLIED;
		return g->num == final->num ? WHY_APPLIED : WHY_OUTWEIGHED;
	case PRIV_SET:
		if (g->op == GRANT_ADD)
			return pval_allows(pv, g->elem) ? WHY_APPLIED : WHY_OUTWEIGHED;
		return resolve_has(final, g->elem) ? WHY_OUTWEIGHED : WHY_APPLIED;
	}
	return WHY_OUTWEIGHED;
}

const char *
resolve_why_name(enum resolve_why w)
{
	switch (w) {
	case WHY_APPLIED:
		return "applied";
	case WHY_OVERRIDDEN:
		return "overridden";
	case WHY_OUTWEIGHED:
		break;
	}
	return "outweighed";
}
