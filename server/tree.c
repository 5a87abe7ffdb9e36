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

#define BATCH 64
#define NAMES 5		/* examples named in a refusal */

struct tcell {
	char *name;
	char *dn;
	char **grants;
	size_t ngrants;
	char side[PATH_MAX_LEN + 1];	/* the reason or organisation side */
};

struct tperson {
	char *dn;
	char *uid;
	char **cells;		/* affected cells' DNs it is a member of */
	size_t ncells;
	char **all;		/* every cell of ours it is a member of, by name */
	size_t nall;
};

struct tview {
	char **nodes;		/* paths of the side's tree */
	size_t nnodes;
	struct tcell *cells;	/* every cell */
	size_t ncells;
	struct tperson *people;	/* members of affected cells */
	size_t npeople;
	char *container, *cells_dn;
};

static void
view_free(struct tview *v)
{
	size_t i, j;

	strv_free(v->nodes);
	for (i = 0; i < v->ncells; i++) {
		free(v->cells[i].name);
		free(v->cells[i].dn);
		strv_free(v->cells[i].grants);
	}
	free(v->cells);
	for (i = 0; i < v->npeople; i++) {
		for (j = 0; j < v->people[i].ncells; j++)
			free(v->people[i].cells[j]);
		free(v->people[i].cells);
		strv_free(v->people[i].all);
		free(v->people[i].dn);
		free(v->people[i].uid);
	}
	free(v->people);
	free(v->container);
	free(v->cells_dn);
	memset(v, 0, sizeof(*v));
}

static int
oom(struct err *e)
{
	return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
}

/* The side's node paths and every cell. */
static int
read_view(LDAP *ld, const struct cfg *c, enum tree_side side, struct tview *v,
    struct err *e)
{
	static char *cell_attrs[] = { "cn", "privGrant", "privPool", NULL };
	static char *none[] = { "1.1", NULL };
	char path[PATH_MAX_LEN + 1], reason[PATH_MAX_LEN + 1], org[PATH_MAX_LEN + 1];
	LDAPMessage *res = NULL, *m;
	int rc;

	v->container = dn_join(side == TREE_REASONS ? "ou=reasons" : "ou=organisations",
	    c->base_dn);
	v->cells_dn = dn_join("ou=cells", c->base_dn);
	if (v->container == NULL || v->cells_dn == NULL)
		return oom(e);
	rc = ldapc_search(ld, c, v->container, LDAP_SCOPE_SUBTREE, side == TREE_REASONS ?
	    "(objectClass=privReason)" : "(objectClass=privOrganisation)", none, 0, &res, e);
	if (rc < 0)
		return -1;
	if ((v->nodes = strv_new(res ? (size_t)ldap_count_entries(ld, res) : 0)) == NULL)
		goto nomem;
	for (m = res ? ldap_first_entry(ld, res) : NULL; m; m = ldap_next_entry(ld, m)) {
		char *dn = ldap_get_dn(ld, m);

		if (dn && dn_path(dn, v->container, path, sizeof(path)) == 0 && path[0] &&
		    (v->nodes[v->nnodes++] = strdup(path)) == NULL) {
			ldap_memfree(dn);
			goto nomem;
		}
		ldap_memfree(dn);
	}
	ldap_msgfree(res);
	res = NULL;
	rc = ldapc_search(ld, c, v->cells_dn, LDAP_SCOPE_ONELEVEL, "(objectClass=privCell)",
	    cell_attrs, 0, &res, e);
	if (rc < 0)
		return -1;
	if ((v->cells = calloc((res ? (size_t)ldap_count_entries(ld, res) : 0) + 1,
	    sizeof(*v->cells))) == NULL)
		goto nomem;
	for (m = res ? ldap_first_entry(ld, res) : NULL; m; m = ldap_next_entry(ld, m)) {
		struct tcell *tc = &v->cells[v->ncells];

		if ((tc->name = ldapc_get_str(ld, m, "cn")) == NULL ||
		    cell_split(tc->name, reason, org, NULL) != 0) {
			free(tc->name);
			tc->name = NULL;
			continue;
		}
		snprintf(tc->side, sizeof(tc->side), "%s", side == TREE_REASONS ? reason : org);
		/* grants and pools: a moved cell keeps both */
		if ((tc->grants = pool_cell_vals(ld, m)) == NULL)
			goto nomem;
		tc->ngrants = strv_len(tc->grants);
		if ((tc->dn = dn_child("cn", tc->name, v->cells_dn)) == NULL)
			goto nomem;
		v->ncells++;
	}
	ldap_msgfree(res);
	return 0;
nomem:
	ldap_msgfree(res);
	return oom(e);
}

static int
covered(const struct tcell *tc, const char *path)
{
	return tc->side[0] != '\0' && path_covers(path, tc->side);
}

/* The members of the cells under path (batches of escaped filters). */
static int
read_members(LDAP *ld, const struct cfg *c, const char *path, struct tview *v,
    struct err *e)
{
	char *attrs[] = { c->uid_attr, "privMembership", "privMembershipDates", NULL };
	size_t i = 0, j, k;

	while (i < v->ncells) {
		char *filter = NULL, *nf;
		size_t n = 0;
		LDAPMessage *res = NULL, *m;

		if ((filter = strdup("(|")) == NULL)
			return oom(e);
		for (; i < v->ncells && n < BATCH; i++) {
			struct berval in, out = { 0, NULL };

			if (!covered(&v->cells[i], path))
				continue;
			in.bv_val = v->cells[i].dn;
			in.bv_len = strlen(in.bv_val);
			if (ldap_bv2escaped_filter_value(&in, &out) != 0 ||
			    asprintf(&nf, "%s(privMembership=%s)", filter, out.bv_val) < 0) {
				ber_memfree(out.bv_val);
				free(filter);
				return oom(e);
			}
			ber_memfree(out.bv_val);
			free(filter);
			filter = nf;
			n++;
		}
		if (n == 0) {
			free(filter);
			break;
		}
		if (asprintf(&nf, "%s)", filter) < 0) {
			free(filter);
			return oom(e);
		}
		free(filter);
		if (ldapc_search(ld, c, c->people_dn, LDAP_SCOPE_SUBTREE, nf, attrs, 0, &res, e) < 0) {
			free(nf);
			return -1;
		}
		free(nf);
		for (m = res ? ldap_first_entry(ld, res) : NULL; m; m = ldap_next_entry(ld, m)) {
			struct berval **ms = ldap_get_values_len(ld, m, "privMembership");
			char *dn = ldap_get_dn(ld, m);
			struct tperson *p = NULL, *np;

			for (k = 0; dn && k < v->npeople; k++)
				if (strcmp(v->people[k].dn, dn) == 0)
					p = &v->people[k];
			if (dn && p == NULL) {
				if ((np = realloc(v->people, (v->npeople + 1) * sizeof(*np))) == NULL)
					goto fail;
				v->people = np;
				p = &v->people[v->npeople++];
				memset(p, 0, sizeof(*p));
				p->dn = strdup(dn);
				p->uid = ldapc_get_str(ld, m, c->uid_attr);
				if ((p->cells = strv_new(ms ? (size_t)ldap_count_values_len(ms) : 0)) == NULL ||
				    (p->all = strv_new(ms ? (size_t)ldap_count_values_len(ms) : 0)) == NULL)
					goto fail;
				for (j = 0; ms && ms[j]; j++) {
					char *mdn = strndup(ms[j]->bv_val, ms[j]->bv_len);
					char nm[CELL_MAX_LEN + 1];

					if (mdn && dn_leaf_cn(mdn, v->cells_dn, nm, sizeof(nm)) == 0 &&
					    (p->all[p->nall++] = strdup(nm)) == NULL) {
						free(mdn);
						goto fail;
					}
					free(mdn);
				}
				/* dated memberships keep their dates through a move */
				if (dview_read_dates(ld, m, p->all, p->nall) < 0)
					goto fail;
			}
			for (j = 0; p && ms && ms[j]; j++)
				for (k = 0; k < v->ncells; k++)
					if (covered(&v->cells[k], path) &&
					    strlen(v->cells[k].dn) == ms[j]->bv_len &&
					    strncasecmp(v->cells[k].dn, ms[j]->bv_val, ms[j]->bv_len) == 0) {
						size_t q;
						int dup = 0;

						for (q = 0; q < p->ncells; q++)
							dup |= strcmp(p->cells[q], v->cells[k].dn) == 0;
						if (!dup && (p->cells[p->ncells++] = strndup(ms[j]->bv_val,
						    ms[j]->bv_len)) == NULL)
							goto fail;
						break;
					}
			ldap_memfree(dn);
			ldap_value_free_len(ms);
			continue;
fail:
			ldap_memfree(dn);
			ldap_value_free_len(ms);
			ldap_msgfree(res);
			return oom(e);
		}
		ldap_msgfree(res);
	}
	return 0;
}

static int
has_node(const struct tview *v, const char *path)
{
	size_t i;

	for (i = 0; i < v->nnodes; i++)
		if (strcmp(v->nodes[i], path) == 0)
			return 1;
	return path[0] == '\0';
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
	if (read_view(*ld, c, side, v, e) != 0)
		return -1;
	if (!has_node(v, path))
		return err_set(e, ERR_NOT_FOUND, 0, "path", "no %s node '%s'", side_name(side), path);
	return read_members(*ld, c, path, v, e);
}

int
tree_delete(const struct cfg *c, enum tree_side side, const char *path,
    int force, int dry_run, const char *who, const char *password,
    const struct chg_req *rq, struct apply_summary *sum, struct err *e)
{
	struct chg_list before = { NULL, 0, 0 }, after = { NULL, 0, 0 };
	struct chg_result res;
	struct tview v;
	char names[256] = "", cells[256] = "", kind = side == TREE_REASONS ? CHG_REASON : CHG_ORG;
	size_t i, j, grants = 0, ncells = 0;
	LDAP *ld = NULL;
	int rc = -1;

	memset(&v, 0, sizeof(v));
	memset(sum, 0, sizeof(*sum));
	if (open_view(c, side, path, who, password, &ld, &v, e) != 0)
		goto done;
	for (i = 0; i < v.ncells; i++)
		if (covered(&v.cells[i], path)) {
			grants += v.cells[i].ngrants;
			if (v.cells[i].ngrants && ncells++ < NAMES)
				snprintf(cells + strlen(cells), sizeof(cells) - strlen(cells), "%s%s",
				    *cells ? ", " : "", v.cells[i].name);
		}
	for (i = 0; i < v.npeople && i < NAMES; i++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
		    *names ? ", " : "", v.people[i].uid ? v.people[i].uid : v.people[i].dn);
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
		struct tperson *p = &v.people[i];
		char **keep = strv_new(p->nall);
		size_t k = 0;

		if (p->uid == NULL)
			continue;
		for (j = 0; keep && j < p->nall; j++) {
			char rs[PATH_MAX_LEN + 1], os[PATH_MAX_LEN + 1], nm[MEMBERSHIP_MAX];
			time_t from, until;

			if (membership_split(p->all[j], nm, sizeof(nm), &from, &until) == 0 &&
			    cell_split(nm, rs, os, NULL) == 0 &&
			    path_covers(path, side == TREE_REASONS ? rs : os) &&
			    *(side == TREE_REASONS ? rs : os))
				continue;
			if ((keep[k++] = strdup(p->all[j])) == NULL) {
				strv_free(keep);
				keep = NULL;
			}
		}
		if (keep == NULL ||
		    chg_put(&before, CHG_ACCOUNT, 1, p->uid, p->all, p->nall) != 0 ||
		    chg_put(&after, CHG_ACCOUNT, 1, p->uid, keep, k) != 0 ||
		    apply_note(sum, "- memberships of %s in %zu cell%s", p->uid, p->ncells,
		    p->ncells == 1 ? "" : "s") != 0) {
			strv_free(keep);
			goto nomem;
		}
		strv_free(keep);
		sum->accounts_changed++;
	}
	for (i = 0; i < v.ncells; i++)
		if (covered(&v.cells[i], path)) {
			if (chg_put(&before, CHG_CELL, 1, v.cells[i].name, v.cells[i].grants,
			    v.cells[i].ngrants) != 0 ||
			    chg_put(&after, CHG_CELL, 0, v.cells[i].name, NULL, 0) != 0 ||
			    apply_note(sum, "- cell %s (%zu grant%s)", v.cells[i].name,
			    v.cells[i].ngrants, v.cells[i].ngrants == 1 ? "" : "s") != 0)
				goto nomem;
		}
	/* the node and everything below it; change.c deletes leaves first */
	for (i = 0; i < v.nnodes; i++)
		if (path_covers(path, v.nodes[i]) &&
		    (chg_put(&before, kind, 1, v.nodes[i], NULL, 0) != 0 ||
		    chg_put(&after, kind, 0, v.nodes[i], NULL, 0) != 0 ||
		    apply_note(sum, "- %s %s", side_name(side), v.nodes[i]) != 0))
			goto nomem;
	rc = dry_run ? 0 : chg_run(ld, c, rq, &before, &after, NULL, &res, e);
	if (rc == 0 && !dry_run)
		snprintf(sum->import_id, sizeof(sum->import_id), "%s", res.id);
	goto done;
nomem:
	oom(e);
done:
	if (rc != 0)
		apply_summary_free(sum);
	chg_list_free(&before);
	chg_list_free(&after);
	view_free(&v);
	ldapc_close(ld);
	return rc;
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
	struct chg_result res;
	struct tview v;
	char parent[PATH_MAX_LEN + 1], np[PATH_MAX_LEN + 1];
	char reason[PATH_MAX_LEN + 1], org[PATH_MAX_LEN + 1], name[CELL_MAX_LEN + 1];
	char kind = side == TREE_REASONS ? CHG_REASON : CHG_ORG;
	LDAP *ld = NULL;
	size_t i, j, k;
	int rc = -1;

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
	for (i = 0; i < v.nnodes; i++) {
		if (!path_covers(from, v.nodes[i]))
			continue;
		moved(v.nodes[i], from, to, np);
		if (chg_put(&before, kind, 1, v.nodes[i], NULL, 0) != 0 ||
		    chg_put(&after, kind, 0, v.nodes[i], NULL, 0) != 0 ||
		    chg_put(&before, kind, 0, np, NULL, 0) != 0 ||
		    chg_put(&after, kind, 1, np, NULL, 0) != 0)
			goto nomem;
	}
	/* its cells move with their grants */
	for (i = 0; i < v.ncells; i++) {
		if (!covered(&v.cells[i], from))
			continue;
		cell_split(v.cells[i].name, reason, org, NULL);
		moved(v.cells[i].side, from, to, np);
		cell_join(name, side == TREE_REASONS ? np : reason, side == TREE_REASONS ? org : np);
		for (k = 0; k < v.ncells; k++)
			if (strcmp(v.cells[k].name, name) == 0) {
				err_set(e, ERR_CONFLICT, 0, "to", "cell '%s' exists already", name);
				goto done;
			}
		if (chg_put(&before, CHG_CELL, 1, v.cells[i].name, v.cells[i].grants,
		    v.cells[i].ngrants) != 0 ||
		    chg_put(&after, CHG_CELL, 0, v.cells[i].name, NULL, 0) != 0 ||
		    chg_put(&before, CHG_CELL, 0, name, NULL, 0) != 0 ||
		    chg_put(&after, CHG_CELL, 1, name, v.cells[i].grants, v.cells[i].ngrants) != 0 ||
		    apply_note(sum, "~ cell %s -> %s", v.cells[i].name, name) != 0)
			goto nomem;
		sum->cells_changed++;
	}
	/* memberships follow their cells */
	for (i = 0; i < v.npeople; i++) {
		struct tperson *p = &v.people[i];
		char **now = strv_new(p->nall);

		if (now == NULL)
			goto nomem;
		for (j = 0; j < p->nall; j++) {
			char rs[PATH_MAX_LEN + 1], os[PATH_MAX_LEN + 1], nm[MEMBERSHIP_MAX];
			const char *sd;
			time_t mf, mu;

			now[j] = NULL;
			if (membership_split(p->all[j], nm, sizeof(nm), &mf, &mu) == 0 &&
			    cell_split(nm, rs, os, NULL) == 0 &&
			    *(sd = side == TREE_REASONS ? rs : os) && path_covers(from, sd)) {
				moved(sd, from, to, np);
				cell_join(name, side == TREE_REASONS ? np : rs, side == TREE_REASONS ? os : np);
				now[j] = membership_encode(name, mf, mu);
			} else
				now[j] = strdup(p->all[j]);
			if (now[j] == NULL) {
				strv_free(now);
				goto nomem;
			}
		}
		if (p->uid != NULL &&
		    (chg_put(&before, CHG_ACCOUNT, 1, p->uid, p->all, p->nall) != 0 ||
		    chg_put(&after, CHG_ACCOUNT, 1, p->uid, now, p->nall) != 0)) {
			strv_free(now);
			goto nomem;
		}
		strv_free(now);
		sum->accounts_changed++;
	}
	rc = dry_run ? 0 : chg_run(ld, c, rq, &before, &after, NULL, &res, e);
	if (rc == 0 && !dry_run)
		snprintf(sum->import_id, sizeof(sum->import_id), "%s", res.id);
	goto done;
nomem:
	oom(e);
done:
	if (rc != 0)
		apply_summary_free(sum);
	chg_list_free(&before);
	chg_list_free(&after);
	view_free(&v);
	ldapc_close(ld);
	return rc;
}
