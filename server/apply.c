/* apply.c - import as a diff against LDAP, validated whole, written in one transaction. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <ldap.h>

#include "apply.h"
#include "dn.h"
#include "ldapconn.h"
#include "log.h"
#include "path.h"
#include "strmap.h"

#define UID_BATCH 64

struct op {
	int add;		/* add, else modify */
	char *dn;
#define OP_MODS 6
	LDAPMod mod[OP_MODS];	/* pointed at only when sent: ops move on realloc */
	char **vals[OP_MODS];
	size_t nmod;
};

struct plan {
	struct op *ops;
	size_t nops, cap;
};

/* What the directory holds now. */
struct dir {
	char **reasons, **orgs;
	size_t nreasons, norgs;
	struct strmap cells;	/* cell name -> struct dcell */
	struct strmap people;	/* uid -> struct dperson */
};

struct dcell {
	char *name;
	char **grants;
	size_t ngrants;
};

struct dperson {
	char *uid;
	char *dn;
	int has_class;		/* privAccount present */
	char **cells;		/* current memberships as cell names */
	size_t ncells;
};

static char **
vals_new(size_t n)
{
	return calloc(n + 1, sizeof(char *));
}

static void
vals_free(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static struct op *
op_new(struct plan *p, int add, char *dn)
{
	struct op *o;

	if (dn == NULL)
		return NULL;
	if (p->nops == p->cap) {
		size_t nc = p->cap ? p->cap * 2 : 32;
		struct op *n = realloc(p->ops, nc * sizeof(*n));

		if (n == NULL) {
			free(dn);
			return NULL;
		}
		p->ops = n;
		p->cap = nc;
	}
	o = &p->ops[p->nops++];
	memset(o, 0, sizeof(*o));
	o->add = add;
	o->dn = dn;
	return o;
}

/* Adds a mod owning vals (NULL-terminated, malloc'd strings). */
static int
op_mod(struct op *o, int type, const char *attr, char **vals)
{
	if (vals == NULL || o->nmod == OP_MODS) {
		vals_free(vals);
		return -1;
	}
	o->vals[o->nmod] = vals;
	o->mod[o->nmod].mod_op = type;
	o->mod[o->nmod].mod_type = (char *)attr;
	o->mod[o->nmod].mod_values = vals;
	o->nmod++;
	return 0;
}

static char **
vals_of(const char *a, const char *b)
{
	char **v = vals_new(2);

	if (v == NULL)
		return NULL;
	if ((v[0] = strdup(a)) == NULL || (b && (v[1] = strdup(b)) == NULL)) {
		vals_free(v);
		return NULL;
	}
	return v;
}

static void
plan_free(struct plan *p)
{
	size_t i, j;

	for (i = 0; i < p->nops; i++) {
		for (j = 0; j < p->ops[i].nmod; j++)
			vals_free(p->ops[i].vals[j]);
		free(p->ops[i].dn);
	}
	free(p->ops);
}

static void
dcell_free(struct dcell *c)
{
	size_t j;

	for (j = 0; j < c->ngrants; j++)
		free(c->grants[j]);
	free(c->grants);
	free(c->name);
	free(c);
}

static void
dperson_free(struct dperson *p)
{
	size_t j;

	if (p == NULL)
		return;
	for (j = 0; j < p->ncells; j++)
		free(p->cells[j]);
	free(p->cells);
	free(p->uid);
	free(p->dn);
	free(p);
}

static void
dir_free(struct dir *d)
{
	size_t i;

	vals_free(d->reasons);
	vals_free(d->orgs);
	for (i = 0; i < d->cells.cap; i++)
		if (d->cells.slots[i].key != NULL)
			dcell_free(d->cells.slots[i].val);
	strmap_free(&d->cells);
	for (i = 0; i < d->people.cap; i++)
		if (d->people.slots[i].key != NULL)
			dperson_free(d->people.slots[i].val);
	strmap_free(&d->people);
}

static int
search(LDAP *ld, const struct cfg *c, const char *base, int scope,
    const char *filter, char **attrs, LDAPMessage **res, struct err *e)
{
	struct timeval tv = { c->ldap_timeout_s, 0 };
	int rc = ldap_search_ext_s(ld, base, scope, filter, attrs, 0, NULL, NULL,
	    &tv, 0, res);

	if (rc == LDAP_NO_SUCH_OBJECT) {
		ldap_msgfree(*res);
		*res = NULL;
		return err_set(e, ERR_INTERNAL, 0, NULL,
		    "%s does not exist in the directory (create the privilege subtree first)", base);
	}
	if (rc != LDAP_SUCCESS) {
		ldap_msgfree(*res);
		*res = NULL;
		return ldapc_fail(e, rc, "search");
	}
	return 0;
}

static int
read_tree(LDAP *ld, const struct cfg *c, const char *rdn, const char *cls,
    char ***out, size_t *n, struct err *e)
{
	char *base = dn_join(rdn, c->base_dn), filter[64];
	char *attrs[] = { "1.1", NULL };
	char path[PATH_MAX_LEN + 1];
	LDAPMessage *res = NULL, *m;
	int rc = -1;

	snprintf(filter, sizeof(filter), "(objectClass=%s)", cls);
	if (base == NULL || search(ld, c, base, LDAP_SCOPE_SUBTREE, filter, attrs, &res, e) != 0)
		goto done;
	if ((*out = vals_new(ldap_count_entries(ld, res))) == NULL)
		goto oom;
	for (m = ldap_first_entry(ld, res); m; m = ldap_next_entry(ld, m)) {
		char *dn = ldap_get_dn(ld, m);

		if (dn && dn_path(dn, base, path, sizeof(path)) == 0 && path[0] &&
		    path_check(path, "path", NULL) == 0)
			(*out)[(*n)++] = strdup(path);
		ldap_memfree(dn);
		if (*n && (*out)[*n - 1] == NULL)
			goto oom;
	}
	rc = 0;
	goto done;
oom:
	err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
done:
	ldap_msgfree(res);
	free(base);
	return rc;
}

static int
read_cells(LDAP *ld, const struct cfg *c, struct dir *d, const char *cells_dn,
    struct err *e)
{
	char *attrs[] = { "cn", "privGrant", NULL };
	char name[CELL_MAX_LEN + 1];
	LDAPMessage *res = NULL, *m;
	int rc = -1, failed;

	if (search(ld, c, cells_dn, LDAP_SCOPE_ONELEVEL, "(objectClass=privCell)",
	    attrs, &res, e) != 0)
		return -1;
	for (m = ldap_first_entry(ld, res); m; m = ldap_next_entry(ld, m)) {
		char *dn = ldap_get_dn(ld, m);
		struct berval **g;
		struct dcell *dc;
		size_t i;

		if (dn == NULL || dn_leaf_cn(dn, cells_dn, name, sizeof(name)) != 0) {
			ldap_memfree(dn);
			continue;
		}
		ldap_memfree(dn);
		if ((dc = calloc(1, sizeof(*dc))) == NULL || (dc->name = strdup(name)) == NULL) {
			free(dc);
			goto oom;
		}
		strmap_put(&d->cells, dc->name, dc, &failed);
		if (failed) {
			dcell_free(dc);
			goto oom;
		}
		g = ldap_get_values_len(ld, m, "privGrant");
		dc->grants = calloc(ldap_count_values_len(g) + 1, sizeof(char *));
		for (i = 0; dc->grants && g && g[i]; i++)
			if ((dc->grants[dc->ngrants] = strndup(g[i]->bv_val, g[i]->bv_len)))
				dc->ngrants++;
		ldap_value_free_len(g);
		if (dc->grants == NULL)
			goto oom;
	}
	rc = 0;
	goto done;
oom:
	err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
done:
	ldap_msgfree(res);
	return rc;
}

/* Looks up the uids of d in batches, one escaped filter per batch. */
static int
read_people(LDAP *ld, const struct cfg *c, const struct import_doc *doc,
    struct dir *d, const char *cells_dn, struct err *e)
{
	char *attrs[] = { c->uid_attr, "objectClass", "privMembership", NULL };
	char name[CELL_MAX_LEN + 1];
	size_t i, j, k;
	int failed;

	for (i = 0; i < doc->naccounts; i += UID_BATCH) {
		size_t n = doc->naccounts - i < UID_BATCH ? doc->naccounts - i : UID_BATCH;
		size_t flen = 8;
		char *filter, *f;
		LDAPMessage *res = NULL, *m;

		for (j = 0; j < n; j++)
			flen += strlen(c->uid_attr) + 3 * strlen(doc->accounts[i + j].uid) + 4;
		if ((filter = malloc(flen)) == NULL)
			return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
		f = filter + sprintf(filter, "(|");
		for (j = 0; j < n; j++) {
			struct berval in, out;

			in.bv_val = doc->accounts[i + j].uid;
			in.bv_len = strlen(in.bv_val);
			if (ldap_bv2escaped_filter_value(&in, &out) != 0) {
				free(filter);
				return err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
			}
			f += sprintf(f, "(%s=%s)", c->uid_attr, out.bv_val);
			ber_memfree(out.bv_val);
		}
		sprintf(f, ")");
		if (search(ld, c, c->people_dn, LDAP_SCOPE_SUBTREE, filter, attrs, &res, e) != 0) {
			free(filter);
			return -1;
		}
		free(filter);
		for (m = ldap_first_entry(ld, res); m; m = ldap_next_entry(ld, m)) {
			struct berval **uid = ldap_get_values_len(ld, m, c->uid_attr);
			struct berval **oc = ldap_get_values_len(ld, m, "objectClass");
			struct berval **ms = ldap_get_values_len(ld, m, "privMembership");
			struct dperson *p = calloc(1, sizeof(*p));
			char *dn = ldap_get_dn(ld, m);
			int bad = p == NULL || dn == NULL || uid == NULL || uid[0] == NULL;

			if (!bad) {
				p->uid = strndup(uid[0]->bv_val, uid[0]->bv_len);
				p->dn = strdup(dn);
				p->cells = calloc(ldap_count_values_len(ms) + 1, sizeof(char *));
				bad = !p->uid || !p->dn || !p->cells;
			}
			for (k = 0; !bad && oc && oc[k]; k++)
				if (oc[k]->bv_len == 11 && strncasecmp(oc[k]->bv_val, "privAccount", 11) == 0)
					p->has_class = 1;
			for (k = 0; !bad && ms && ms[k]; k++) {
				char *mdn = strndup(ms[k]->bv_val, ms[k]->bv_len);

				/* a membership that is not a cell of ours is dropped by the replace */
				if (mdn && dn_leaf_cn(mdn, cells_dn, name, sizeof(name)) == 0)
					p->cells[p->ncells++] = strdup(name);
				else
					p->cells[p->ncells++] = strdup("");
				free(mdn);
			}
			ldap_memfree(dn);
			ldap_value_free_len(uid);
			ldap_value_free_len(oc);
			ldap_value_free_len(ms);
			if (!bad && strmap_get(&d->people, p->uid) != NULL) {
				err_set(e, ERR_INVALID, 0, p->uid,
				    "uid %s matches more than one entry under %s", p->uid, c->people_dn);
				bad = 2;
			}
			if (!bad) {
				strmap_put(&d->people, p->uid, p, &failed);
				bad = failed;
			}
			if (bad) {
				dperson_free(p);
				ldap_msgfree(res);
				return bad == 2 ? -1 : err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
			}
		}
		ldap_msgfree(res);
	}
	return 0;
}

static int
same_set(char *const *a, size_t na, char *const *b, size_t nb)
{
	size_t i, j;

	if (na != nb)
		return 0;
	for (i = 0; i < na; i++) {
		for (j = 0; j < nb && strcmp(a[i], b[j]) != 0; j++)
			;
		if (j == nb)
			return 0;
	}
	return 1;
}

static int
plan_nodes(struct plan *p, const struct import_node *nodes, size_t n,
    char *const *have, size_t nhave, const char *container, const char *cls,
    size_t *count)
{
	struct strmap seen;
	size_t i;
	int failed, rc = -1;

	strmap_init(&seen);
	for (i = 0; i < nhave; i++) {
		strmap_put(&seen, have[i], (void *)1, &failed);
		if (failed)
			goto done;
	}
	for (i = 0; i < n; i++) {
		struct op *o;

		if (strmap_get(&seen, nodes[i].path))
			continue;
		if ((o = op_new(p, 1, dn_node(nodes[i].path, container))) == NULL ||
		    op_mod(o, LDAP_MOD_ADD, "objectClass", vals_of(cls, NULL)) != 0 ||
		    op_mod(o, LDAP_MOD_ADD, "cn", vals_of(path_leaf(nodes[i].path), NULL)) != 0)
			goto done;
		strmap_put(&seen, nodes[i].path, (void *)1, &failed);
		if (failed)
			goto done;
		(*count)++;
	}
	rc = 0;
done:
	strmap_free(&seen);
	return rc;
}

static int
plan_new_cell(struct plan *p, const char *name, const char *cells_dn,
    const struct import_cell *ic)
{
	char reason[PATH_MAX_LEN + 1], org[PATH_MAX_LEN + 1];
	struct op *o;
	size_t i;
	char **g;

	cell_split(name, reason, org, NULL);
	if ((o = op_new(p, 1, dn_child("cn", name, cells_dn))) == NULL ||
	    op_mod(o, LDAP_MOD_ADD, "objectClass", vals_of("privCell", NULL)) != 0 ||
	    op_mod(o, LDAP_MOD_ADD, "cn", vals_of(name, NULL)) != 0)
		return -1;
	if (*reason && op_mod(o, LDAP_MOD_ADD, "privCellReason", vals_of(reason, NULL)) != 0)
		return -1;
	if (*org && op_mod(o, LDAP_MOD_ADD, "privCellOrganisation", vals_of(org, NULL)) != 0)
		return -1;
	if (ic == NULL || ic->ngrants == 0)
		return 0;
	if ((g = vals_new(ic->ngrants)) == NULL)
		return -1;
	for (i = 0; i < ic->ngrants; i++)
		if ((g[i] = strdup(ic->grants[i].text)) == NULL) {
			vals_free(g);
			return -1;
		}
	return op_mod(o, LDAP_MOD_ADD, "privGrant", g);
}

static int
plan_build(const struct cfg *c, const struct import_doc *doc, struct dir *d,
    const char *cells_dn, struct plan *p, struct apply_summary *sum, struct err *e)
{
	char *rdn = dn_join("ou=reasons", c->base_dn);
	char *odn = dn_join("ou=organisations", c->base_dn);
	struct strmap planned;
	size_t i, j;
	int rc = -1, failed;

	strmap_init(&planned);
	if (!rdn || !odn)
		goto oom;
	if (plan_nodes(p, doc->reasons, doc->nreasons, d->reasons, d->nreasons, rdn,
	    "privReason", &sum->reasons_added) != 0 ||
	    plan_nodes(p, doc->orgs, doc->norgs, d->orgs, d->norgs, odn,
	    "privOrganisation", &sum->orgs_added) != 0)
		goto oom;
	for (i = 0; i < doc->ncells; i++) {
		const struct import_cell *ic = &doc->cells[i];
		const struct dcell *dc = strmap_get(&d->cells, ic->name);
		char **want;
		struct op *o;

		if (dc == NULL) {
			if (plan_new_cell(p, ic->name, cells_dn, ic) != 0)
				goto oom;
			sum->cells_added++;
		} else {
			if ((want = vals_new(ic->ngrants)) == NULL)
				goto oom;
			for (j = 0; j < ic->ngrants; j++)
				if ((want[j] = strdup(ic->grants[j].text)) == NULL) {
					vals_free(want);
					goto oom;
				}
			if (same_set(want, ic->ngrants, dc->grants, dc->ngrants)) {
				vals_free(want);
			} else {
				if ((o = op_new(p, 0, dn_child("cn", ic->name, cells_dn))) == NULL) {
					vals_free(want);
					goto oom;
				}
				if (op_mod(o, LDAP_MOD_REPLACE, "privGrant", want) != 0)
					goto oom;
				sum->cells_changed++;
			}
		}
		strmap_put(&planned, ic->name, (void *)1, &failed);
		if (failed)
			goto oom;
	}
	for (i = 0; i < doc->naccounts; i++) {
		const struct import_account *a = &doc->accounts[i];
		const struct dperson *dp = strmap_get(&d->people, a->uid);
		char **dns;
		struct op *o;

		for (j = 0; j < a->ncells; j++) {
			if (strmap_get(&d->cells, a->cells[j]) || strmap_get(&planned, a->cells[j]))
				continue;
			if (plan_new_cell(p, a->cells[j], cells_dn, NULL) != 0)
				goto oom;
			sum->cells_added++;
			strmap_put(&planned, a->cells[j], (void *)1, &failed);
			if (failed)
				goto oom;
		}
		if (dp == NULL && !c->create_people) {
			err_set(e, ERR_INVALID, a->line, a->uid,
			    "accounts '%s': no entry with %s=%s under %s (privd does not "
			    "create people unless ldap.create_people is true)",
			    a->uid, c->uid_attr, a->uid, c->people_dn);
			goto done;
		}
		if (dp != NULL && dp->has_class &&
		    same_set(a->cells, a->ncells, dp->cells, dp->ncells))
			continue;
		if ((dns = vals_new(a->ncells)) == NULL)
			goto oom;
		for (j = 0; j < a->ncells; j++)
			if ((dns[j] = dn_child("cn", a->cells[j], cells_dn)) == NULL) {
				vals_free(dns);
				goto oom;
			}
		if (dp == NULL) {
			if ((o = op_new(p, 1, dn_child(c->uid_attr, a->uid, c->people_dn))) == NULL ||
			    op_mod(o, LDAP_MOD_ADD, "objectClass", vals_of("account", "privAccount")) != 0 ||
			    op_mod(o, LDAP_MOD_ADD, c->uid_attr, vals_of(a->uid, NULL)) != 0) {
				vals_free(dns);
				goto oom;
			}
			if (a->ncells > 0) {
				if (op_mod(o, LDAP_MOD_ADD, "privMembership", dns) != 0)
					goto oom;
			} else
				vals_free(dns);
			sum->accounts_created++;
			continue;
		}
		if ((o = op_new(p, 0, strdup(dp->dn))) == NULL) {
			vals_free(dns);
			goto oom;
		}
		if (!dp->has_class &&
		    op_mod(o, LDAP_MOD_ADD, "objectClass", vals_of("privAccount", NULL)) != 0) {
			vals_free(dns);
			goto oom;
		}
		if (op_mod(o, LDAP_MOD_REPLACE, "privMembership", dns) != 0)
			goto oom;
		sum->accounts_changed++;
	}
	rc = 0;
	goto done;
oom:
	err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
done:
	strmap_free(&planned);
	free(rdn);
	free(odn);
	return rc;
}

static int
wait_op(LDAP *ld, const struct cfg *c, int msgid, const struct op *o, struct err *e)
{
	struct timeval tv = { c->ldap_timeout_s, 0 };
	LDAPMessage *res = NULL;
	int rc, err = LDAP_OTHER;
	char *text = NULL;

	rc = ldap_result(ld, msgid, LDAP_MSG_ALL, &tv, &res);
	if (rc <= 0) {
		ldap_msgfree(res);
		return ldapc_fail(e, rc == 0 ? LDAP_TIMEOUT : LDAP_SERVER_DOWN, o->dn);
	}
	ldap_parse_result(ld, res, &err, NULL, &text, NULL, NULL, 1);
	if (err != LDAP_SUCCESS) {
		ldapc_fail(e, err, o->dn);
		if (text && *text && e)
			snprintf(e->msg + strlen(e->msg), sizeof(e->msg) - strlen(e->msg),
			    " (%s)", text);
	}
	ldap_memfree(text);
	return err == LDAP_SUCCESS ? 0 : -1;
}

static int
run_txn(LDAP *ld, const struct cfg *c, const struct plan *p, struct err *e)
{
	struct berval *txnid = NULL;
	LDAPControl ctrl, *ctrls[2] = { &ctrl, NULL };
	size_t i;
	int rc, msgid, failed_id = 0;

	if ((rc = ldap_txn_start_s(ld, NULL, NULL, &txnid)) != LDAP_SUCCESS)
		return ldapc_fail(e, rc, "start transaction");
	ctrl.ldctl_oid = LDAP_CONTROL_TXN_SPEC;
	ctrl.ldctl_value = *txnid;
	ctrl.ldctl_iscritical = 1;
	for (i = 0; i < p->nops; i++) {
		struct op *o = &p->ops[i];
		LDAPMod *mods[OP_MODS + 1];
		size_t j;

		for (j = 0; j < o->nmod; j++)
			mods[j] = &o->mod[j];
		mods[o->nmod] = NULL;
		rc = o->add ? ldap_add_ext(ld, o->dn, mods, ctrls, NULL, &msgid)
		    : ldap_modify_ext(ld, o->dn, mods, ctrls, NULL, &msgid);
		if (rc != LDAP_SUCCESS) {
			ldapc_fail(e, rc, o->dn);
			goto abort;
		}
		if (wait_op(ld, c, msgid, o, e) != 0)
			goto abort;
	}
	rc = ldap_txn_end_s(ld, 1, txnid, NULL, NULL, &failed_id);
	ber_bvfree(txnid);
	if (rc != LDAP_SUCCESS)
		return ldapc_fail(e, rc, "commit (nothing was written)");
	return 0;
abort:
	ldap_txn_end_s(ld, 0, txnid, NULL, NULL, &failed_id);
	ber_bvfree(txnid);
	return -1;
}

/* The entryCSN of dn into out (size n); "" when it cannot be read. */
static void
read_csn(LDAP *ld, const struct cfg *c, const char *dn, char *out, size_t n)
{
	char *attrs[] = { "entryCSN", NULL };
	struct timeval tv = { c->ldap_timeout_s, 0 };
	LDAPMessage *res = NULL, *m;
	struct berval **v;

	out[0] = '\0';
	if (ldap_search_ext_s(ld, dn, LDAP_SCOPE_BASE, "(objectClass=*)", attrs, 0,
	    NULL, NULL, &tv, 1, &res) == LDAP_SUCCESS &&
	    (m = ldap_first_entry(ld, res)) != NULL &&
	    (v = ldap_get_values_len(ld, m, "entryCSN")) != NULL) {
		if (v[0] && v[0]->bv_len < n) {
			memcpy(out, v[0]->bv_val, v[0]->bv_len);
			out[v[0]->bv_len] = '\0';
		}
		ldap_value_free_len(v);
	}
	ldap_msgfree(res);
}

/* The CSNs of the last write in each stream: CSNs grow in the order of
 * the transaction's operations. */
static void
note_csns(LDAP *ld, const struct cfg *c, const struct plan *p,
    struct apply_summary *sum)
{
	const char *last_priv = NULL, *last_people = NULL;
	size_t i;

	for (i = 0; i < p->nops; i++) {
		if (dn_within(p->ops[i].dn, c->base_dn))
			last_priv = p->ops[i].dn;
		else
			last_people = p->ops[i].dn;
	}
	if (last_priv)
		read_csn(ld, c, last_priv, sum->csn_privileges, sizeof(sum->csn_privileges));
	if (last_people)
		read_csn(ld, c, last_people, sum->csn_people, sizeof(sum->csn_people));
}

int
apply_import(const struct cfg *c, const struct import_doc *doc, int dry_run,
    const char *who, const char *password, struct apply_summary *sum,
    struct err *e)
{
	struct dir d;
	struct plan p = { NULL, 0, 0 };
	char *cells_dn = dn_join("ou=cells", c->base_dn);
	LDAP *ld = NULL;
	int rc = -1;

	memset(sum, 0, sizeof(*sum));
	memset(&d, 0, sizeof(d));
	strmap_init(&d.cells);
	strmap_init(&d.people);
	if (cells_dn == NULL) {
		err_set(e, ERR_INTERNAL, 0, NULL, "out of memory");
		goto done;
	}
	if (ldapc_open(c, who, password, &ld, e) != 0)
		goto done;
	if (read_tree(ld, c, "ou=reasons", "privReason", &d.reasons, &d.nreasons, e) != 0 ||
	    read_tree(ld, c, "ou=organisations", "privOrganisation", &d.orgs, &d.norgs, e) != 0)
		goto done;
	if (import_check(c, doc, (const char *const *)d.reasons, d.nreasons,
	    (const char *const *)d.orgs, d.norgs, e) != 0)
		goto done;
	if (read_cells(ld, c, &d, cells_dn, e) != 0 ||
	    read_people(ld, c, doc, &d, cells_dn, e) != 0)
		goto done;
	if (plan_build(c, doc, &d, cells_dn, &p, sum, e) != 0)
		goto done;
	if (dry_run || p.nops == 0) {
		rc = 0;
		goto done;
	}
	if (run_txn(ld, c, &p, e) != 0)
		goto done;
	log_info("import: %zu writes committed", p.nops);
	note_csns(ld, c, &p, sum);
	rc = 0;
done:
	plan_free(&p);
	dir_free(&d);
	ldapc_close(ld);
	free(cells_dn);
	return rc;
}
