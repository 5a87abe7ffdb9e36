/*
 * dirview.c - the directory's model as a change sees it (dirview.h): one
 * reader of nodes, cells and person entries for imports, edits and tree
 * moves, so a fix to how an entry is read reaches all three.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <lber.h>
#include <ldap.h>

#include "dirview.h"
#include "dn.h"
#include "ldapconn.h"
#include "membership.h"
#include "path.h"
#include "pool.h"
#include "price.h"
#include "strv.h"

#define BATCH 64

void
dview_init(struct dview *v)
{
	memset(v, 0, sizeof(*v));
	strmap_init(&v->reasons.has);
	strmap_init(&v->orgs.has);
	strmap_init(&v->cells);
	strmap_init(&v->people);
	strmap_init(&v->absent);
	strmap_init(&v->printers);
}

static void
cell_free(struct dview_cell *dc)
{
	strv_free(dc->grants);
	free(dc->name);
	free(dc);
}

static void
person_free(struct dview_person *p)
{
	if (p == NULL)
		return;
	strv_free(p->cells);
	free(p->uid);
	free(p->dn);
	free(p);
}

static void
nodes_free(struct dview_nodes *n)
{
	strv_free(n->path);
	strmap_free(&n->has);
}

void
dview_free(struct dview *v)
{
	size_t i;

	nodes_free(&v->reasons);
	nodes_free(&v->orgs);
	for (i = 0; i < v->cells.cap; i++)
		if (v->cells.slots[i].key != NULL)
			cell_free(v->cells.slots[i].val);
	for (i = 0; i < v->people.cap; i++)
		if (v->people.slots[i].key != NULL)
			person_free(v->people.slots[i].val);
	for (i = 0; i < v->printers.cap; i++)
		if (v->printers.slots[i].key != NULL)
			cell_free(v->printers.slots[i].val);
	for (i = 0; i < v->absent.cap; i++)
		free((char *)v->absent.slots[i].key);
	strmap_free(&v->printers);
	strmap_free(&v->cells);
	strmap_free(&v->people);
	strmap_free(&v->absent);
	free(v->cells_dn);
	free(v->printers_dn);
	memset(v, 0, sizeof(*v));
}

static int
search(LDAP *ld, const struct cfg *c, const char *base, int scope, const char *filter,
    char **attrs, LDAPMessage **res, struct err *e)
{
	int rc = ldapc_search(ld, c, base, scope, filter, attrs, 0, res, e);

	if (rc == 1)
		return err_set(e, ERR_INTERNAL, 0, NULL, "%s does not exist in the directory "
		    "(create the privilege subtree first)", base);
	return rc;
}

/* path into the side's nodes; -1 when out of memory. */
static int
add_node(struct dview_nodes *out, const char *path)
{
	int failed;

	if ((out->path[out->n] = strdup(path)) == NULL)
		return -1;
	strmap_put(&out->has, out->path[out->n++], (void *)1, &failed);
	return failed ? -1 : 0;
}

static int
read_nodes(LDAP *ld, const struct cfg *c, const char *rdn, const char *cls,
    struct dview_nodes *out, struct err *e)
{
	char *base = dn_join(rdn, c->base_dn), filter[64], path[PATH_MAX_LEN + 1];
	char *attrs[] = { "1.1", NULL };
	LDAPMessage *res = NULL, *m;
	int rc = -1;

	snprintf(filter, sizeof(filter), "(objectClass=%s)", cls);
	if (base == NULL || (rc = search(ld, c, base, LDAP_SCOPE_SUBTREE, filter, attrs, &res,
	    e)) != 0 || (out->path = strv_new(ldap_count_entries(ld, res))) == NULL) {
		rc = rc == 0 || base == NULL ? err_oom(e) : -1;
		goto done;
	}
	for (m = ldap_first_entry(ld, res); m && rc == 0; m = ldap_next_entry(ld, m)) {
		char *dn = ldap_get_dn(ld, m);

		if (dn && dn_path(dn, base, path, sizeof(path)) == 0 && path[0] &&
		    path_check(path, "path", NULL) == 0 && add_node(out, path) != 0)
			rc = err_oom(e);
		ldap_memfree(dn);
	}
done:
	ldap_msgfree(res);
	free(base);
	return rc;
}

/* Cell entry m, called name, into v; -1 when out of memory. */
static int
add_cell(LDAP *ld, LDAPMessage *m, const char *name, struct dview *v)
{
	struct dview_cell *dc;
	int failed;

	if ((dc = calloc(1, sizeof(*dc))) == NULL)
		return -1;
	if ((dc->name = strdup(name)) == NULL || (dc->grants = pool_cell_vals(ld, m)) == NULL) {
		cell_free(dc);
		return -1;
	}
	dc->ngrants = strv_len(dc->grants);
	ldapc_get_buf(ld, m, "entryCSN", dc->csn, sizeof(dc->csn));
	strmap_put(&v->cells, dc->name, dc, &failed);
	if (failed)
		cell_free(dc);
	return failed ? -1 : 0;
}

static int
read_cells(LDAP *ld, const struct cfg *c, struct dview *v, struct err *e)
{
	char *attrs[] = { "privGrant", "privPool", "entryCSN", NULL }, name[CELL_MAX_LEN + 1];
	LDAPMessage *res = NULL, *m;
	int rc;

	if (search(ld, c, v->cells_dn, LDAP_SCOPE_ONELEVEL, "(objectClass=privCell)", attrs,
	    &res, e) != 0)
		return -1;
	for (rc = 0, m = ldap_first_entry(ld, res); m && rc == 0; m = ldap_next_entry(ld, m)) {
		char *dn = ldap_get_dn(ld, m);

		if (dn && dn_leaf_cn(dn, v->cells_dn, name, sizeof(name)) == 0 &&
		    add_cell(ld, m, name, v) != 0)
			rc = err_oom(e);
		ldap_memfree(dn);
	}
	ldap_msgfree(res);
	return rc;
}

/* The rate cards under ou=printers (none when it does not exist yet). */
static int
read_printers(LDAP *ld, const struct cfg *c, struct dview *v, struct err *e)
{
	char *attrs[] = { "privRate", "entryCSN", NULL }, name[PRICE_NAME_MAX + 1];
	LDAPMessage *res = NULL, *m;
	struct dview_cell *dp;
	int rc, failed;

	if ((v->printers_dn = dn_join("ou=printers", c->base_dn)) == NULL)
		return err_oom(e);
	rc = ldapc_search(ld, c, v->printers_dn, LDAP_SCOPE_ONELEVEL,
	    "(objectClass=privPrinter)", attrs, 0, &res, e);
	if (rc != 0) {
		ldap_msgfree(res);
		return rc == 1 ? 0 : -1;
	}
	v->printers_ou = 1;
	for (m = ldap_first_entry(ld, res); m && rc == 0; m = ldap_next_entry(ld, m)) {
		char *dn = ldap_get_dn(ld, m);

		if (dn && dn_leaf_cn(dn, v->printers_dn, name, sizeof(name)) == 0) {
			if ((dp = calloc(1, sizeof(*dp))) == NULL || (dp->name = strdup(name)) == NULL ||
			    (dp->grants = ldapc_get_strv(ld, m, "privRate")) == NULL) {
				if (dp)
					cell_free(dp);
				rc = err_oom(e);
			} else {
				dp->ngrants = strv_len(dp->grants);
				ldapc_get_buf(ld, m, "entryCSN", dp->csn, sizeof(dp->csn));
				strmap_put(&v->printers, dp->name, dp, &failed);
				if (failed) {
					cell_free(dp);
					rc = err_oom(e);
				}
			}
		}
		ldap_memfree(dn);
	}
	ldap_msgfree(res);
	return rc;
}

/* ou=cells,BASE into v, once: what memberships are read against. */
static int
cells_dn(struct dview *v, const struct cfg *c, struct err *e)
{
	if (v->cells_dn == NULL && (v->cells_dn = dn_join("ou=cells", c->base_dn)) == NULL)
		return err_oom(e);
	return 0;
}

int
dview_read_model(LDAP *ld, const struct cfg *c, struct dview *v, struct err *e)
{
	if (v->has_model)
		return 0;
	if (cells_dn(v, c, e) != 0)
		return -1;
	if (read_nodes(ld, c, "ou=reasons", "privReason", &v->reasons, e) != 0 ||
	    read_nodes(ld, c, "ou=organisations", "privOrganisation", &v->orgs, e) != 0 ||
	    read_cells(ld, c, v, e) != 0 || read_printers(ld, c, v, e) != 0)
		return -1;
	v->has_model = 1;
	return 0;
}

int
dview_read_dates(LDAP *ld, LDAPMessage *m, char **cells, size_t n)
{
	char **dates = ldapc_get_strv(ld, m, "privMembershipDates");
	int rc;

	if (dates == NULL)
		return -1;
	rc = membership_apply_dates(cells, n, dates) != 0 ? -1 : (int)strv_len(dates);
	strv_free(dates);
	return rc;
}

/* Person entry m into v; *out the person (also when v had it). */
static int
read_person(LDAP *ld, const struct cfg *c, LDAPMessage *m, struct dview *v,
    struct dview_person **out, struct err *e)
{
	struct berval **uid = ldap_get_values_len(ld, m, c->uid_attr);
	struct berval **oc = ldap_get_values_len(ld, m, "objectClass");
	struct berval **ms = ldap_get_values_len(ld, m, "privMembership");
	char name[CELL_MAX_LEN + 1], *dn = ldap_get_dn(ld, m);
	struct dview_person *p = NULL, *had;
	int rc = -1, failed, ndates;
	size_t i;

	*out = NULL;
	if (dn == NULL || uid == NULL || uid[0] == NULL) {
		rc = 0;
		goto done;
	}
	if ((p = calloc(1, sizeof(*p))) == NULL ||
	    (p->uid = strndup(uid[0]->bv_val, uid[0]->bv_len)) == NULL ||
	    (p->dn = strdup(dn)) == NULL ||
	    (p->cells = strv_new(ms ? ldap_count_values_len(ms) : 0)) == NULL)
		goto nomem;
	if ((had = strmap_get(&v->people, p->uid)) != NULL) {
		if (strcasecmp(had->dn, p->dn) != 0) {
			err_set(e, ERR_INVALID, 0, p->uid, "uid %s matches more than one entry "
			    "under %s", p->uid, c->people_dn);
			goto done;
		}
		*out = had;
		rc = 0;
		goto done;
	}
	for (i = 0; oc && oc[i]; i++)
		if (oc[i]->bv_len == 11 && strncasecmp(oc[i]->bv_val, "privAccount", 11) == 0)
			p->has_class = 1;
	ldapc_get_buf(ld, m, "entryCSN", p->csn, sizeof(p->csn));
	for (i = 0; ms && ms[i]; i++) {
		char *mdn = strndup(ms[i]->bv_val, ms[i]->bv_len);
		int ours = mdn && dn_leaf_cn(mdn, v->cells_dn, name, sizeof(name)) == 0;

		free(mdn);
		p->foreign |= !ours;
		if ((p->cells[p->ncells++] = strdup(ours ? name : "")) == NULL)
			goto nomem;
	}
	if ((ndates = dview_read_dates(ld, m, p->cells, p->ncells)) < 0)
		goto nomem;
	p->dated = ndates > 0;
	strmap_put(&v->people, p->uid, p, &failed);
	if (failed)
		goto nomem;
	*out = p;
	p = NULL;
	rc = 0;
	goto done;
nomem:
	err_oom(e);
done:
	person_free(p);
	ldap_memfree(dn);
	ldap_value_free_len(uid);
	ldap_value_free_len(oc);
	ldap_value_free_len(ms);
	return rc;
}

/* The entries filter matches under ldap.people into v; each found one's
 * stored uid into stored[i] where uids[i] names it without case. */
static int
read_batch(LDAP *ld, const struct cfg *c, const char *filter, const char *const *uids,
    size_t n, const char **stored, struct dview *v, struct err *e)
{
	char *attrs[] = { c->uid_attr, "objectClass", "privMembership", "entryCSN",
	    "privMembershipDates", NULL };
	LDAPMessage *res = NULL, *m;
	struct dview_person *p;
	size_t i;
	int rc;

	rc = ldapc_search(ld, c, c->people_dn, LDAP_SCOPE_SUBTREE, filter, attrs, 0, &res, e);
	if (rc == 1)
		return err_set(e, ERR_INTERNAL, 0, NULL, "ldap.people %s does not exist in the "
		    "directory", c->people_dn);
	if (rc != 0)
		return -1;
	for (m = ldap_first_entry(ld, res); m; m = ldap_next_entry(ld, m)) {
		if (read_person(ld, c, m, v, &p, e) != 0) {
			ldap_msgfree(res);
			return -1;
		}
		for (i = 0; p && stored && i < n; i++)
			if (strcasecmp(uids[i], p->uid) == 0)
				stored[i] = p->uid;
	}
	ldap_msgfree(res);
	return 0;
}

/* uid, looked up without an entry found, noted so it is not again. */
static int
absent(struct dview *v, const char *uid)
{
	int failed;
	char *k;

	if (strmap_get(&v->absent, uid) != NULL)
		return 0;
	if ((k = strdup(uid)) == NULL)
		return -1;
	strmap_put(&v->absent, k, (void *)1, &failed);
	if (failed)
		free(k);
	return failed ? -1 : 0;
}

int
dview_read_people(LDAP *ld, const struct cfg *c, const char *const *uids, size_t n,
    const char **stored, struct dview *v, struct err *e)
{
	const char *want[BATCH], *found[BATCH];
	size_t i, k, idx[BATCH];
	char *filter;

	if (cells_dn(v, c, e) != 0)
		return -1;
	for (i = 0; i < n;) {
		for (k = 0; i < n && k < BATCH; i++) {
			const struct dview_person *p = strmap_get(&v->people, uids[i]);

			if (stored != NULL)
				stored[i] = p ? p->uid : NULL;
			if (p == NULL && strmap_get(&v->absent, uids[i]) == NULL) {
				idx[k] = i;
				found[k] = NULL;
				want[k++] = uids[i];
			}
		}
		if (k == 0)
			continue;
		if ((filter = ldapc_or_filter(c->uid_attr, want, k)) == NULL)
			return err_oom(e);
		if (read_batch(ld, c, filter, want, k, found, v, e) != 0) {
			free(filter);
			return -1;
		}
		free(filter);
		while (k-- > 0) {
			if (stored != NULL)
				stored[idx[k]] = found[k];
			if (found[k] == NULL && absent(v, want[k]) != 0)
				return err_oom(e);
		}
	}
	return 0;
}

int
dview_read_members(LDAP *ld, const struct cfg *c, const char *const *cells, size_t n,
    struct dview *v, struct err *e)
{
	const char *dns[BATCH];
	size_t i = 0, k;
	char *filter;
	int rc = 0;

	if (cells_dn(v, c, e) != 0)
		return -1;
	while (rc == 0 && i < n) {
		for (k = 0; i < n && k < BATCH; i++)
			if ((dns[k++] = dn_child("cn", cells[i], v->cells_dn)) == NULL) {
				k--;
				rc = err_oom(e);
				break;
			}
		if (rc == 0 && (filter = ldapc_or_filter("privMembership", dns, k)) == NULL)
			rc = err_oom(e);
		else if (rc == 0) {
			rc = read_batch(ld, c, filter, NULL, 0, NULL, v, e);
			free(filter);
		}
		while (k > 0)
			free((char *)dns[--k]);
	}
	return rc;
}
