/*
 * tree.c - deleting and moving tree nodes. Both touch more than the node:
 * the cells named after it and the memberships in those cells, so each is
 * one change (change.c) planned from what the directory holds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lber.h>
#include <ldap.h>

#include "dirview.h"
#include "dn.h"
#include "ldapconn.h"
#include "membership.h"
#include "path.h"
#include "pool.h"
#include "tree.h"
#include "change.h"
#include "strv.h"

#define NAMES 5		/* examples named in a refusal */

/*
 * What a delete or move of path works on, out of the directory's view
 * (dirview.h): the cells on path's side under it, and their members,
 * each in name order so that summaries and refusals read the same way
 * every time.
 */
struct tview {
	struct dview d;
	const struct dview_nodes *nodes;	/* the side's tree */
	const struct dview_cell **cells;	/* the cells path covers */
	size_t ncells;
	const struct dview_person **people;	/* their members */
	size_t npeople;
};

static void
view_free(struct tview *v)
{
	free(v->cells);
	free(v->people);
	dview_free(&v->d);
	memset(v, 0, sizeof(*v));
}

/* Whether membership or cell name m is in a cell whose side path covers;
 * its side into sd (PATH_MAX_LEN + 1) and its two sides into rs and os. */
static int
covers(enum tree_side side, const char *path, const char *m, char *rs, char *os,
    const char **sd)
{
	char nm[MEMBERSHIP_MAX];
	time_t from, until;

	if (*m == '\0' || membership_split(m, nm, sizeof(nm), &from, &until) != 0 ||
	    cell_split(nm, rs, os, NULL) != 0)
		return 0;
	*sd = side == TREE_REASONS ? rs : os;
	return **sd != '\0' && path_covers(path, *sd);
}

static int
by_cell_name(const void *a, const void *b)
{
	return strcmp((*(const struct dview_cell *const *)a)->name,
	    (*(const struct dview_cell *const *)b)->name);
}

static int
by_uid(const void *a, const void *b)
{
	return strcmp((*(const struct dview_person *const *)a)->uid,
	    (*(const struct dview_person *const *)b)->uid);
}

/* The cells and members under path into v (after dview_read_model). */
static int
read_affected(LDAP *ld, const struct cfg *c, enum tree_side side, const char *path,
    struct tview *v, struct err *e)
{
	char rs[PATH_MAX_LEN + 1], os[PATH_MAX_LEN + 1];
	const char **names = NULL, *sd;
	size_t i;
	int rc = -1;

	if ((v->cells = calloc(v->d.cells.len + 1, sizeof(*v->cells))) == NULL ||
	    (names = calloc(v->d.cells.len + 1, sizeof(*names))) == NULL)
		goto nomem;
	for (i = 0; i < v->d.cells.cap; i++)
		if (v->d.cells.slots[i].key != NULL &&
		    covers(side, path, v->d.cells.slots[i].key, rs, os, &sd))
			v->cells[v->ncells++] = v->d.cells.slots[i].val;
	qsort(v->cells, v->ncells, sizeof(*v->cells), by_cell_name);
	for (i = 0; i < v->ncells; i++)
		names[i] = v->cells[i]->name;
	if (dview_read_members(ld, c, names, v->ncells, &v->d, e) != 0)
		goto done;
	if ((v->people = calloc(v->d.people.len + 1, sizeof(*v->people))) == NULL)
		goto nomem;
	for (i = 0; i < v->d.people.cap; i++)
		if (v->d.people.slots[i].key != NULL)
			v->people[v->npeople++] = v->d.people.slots[i].val;
	qsort(v->people, v->npeople, sizeof(*v->people), by_uid);
	rc = 0;
	goto done;
nomem:
	err_oom(e);
done:
	free(names);
	return rc;
}

/* p's memberships in cells of privd's: borrowed, in a malloc'd array. */
static char **
ours(const struct dview_person *p, size_t *n)
{
	char **v = calloc(p->ncells + 1, sizeof(*v));
	size_t i;

	*n = 0;
	for (i = 0; v && i < p->ncells; i++)
		if (*p->cells[i])
			v[(*n)++] = p->cells[i];
	return v;
}

static int
has_node(const struct tview *v, const char *path)
{
	return path[0] == '\0' || strmap_get(&v->nodes->has, path) != NULL;
}

/*
 * The end of a delete or move planned into before and after (rc 0): the
 * change run, unless a dry run; then what it held freed. rc, or chg_run's.
 */
static int
finish(LDAP *ld, const struct cfg *c, const struct chg_req *rq, struct chg_list *before,
    struct chg_list *after, struct tview *v, int rc, int dry_run, struct apply_summary *sum,
    struct err *e)
{
	struct chg_result res;

	if (rc == 0 && !dry_run && (rc = chg_run(ld, c, rq, before, after, &v->d, &res, e)) == 0)
		snprintf(sum->import_id, sizeof(sum->import_id), "%s", res.id);
	if (rc != 0)
		apply_summary_free(sum);
	chg_list_free(before);
	chg_list_free(after);
	view_free(v);
	ldapc_close(ld);
	return rc;
}

static const char *
side_name(enum tree_side side)
{
	return side == TREE_REASONS ? "reason" : "organisation";
}

static int
open_view(const struct cfg *c, enum tree_side side, const char *path,
    const char *who, const char *password, LDAP **ld, struct tview *v, struct err *e)
{
	if (path_check(path, "path", e) != 0)
		return -1;
	if (*path == '\0')
		return err_set(e, ERR_INVALID, 0, "path", "path: the root cannot be changed");
	if (ldapc_open_write(c, who, password, ld, e) != 0)
		return -1;
	dview_init(&v->d);
	if (dview_read_model(*ld, c, &v->d, e) != 0)
		return -1;
	v->nodes = side == TREE_REASONS ? &v->d.reasons : &v->d.orgs;
	if (!has_node(v, path))
		return err_set(e, ERR_NOT_FOUND, 0, "path", "no %s node '%s'", side_name(side), path);
	return read_affected(*ld, c, side, path, v, e);
}

int
tree_delete(const struct cfg *c, enum tree_side side, const char *path,
    int force, int dry_run, const char *who, const char *password,
    const struct chg_req *rq, struct apply_summary *sum, struct err *e)
{
	struct chg_list before = { NULL, 0, 0 }, after = { NULL, 0, 0 };
	struct tview v;
	char names[256] = "", cells[256] = "", kind = side == TREE_REASONS ? CHG_REASON : CHG_ORG;
	size_t i, j, grants = 0, ncells = 0;
	LDAP *ld = NULL;
	int rc = -1, bad;

	memset(&v, 0, sizeof(v));
	memset(sum, 0, sizeof(*sum));
	if (open_view(c, side, path, who, password, &ld, &v, e) != 0)
		goto done;
	for (i = 0; i < v.ncells; i++) {
		grants += v.cells[i]->ngrants;
		if (v.cells[i]->ngrants && ncells++ < NAMES)
			snprintf(cells + strlen(cells), sizeof(cells) - strlen(cells), "%s%s",
			    *cells ? ", " : "", v.cells[i]->name);
	}
	for (i = 0; i < v.npeople && i < NAMES; i++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
		    *names ? ", " : "", v.people[i]->uid);
	if (!force && (v.npeople || grants)) {
		err_set(e, ERR_CONFLICT, 0, "path", "%s '%s' is in use: %zu member%s%s%s%s, "
		    "%zu grant%s%s%s%s; delete with force to remove them too",
		    side_name(side), path, v.npeople, v.npeople == 1 ? "" : "s",
		    v.npeople ? " (" : "", names, v.npeople ? (v.npeople > NAMES ? ", ...)" : ")") : "",
		    grants, grants == 1 ? "" : "s", grants ? " (on " : "", cells,
		    grants ? (ncells > NAMES ? ", ...)" : ")") : "");
		goto done;
	}
	/* the accounts keep their other memberships */
	for (i = 0; i < v.npeople; i++) {
		const struct dview_person *p = v.people[i];
		size_t k = 0, gone = 0, nall;
		char **all = ours(p, &nall), **keep = calloc(nall + 1, sizeof(*keep));
		char rs[PATH_MAX_LEN + 1], os[PATH_MAX_LEN + 1];
		const char *sd;

		for (j = 0; all && keep && j < nall; j++)
			if (covers(side, path, all[j], rs, os, &sd))
				gone++;
			else
				keep[k++] = all[j];
		bad = all == NULL || keep == NULL ||
		    chg_put(&before, CHG_ACCOUNT, 1, p->uid, all, nall) != 0 ||
		    chg_put(&after, CHG_ACCOUNT, 1, p->uid, keep, k) != 0 ||
		    apply_note(sum, "- memberships of %s in %zu cell%s", p->uid, gone,
		    gone == 1 ? "" : "s") != 0;
		free(all);
		free(keep);
		if (bad)
			goto nomem;
		sum->accounts_changed++;
	}
	for (i = 0; i < v.ncells; i++)
		if (chg_put(&before, CHG_CELL, 1, v.cells[i]->name, v.cells[i]->grants,
		    v.cells[i]->ngrants) != 0 ||
		    chg_put(&after, CHG_CELL, 0, v.cells[i]->name, NULL, 0) != 0 ||
		    apply_note(sum, "- cell %s (%zu grant%s)", v.cells[i]->name,
		    v.cells[i]->ngrants, v.cells[i]->ngrants == 1 ? "" : "s") != 0)
			goto nomem;
	/* the node and everything below it; change.c deletes leaves first */
	for (i = 0; i < v.nodes->n; i++)
		if (path_covers(path, v.nodes->path[i]) &&
		    (chg_put(&before, kind, 1, v.nodes->path[i], NULL, 0) != 0 ||
		    chg_put(&after, kind, 0, v.nodes->path[i], NULL, 0) != 0 ||
		    apply_note(sum, "- %s %s", side_name(side), v.nodes->path[i]) != 0))
			goto nomem;
	rc = 0;
	goto done;
nomem:
	err_oom(e);
done:
	return finish(ld, c, rq, &before, &after, &v, rc, dry_run, sum, e);
}

/* The path to after a move of from to to: p with its prefix from replaced. */
static void
moved(const char *p, const char *from, const char *to, char out[PATH_MAX_LEN + 1])
{
	snprintf(out, PATH_MAX_LEN + 1, "%s%s", to, p + strlen(from));
}

int
tree_move(const struct cfg *c, enum tree_side side, const char *from,
    const char *to, int dry_run, const char *who, const char *password,
    const struct chg_req *rq, struct apply_summary *sum, struct err *e)
{
	struct chg_list before = { NULL, 0, 0 }, after = { NULL, 0, 0 };
	struct tview v;
	char parent[PATH_MAX_LEN + 1], np[PATH_MAX_LEN + 1];
	char reason[PATH_MAX_LEN + 1], org[PATH_MAX_LEN + 1], name[CELL_MAX_LEN + 1];
	char kind = side == TREE_REASONS ? CHG_REASON : CHG_ORG;
	LDAP *ld = NULL;
	size_t i, j;
	int rc = -1, bad;

	memset(&v, 0, sizeof(v));
	memset(sum, 0, sizeof(*sum));
	if (path_check(to, "to", e) != 0)
		goto done;
	if (open_view(c, side, from, who, password, &ld, &v, e) != 0)
		goto done;
	snprintf(parent, sizeof(parent), "%.*s", (int)path_parent_len(to), to);
	if (*to == '\0' || path_covers(from, to)) {
		err_set(e, ERR_INVALID, 0, "to", "cannot move '%s' to '%s'", from, to);
		goto done;
	}
	if (has_node(&v, to)) {
		err_set(e, ERR_CONFLICT, 0, "to", "%s '%s' exists already", side_name(side), to);
		goto done;
	}
	if (!has_node(&v, parent)) {
		err_set(e, ERR_NOT_FOUND, 0, "to", "no %s node '%s' to move under", side_name(side),
		    parent);
		goto done;
	}
	if (apply_note(sum, "~ %s %s -> %s", side_name(side), from, to) != 0)
		goto nomem;
	/* the subtree: new nodes in, old ones out (change.c orders them) */
	for (i = 0; i < v.nodes->n; i++) {
		if (!path_covers(from, v.nodes->path[i]))
			continue;
		moved(v.nodes->path[i], from, to, np);
		if (chg_put(&before, kind, 1, v.nodes->path[i], NULL, 0) != 0 ||
		    chg_put(&after, kind, 0, v.nodes->path[i], NULL, 0) != 0 ||
		    chg_put(&before, kind, 0, np, NULL, 0) != 0 ||
		    chg_put(&after, kind, 1, np, NULL, 0) != 0)
			goto nomem;
	}
	/* its cells move with their grants */
	for (i = 0; i < v.ncells; i++) {
		const struct dview_cell *dc = v.cells[i];
		const char *sd;

		covers(side, from, dc->name, reason, org, &sd);
		moved(sd, from, to, np);
		cell_join(name, side == TREE_REASONS ? np : reason, side == TREE_REASONS ? org : np);
		if (strmap_get(&v.d.cells, name) != NULL) {
			err_set(e, ERR_CONFLICT, 0, "to", "cell '%s' exists already", name);
			goto done;
		}
		if (chg_put(&before, CHG_CELL, 1, dc->name, dc->grants, dc->ngrants) != 0 ||
		    chg_put(&after, CHG_CELL, 0, dc->name, NULL, 0) != 0 ||
		    chg_put(&before, CHG_CELL, 0, name, NULL, 0) != 0 ||
		    chg_put(&after, CHG_CELL, 1, name, dc->grants, dc->ngrants) != 0 ||
		    apply_note(sum, "~ cell %s -> %s", dc->name, name) != 0)
			goto nomem;
		sum->cells_changed++;
	}
	/* memberships follow their cells */
	for (i = 0; i < v.npeople; i++) {
		const struct dview_person *p = v.people[i];
		size_t nall;
		char **all = ours(p, &nall), **now = strv_new(nall);

		for (j = 0; all && now && j < nall; j++) {
			char rs[PATH_MAX_LEN + 1], os[PATH_MAX_LEN + 1], nm[MEMBERSHIP_MAX];
			const char *sd;
			time_t mf, mu;

			if (covers(side, from, all[j], rs, os, &sd) &&
			    membership_split(all[j], nm, sizeof(nm), &mf, &mu) == 0) {
				moved(sd, from, to, np);
				cell_join(name, side == TREE_REASONS ? np : rs, side == TREE_REASONS ? os : np);
				now[j] = membership_encode(name, mf, mu);
			} else
				now[j] = strdup(all[j]);
			if (now[j] == NULL)
				break;
		}
		bad = all == NULL || now == NULL || j < nall ||
		    chg_put(&before, CHG_ACCOUNT, 1, p->uid, all, nall) != 0 ||
		    chg_put(&after, CHG_ACCOUNT, 1, p->uid, now, nall) != 0;
		free(all);
		strv_free(now);
		if (bad)
			goto nomem;
		sum->accounts_changed++;
	}
	rc = 0;
	goto done;
nomem:
	err_oom(e);
done:
	return finish(ld, c, rq, &before, &after, &v, rc, dry_run, sum, e);
}
