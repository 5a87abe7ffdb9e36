/*
 * chgplan.c - a change's writes planned from states (chgplan.h): only
 * what differs from what the directory holds, and with the entryCSN an
 * edit read asserted, so a change between its read and its write fails
 * rather than overwrites.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lber.h>
#include <ldap.h>

#include "chgplan.h"
#include "chgwrite.h"
#include "dn.h"
#include "grant.h"
#include "log.h"
#include "membership.h"
#include "path.h"
#include "pool.h"
#include "strv.h"

static int
plan_node(struct chgw_plan *p, const struct cfg *c, const struct chg_obj *o,
    const struct dview *d)
{
	int reason = o->kind == CHG_REASON;
	int have = strmap_get(reason ? &d->reasons.has : &d->orgs.has, o->key) != NULL;
	char *container = dn_join(reason ? "ou=reasons" : "ou=organisations", c->base_dn);
	int depth = path_depth(o->key), rc = -1;
	struct chgw_op *op;

	if (container == NULL)
		return -1;
	if (o->present && !have) {
		op = chgw_op_new(p, CHGW_NODE_ADD + depth, CHGW_ADD, dn_node(o->key, container));
		if (chgw_op_mod(op, LDAP_MOD_ADD, "objectClass", strv_of(reason ? "privReason" :
		    "privOrganisation", NULL)) != 0 ||
		    chgw_op_mod(op, LDAP_MOD_ADD, "cn", strv_of(path_leaf(o->key), NULL)) != 0)
			goto done;
	} else if (!o->present && have) {
		if (chgw_op_new(p, CHGW_NODE_DEL + PATH_DEPTH_MAX - depth, CHGW_DELETE,
		    dn_node(o->key, container)) == NULL)
			goto done;
	}
	rc = 0;
done:
	free(container);
	return rc;
}

/* The state the edit read of o's object (same kind and key), or NULL. */
static const struct chg_obj *
basis_of(const struct chg_list *basis, const struct chg_obj *o)
{
	size_t i;

	for (i = 0; basis && i < basis->n; i++)
		if (basis->v[i].kind == o->kind && strcmp(basis->v[i].key, o->key) == 0)
			return &basis->v[i];
	return NULL;
}

/* "(entryCSN=CSN)": the write lands only on the entry as it was read. */
static int
assert_csn(struct chgw_op *o, const char *csn)
{
	struct berval in = { strlen(csn), (char *)csn }, esc = { 0, NULL };
	int rc;

	if (o == NULL || *csn == '\0')
		return o == NULL ? -1 : 0;
	if (ldap_bv2escaped_filter_value(&in, &esc) != 0)
		return -1;
	rc = asprintf(&o->assert, "(entryCSN=%s)", esc.bv_val) < 0 ? -1 : 0;
	if (rc != 0)
		o->assert = NULL;
	ber_memfree(esc.bv_val);
	return rc;
}

/* v's names but the empty ones (memberships that are not cells of
 * privd's) into out (room for n); how many. */
static size_t
ours(char *const *v, size_t n, char **out)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (*v[i])
			out[k++] = v[i];
	return k;
}

/* Whether a and b hold the same cells of privd's. */
static int
same_cells(char *const *a, size_t na, char *const *b, size_t nb)
{
	char **va = strv_new(na), **vb = strv_new(nb);
	int same = va && vb && strv_same(va, ours(a, na, va), vb, ours(b, nb, vb));

	free(va);
	free(vb);
	return same;
}

static int
conflict(struct err *e, const char *what, const char *key)
{
	err_set(e, ERR_CONFLICT, 0, "conflict", "%s %s changed since this edit read it", what, key);
	return err_why(e, ERR_WHY_CONFLICT);
}

/*
 * b: the state the edit planned from (a one-entry edit, without a record),
 * or NULL. With it, a cell that no longer looks like b is a conflict, and
 * the write asserts the entryCSN read here: a change between the read and
 * the write makes it fail rather than overwrite (no lost update).
 */
static int
has_pool(char *const *v)
{
	for (; v && *v; v++)
		if (grant_pool_text(*v) != NULL)
			return 1;
	return 0;
}

static int
plan_cell(struct chgw_plan *p, const char *cells_dn, const struct chg_obj *o,
    const struct dview *d, const struct chg_obj *b, struct err *e)
{
	char reason[PATH_MAX_LEN + 1], org[PATH_MAX_LEN + 1];
	const struct dview_cell *dc = strmap_get(&d->cells, o->key);
	char **have = dc ? dc->grants : NULL;
	const char *csn = b && dc ? dc->csn : NULL;
	char **g = NULL, **pl = NULL;
	size_t ng, npl;
	struct chgw_op *op;
	int rc = 0;

	if (b && ((have != NULL) != b->present ||
	    (have && !strv_same(have, strv_len(have), b->vals, b->nvals))))
		return conflict(e, "cell", o->key);
	if (!o->present) {
		if (have && ((op = chgw_op_new(p, CHGW_CELL_DEL, CHGW_DELETE,
		    dn_child("cn", o->key, cells_dn))) == NULL || (csn && assert_csn(op, csn) != 0)))
			return err_oom(e);
		return 0;
	}
	if (have && strv_same(have, strv_len(have), o->vals, o->nvals))
		return 0;
	/* grants go to privGrant, a pool's limits to privPool (pool.h) */
	if (pool_split_vals(o->vals, o->nvals, &g, &ng, &pl, &npl) != 0)
		return err_oom(e);
	if (have) {
		/* replace, not delete: deleting an absent value-less attribute fails */
		op = chgw_op_new(p, CHGW_CELL_PUT, CHGW_MODIFY, dn_child("cn", o->key, cells_dn));
		rc = chgw_op_mod(op, LDAP_MOD_REPLACE, "privGrant", g);
		g = NULL;
		/* privPool only when pools are or were there: a directory
		 * whose schema predates pools keeps taking grant edits */
		if (rc == 0 && (npl > 0 || has_pool(have))) {
			rc = chgw_op_mod(op, LDAP_MOD_REPLACE, "privPool", pl);
			pl = NULL;
		}
		if (rc == 0 && csn)
			rc = assert_csn(op, csn);
		goto done;
	}
	if (cell_split(o->key, reason, org, NULL) != 0)
		goto done;
	op = chgw_op_new(p, CHGW_CELL_PUT, CHGW_ADD, dn_child("cn", o->key, cells_dn));
	if (chgw_op_mod(op, LDAP_MOD_ADD, "objectClass", strv_of("privCell", NULL)) != 0 ||
	    chgw_op_mod(op, LDAP_MOD_ADD, "cn", strv_of(o->key, NULL)) != 0 ||
	    (*reason && chgw_op_mod(op, LDAP_MOD_ADD, "privCellReason", strv_of(reason, NULL)) != 0) ||
	    (*org && chgw_op_mod(op, LDAP_MOD_ADD, "privCellOrganisation", strv_of(org, NULL)) != 0))
		rc = -1;
	else if (ng) {
		rc = chgw_op_mod(op, LDAP_MOD_ADD, "privGrant", g);
		g = NULL;
	}
	if (rc == 0 && npl) {
		rc = chgw_op_mod(op, LDAP_MOD_ADD, "privPool", pl);
		pl = NULL;
	}
done:
	strv_free(g);
	strv_free(pl);
	return rc != 0 ? err_oom(e) : 0;
}

/* A printer's rate card: its entry under ou=printers holds the privRate values. */
static int
plan_printer(struct chgw_plan *p, const struct cfg *c, const struct chg_obj *o,
    struct dview *d, struct err *e)
{
	const struct dview_cell *dp = strmap_get(&d->printers, o->key);
	struct chgw_op *op;

	if (!o->present) {
		if (dp && chgw_op_new(p, CHGW_PRINTER_DEL, CHGW_DELETE,
		    dn_child("cn", o->key, d->printers_dn)) == NULL)
			return err_oom(e);
		return 0;
	}
	if (dp && strv_same(dp->grants, dp->ngrants, o->vals, o->nvals))
		return 0;
	if (!d->printers_ou) {
		op = chgw_op_new(p, CHGW_PRINTERS_OU, CHGW_ADD, dn_join("ou=printers", c->base_dn));
		if (chgw_op_mod(op, LDAP_MOD_ADD, "objectClass", strv_of("organizationalUnit",
		    NULL)) != 0 || chgw_op_mod(op, LDAP_MOD_ADD, "ou", strv_of("printers", NULL)) != 0)
			return err_oom(e);
		d->printers_ou = 1;
	}
	if (dp) {
		op = chgw_op_new(p, CHGW_PRINTER_PUT, CHGW_MODIFY, dn_child("cn", o->key,
		    d->printers_dn));
		return chgw_op_mod(op, LDAP_MOD_REPLACE, "privRate", strv_copy(o->vals, o->nvals))
		    != 0 ? err_oom(e) : 0;
	}
	op = chgw_op_new(p, CHGW_PRINTER_PUT, CHGW_ADD, dn_child("cn", o->key, d->printers_dn));
	if (chgw_op_mod(op, LDAP_MOD_ADD, "objectClass", strv_of("privPrinter", NULL)) != 0 ||
	    chgw_op_mod(op, LDAP_MOD_ADD, "cn", strv_of(o->key, NULL)) != 0 ||
	    chgw_op_mod(op, LDAP_MOD_ADD, "privRate", strv_copy(o->vals, o->nvals)) != 0)
		return err_oom(e);
	return 0;
}

static char **
membership_dns(const struct chg_obj *o, const char *cells_dn)
{
	char **v = strv_new(o->nvals), cell[MEMBERSHIP_MAX];
	time_t from, until;
	size_t i;

	for (i = 0; v && i < o->nvals; i++)
		if (membership_split(o->vals[i], cell, sizeof(cell), &from, &until) != 0 ||
		    (v[i] = dn_child("cn", cell, cells_dn)) == NULL) {
			strv_free(v);
			return NULL;
		}
	return v;
}

/* The privMembershipDates values of o's dated memberships (an empty strv
 * when none). */
static char **
membership_dates(const struct chg_obj *o)
{
	char **v = strv_new(o->nvals);
	size_t i, k = 0;
	int oom = 0;

	for (i = 0; v && i < o->nvals && !oom; i++)
		if ((v[k] = membership_dates_value(o->vals[i], &oom)) != NULL)
			k++;
	if (oom) {
		strv_free(v);
		return NULL;
	}
	return v;
}

/* Whether o has a dated membership. */
static int
has_dates(const struct chg_obj *o)
{
	size_t i;

	for (i = 0; i < o->nvals; i++)
		if (strchr(o->vals[i], '|') != NULL)
			return 1;
	return 0;
}

static int
plan_account(struct chgw_plan *p, const struct cfg *c, const char *cells_dn,
    const struct chg_obj *o, const struct dview *d, const struct chg_obj *b, struct err *e)
{
	const struct dview_person *have = strmap_get(&d->people, o->key);
	struct chgw_op *op;

	if (b && b->kind == CHG_ACCOUNT && (have == NULL || b->present != have->has_class ||
	    (b->present && !same_cells(have->cells, have->ncells, b->vals, b->nvals))))
		return conflict(e, "account", o->key);

	if (o->kind == CHG_PERSON) {
		if (have && chgw_op_new(p, CHGW_PERSON_DEL, CHGW_DELETE, strdup(have->dn)) == NULL)
			return err_oom(e);
		return 0;
	}
	if (!o->present) {
		if (have == NULL || !have->has_class)
			return 0;
		op = chgw_op_new(p, CHGW_PEOPLE, CHGW_MODIFY, strdup(have->dn));
		if (chgw_op_mod(op, LDAP_MOD_REPLACE, "privMembership", strv_new(0)) != 0 ||
		    (have->dated && chgw_op_mod(op, LDAP_MOD_REPLACE, "privMembershipDates",
		    strv_new(0)) != 0) ||
		    chgw_op_mod(op, LDAP_MOD_DELETE, "objectClass", strv_of("privAccount", NULL)) != 0)
			return err_oom(e);
		return 0;
	}
	if (have == NULL) {
		if (!c->create_people)
			return err_set(e, ERR_INVALID, 0, o->key, "accounts '%s': no entry with "
			    "%s=%s under %s (privd does not create people unless "
			    "ldap.create_people is true)", o->key, c->uid_attr, o->key, c->people_dn);
		op = chgw_op_new(p, CHGW_PEOPLE, CHGW_ADD, dn_child(c->uid_attr, o->key, c->people_dn));
		if (chgw_op_mod(op, LDAP_MOD_ADD, "objectClass", strv_of("account", "privAccount")) != 0 ||
		    chgw_op_mod(op, LDAP_MOD_ADD, c->uid_attr, strv_of(o->key, NULL)) != 0 ||
		    (o->nvals && chgw_op_mod(op, LDAP_MOD_ADD, "privMembership",
		    membership_dns(o, cells_dn)) != 0) ||
		    (has_dates(o) && chgw_op_mod(op, LDAP_MOD_ADD, "privMembershipDates",
		    membership_dates(o)) != 0))
			return err_oom(e);
		return 0;
	}
	if (have->has_class && !have->foreign &&
	    strv_same(have->cells, have->ncells, o->vals, o->nvals))
		return 0;
	op = chgw_op_new(p, CHGW_PEOPLE, CHGW_MODIFY, strdup(have->dn));
	if ((!have->has_class &&
	    chgw_op_mod(op, LDAP_MOD_ADD, "objectClass", strv_of("privAccount", NULL)) != 0) ||
	    chgw_op_mod(op, LDAP_MOD_REPLACE, "privMembership", membership_dns(o, cells_dn)) != 0 ||
	    ((has_dates(o) || have->dated) && chgw_op_mod(op, LDAP_MOD_REPLACE, "privMembershipDates",
	    membership_dates(o)) != 0) ||
	    (b && b->kind == CHG_ACCOUNT && assert_csn(op, have->csn) != 0))
		return err_oom(e);
	return 0;
}

/* The uids of l's accounts and people; malloc'd (NULL when out of memory). */
static const char **
uids_of(const struct chg_list *l, size_t *n)
{
	const char **v = calloc(l->n + 1, sizeof(*v));
	size_t i;

	*n = 0;
	for (i = 0; v && i < l->n; i++)
		if (l->v[i].kind == CHG_ACCOUNT || l->v[i].kind == CHG_PERSON)
			v[(*n)++] = l->v[i].key;
	return v;
}

int
chgp_apply(LDAP *ld, const struct cfg *c, const struct chg_list *l,
    const struct chg_list *basis, const char *id, enum chgrec_state expect,
    struct dview *view, struct chg_result *res, struct err *e)
{
	struct chgw_plan p = { NULL, 0, 0 };
	struct dview own, *d = view ? view : &own;
	const char **uids = NULL;
	const char *cells_dn;
	size_t i, nuids;
	int rc = -1;

	dview_init(&own);
	if ((uids = uids_of(l, &nuids)) == NULL) {
		err_oom(e);
		goto done;
	}
	if (dview_read_model(ld, c, d, e) != 0 ||
	    dview_read_people(ld, c, uids, nuids, NULL, d, e) != 0)
		goto done;
	cells_dn = d->cells_dn;
	for (i = 0; i < l->n; i++) {
		const struct chg_obj *o = &l->v[i];
		int r;

		switch (o->kind) {
		case CHG_REASON:
		case CHG_ORG:
			r = plan_node(&p, c, o, d) != 0 ? err_oom(e) : 0;
			break;
		case CHG_CELL:
			r = plan_cell(&p, cells_dn, o, d, basis_of(basis, o), e);
			break;
		case CHG_PRINTER:
			r = plan_printer(&p, c, o, d, e);
			break;
		default:
			r = plan_account(&p, c, cells_dn, o, d, basis_of(basis, o), e);
		}
		if (r != 0)
			goto done;
	}
	rc = chgw_run(ld, c, &p, id, expect, chgrec_check, res, e);
	if (p.n)
		log_info("change%s%s: %zu writes", *id ? " " : "", id, res->writes);
done:
	chgw_plan_free(&p);
	dview_free(&own);
	free(uids);
	return rc;
}

